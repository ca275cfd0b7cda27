"""Abalone's CodinGame turns.

No referee source is public (see the rules spec, "Abalone: the convention this project
uses"); this follows the statement. The referee sends, on the player's first turn only,
`myId` (`1` white, player 1; `2` black, player 0, who moves first). Then every turn:
`myScore oppScore`; 9 board lines of `0 1 2` (5, 6, 7, 8, 9, 8, 7, 6, 5 cells, top line
first; whitespace inside a line is ignored); the opponent's last move as 5 integers, or
`-1 -1 -1 -1 -1` when the player starts the game; the number of legal moves and the
moves, one a line, each `x1 y1 x2 y2 d`. The output is one such line.

The engine's board text: the 9 lines joined by `/`, the side `1` or `2` (`myId`),
`score1=`/`score2=` (marbles pushed off by white and by black) taken from `myScore
oppScore` according to `myId`, and `turn=`, which the lines do not say: every ply is one
player's turn, so a reader's turn k (from 0) is ply 2k + its seat (black's seat 0),
capped at 349 so that the engine still has a move to make.

Inside this module a move is the engine's token `x1,y1,x2,y2,d`; the referee's line is
that token with spaces for the commas (`format_output`). The order of the referee's
list is unknown: `format_turn` lists the moves in the engine's canonical form (rear then
front marble for an in-line move, the reading-order first end first for a broadside
one), sorted as strings. The referee's output parsing here takes exactly five integers
naming a legal move, its two end marbles in either order; anything else loses.

Since the referee's coordinates and direction labels are inferred, `engine-cg` does not
trust them: a `MoveMatcher` holds the engine's legal moves against the referee's list by
the set of marbles moved and the direction, works out another labelling when the two
sets disagree, and prints the referee's own entry for the engine's move.
"""

from __future__ import annotations

import itertools
import sys
from typing import Callable, Iterable, Sequence

import attrs

from adapters.view.board import HexBoard
from adapters.codingame.common import (
    History,
    Turn,
    TurnFormatError,
    TurnFramer,
    board_rows,
    counted,
    listed_legal_tokens,
    parse_count,
    sorted_tokens,
    strip_lines,
)
from games import find_game
from games.base import Position
from games.text import quote

GAME = find_game("abalone")
PLAYERS = 2
FIRST_TURN_MS = 1000
TURN_MS = 75
BOARD_STYLE = HexBoard(colours=(("#222", "#000"), ("#f4f4f4", "#333")), pieces="marbles")
ENGINE_OPTIONS: tuple[tuple[str, str], ...] = ()
SENDS_LINE = False
#: `myId` by player index: black (player 0) is 2, white 1.
IDS = "21"
NO_MOVE = "-1 -1 -1 -1 -1"
#: Cells per printed line, top first, and the ply limit (as in `games.abalone`).
ROW_LENGTHS = (5, 6, 7, 8, 9, 8, 7, 6, 5)
MAX_PLIES = 350


def xy_to_axial(x: int, y: int) -> tuple[int, int]:
    return x - 4 + max(0, 4 - y), y - 4


def axial_to_xy(q: int, r: int) -> tuple[int, int]:
    return q + 4 - max(0, -r), r + 4


@attrs.frozen
class AbaloneTurn(Turn):
    """A turn, with the referee's `myScore oppScore` line."""

    scores: tuple[int, int] | None = None


def framer(first_turn: bool, expert: bool = False) -> TurnFramer:
    return TurnFramer((1 if first_turn else 0) + 1 + 9 + 1, listed=True)


def _five(line: str, what: str) -> str:
    """A line of five integers as the engine token `a,b,c,d,e`; raises TurnFormatError."""
    parts = line.split()
    if len(parts) != 5 or not all(part.lstrip("-").isdigit() for part in parts):
        raise TurnFormatError(f"expected {what} as 5 integers, got {quote(line)}")
    return ",".join(str(int(part)) for part in parts)


def parse_turn(lines: Sequence[str], player: int | None = None, turn: int = 0,
               expert: bool = False) -> AbaloneTurn:
    first_turn = player is None
    at = 0
    if player is None:
        (ident,) = strip_lines(lines, 0, 1, "id line")
        if ident not in ("1", "2"):
            raise TurnFormatError(f"expected myId 1 or 2, got {quote(ident)}")
        player = IDS.index(ident)
        at = 1
    (scores,) = strip_lines(lines, at, 1, "scores")
    parts = scores.split()
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise TurnFormatError(f"expected myScore oppScore, got {quote(scores)}")
    mine, theirs = int(parts[0]), int(parts[1])
    rows = ["".join(row.split()) for row in strip_lines(lines, at + 1, 9, "board")]
    for row, length in zip(rows, ROW_LENGTHS):
        if len(row) != length:
            raise TurnFormatError(f"expected a board line of {length} cells, got {quote(row)}")
    (last,) = strip_lines(lines, at + 10, 1, "last move")
    last_token = _five(last, "the last move")
    count = parse_count(strip_lines(lines, at + 11, 1, "move count")[0])
    legal = tuple(_five(line, "a move") for line in strip_lines(lines, at + 12, count, "moves"))
    white, black = (mine, theirs) if player == 1 else (theirs, mine)
    ply = min(2 * turn + player, MAX_PLIES - 1)
    return AbaloneTurn(
        board_text=f"{'/'.join(rows)} {IDS[player]} score1={white} score2={black} turn={ply}",
        legal=legal,
        legal_count=count,
        player=player,
        first_turn=first_turn,
        last_action=None if last_token == NO_MOVE.replace(" ", ",") else last_token,
        scores=(mine, theirs),
    )


def format_turn(state: Position, player: int, first_turn: bool, history: History,
                expert: bool = False) -> list[str]:
    assert state.to_move == player, "the referee only sends the player to move"
    lines = [IDS[player]] if first_turn else []
    fields = GAME.fields(state)
    black, white = fields.black_score, fields.white_score
    lines.append(f"{white} {black}" if player == 1 else f"{black} {white}")
    lines += board_rows(GAME.format_board(state))
    lines.append(format_output(history[-1][1]) if history else NO_MOVE)
    lines += counted([format_output(move) for move in referee_moves(state, history)])
    return lines


def referee_moves(state: Position, history: History) -> list[str]:
    """The engine's canonical tokens in plain string order (the real order is unknown)."""
    return sorted_tokens(GAME, state)


legal_tokens = listed_legal_tokens


def parse_output(line: str, legal: Sequence[str]) -> str | None:
    """Five integers naming a move of `legal`, its two end marbles in either order."""
    parts = line.split()
    if len(parts) != 5 or not all(part.isascii() and part.isdigit() for part in parts):
        return None
    x1, y1, x2, y2, d = (str(int(part)) for part in parts)
    for token in (f"{x1},{y1},{x2},{y2},{d}", f"{x2},{y2},{x1},{y1},{d}"):
        if token in legal:
            return token
    return None


def skipped(state: Position) -> str | None:
    return None


def format_output(token: str) -> str:
    return token.replace(",", " ")


# ---- matching the engine's moves with the referee's list -------------------------------

Cell = tuple[int, int]
Key = tuple[frozenset, int]
#: Ways to read a referee cell `a b` as the engine's (x, y): as written, x and y swapped,
#: x counted from the line's right end.
READINGS: dict[str, Callable[[int, int], Cell]] = {
    "x y": lambda a, b: (a, b),
    "y x": lambda a, b: (b, a),
    "x from the right": lambda a, b: (ROW_LENGTHS[b] - 1 - a if 0 <= b < 9 else a, b),
}
#: The relabellings of the directions that keep opposite directions opposite:
#: PERMUTATIONS[i][referee label] = engine direction. The identity comes first.
PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(
    perm for perm in itertools.permutations(range(6))
    if all(perm[(d + 3) % 6] == (perm[d] + 3) % 6 for d in range(6)))


def marbles(a: Cell, b: Cell) -> frozenset | None:
    """The cells of the line from `a` to `b` (1 to 3 marbles), None if it is none."""
    (q1, r1), (q2, r2) = xy_to_axial(*a), xy_to_axial(*b)
    dq, dr = q2 - q1, r2 - r1
    if max(abs(dq), abs(dr), abs(dq + dr)) > 2 or (dq and dr and dq != -dr):
        return None
    if abs(dq) == 2 or abs(dr) == 2:
        return frozenset((a, axial_to_xy(q1 + dq // 2, r1 + dr // 2), b))
    return frozenset((a, b))


def key_of(token: str, reading: str = "x y", perm: Sequence[int] = PERMUTATIONS[0]) -> Key | None:
    """(marbles moved, engine direction) of a token read with a labelling."""
    x1, y1, x2, y2, d = (int(part) for part in token.split(","))
    if not 0 <= d < 6:
        return None
    read = READINGS[reading]
    cells = marbles(read(x1, y1), read(x2, y2))
    return None if cells is None else (cells, perm[d])


class MoveMatcher:
    """The engine's legal moves against the referee's list, by (marbles, direction).

    `match` gives, each turn, the engine tokens that have an entry in the referee's list
    (in the list's order) and that entry for each. When the sets differ under the
    labelling in use, every reading and direction relabelling is tried and the first one
    under which they agree is kept from then on (stderr says so); when none does, the
    labelling stays and only the moves that map are offered, or, if none maps, the
    referee's own entries.
    """

    def __init__(self, log: Callable[[str], None] | None = None):
        self.reading = "x y"
        self.perm: tuple[int, ...] = PERMUTATIONS[0]
        self.log = log or (lambda message: sys.stderr.write(f"engine-cg: {message}\n"))

    def keyed(self, listed: Iterable[str], reading: str, perm: Sequence[int]) -> dict:
        return {key: token for token in listed if (key := key_of(token, reading, perm))}

    def match(self, state: Position, listed: Sequence[str]) -> tuple[list[str], dict[str, str]]:
        engine = {key_of(token): token for token in sorted_tokens(GAME, state)}
        keyed = self.keyed(listed, self.reading, self.perm)
        if keyed.keys() != engine.keys():
            found = self.search(listed, engine.keys())
            if found is None:
                self.log(f"the referee's {len(listed)} moves do not match the engine's"
                         f" {len(engine)} under any labelling; keeping {self.describe()}")
            else:
                self.reading, self.perm = found
                self.log(f"the referee's moves match the engine's under {self.describe()}")
                keyed = self.keyed(listed, self.reading, self.perm)
        outputs = {engine[key]: token for key, token in keyed.items() if key in engine}
        if not outputs:
            return list(listed), {}
        order = {token: index for index, token in enumerate(listed)}
        return sorted(outputs, key=lambda move: order[outputs[move]]), outputs

    def search(self, listed: Sequence[str], wanted) -> tuple[str, tuple[int, ...]] | None:
        for reading in READINGS:
            cells = [(key_of(token, reading), int(token.rsplit(",", 1)[1])) for token in listed]
            if any(key is None for key, _ in cells):
                continue
            for perm in PERMUTATIONS:
                if {(key[0], perm[d]) for key, d in cells} == wanted and len(cells) == len(wanted):
                    return reading, perm
        return None

    def describe(self) -> str:
        return f"reading {self.reading!r}, directions {list(self.perm)} (referee label -> engine)"


def matcher() -> MoveMatcher:
    """What `engine-cg` uses to map its moves to the referee's entries."""
    return MoveMatcher()
