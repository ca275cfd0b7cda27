"""The Abalone descriptor: positions from parameters and board texts, moves and
outcomes as text, over the kernels of `rules` and `evaluation`."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from games.base import (ENDGAME, MIDDLE_GAME, ONGOING, OPENING, OneEvaluation, Outcome, Position, check_params,
                        only_itself)
from games.kernel import interpreted_namespace
from games.weights import weighted_terms
from games.abalone import evaluation, fixtures, notation, rules
from games.abalone.hexboard import MAX_PLIES, WINNING_SCORE, join, split


class Fields(NamedTuple):
    """A position's fields as Python ints: each side's marbles (boards over the bit
    indices of `games.abalone.hexboard`), the side to move (0 black, 1 white), the
    marbles black and white have pushed off and the plies played."""

    black: int
    white: int
    to_move: int
    black_score: int = 0
    white_score: int = 0
    turn: int = 0


class AbaloneGame(OneEvaluation):
    """Abalone (see the package docstring)."""

    name = "abalone"
    rules = rules
    evaluation = evaluation
    listing_order = 5
    parameters: tuple[str, ...] = ()
    num_players = 2
    zero_sum = True
    player_names = ("2", "1")
    side_names = ("black", "white")
    white_player = rules.WHITE
    fixtures = fixtures
    training = None
    parts = None
    rivals = None
    board_images = staticmethod(only_itself)

    def position(self, fields: Fields) -> Position:
        """The position of `fields`, its key computed from scratch; inverse of `fields`."""
        black, white, to_move, black_score, white_score, turn = fields
        return Position(self, interpreted_namespace(rules).make_state(
            *split(black), *split(white), to_move, black_score, white_score, turn))

    def fields(self, position: Position) -> Fields:
        """The fields of `position` (the marbles pushed off are each side's score)."""
        black_lo, black_hi, white_lo, white_hi, to_move, _, black_score, white_score, turn = position.s
        return Fields(join(black_lo, black_hi), join(white_lo, white_hi), int(to_move),
                      int(black_score), int(white_score), int(turn))

    def initial_state(self, params: dict[str, str]) -> Position:
        check_params(self.name, params)
        return self.position(Fields(rules.BLACK_START, rules.WHITE_START, rules.BLACK))

    def parse_board(self, tokens: Sequence[str]) -> Position:
        return self.position(Fields(*notation.parse_board(tokens)))

    def format_board(self, position: Position) -> str:
        return notation.format_board(*self.fields(position))

    def parse_move(self, position: Position, text: str) -> int:
        return notation.parse_move(text, position.legal_moves())

    def format_move(self, position: Position, move: int) -> str:
        return notation.format_move(move)

    def outcome(self, position: Position) -> Outcome | None:
        """None while the game goes on; else six off, the ply limit or no move, with
        black's pushed-off marbles minus white's as the margin, from each player's view."""
        if interpreted_namespace(rules).result(position.s) == ONGOING:
            return None
        _, _, to_move, black_score, white_score, turn = self.fields(position)
        margin = (black_score - white_score, white_score - black_score)
        score = f"{black_score}-{white_score}"
        if black_score >= WINNING_SCORE:
            return Outcome((1, -1), rules.BLACK, f"six off {score}", margin)
        if white_score >= WINNING_SCORE:
            return Outcome((-1, 1), rules.WHITE, f"six off {score}", margin)
        if turn >= MAX_PLIES:
            if black_score == white_score:
                return Outcome((0, 0), None, f"ply limit {score}", margin)
            winner = rules.BLACK if black_score > white_score else rules.WHITE
            returns = (1, -1) if winner == rules.BLACK else (-1, 1)
            return Outcome(returns, winner, f"ply limit {score}", margin)
        return Outcome((-1, 1) if to_move == rules.BLACK else (1, -1), to_move ^ 1, "no move", margin)

    def phase(self, position: Position) -> int:
        """By marbles pushed off (six win): the opening while none is, the endgame from
        four; and by the plies the position has played of the MAX_PLIES the rules allow,
        in thirds, where that is later."""
        s = position.s
        pushed = int(s[6]) + int(s[7])
        by_marbles = OPENING if pushed == 0 else MIDDLE_GAME if pushed < 4 else ENDGAME
        return max(by_marbles, min(ENDGAME, 3 * int(s[8]) // rules.MAX_PLIES))

    def evaluate(self, position: Position) -> tuple[int, ...]:
        """(black's value, white's value): they sum to zero."""
        value = int(interpreted_namespace(evaluation).evaluate(position.s))
        return (value, -value) if position.to_move == rules.BLACK else (-value, value)

    def evaluation_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        return weighted_terms(evaluation, position.s, 0 if position.to_move == rules.BLACK else 1)

    def picture(self, position: Position) -> list[str]:
        return notation.picture(*self.fields(position))


GAME = AbaloneGame()
