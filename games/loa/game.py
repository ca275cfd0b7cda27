"""The Lines of Action descriptor: positions from parameters and board texts, moves and
outcomes as text, over the kernels of `rules` and `evaluation`."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from games.base import OneEvaluation, Outcome, Position, check_params, only_itself, phase_by
from games.kernel import interpreted_namespace
from games.weights import weighted_terms
from games.loa import evaluation, fixtures, notation, rules

#: The outcome of each status of a kernel state (`rules.IN_PLAY` has none).
_OUTCOMES = {
    rules.BLACK_WON: Outcome((1, -1), rules.BLACK, "connected"),
    rules.WHITE_WON: Outcome((-1, 1), rules.WHITE, "connected"),
    rules.DRAWN: Outcome((0, 0), None, f"{rules.MAX_PLIES} plies"),
}


class LoaGame(OneEvaluation):
    """Lines of Action (see the package docstring)."""

    name = "loa"
    rules = rules
    evaluation = evaluation
    listing_order = 3
    parameters: tuple[str, ...] = ()
    num_players = 2
    zero_sum = True
    player_names = ("b", "w")
    side_names = ("black", "white")
    white_player = rules.WHITE
    fixtures = fixtures
    training = None
    parts = None
    rivals = None
    board_images = staticmethod(only_itself)

    def _position(self, black: int, white: int, to_move: int, ply: int) -> Position:
        return Position(self, interpreted_namespace(rules).make_state(
            np.uint64(black), np.uint64(white), to_move, ply))

    def initial_state(self, params: dict[str, str]) -> Position:
        check_params(self.name, params)
        return self._position(rules.BLACK_START, rules.WHITE_START, rules.BLACK, 0)

    def parse_board(self, tokens: Sequence[str]) -> Position:
        return self._position(*notation.parse_board(tokens))

    def format_board(self, position: Position) -> str:
        return notation.format_board(*self.checkers(position), position.to_move, self.plies(position))

    def parse_move(self, position: Position, text: str) -> int:
        return notation.parse_move(text, position.legal_moves())

    def format_move(self, position: Position, move: int) -> str:
        return notation.format_move(move)

    def outcome(self, position: Position) -> Outcome | None:
        return _OUTCOMES.get(int(position.s[5]))

    def phase(self, position: Position) -> int:
        """By pieces left of the 24: the opening down to 22, the endgame from 15."""
        return phase_by((int(position.s[0]) | int(position.s[1])).bit_count(), 22, 15)

    def evaluate(self, position: Position) -> tuple[int, ...]:
        value = int(interpreted_namespace(evaluation).evaluate(position.s))
        return (value, -value) if position.to_move == rules.BLACK else (-value, value)

    def evaluation_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        return weighted_terms(evaluation, position.s, 0 if position.to_move == rules.BLACK else 1)

    def picture(self, position: Position) -> list[str]:
        return notation.picture(*self.checkers(position), position.to_move, self.plies(position))

    def checkers(self, position: Position) -> tuple[int, int]:
        """The (black, white) bitboards of `position` (a1 = bit 0)."""
        return int(position.s[0]), int(position.s[1])

    def plies(self, position: Position) -> int:
        """The plies played before `position` (0..rules.MAX_PLIES)."""
        return int(position.s[3])


GAME = LoaGame()
