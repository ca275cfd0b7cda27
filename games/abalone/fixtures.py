"""Abalone reference data: the bench positions and their pinned node count.

The bench searches each position to BENCH_DEPTH with an empty table; BENCH_NODES is the
total. A change of it is a change of search or evaluation behaviour and says so in its
commit. The three mid-game positions come from random games (Python's `random.Random`
seeded 1, 2 and 3, a uniform choice among the legal moves for 30, 60 and 90 plies).
"""

#: Perft depth of the bench from the start position (98912 leaves, a fraction of a second).
BENCH_PERFT_DEPTH = 3
BENCH_POSITIONS = (
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=0 score2=0 turn=0",
    "10010/011100/1011011/00110010/002120000/00022200/0200000/222202/20022 2 score1=0 score2=0 turn=30",
    "00011/011001/0110112/10011120/001000000/00000020/2202220/002202/22002 2 score1=0 score2=0 turn=60",
    "01010/010001/0010100/00101002/010201120/01120200/0010020/020222/20222 2 score1=0 score2=0 turn=90",
)
#: About a second (depth 3 takes about a quarter of one).
BENCH_DEPTH = 4
BENCH_NODES = 68191
