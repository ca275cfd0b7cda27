"""Othello reference data: the bench positions and their pinned node count.

The bench searches each position to BENCH_DEPTH with an empty table; BENCH_NODES is the
total. A change of it is a change of search or evaluation behaviour and says so in its
commit. The three mid-game positions come from random games (Python's `random.Random`
seeded 1, 2 and 3, a uniform choice among the legal moves for 14, 24 and 34 plies).
"""

#: Perft depth of the bench from the start position (55092 leaves, a fraction of a second).
BENCH_PERFT_DEPTH = 7
BENCH_POSITIONS = (
    "......../......../......../...10.../...01.../......../......../........ 0",
    ".1....../..11..../...11.../..011.../.0001.../.1.0..../1..000../........ 0",
    ".......0/......0./.00000../..0000../110001../.11110../.0000.../0..0.... 0",
    "..1000../..0110../001.1111/.101111./111011../010.10../...0010./......10 0",
)
BENCH_DEPTH = 7
BENCH_NODES = 51693
