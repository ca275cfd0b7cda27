"""Clobber reference data: the bench positions and their pinned node count.

The bench searches each position to BENCH_DEPTH with an empty table; BENCH_NODES is the
total. A change of it is a change of search or evaluation behaviour and says so in its
commit.
"""

#: Perft depth of the bench from the start position (a fraction of a second).
BENCH_PERFT_DEPTH = 3
BENCH_POSITIONS = (
    "wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw w",
    "wbwbwwwb/w.bwb.bw/wbw.bbww/.b.wbwb./wbbbwbww/bwwwbb../wb.bb.wb/bwbwbwbw w",
    "wbwbww.b/w.bb..ww/wbw.bbww/.b.www../wwbb.bbw/b.wwbb../...bb.b./b.b.wwbw w",
    "ww..bw../w..b..wb/wbb.w.ww/.b.ww.../w.wb.bbw/b.w.bb../...w..b./b.b..bbw w",
)
BENCH_DEPTH = 4
BENCH_NODES = 57130
