"""Othello reference data: the bench positions and their pinned node count, and the
exact-solve suites the bench times.

The bench searches each position to BENCH_DEPTH with an empty table; BENCH_NODES is the
total with the default evaluation (the trained patterns: new weights change it) and
multi-ProbCut at its default confidence (its fit, `probcut.json`, changes it too),
OTHER_BENCH_NODES with the hand-set one (which has no fit). A change of either is a change of search or
evaluation behaviour and says so in its commit. The three mid-game positions come from
random games (Python's `random.Random` seeded 1, 2 and 3, a uniform choice among the
legal moves for 14, 24 and 34 plies).
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
BENCH_NODES = 13478
OTHER_BENCH_NODES = {"classic": 57149}

#: The exact-solve suites of the bench, the FFO endgame problems: (label, file, the
#: number of the file's first position, the numbers solved, the seconds Edax 4.6 takes on
#: the reference machine, one thread) in the folder SOLVE_SUITE_FOLDER of the data.
SOLVE_SUITE_FOLDER = "othello-endgame"
SOLVE_SUITES = (
    ("FFO #1-#19", "fforum-1-19.obf", 1, range(1, 20), 0.063),
    ("FFO #21-#37", "fforum-20-39.obf", 20, range(21, 38), 8.0),
    ("FFO #38", "fforum-20-39.obf", 20, range(38, 39), 19.6),
    ("FFO #39", "fforum-20-39.obf", 20, range(39, 40), 3.4),
    ("FFO #40-#49", "fforum-40-59.obf", 40, range(40, 50), 194.0),
)
_PIECES = {"X": "0", "O": "1", "-": "."}


def read_suite(text: str, first: int) -> list[tuple[int, str, int]]:
    """(number, board text, best score in the file) of each position of an FFO file
    (`text`, its first position numbered `first`)."""
    positions = []
    for number, line in enumerate(text.splitlines(), start=first):
        squares, side, *scores = line.replace(";", " ").split()
        rows = ["".join(_PIECES[square] for square in squares[row * 8:row * 8 + 8]) for row in range(8)]
        positions.append((number, f"{'/'.join(rows)} {_PIECES[side]}", int(scores[0].split(":")[1])))
    return positions


def agrees(board: str, margin: int, best: int) -> bool:
    """Whether a proved disc margin for the side to move agrees with the file's best
    score: the same win, loss or draw, and the file's margin once the empty squares left
    at the end (at most those of the board) go to the winner, as its scoring rule has it
    and CodinGame's does not."""
    empties = board.split()[0].count(".")
    return ((margin > 0) == (best > 0) and (margin < 0) == (best < 0)
            and abs(margin) <= abs(best) <= abs(margin) + empties)
