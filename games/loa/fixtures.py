"""Lines of Action reference data: the bench positions and their pinned node count."""

BENCH_PERFT_DEPTH = 3
BENCH_POSITIONS = (
    ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b ply=0",
)
BENCH_DEPTH = 2
BENCH_NODES = 142
