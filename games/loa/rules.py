"""Lines of Action rules over two 64-bit bitboards held in Python ints.

The kernels (`generate_moves`, `apply_move`, `status_of`, `compute_key`) are plain
functions of ints so that a compiled core can mirror them one for one; `LoaState` and
`LoaGame` wrap them behind the `games.base` protocols.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from games.base import Outcome, zobrist_keys
from games.loa import evaluation, fixtures, notation
from games.loa.bitboards import MAX_PLIES, PASS, SQUARE_LINES, connected

BLACK, WHITE = 0, 1
#: b1-g1 and b8-g8.
BLACK_START = 0x7E0000000000007E
#: a2-a7 and h2-h7.
WHITE_START = 0x0081818181818100

#: `status` values of a state: the game goes on, black or white has won, drawn.
ONGOING, BLACK_WON, WHITE_WON, DRAWN = 0, 1, 2, 3
_WON = (BLACK_WON, WHITE_WON)

# Keys 0..63 black checkers, 64..127 white checkers, 128 white to move, 129..279 the
# ply counter 0..150. Changing the seed or this layout invalidates saved hash files:
# bump KEY_SCHEME with it.
#
# The ply is part of the key because the 150-ply cap makes it part of the position's
# value: a table entry searched at ply 100 says nothing about the same checkers at ply
# 148. Transpositions by move order always have the same ply, and so do the positions
# one search shares with the next one of the same game, so keying the ply costs the
# table almost nothing; only repetitions (the same checkers 2k plies later) get apart.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0x10AC0DE5, 129 + MAX_PLIES + 1)
_CHECKER_KEYS = (_KEYS[:64], _KEYS[64:128])
_SIDE_KEY = _KEYS[128]
_PLY_KEYS = _KEYS[129:]
#: _STEP_KEYS[p]: what the key changes by, besides checkers, on the move that makes ply p.
_STEP_KEYS = (0,) + tuple(_PLY_KEYS[p - 1] ^ _PLY_KEYS[p] ^ _SIDE_KEY for p in range(1, MAX_PLIES + 1))


def generate_moves(own: int, opp: int) -> list[int]:
    """The moves `from << 6 | to` of the side owning `own`, without `pass`.

    Each checker jumps, along each of its four lines, as many squares as the line holds
    checkers of both sides; it may cross its own checkers but no enemy one, and may
    land on an empty square or an enemy checker (a capture), never on its own.
    """
    occupied = own | opp
    blockers = opp | own << 64
    moves = []
    append = moves.append
    rest = own
    while rest:
        low = rest & -rest
        rest ^= low
        row, file, diagonal, anti, by_row, by_file, by_diagonal, by_anti = SQUARE_LINES[
            low.bit_length() - 1]
        for stop, move in by_row[(occupied & row).bit_count()]:
            if not stop & blockers:
                append(move)
        for stop, move in by_file[(occupied & file).bit_count()]:
            if not stop & blockers:
                append(move)
        for stop, move in by_diagonal[(occupied & diagonal).bit_count()]:
            if not stop & blockers:
                append(move)
        for stop, move in by_anti[(occupied & anti).bit_count()]:
            if not stop & blockers:
                append(move)
    return moves


def apply_move(own: int, opp: int, move: int) -> tuple[int, int]:
    """The (own, opp) boards after `move` (not `pass`), a capture removing the enemy."""
    to_bit = 1 << (move & 63)
    return own ^ (1 << (move >> 6)) ^ to_bit, opp & ~to_bit


def status_of(black: int, white: int, to_move: int, ply: int) -> int:
    """The status of a position, checked as the referee does after the move that made it.

    The last mover (the side not to move) wins if connected; else the side to move wins
    if connected; else the game is drawn from ply MAX_PLIES on.
    """
    boards = (black, white)
    mover = to_move ^ 1
    if connected(boards[mover]):
        return _WON[mover]
    if connected(boards[to_move]):
        return _WON[to_move]
    return DRAWN if ply >= MAX_PLIES else ONGOING


def compute_key(black: int, white: int, to_move: int, ply: int) -> int:
    """The Zobrist key of a position, from scratch."""
    key = _PLY_KEYS[ply] ^ (_SIDE_KEY if to_move == WHITE else 0)
    for colour, board in ((BLACK, black), (WHITE, white)):
        keys = _CHECKER_KEYS[colour]
        while board:
            low = board & -board
            key ^= keys[low.bit_length() - 1]
            board ^= low
    return key


_new_state = tuple.__new__
_BLACK_KEYS, _WHITE_KEYS = _CHECKER_KEYS


class LoaState(NamedTuple):
    """A Lines of Action position: the two bitboards, the side to move, the plies
    played, the Zobrist key and the status (ONGOING, BLACK_WON, WHITE_WON or DRAWN).

    The status is settled when the state is made, because the search asks every state
    for its outcome and the move list must be empty once the game is over.
    """

    black: int
    white: int
    to_move: int
    ply: int
    key: int
    status: int

    def legal_moves(self) -> list[int]:
        black, white, to_move, _, _, status = self
        if status:
            return []
        moves = generate_moves(black, white) if to_move == BLACK else generate_moves(white, black)
        return moves or [PASS]

    def play(self, move: int) -> "LoaState":
        # Only called while the game goes on, so neither side is connected yet: the mover
        # may be now, and the other side only if it lost a checker.
        black, white, to_move, ply, key, status = self
        ply += 1
        key ^= _STEP_KEYS[ply]
        if move == PASS:
            return _new_state(LoaState, (black, white, to_move ^ 1, ply, key,
                                         DRAWN if ply >= MAX_PLIES else ONGOING))
        frm = move >> 6
        to = move & 63
        to_bit = 1 << to
        if to_move == BLACK:
            black ^= (1 << frm) | to_bit
            key ^= _BLACK_KEYS[frm] ^ _BLACK_KEYS[to]
            if white & to_bit:
                white ^= to_bit
                key ^= _WHITE_KEYS[to]
                status = (BLACK_WON if connected(black) else WHITE_WON if connected(white)
                          else DRAWN if ply >= MAX_PLIES else ONGOING)
            else:
                status = BLACK_WON if connected(black) else DRAWN if ply >= MAX_PLIES else ONGOING
            return _new_state(LoaState, (black, white, WHITE, ply, key, status))
        white ^= (1 << frm) | to_bit
        key ^= _WHITE_KEYS[frm] ^ _WHITE_KEYS[to]
        if black & to_bit:
            black ^= to_bit
            key ^= _BLACK_KEYS[to]
            status = (WHITE_WON if connected(white) else BLACK_WON if connected(black)
                      else DRAWN if ply >= MAX_PLIES else ONGOING)
        else:
            status = WHITE_WON if connected(white) else DRAWN if ply >= MAX_PLIES else ONGOING
        return _new_state(LoaState, (black, white, BLACK, ply, key, status))

    def outcome(self) -> Outcome | None:
        return _OUTCOMES[self.status]


_OUTCOMES = (
    None,
    Outcome((1, -1), BLACK, "connected"),
    Outcome((-1, 1), WHITE, "connected"),
    Outcome((0, 0), None, f"{MAX_PLIES} plies"),
)


def make_state(black: int, white: int, to_move: int, ply: int = 0) -> LoaState:
    """A state with its key and status computed from scratch."""
    return LoaState(black, white, to_move, ply, compute_key(black, white, to_move, ply),
                    status_of(black, white, to_move, ply))


class LoaGame:
    """The Lines of Action rules descriptor (see the package docstring)."""

    name = "loa"
    listing_order = 3
    num_players = 2
    zero_sum = True
    player_names = ("b", "w")
    white_player = WHITE
    key_scheme = KEY_SCHEME
    bench_perft_depth = fixtures.BENCH_PERFT_DEPTH
    bench_positions = fixtures.BENCH_POSITIONS
    bench_depth = fixtures.BENCH_DEPTH
    bench_nodes = fixtures.BENCH_NODES

    def initial_state(self, params: dict[str, str]) -> LoaState:
        notation.check_no_params(params)
        return make_state(BLACK_START, WHITE_START, BLACK)

    def parse_board(self, tokens: Sequence[str]) -> LoaState:
        return make_state(*notation.parse_board(tokens))

    def format_board(self, state: LoaState) -> str:
        return notation.format_board(state.black, state.white, state.to_move, state.ply)

    def parse_move(self, state: LoaState, text: str) -> int:
        return notation.parse_move(text, state.legal_moves())

    def format_move(self, state: LoaState, move: int) -> str:
        return notation.format_move(move)

    def evaluate(self, state: LoaState) -> tuple[int, ...]:
        return evaluation.evaluate(state.black, state.white, state.to_move, state.ply)

    def picture(self, state: LoaState) -> list[str]:
        return notation.picture(state.black, state.white, state.to_move, state.ply)

    def solvable(self, state: LoaState) -> bool:
        # Games end by connection long before the board empties: no exact endgame.
        return False


GAME = LoaGame()
