"""The Clobber descriptor: positions from parameters and board texts, moves and
outcomes as text, over the kernels of `rules` and `evaluation`."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from games.base import ONGOING, OneEvaluation, Outcome, Position, check_params, only_itself, phase_by
from games.kernel import interpreted_namespace
from games.weights import weighted_terms
from games.clobber import evaluation, fixtures, notation, parts, rules

_OUTCOMES = (Outcome((1, -1), rules.WHITE, "no move"), Outcome((-1, 1), rules.BLACK, "no move"))


class ClobberGame(OneEvaluation):
    """Clobber (see the package docstring)."""

    name = "clobber"
    rules = rules
    evaluation = evaluation
    listing_order = 1
    parameters: tuple[str, ...] = ()
    num_players = 2
    zero_sum = True
    player_names = ("w", "b")
    side_names = ("white", "black")
    white_player = rules.WHITE
    fixtures = fixtures
    training = None
    parts = parts
    rivals = None
    board_images = staticmethod(only_itself)

    def _position(self, white: int, black: int, to_move: int) -> Position:
        return Position(self, interpreted_namespace(rules).make_state(np.uint64(white), np.uint64(black), to_move))

    def initial_state(self, params: dict[str, str]) -> Position:
        check_params(self.name, params)
        return self._position(rules.WHITE_START, rules.BLACK_START, rules.WHITE)

    def parse_board(self, tokens: Sequence[str]) -> Position:
        return self._position(*notation.parse_board(tokens))

    def format_board(self, position: Position) -> str:
        return notation.format_board(*_boards(position))

    def parse_move(self, position: Position, text: str) -> int:
        return notation.parse_move(text, position.legal_moves())

    def format_move(self, position: Position, move: int) -> str:
        return notation.format_move(move)

    def outcome(self, position: Position) -> Outcome | None:
        if interpreted_namespace(rules).result(position.s) == ONGOING:
            return None
        return _OUTCOMES[position.to_move ^ 1]

    def phase(self, position: Position) -> int:
        """By pieces left of the 64 (a capture a move; games end with about 24): the
        opening down to 51, the endgame from 36."""
        return phase_by((int(position.s[0]) | int(position.s[1])).bit_count(), 51, 36)

    def evaluate(self, position: Position) -> tuple[int, ...]:
        value = int(interpreted_namespace(evaluation).evaluate(position.s))
        return (value, -value) if position.to_move == rules.WHITE else (-value, value)

    def evaluation_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        return weighted_terms(evaluation, position.s, 0 if position.to_move == rules.WHITE else 1)

    def picture(self, position: Position) -> list[str]:
        return notation.picture(*_boards(position))


def _boards(position: Position) -> tuple[int, int, int]:
    white, black, to_move, _ = position.s
    return int(white), int(black), int(to_move)


GAME = ClobberGame()
