"""Lines of Action evaluation: how close each side is to one group, and how free it is.

Every term is computed for both sides and enters as (black's - white's); the value is
returned as (v, -v). The scale is centi-checkers (CENTI = 100), although material itself
is no term: a capture is double-edged in LOA (the fewer checkers the opponent has, the
fewer it must join), so checkers count only through the shape terms. For a side of 12
checkers, 100 is about three king steps of its checkers toward their centre of mass
(concentration) or six more legal moves than the opponent's.

- Concentration (CONCENTRATION per unit): the sum of the king-move distances from each
  checker to the side's centre of mass (rounded to a square), minus the smallest sum
  possible for that many checkers (0 for 1, n - 1 for up to 9, then 2 per extra
  checker), divided by the number of checkers. The most important term: it is 0 for a
  tight cluster and about 2.5 in the start position.
- Centralisation (CENTRALISATION per table point, averaged over the checkers): the
  square table CENTRE_TABLE, from -8 in a corner to +5 in the four centre squares.
  Central checkers connect and move more easily.
- Centre of mass (CENTRE_OF_MASS per table point): the same table at the centre of mass;
  a group pinned to an edge is easy to block.
- Quads (QUADS per quad): 2x2 windows holding 3 or 4 of the side's checkers, solid
  formations that are hard to break.
- Euler number (EULER per unit, counted against the side): for 8-connectivity, E = (Q1 - Q3 - 2 QD) / 4
  over the 81 2x2 windows that touch the board (Q1 windows with one checker, Q3 with
  three, QD with two on a diagonal) is the number of groups minus the number of holes.
  It counts the groups still to join, and E > 5 rules out a connection in one move.
- Mobility (MOBILITY per half move): each legal move counts 2, 1 if it lands on an edge,
  and a capture counts CAPTURE more.
- Blocked checkers (BLOCKED each): checkers of the side that have no move at all.
- Walls (WALL each): enemy checkers on an edge whose three inward neighbours (those on
  the board) all hold the side's checkers; such a checker cannot step off its edge.
- Win in one (WIN_IN_ONE): the side to move has a move that joins all its checkers: it
  wins on the next ply, whatever else. It makes the evaluation a one-ply lookahead on
  connections, which the search would otherwise see one ply later.
- Threat (THREAT): the side not to move has such a move; the side to move may parry it.
- Tempo (TEMPO): a small bonus to the side to move.
- Draw horizon: within HORIZON plies of the 150-ply cap, every term but the win in one
  shrinks in proportion to the plies left, since only a connection before the cap
  counts.

Mobility is counted line by line: each of the 42 lines of two or more squares maps its
black and white checkers to both sides' weighted moves along it, checkers with a move
and the moves themselves, memoised per line (one dictionary look-up per line instead of
a walk over every checker's four lines for each side).

The win and threat tests look for a move whose origin's group and landing square could
join every group: the landing square must touch every other group (a square touches at
most 4 separate groups, so with more than 5 groups there is none); only those few moves
get the full flood-fill test.

Weights in centi-checkers, chosen by hand and then adjusted by fixed-depth self-play
matches of this evaluation against copies with one weight changed (80-game matches from
randomised openings): a larger concentration and mobility weight won, a larger Euler
weight lost clearly, the others were within the noise.
"""

from __future__ import annotations

from games.loa.bitboards import (
    EDGES,
    FILE_A,
    FILE_H,
    FULL,
    JUMPS,
    LINE_MASKS,
    MAX_PLIES,
    NOT_FILE_H,
    RANK_1,
    RANK_8,
    connected,
    dilate,
    groups,
)

CONCENTRATION = 400
CENTRALISATION = 6
CENTRE_OF_MASS = 6
QUADS = 12
EULER = 20
MOBILITY = 8
#: Extra half moves a capture counts in the mobility.
CAPTURE = 2
BLOCKED = 15
WALL = 25
WIN_IN_ONE = 50_000
THREAT = 150
TEMPO = 10
HORIZON = 20

#: Smallest sum of king-move distances to a centre square for n checkers (n = 0..12).
MIN_DISTANCE_SUM = (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14)


def _chebyshev(a: int, b: int) -> int:
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


#: OUTSIDE[c][d]: the squares farther than d king moves from c, d = 0..6; the sum of the
#: checkers outside each ball is the sum of their distances to c.
OUTSIDE = tuple(
    tuple(sum(1 << s for s in range(64) if _chebyshev(c, s) > d) for d in range(7))
    for c in range(64)
)

#: The square table, rank 8 first as the board text reads.
_TABLE_ROWS = (
    (-8, -3, -2, -2, -2, -2, -3, -8),
    (-3, 0, 1, 1, 1, 1, 0, -3),
    (-2, 1, 3, 3, 3, 3, 1, -2),
    (-2, 1, 3, 5, 5, 3, 1, -2),
    (-2, 1, 3, 5, 5, 3, 1, -2),
    (-2, 1, 3, 3, 3, 3, 1, -2),
    (-3, 0, 1, 1, 1, 1, 0, -3),
    (-8, -3, -2, -2, -2, -2, -3, -8),
)
CENTRE_TABLE = tuple(_TABLE_ROWS[7 - (s >> 3)][s & 7] for s in range(64))
#: The table as (value, squares holding it) pairs, so a sum over checkers is popcounts.
_TABLE_LAYERS = tuple(
    (value, sum(1 << s for s in range(64) if CENTRE_TABLE[s] == value))
    for value in sorted(set(CENTRE_TABLE)) if value
)

#: Squares whose file (rank) has bit k set, to sum files (ranks) by popcounts.
_FILE_BITS = tuple(sum(1 << s for s in range(64) if (s & 7) >> k & 1) for k in range(3))
_RANK_BITS = tuple(sum(1 << s for s in range(64) if (s >> 3) >> k & 1) for k in range(3))

#: Anchors (lower-left squares) of the 49 2x2 windows inside the board.
_INNER = NOT_FILE_H & ~RANK_8 & FULL
#: Lower squares of the vertical pairs on files a and h, left squares of the horizontal
#: pairs on ranks 1 and 8: the windows that stick out of the board by one line hold such
#: a pair; the four corner windows hold a corner alone.
_EDGE_VERTICAL = (FILE_A | FILE_H) & ~RANK_8 & FULL
_EDGE_HORIZONTAL = (RANK_1 | RANK_8) & NOT_FILE_H
_CORNERS = 1 | 1 << 7 | 1 << 56 | 1 << 63


#: Every line (row, file, diagonal, anti-diagonal) of 2 or more squares, with its kind
#: (the index into LINE_MASKS and JUMPS entries).
_LINES = tuple(sorted({
    (mask, kind) for square in range(64) for kind, mask in enumerate(LINE_MASKS[square])
    if mask.bit_count() > 1
}))
#: Per line: (black's and white's checkers on it) -> its mobility entry; filled as lines
#: are met. A line of k squares has at most 3**k contents, so the memo stays below 131,220
#: entries over all 42 lines, and in play holds a small fraction of that.
_LINE_MEMO: tuple[dict[int, tuple], ...] = tuple({} for _ in _LINES)


def _line_entry(mask: int, kind: int, black: int, white: int) -> tuple:
    """The mobility along one line of its black and white checkers `black`, `white`:
    (black's weighted moves, black's checkers with a move, white's weighted moves,
    white's checkers with a move, black's moves, white's moves)."""
    count = (black | white).bit_count()
    entry: list = []
    for own, opp in ((black, white), (white, black)):
        blockers = opp | own << 64
        score = movers = 0
        moves = []
        rest = own
        while rest:
            low = rest & -rest
            rest ^= low
            for stop, move in JUMPS[low.bit_length() - 1][kind][count]:
                if not stop & blockers:
                    to = stop >> 64
                    score += (1 if to & EDGES else 2) + (CAPTURE if to & opp else 0)
                    movers |= low
                    moves.append(move)
        entry.append((score, movers, tuple(moves)))
    (black_score, black_movers, black_moves), (white_score, white_movers, white_moves) = entry
    return black_score, black_movers, white_score, white_movers, black_moves, white_moves


_LINE_TABLE = tuple((mask, kind, memo) for (mask, kind), memo in zip(_LINES, _LINE_MEMO))


def mobility(black: int, white: int) -> tuple[int, int, int, int, list[tuple]]:
    """(black's weighted mobility in half moves, black's checkers without a move, the same
    two for white, the line entries met) by one pass over the lines."""
    black_score = white_score = black_movers = white_movers = 0
    entries = []
    for mask, kind, memo in _LINE_TABLE:
        black_line = black & mask
        white_line = white & mask
        if not (black_line or white_line):
            continue
        key = black_line | white_line << 64
        entry = memo.get(key)
        if entry is None:
            entry = memo[key] = _line_entry(mask, kind, black_line, white_line)
        black_score += entry[0]
        black_movers |= entry[1]
        white_score += entry[2]
        white_movers |= entry[3]
        entries.append(entry)
    return (black_score, (black & ~black_movers).bit_count(),
            white_score, (white & ~white_movers).bit_count(), entries)


def moves_from(entries: list[tuple], colour: int) -> list[int]:
    """The moves of black (colour 0) or white (1) gathered from `mobility`'s entries."""
    field = 4 + colour
    moves: list[int] = []
    for entry in entries:
        moves += entry[field]
    return moves


def quads(board: int) -> tuple[int, int]:
    """(windows with 3 or 4 checkers, 4 x the Euler number) of a side's checkers."""
    right = board >> 1
    up = board >> 8
    diagonal = board >> 9
    odd = (board ^ right ^ up ^ diagonal) & _INNER
    pair = (board & right) | (up & diagonal)
    three = odd & pair
    four = board & right & up & diagonal & _INNER
    crossed = ((board & diagonal & ~(right | up)) | (right & up & ~(board | diagonal))) & _INNER
    ones = (
        (odd ^ three).bit_count()
        + ((board ^ up) & _EDGE_VERTICAL).bit_count()
        + ((board ^ right) & _EDGE_HORIZONTAL).bit_count()
        + (board & _CORNERS).bit_count()
    )
    threes = three.bit_count()
    return threes + four.bit_count(), ones - threes - 2 * crossed.bit_count()


def shape(board: int) -> tuple[int, int]:
    """(concentration surplus x CONCENTRATION / n, table sum) of a side's checkers."""
    count = board.bit_count()
    files = (board & _FILE_BITS[0]).bit_count() + 2 * (board & _FILE_BITS[1]).bit_count() \
        + 4 * (board & _FILE_BITS[2]).bit_count()
    ranks = (board & _RANK_BITS[0]).bit_count() + 2 * (board & _RANK_BITS[1]).bit_count() \
        + 4 * (board & _RANK_BITS[2]).bit_count()
    centre = ((2 * ranks + count) // (2 * count)) * 8 + (2 * files + count) // (2 * count)
    total = 0
    for outside in OUTSIDE[centre]:
        far = board & outside
        if not far:
            break
        total += far.bit_count()
    table = 0
    for value, squares in _TABLE_LAYERS:
        table += value * (board & squares).bit_count()
    return (
        -CONCENTRATION * (total - MIN_DISTANCE_SUM[count]) // count,
        CENTRALISATION * table // count + CENTRE_OF_MASS * CENTRE_TABLE[centre],
    )


def walls(own: int, opp: int) -> int:
    """Enemy edge checkers whose inward neighbours on the board all hold own checkers."""
    south = opp & RANK_1 & (own >> 8) & ((own >> 7) | FILE_A) & ((own >> 9) | FILE_H)
    north = opp & RANK_8 & (own << 8) & ((own << 9) | FILE_A) & ((own << 7) | FILE_H)
    west = opp & FILE_A & (own >> 1) & ((own >> 9) | RANK_8) & ((own << 7) | RANK_1)
    east = opp & FILE_H & (own << 1) & ((own >> 7) | RANK_8) & ((own << 9) | RANK_1)
    return (south | north | west | east).bit_count()


def connects_in_one(own: int, euler4: int, entries: list[tuple], colour: int) -> bool:
    """Whether the side `colour` owning `own` has a move that joins all its checkers;
    `euler4` is its 4 x Euler number and `entries` the line entries of `mobility`."""
    if euler4 > 20:
        return False
    parts = groups(own)
    if len(parts) > 5:
        return False
    if len(parts) == 1:
        return True
    reach = [dilate(part) for part in parts]
    landings = []
    anywhere = 0
    for index, part in enumerate(parts):
        landing = FULL
        for other, near in enumerate(reach):
            if other != index:
                landing &= near
        landings.append(landing)
        anywhere |= landing
    if not anywhere:
        return False
    for move in moves_from(entries, colour):
        to = 1 << (move & 63)
        if to & anywhere:
            frm = 1 << (move >> 6)
            for part, landing in zip(parts, landings):
                if frm & part:
                    if to & landing and connected(own ^ frm | to):
                        return True
                    break
    return False


def evaluate(black: int, white: int, to_move: int, ply: int) -> tuple[int, int]:
    """(black's value, white's value) of a position; they sum to zero."""
    black_mobility, black_blocked, white_mobility, white_blocked, entries = mobility(black, white)
    black_quads, black_euler4 = quads(black)
    white_quads, white_euler4 = quads(white)
    if to_move == 0:
        if connects_in_one(black, black_euler4, entries, 0):
            return WIN_IN_ONE, -WIN_IN_ONE
        threat = -THREAT if connects_in_one(white, white_euler4, entries, 1) else 0
        tempo = TEMPO
    else:
        if connects_in_one(white, white_euler4, entries, 1):
            return -WIN_IN_ONE, WIN_IN_ONE
        threat = THREAT if connects_in_one(black, black_euler4, entries, 0) else 0
        tempo = -TEMPO
    black_concentration, black_table = shape(black)
    white_concentration, white_table = shape(white)
    value = (
        black_concentration - white_concentration
        + black_table - white_table
        + QUADS * (black_quads - white_quads)
        - (EULER * black_euler4 >> 2) + (EULER * white_euler4 >> 2)
        + MOBILITY * (black_mobility - white_mobility)
        - BLOCKED * (black_blocked - white_blocked)
        + WALL * (walls(black, white) - walls(white, black))
        + threat
        + tempo
    )
    left = MAX_PLIES - ply
    if left < HORIZON:
        # Truncated toward zero, so that the two colours stay exact opposites.
        value = value * left // HORIZON if value >= 0 else -(-value * left // HORIZON)
    return value, -value
