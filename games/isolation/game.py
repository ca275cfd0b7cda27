"""The Knight Isolation descriptor: positions from the seed and board texts, moves and
outcomes as text, over the kernels of `rules` and `evaluation`; and the readings of a
position the CodinGame adapters need (`blocked`, `knights`, `alive`, `scores`)."""

from __future__ import annotations

from types import ModuleType
from typing import Sequence

import numpy as np

from games.base import CLASSIC, Outcome, Position, SeveralEvaluations, only_itself, phase_by
from games.isolation import evaluation, fixtures, notation, patterns, rivals, rules
from games.isolation.javarandom import start_squares
from games.kernel import interpreted_namespace

_NOBODY_OUT = (-1, -1, -1)

#: The evaluations, by name: the hand-set one (the default) and the pattern tables
#: trained by temporal differences.
EVALUATIONS = {CLASSIC: evaluation, "patterns": patterns}


class IsolationGame(SeveralEvaluations):
    """Knight Isolation for three players (see the package docstring), evaluating with
    its evaluation `evaluation_name` (one of EVALUATIONS)."""

    name = "isolation"
    rules = rules
    EVALUATIONS = EVALUATIONS
    listing_order = 4
    parameters: tuple[str, ...] = ("seed",)
    num_players = rules.PLAYERS
    zero_sum = False
    player_names = ("r", "g", "b")
    side_names = ("red", "green", "blue")
    white_player = None
    fixtures = fixtures
    parts = None
    rivals = rivals
    board_images = staticmethod(only_itself)

    @property
    def training(self) -> ModuleType:
        """`games.isolation.training`, imported here: only the training's tools need it."""
        from games.isolation import training

        return training

    def _position(self, blocked: int, knights: tuple[int, int, int], to_move: int, alive: int,
                  scores: tuple[int, int, int]) -> Position:
        """The settled position (players without a move put out), key from scratch."""
        return Position(self, interpreted_namespace(rules).make_state(
            np.uint64(blocked), *map(np.int64, knights), np.int64(to_move), np.int64(alive),
            *map(np.int64, scores)))

    def initial_state(self, params: dict[str, str]) -> Position:
        return self._position(0, start_squares(notation.parse_seed(params)), 0, rules.ALL_IN, _NOBODY_OUT)

    def parse_board(self, tokens: Sequence[str]) -> Position:
        return self._position(*notation.parse_board(tokens))

    def format_board(self, position: Position) -> str:
        return notation.format_board(self.blocked(position), self.knights(position), position.to_move,
                                     self.alive(position), self.scores(position))

    def parse_move(self, position: Position, text: str) -> int:
        return notation.parse_move(text, position.legal_moves())

    def format_move(self, position: Position, move: int) -> str:
        return notation.format_move(move)

    def outcome(self, position: Position) -> Outcome | None:
        """The final scores; the winner is the survivor when it is declared (the only
        player who can score PLAYERS - 1), else there is none: the turn cap ended the
        game."""
        scores = np.zeros(rules.PLAYERS, dtype=np.int64)
        if not interpreted_namespace(rules).returns(position.s, scores):
            return None
        returns = tuple(int(score) for score in scores)
        if rules.PLAYERS - 1 in returns:
            return Outcome(returns, returns.index(rules.PLAYERS - 1), "last player standing")
        return Outcome(returns, None, "turn limit")

    def phase(self, position: Position) -> int:
        """By free squares (neither left by a knight nor under one) of the 61 at the
        start: the opening down to 43, the endgame from 21."""
        return phase_by(int(evaluation.free_squares(position.s)).bit_count(), 43, 21)

    def evaluate(self, position: Position) -> tuple[int, ...]:
        values = np.zeros(rules.PLAYERS, dtype=np.int64)
        interpreted_namespace(self.evaluation).evaluate(position.s, values)
        return tuple(int(value) for value in values)

    def evaluation_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The weighted terms of each player still in, and `out` (the value of a player
        out, by its score); once the knights are walled off from each other, `decided`
        alone: the final scores the moves left give (see `evaluation`)."""
        if self.evaluation is patterns:
            return self._pattern_terms(position)
        values = self.evaluate(position)
        raw = np.zeros((rules.PLAYERS, len(evaluation.FEATURES)), dtype=np.int64)
        phase = int(interpreted_namespace(evaluation).player_terms(position.s, raw))
        if phase < 0:
            return (("decided", values),)
        alive = [bool(int(position.s[5]) >> player & 1) for player in range(rules.PLAYERS)]
        weights = evaluation.WEIGHTS[phase]
        rows = [(name, tuple(int(weights[index] * raw[player, index]) if alive[player] else 0
                             for player in range(rules.PLAYERS)))
                for index, name in enumerate(evaluation.FEATURES)]
        if not all(alive):
            rows.append(("out", tuple(0 if alive[player] else values[player] for player in range(rules.PLAYERS))))
        return tuple(rows)

    def _pattern_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The pattern evaluation's blocks of weights (`patterns.FEATURES`) summed for
        each player still in, and `out`; `decided` alone as for the hand-set one."""
        values = self.evaluate(position)
        found = self.training.open_rows(position.s)
        if found is None:
            return (("decided" if position.outcome() is None else "out", values),)
        phase, players = found
        sums = np.zeros((len(patterns.FEATURES), rules.PLAYERS))
        for player, slots, amounts in players:
            blocks = np.searchsorted(patterns.BLOCK_STARTS, slots, side="right") - 1
            np.add.at(sums[:, player], blocks, patterns.WEIGHTS[phase][slots] * amounts)
        rows = [(name, tuple(round(total) for total in totals)) for (name, _), totals in zip(patterns.FEATURES, sums)]
        alive = self.alive(position)
        if alive != rules.ALL_IN:
            rows.append(("out", tuple(0 if alive >> player & 1 else values[player] for player in range(rules.PLAYERS))))
        return tuple(rows)

    def picture(self, position: Position) -> list[str]:
        return notation.picture(self.blocked(position), self.knights(position), position.to_move,
                                self.alive(position))

    def blocked(self, position: Position) -> int:
        """The squares knights have left (bit 0 = a1), blocked for good."""
        return int(position.s[0])

    def knights(self, position: Position) -> tuple[int, int, int]:
        """Each player's knight square; a player out keeps its knight on its square."""
        return int(position.s[1]), int(position.s[2]), int(position.s[3])

    def alive(self, position: Position) -> int:
        """The players still in: bit p for player p."""
        return int(position.s[5])

    def scores(self, position: Position) -> tuple[int, int, int]:
        """Each player's final score if it is out (0 for the first out, 1 for the next),
        -1 while it is in."""
        return int(position.s[6]), int(position.s[7]), int(position.s[8])


GAME = IsolationGame()
