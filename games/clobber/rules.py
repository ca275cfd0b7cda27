"""Clobber rules over two 64-bit bitboards held in Python ints.

The kernels (`move_masks`, `count_moves`, `generate_moves`, `apply_move`) are plain
functions of ints so that a compiled core can mirror them one for one; `ClobberState`
and `ClobberGame` wrap them behind the `games.base` protocols.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from games.base import Outcome, zobrist_keys
from games.clobber import evaluation, fixtures, notation

FULL = (1 << 64) - 1
FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
NOT_FILE_A = FULL ^ FILE_A
NOT_FILE_H = FULL ^ FILE_H
#: Squares where file + rank is odd: white stones in the start position.
WHITE_START = 0x55AA55AA55AA55AA
BLACK_START = FULL ^ WHITE_START

WHITE, BLACK = 0, 1

# Keys 0..63 white stones, 64..127 black stones, 128 black to move. Changing the seed or
# this layout invalidates saved hash files: bump KEY_SCHEME with it.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0xC10BBE5, 129)
_STONE_KEYS = (_KEYS[:64], _KEYS[64:128])
_SIDE_KEY = _KEYS[128]


def move_masks(own: int, opp: int) -> tuple[int, int, int, int]:
    """The own stones that can capture north (+8), south (-8), east (+1), west (-1)."""
    return (
        own & (opp >> 8),
        own & (opp << 8),
        own & (opp >> 1) & NOT_FILE_H,
        own & (opp << 1) & NOT_FILE_A,
    )


def count_moves(own: int, opp: int) -> int:
    """The number of legal moves of the side owning `own`."""
    return (
        (own & (opp >> 8)).bit_count()
        + (own & (opp << 8)).bit_count()
        + (own & (opp >> 1) & NOT_FILE_H).bit_count()
        + (own & (opp << 1) & NOT_FILE_A).bit_count()
    )


_STEPS = (8, -8, 1, -1)


def generate_moves(own: int, opp: int) -> list[int]:
    """The legal moves `from << 6 | to` of the side owning `own`, by direction."""
    moves = []
    append = moves.append
    for mask, step in zip(move_masks(own, opp), _STEPS):
        while mask:
            low = mask & -mask
            frm = low.bit_length() - 1
            append(frm << 6 | (frm + step))
            mask ^= low
    return moves


def apply_move(own: int, opp: int, move: int) -> tuple[int, int]:
    """The (own, opp) boards after the capture `move`."""
    to_bit = 1 << (move & 63)
    return own ^ (1 << (move >> 6)) ^ to_bit, opp ^ to_bit


def compute_key(white: int, black: int, to_move: int) -> int:
    """The Zobrist key of a position, from scratch."""
    key = _SIDE_KEY if to_move == BLACK else 0
    for colour, board in ((WHITE, white), (BLACK, black)):
        keys = _STONE_KEYS[colour]
        while board:
            low = board & -board
            key ^= keys[low.bit_length() - 1]
            board ^= low
    return key


_new_state = tuple.__new__


class ClobberState(NamedTuple):
    """A Clobber position: the two bitboards, the side to move and the Zobrist key."""

    white: int
    black: int
    to_move: int
    key: int

    def legal_moves(self) -> list[int]:
        if self.to_move == WHITE:
            return generate_moves(self.white, self.black)
        return generate_moves(self.black, self.white)

    def play(self, move: int) -> "ClobberState":
        frm = move >> 6
        to = move & 63
        to_bit = 1 << to
        white, black, to_move, key = self
        own_keys = _STONE_KEYS[to_move]
        opp_keys = _STONE_KEYS[to_move ^ 1]
        key ^= own_keys[frm] ^ own_keys[to] ^ opp_keys[to] ^ _SIDE_KEY
        if to_move == WHITE:
            return _new_state(ClobberState, (white ^ (1 << frm) ^ to_bit, black ^ to_bit, BLACK, key))
        return _new_state(ClobberState, (white ^ to_bit, black ^ (1 << frm) ^ to_bit, WHITE, key))

    def outcome(self) -> Outcome | None:
        if self.to_move == WHITE:
            moves = count_moves(self.white, self.black)
        else:
            moves = count_moves(self.black, self.white)
        if moves:
            return None
        winner = self.to_move ^ 1
        return _OUTCOMES[winner]


_OUTCOMES = (Outcome((1, -1), WHITE, "no move"), Outcome((-1, 1), BLACK, "no move"))


def make_state(white: int, black: int, to_move: int) -> ClobberState:
    """A state with its key computed from scratch."""
    return ClobberState(white, black, to_move, compute_key(white, black, to_move))


#: From this many stones down, a search solves the position exactly: measured, the solver
#: proves positions of about 30 stones in 1-10 thousand nodes, where the heuristic search
#: had been seen to pick losing moves.
SOLVE_STONES = 26


class ClobberGame:
    """The Clobber rules descriptor (see the package docstring)."""

    name = "clobber"
    num_players = 2
    zero_sum = True
    player_names = ("w", "b")
    white_player = WHITE
    key_scheme = KEY_SCHEME
    bench_perft_depth = fixtures.BENCH_PERFT_DEPTH
    bench_positions = fixtures.BENCH_POSITIONS
    bench_depth = fixtures.BENCH_DEPTH
    bench_nodes = fixtures.BENCH_NODES

    def initial_state(self, params: dict[str, str]) -> ClobberState:
        notation.check_no_params(params)
        return make_state(WHITE_START, BLACK_START, WHITE)

    def parse_board(self, tokens: Sequence[str]) -> ClobberState:
        return make_state(*notation.parse_board(tokens))

    def format_board(self, state: ClobberState) -> str:
        return notation.format_board(state.white, state.black, state.to_move)

    def parse_move(self, state: ClobberState, text: str) -> int:
        return notation.parse_move(text, state.legal_moves())

    def format_move(self, state: ClobberState, move: int) -> str:
        return notation.format_move(move)

    def evaluate(self, state: ClobberState) -> tuple[int, ...]:
        return evaluation.evaluate(state.white, state.black, state.to_move)

    def picture(self, state: ClobberState) -> list[str]:
        return notation.picture(state.white, state.black, state.to_move)

    def solvable(self, state: ClobberState) -> bool:
        return (state.white | state.black).bit_count() <= SOLVE_STONES


GAME = ClobberGame()
