"""The Othello descriptor: positions from parameters and board texts, moves and outcomes
as text, over the kernels of `rules` and `evaluation`."""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Callable, Sequence

import numpy as np

from games.base import CLASSIC, ONGOING, Outcome, Position, SeveralEvaluations, check_params, phase_by
from games.kernel import interpreted_namespace
from games.weights import weighted_terms
from games.othello import evaluation, fixtures, notation, patterns, rules

#: The evaluations, by name: the trained pattern tables (the default), and the hand-set
#: sum of classical features.
EVALUATIONS = {"patterns": patterns, CLASSIC: evaluation}


class OthelloGame(SeveralEvaluations):
    """Othello (see the package docstring), evaluating with its evaluation
    `evaluation_name` (one of EVALUATIONS)."""

    name = "othello"
    rules = rules
    EVALUATIONS = EVALUATIONS
    listing_order = 2
    parameters: tuple[str, ...] = ()
    num_players = 2
    zero_sum = True
    player_names = ("0", "1")
    side_names = ("black", "white")
    white_player = rules.WHITE
    fixtures = fixtures
    parts = None
    rivals = None

    @property
    def training(self) -> ModuleType:
        """`games.othello.training`, imported here: only the training's tools need it."""
        from games.othello import training

        return training

    def _position(self, black: int, white: int, to_move: int) -> Position:
        return Position(self, interpreted_namespace(rules).make_state(np.uint64(black), np.uint64(white), to_move))

    def initial_state(self, params: dict[str, str]) -> Position:
        check_params(self.name, params)
        return self._position(rules.BLACK_START, rules.WHITE_START, rules.BLACK)

    def parse_board(self, tokens: Sequence[str]) -> Position:
        return self._position(*notation.parse_board(tokens))

    def format_board(self, position: Position) -> str:
        return notation.format_board(*self.discs(position), position.to_move)

    def parse_move(self, position: Position, text: str) -> int:
        return notation.parse_move(text, position.legal_moves())

    def format_move(self, position: Position, move: int) -> str:
        return notation.format_move(move)

    def outcome(self, position: Position) -> Outcome | None:
        if interpreted_namespace(rules).result(position.s) == ONGOING:
            return None
        black, white = self.discs(position)
        return _final_outcome(black.bit_count(), white.bit_count())

    def phase(self, position: Position) -> int:
        """By empty squares: the opening down to 41, the endgame from 20 (the exact
        solver's reach)."""
        black, white = self.discs(position)
        return phase_by(64 - (black | white).bit_count(), 41, 20)

    def evaluate(self, position: Position) -> tuple[int, ...]:
        value = int(interpreted_namespace(self.evaluation).evaluate(position.s))
        return (value, -value) if position.to_move == rules.BLACK else (-value, value)

    def evaluation_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        if self.evaluation is evaluation:
            return weighted_terms(evaluation, position.s, 0 if position.to_move == rules.BLACK else 1)
        return tuple((name, (value, -value) if position.to_move == rules.BLACK else (-value, value))
                     for name, value in patterns.terms(position.s))

    def picture(self, position: Position) -> list[str]:
        return notation.picture(*self.discs(position), position.to_move)

    def board_images(self, position: Position) -> list[tuple[Position, Callable[[int], int]]]:
        """`position` under each of the board's eight symmetries (`patterns.SYMMETRIES`,
        the identity first); an image's move (a square, or the pass) maps back through
        the inverse symmetry."""
        black, white = self.discs(position)
        return [(position, _BACK[0].__getitem__)] + [
            (self._position(_image(black, g), _image(white, g), position.to_move), _BACK[g].__getitem__)
            for g in range(1, patterns.SYMMETRIES)]

    def discs(self, position: Position) -> tuple[int, int]:
        """(black's discs, white's discs) of `position` as bitboards, bit i for square i
        (see the package docstring)."""
        black, white = interpreted_namespace(rules).discs(position.s)
        return int(black), int(white)


#: _BACK[g][move]: the move of a position whose image under symmetry g plays `move`.
_BACK = tuple({**{patterns.symmetric_square(g, square): square for square in range(64)}, rules.PASS: rules.PASS}
              for g in range(patterns.SYMMETRIES))


def _image(discs: int, g: int) -> int:
    """The bitboard `discs` under symmetry g."""
    image = 0
    while discs:
        low = discs & -discs
        image |= 1 << patterns.symmetric_square(g, low.bit_length() - 1)
        discs ^= low
    return image


@functools.cache
def _final_outcome(black_discs: int, white_discs: int) -> Outcome:
    """The result of a finished game with these disc counts (empty squares go to no one)."""
    margin = black_discs - white_discs
    reason = f"discs {black_discs}-{white_discs}"
    if margin > 0:
        return Outcome((1, -1), rules.BLACK, reason, (margin, -margin))
    if margin < 0:
        return Outcome((-1, 1), rules.WHITE, reason, (margin, -margin))
    return Outcome((0, 0), None, reason, (0, 0))


GAME = OthelloGame()
