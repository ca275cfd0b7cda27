"""Knight Isolation reference data: bench positions and the pinned bench node count.

The bench searches each position to BENCH_DEPTH plies (paranoid search) with an empty
table; BENCH_NODES is the total. A change of it is a change of search or evaluation
behaviour. The positions come from seeded random games.
"""

#: Perft depth of the bench from the start position (seed 0).
BENCH_PERFT_DEPTH = 8
BENCH_POSITIONS = (
    "......../......../..b...r./......../......../......../....g.../........ r alive=rgb",
    ".g..#.#./..b.r.../#..#.#../......../.#....../......../......../........ r alive=rgb",
    "g...#.../..#..b../.#.#.#../.#.#.##./...#r.##/.#..##../......../........ b alive=rb",
    "......../#.###.../.##.#.##/.#####.#/b...###./.##r..#./...##.../..#...g. r alive=rgb",
)
BENCH_DEPTH = 7
BENCH_NODES = 14103
