"""The game as one CodinGame player has seen it, for an engine that reads its opponents
from their moves: the board of the player's first turn and every move since.

The referee sends boards, not the moves between them. The others' moves between two
turns of the player are found as the moves that lead from the position after the
player's own move to the board of its next turn: each player in turn order moves once
(or is put out), so at most as many plies as there are other players, and a handful of
candidate lines. Where no line leads there (a player left the game for a timeout or a
bad action, which no move does), the line starts again from that board.
"""

from __future__ import annotations

from games.base import Game, Position

#: The positions the search for the others' moves may visit between two turns.
SEARCH_LIMIT = 4096


class GameLine:
    """The board text of the first turn of the line and the moves since (tokens), and
    the position they lead to."""

    def __init__(self, game: Game):
        self.game = game
        self.start: str | None = None
        self.moves: list[str] = []
        self.position: Position | None = None

    def turn(self, board_text: str, state: Position) -> None:
        """The player's turn comes with the referee's board `board_text` (position
        `state`): the others' moves since the player's last move join the line, or the
        line starts again from this board when no moves lead to it."""
        found = None if self.position is None else self._between(self.position, state)
        if found is None:
            self.start, self.moves, self.position = board_text, [], state
            return
        self.moves += found
        self.position = state

    def played(self, token: str) -> None:
        """The player's own move `token` (legal in the line's position)."""
        assert self.position is not None
        self.position = self.position.play(self.game.parse_move(self.position, token))
        self.moves.append(token)

    def _between(self, after: Position, state: Position) -> list[str] | None:
        """The moves (tokens) of the players other than `state`'s side to move that lead
        from `after` to a position whose board is `state`'s, breadth first; None when
        none does within SEARCH_LIMIT positions."""
        game = self.game
        me = state.to_move
        target = game.format_board(state)
        frontier: list[tuple[Position, list[str]]] = [(after, [])]
        visited = 0
        while frontier:
            following: list[tuple[Position, list[str]]] = []
            for position, moves in frontier:
                if position.to_move == me or position.outcome() is not None:
                    if game.format_board(position) == target:
                        return moves
                    continue
                for move in position.legal_moves():
                    visited += 1
                    if visited > SEARCH_LIMIT:
                        return None
                    following.append((position.play(move), moves + [game.format_move(position, move)]))
            frontier = following
        return None
