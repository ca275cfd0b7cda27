"""Lines of Action reference data: the bench positions and their pinned node count.

The bench searches each position to BENCH_DEPTH with an empty table; BENCH_NODES is the
total. A change of it is a change of search or evaluation behaviour and says so in its
commit. The three positions after the start come from seeded random games (seeds 11,
22 and 33, after 12, 24 and 36 plies), so they carry their ply counters.
"""

#: Perft depth of the bench from the start position (a fraction of a second).
BENCH_PERFT_DEPTH = 3
BENCH_POSITIONS = (
    ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b ply=0",
    "wb....b./......ww/wbb.b.../w....w.w/w....w.w/..b...../w.....bw/.bbb..b. b ply=12",
    ".b..bwb./w.b.w..w/.......b/.....w../w....bww/..w...b./w..w.w../.b...b.. b ply=24",
    "....b.../b...w.w./.w.b.b.w/..b...../w.w..b.w/....bbw./....b.../.bwb.w.. b ply=36",
)
BENCH_DEPTH = 3
BENCH_NODES = 8991
