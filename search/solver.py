"""An exact endgame solver: negamax to the end of the game, no evaluation.

Values are the game's final margin from the side to move's view (`Outcome.margin`, e.g.
the disc difference), or its returns (+1, 0, -1) for games without a margin. The solver
first proves win, loss or draw with the null window (-1, 1), then the exact margin.
Moves are ordered fastest-first: the reply that leaves the opponent the fewest moves is
tried first (a cheap proxy for the smallest subtree), after the move the solver's own
table remembers for the position.

Precondition: a two-player zero-sum game (checked by the caller, AlphaBeta).
"""

from __future__ import annotations

from typing import Callable

from games.base import State
from search.core import Aborted

#: Below this many moves a node tries its moves in generation order: ordering would
#: cost more than it saves.
ORDERING_MIN_MOVES = 3
#: Entries the solver table may hold before it is emptied (bounds its memory).
MAX_ENTRIES = 1 << 20
#: Above every margin a game can produce.
WINDOW_LIMIT = 1 << 20


class Solver:
    """Solves positions exactly; keeps a table of bounds between calls of one search.

    The table maps a position key to (lower bound, upper bound, best move) of the exact
    value from the side to move's view.
    """

    def __init__(self, poll: Callable[[int], bool], poll_mask: int):
        self.nodes = 0
        self._poll = poll
        self._mask = poll_mask
        self._table: dict[int, tuple[int, int, int | None]] = {}

    def solve(self, state: State, alpha: int, beta: int) -> int:
        """The exact value of `state` if it lies in (alpha, beta); else a bound on the
        side it failed (fail-soft). Raises Aborted when the stop condition fires."""
        return self._negamax(state, alpha, beta)

    def best_line(self, state: State, limit: int = 128) -> list[int]:
        """The moves the table holds as best from `state` on, while they stay legal."""
        line: list[int] = []
        seen = {state.key}
        while len(line) < limit:
            entry = self._table.get(state.key)
            if entry is None or entry[2] is None or entry[2] not in state.legal_moves():
                break
            line.append(entry[2])
            state = state.play(entry[2])
            if state.key in seen:
                break
            seen.add(state.key)
        return line

    def _negamax(self, state: State, alpha: int, beta: int) -> int:
        self.nodes += 1
        if not self.nodes & self._mask and self._poll(self.nodes):
            raise Aborted
        outcome = state.outcome()
        if outcome is not None:
            values = outcome.margin if outcome.margin is not None else outcome.returns
            return values[state.to_move]
        key = state.key
        entry = self._table.get(key)
        remembered = None
        if entry is not None:
            lower, upper, remembered = entry
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower == upper:
                return lower
            alpha = max(alpha, lower)
            beta = min(beta, upper)
        moves = state.legal_moves()
        children = [(move, state.play(move)) for move in moves]
        if len(children) >= ORDERING_MIN_MOVES:
            children.sort(key=lambda pair: len(pair[1].legal_moves()))
        if remembered is not None:
            for index, (move, _) in enumerate(children):
                if move == remembered:
                    children.insert(0, children.pop(index))
                    break
        original_alpha = alpha
        best = -WINDOW_LIMIT
        best_move = children[0][0]
        first = True
        for move, child in children:
            if first:
                value = -self._negamax(child, -beta, -alpha)
                first = False
            else:
                value = -self._negamax(child, -alpha - 1, -alpha)
                if alpha < value < beta:
                    value = -self._negamax(child, -beta, -value)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        if len(self._table) >= MAX_ENTRIES:
            self._table.clear()
        lower, upper = (entry[0], entry[1]) if entry is not None else (-WINDOW_LIMIT, WINDOW_LIMIT)
        if best >= beta:
            lower = max(lower, best)
        elif best <= original_alpha:
            upper = min(upper, best)
        else:
            lower = upper = best
        self._table[key] = (lower, upper, best_move)
        return best
