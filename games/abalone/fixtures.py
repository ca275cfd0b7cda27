"""Abalone reference data: the bench positions and their pinned node count.

The bench searches each position to BENCH_DEPTH with an empty table; BENCH_NODES is the
total. A change of it is a change of search or evaluation behaviour and says so in its
commit.
"""

#: Perft depth of the bench from the start position.
BENCH_PERFT_DEPTH = 3
BENCH_POSITIONS = (
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=0 score2=0 turn=0",
)
BENCH_DEPTH = 2
BENCH_NODES = 180
