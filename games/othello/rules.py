"""Othello rules over two 64-bit bitboards held in Python ints.

The kernels (`move_mask`, `flips` in `games.othello.bitboard`, and `legal_mask`,
`apply_move` here) are plain functions of ints so that a compiled core can mirror them
one for one; `OthelloState` and `OthelloGame` wrap them behind the `games.base`
protocols.

A state carries the set of its legal moves as a bit mask (bit m for move m, so the pass
is bit 64). `play` computes it for the new position anyway to know whether that side
must pass, and the search asks every node for its outcome, then for its moves: both
then cost a bit test, and the evaluation reuses the mobility of the side to move.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from games.base import Outcome, zobrist_keys
from games.othello import evaluation, fixtures, notation
from games.othello.bitboard import FULL, PASS, flips, move_mask, squares_of

BLACK, WHITE = 0, 1
PASS_BIT = 1 << PASS

#: d5 and e4 black, d4 and e5 white (row 1 is the top line: d4 is square 27).
BLACK_START = 1 << 28 | 1 << 35
WHITE_START = 1 << 27 | 1 << 36

# Keys 0..63 black discs, 64..127 white discs, 128 white to move. Changing the seed or
# this layout invalidates saved hash files: bump KEY_SCHEME with it.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0x07E11, 129)
_DISC_KEYS = (_KEYS[:64], _KEYS[64:128])
_SIDE_KEY = _KEYS[128]
#: A flip turns a black disc white or back: both disc keys change at once.
_FLIP_KEYS = tuple(black ^ white for black, white in zip(_KEYS[:64], _KEYS[64:128]))
#: A placement adds a disc and hands the move over.
_BLACK_MOVE_KEYS = tuple(key ^ _SIDE_KEY for key in _KEYS[:64])
_WHITE_MOVE_KEYS = tuple(key ^ _SIDE_KEY for key in _KEYS[64:128])


def legal_mask(own: int, opp: int) -> int:
    """The legal moves of the side owning `own` as bits: its placements, else the pass
    when the other side has a placement, else nothing (the game is over)."""
    moves = move_mask(own, opp)
    if moves or not move_mask(opp, own):
        return moves
    return PASS_BIT


def apply_move(own: int, opp: int, move: int) -> tuple[int, int]:
    """The (own, opp) boards after the placement `move` (not PASS) of the side owning `own`."""
    flipped = flips(own, opp, move)
    return own | flipped | 1 << move, opp ^ flipped


def compute_key(black: int, white: int, to_move: int) -> int:
    """The Zobrist key of a position, from scratch."""
    key = _SIDE_KEY if to_move == WHITE else 0
    for colour, board in ((BLACK, black), (WHITE, white)):
        keys = _DISC_KEYS[colour]
        for square in squares_of(board):
            key ^= keys[square]
    return key


_new_state = tuple.__new__


class OthelloState(NamedTuple):
    """An Othello position: the two bitboards, the side to move, the Zobrist key and the
    legal moves of the side to move as a bit mask (see the module docstring)."""

    black: int
    white: int
    to_move: int
    key: int
    legal: int

    def legal_moves(self) -> list[int]:
        return squares_of(self.legal)

    def play(self, move: int) -> "OthelloState":
        black, white, to_move, key, _ = self
        if to_move == BLACK:
            if move == PASS:
                return _new_state(OthelloState, (black, white, WHITE, key ^ _SIDE_KEY,
                                                 move_mask(white, black)))
            flipped = flips(black, white, move)
            key ^= _BLACK_MOVE_KEYS[move]
            black |= flipped | 1 << move
            white ^= flipped
            moves = move_mask(white, black)
            if not moves and move_mask(black, white):
                moves = PASS_BIT
            new_to_move = WHITE
        else:
            if move == PASS:
                return _new_state(OthelloState, (black, white, BLACK, key ^ _SIDE_KEY,
                                                 move_mask(black, white)))
            flipped = flips(white, black, move)
            key ^= _WHITE_MOVE_KEYS[move]
            white |= flipped | 1 << move
            black ^= flipped
            moves = move_mask(black, white)
            if not moves and move_mask(white, black):
                moves = PASS_BIT
            new_to_move = BLACK
        while flipped:
            low = flipped & -flipped
            key ^= _FLIP_KEYS[low.bit_length() - 1]
            flipped ^= low
        return _new_state(OthelloState, (black, white, new_to_move, key, moves))

    def outcome(self) -> Outcome | None:
        if self.legal:
            return None
        return final_outcome(self.black.bit_count(), self.white.bit_count())


_OUTCOMES: dict[tuple[int, int], Outcome] = {}


def final_outcome(black_discs: int, white_discs: int) -> Outcome:
    """The result of a finished game with these disc counts (empty squares go to no one)."""
    outcome = _OUTCOMES.get((black_discs, white_discs))
    if outcome is None:
        margin = black_discs - white_discs
        reason = f"discs {black_discs}-{white_discs}"
        if margin > 0:
            outcome = Outcome((1, -1), BLACK, reason, (margin, -margin))
        elif margin < 0:
            outcome = Outcome((-1, 1), WHITE, reason, (margin, -margin))
        else:
            outcome = Outcome((0, 0), None, reason, (0, 0))
        _OUTCOMES[black_discs, white_discs] = outcome
    return outcome


def make_state(black: int, white: int, to_move: int) -> OthelloState:
    """A state with its key and legal moves computed from scratch."""
    if to_move == BLACK:
        legal = legal_mask(black, white)
    else:
        legal = legal_mask(white, black)
    return OthelloState(black, white, to_move, compute_key(black, white, to_move), legal)


#: From this many empty squares down, a search solves the position exactly (win, loss or
#: draw, then the disc margin) after a short heuristic prelude. scripts/solve measures
#: the solver: 10 empties in 0.02-0.2 s, 12 in 0.1-1 s; a solve the clock cuts short
#: leaves the prelude's move.
SOLVE_EMPTIES = 10


class OthelloGame:
    """The Othello rules descriptor (see the package docstring)."""

    name = "othello"
    listing_order = 2
    num_players = 2
    zero_sum = True
    player_names = ("0", "1")
    white_player = WHITE
    key_scheme = KEY_SCHEME
    bench_perft_depth = fixtures.BENCH_PERFT_DEPTH
    bench_positions = fixtures.BENCH_POSITIONS
    bench_depth = fixtures.BENCH_DEPTH
    bench_nodes = fixtures.BENCH_NODES

    def initial_state(self, params: dict[str, str]) -> OthelloState:
        notation.check_no_params(params)
        return make_state(BLACK_START, WHITE_START, BLACK)

    def parse_board(self, tokens: Sequence[str]) -> OthelloState:
        return make_state(*notation.parse_board(tokens))

    def format_board(self, state: OthelloState) -> str:
        return notation.format_board(state.black, state.white, state.to_move)

    def parse_move(self, state: OthelloState, text: str) -> int:
        return notation.parse_move(text, state.legal)

    def format_move(self, state: OthelloState, move: int) -> str:
        return notation.format_move(move)

    def evaluate(self, state: OthelloState) -> tuple[int, ...]:
        black, white, to_move, _, legal = state
        if to_move == BLACK:
            return evaluation.evaluate_with_mobility(black, white, to_move, legal & FULL,
                                                     move_mask(white, black))
        return evaluation.evaluate_with_mobility(black, white, to_move, move_mask(black, white),
                                                 legal & FULL)

    def picture(self, state: OthelloState) -> list[str]:
        return notation.picture(state.black, state.white, state.to_move)

    def solvable(self, state: OthelloState) -> bool:
        return 64 - (state.black | state.white).bit_count() <= SOLVE_EMPTIES


GAME = OthelloGame()
