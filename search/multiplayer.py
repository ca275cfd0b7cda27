"""Searches for games of more than two players, over per-player values.

Three algorithms, chosen by name:

- `paranoid`: the searching player maximises its utility, every other player is assumed
  to minimise it (a two-player alpha-beta against a coalition); with the TT, killers
  and history of the two-player search.
- `brs` (best-reply search): the searching player's moves alternate with one layer of
  all the opponents' moves together, of which only the best reply (the one worst for
  the searcher) is played; the other opponents pass. Deeper for the searcher than
  paranoid at the same cost, at the price of positions that cannot occur. Needs states
  with `moves_for(player)` and `play_for(player, move, next_player)`.
- `maxn`: every player maximises its own utility (below); no pruning (for comparison).

The searcher's utility of per-player values v is v[me] - max(v[other]) over the other
players: what matters in a ranking game is being ahead of the best of the rest. Final
positions are valued at the game's returns times WIN_VALUE, sooner results counting
more.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Callable, Iterator

from games.base import Game, State, zobrist_keys
from search.core import INFINITY, MAX_PLY, POLL_MASK, Aborted, SearchReport
from search.limits import StopSignal
from search.tt import EXACT, LOWER, UPPER, TranspositionTable, unpack_move

ALGORITHMS = ("paranoid", "brs", "maxn")
#: One step of a game's returns (a rank) in search values.
WIN_VALUE = 100_000
# Utilities depend on who searches: table keys of a search are mixed with the searcher's.
_SEARCHER_KEYS = zobrist_keys(0x3_91A7E5, 8)


def utility(values: tuple[int, ...], me: int) -> int:
    """v[me] minus the best value among the other players."""
    return values[me] - max(value for player, value in enumerate(values) if player != me)


class MultiPlayerSearch:
    """Iterative deepening with one of ALGORITHMS; reports the searcher's utility.

    Raises ValueError for an unknown algorithm, for a table of another game, and for
    `brs` on a game whose states cannot play out of turn.
    """

    def __init__(self, game: Game, table: TranspositionTable, algorithm: str = "paranoid"):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown multi-player search {algorithm!r}")
        if table.game != game.name:
            raise ValueError(f"table of {table.game!r} used for {game.name!r}")
        self.game = game
        self.table = table
        self.algorithm = algorithm
        self.nodes = 0
        self.seldepth = 0
        self._me = 0
        self._salt = 0
        self._poll: Callable[[int], bool] = StopSignal().should_stop
        self._killers: list[list[int | None]] = [[None, None] for _ in range(MAX_PLY + 1)]
        self._history: defaultdict[int, int] = defaultdict(int)
        self._root_best: int | None = None

    def search(self, root: State, stop: StopSignal) -> Iterator[SearchReport]:
        """Deepen one ply at a time until stopped, at `stop.max_depth`, or proven.

        Yields a report per completed iteration and a final one whose pv[0] is the move
        (pv is empty when the root has no move).
        """
        self.nodes = 0
        self.seldepth = 0
        self._me = root.to_move
        self._salt = _SEARCHER_KEYS[self._me]
        self.table.new_search()
        self._history.clear()
        for killers in self._killers:
            killers[0] = killers[1] = None
        started = time.monotonic()
        moves = root.legal_moves()
        if not moves:
            yield SearchReport(0, 0, self._terminal(root, 0), 0, 0, self.table.hashfull(), (), True)
            return
        if self.algorithm == "brs" and not hasattr(root, "play_for"):
            raise ValueError("best-reply search needs states that play out of turn")
        best_move, best_score, completed = moves[0], 0, 0
        depth = 0
        while depth < MAX_PLY:
            depth += 1
            if stop.max_depth is not None and depth > stop.max_depth and completed:
                break
            self._poll = stop.stop_requested if depth == 1 else stop.should_stop
            self._root_best = None
            try:
                score = self._root_search(root, depth)
            except Aborted:
                if self._root_best is not None and completed:
                    best_move = self._root_best
                break
            assert self._root_best is not None
            best_move, best_score, completed = self._root_best, score, depth
            yield self._report(root, completed, best_score, best_move, started, False)
            if (len(moves) == 1 and stop.deadline is not None) or stop.should_stop(self.nodes):
                break
        yield self._report(root, completed, best_score, best_move, started, True)

    def _report(self, root: State, depth: int, score: int, move: int, started: float,
                final: bool) -> SearchReport:
        return SearchReport(
            depth=depth, seldepth=max(self.seldepth, depth), score=score, nodes=self.nodes,
            elapsed_ms=int((time.monotonic() - started) * 1000), hashfull=self.table.hashfull(),
            pv=self._line(root, move, max(depth, 1)), final=final,
        )

    def _line(self, root: State, first: int, length: int) -> tuple[int, ...]:
        """The best move, then the table's moves while they stay legal (paranoid only:
        the other searches' lines are not a sequence of turns)."""
        line = [first]
        if self.algorithm != "paranoid":
            return tuple(line)
        state = root.play(first)
        while len(line) < length:
            entry = self.table.probe(state.key ^ self._salt)
            move = None if entry is None else unpack_move(entry)
            if move is None or move not in state.legal_moves():
                break
            line.append(move)
            state = state.play(move)
        return tuple(line)

    def _root_search(self, root: State, depth: int) -> int:
        if self.algorithm == "maxn":
            values = self._maxn(root, depth, 0)
            return utility(values, self._me)
        if self.algorithm == "brs":
            return self._brs(root, depth, -INFINITY, INFINITY, 0)
        return self._paranoid(root, depth, -INFINITY, INFINITY, 0)

    def _terminal_values(self, state: State, ply: int) -> tuple[int, ...] | None:
        outcome = state.outcome()
        if outcome is None:
            return None
        # A decided game counts for more the sooner it is decided, for every player.
        return tuple(WIN_VALUE * value - ply for value in outcome.returns)

    def _terminal(self, state: State, ply: int) -> int:
        values = self._terminal_values(state, ply)
        return 0 if values is None else utility(values, self._me)

    def _enter(self, ply: int) -> None:
        self.nodes += 1
        if not self.nodes & POLL_MASK and self._poll(self.nodes):
            raise Aborted
        if ply > self.seldepth:
            self.seldepth = ply

    def _ordered(self, state: State, moves: list[int], tt_move: int | None, ply: int) -> list[int]:
        moves.sort(key=self._history.__getitem__, reverse=True)
        killers = self._killers[ply]
        for promoted in (killers[1], killers[0], tt_move):
            if promoted is not None and promoted in moves:
                moves.remove(promoted)
                moves.insert(0, promoted)
        return moves

    def _cutoff(self, move: int, depth: int, ply: int) -> None:
        killers = self._killers[ply]
        if move != killers[0]:
            killers[1] = killers[0]
            killers[0] = move
        self._history[move] += depth * depth

    def _paranoid(self, state: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The searcher's utility with every other player against it (fail-soft)."""
        self._enter(ply)
        values = self._terminal_values(state, ply)
        if values is not None:
            return utility(values, self._me)
        if depth <= 0 or ply >= MAX_PLY:
            return utility(self.game.evaluate(state), self._me)
        key = state.key ^ self._salt
        entry = self.table.probe(key)
        tt_move = None
        if entry is not None:
            tt_move = unpack_move(entry)
            if (entry >> 24) & 0x7F >= depth and ply:
                value = (entry & 0xFFFFFF) - (1 << 23)
                bound = (entry >> 31) & 0x3
                if bound == EXACT or (bound == LOWER and value >= beta) or (
                    bound == UPPER and value <= alpha
                ):
                    return value
        maximising = state.to_move == self._me
        moves = self._ordered(state, state.legal_moves(), tt_move, ply)
        original_alpha, original_beta = alpha, beta
        best = -INFINITY if maximising else INFINITY
        best_move = moves[0]
        for move in moves:
            value = self._paranoid(state.play(move), depth - 1, alpha, beta, ply + 1)
            if maximising:
                if value > best:
                    best, best_move = value, move
                    if ply == 0:
                        self._root_best = move
                    alpha = max(alpha, value)
            elif value < best:
                best, best_move = value, move
                beta = min(beta, value)
            if alpha >= beta:
                self._cutoff(move, depth, ply)
                break
        if best >= original_beta:
            bound = LOWER
        elif best <= original_alpha:
            bound = UPPER
        else:
            bound = EXACT
        self.table.store(key, depth, bound, best, best_move)
        return best

    def _brs(self, state: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Best-reply search: the searcher's moves against the single best reply of all
        opponents together (fail-soft alpha-beta)."""
        self._enter(ply)
        values = self._terminal_values(state, ply)
        if values is not None:
            return utility(values, self._me)
        if depth <= 0 or ply >= MAX_PLY:
            return utility(self.game.evaluate(state), self._me)
        me = self._me
        if state.to_move == me:
            best = -INFINITY
            moves = self._ordered(state, state.legal_moves(), None, ply)
            for move in moves:
                child = state.play(move)
                # Straight to the opponents' layer, whoever the rules say moves next.
                value = self._brs_opponents(child, depth - 1, alpha, beta, ply + 1)
                if value > best:
                    best = value
                    if ply == 0:
                        self._root_best = move
                    alpha = max(alpha, value)
                    if alpha >= beta:
                        self._cutoff(move, depth, ply)
                        break
            return best
        return self._brs_opponents(state, depth, alpha, beta, ply)

    def _brs_opponents(self, state: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The layer where any one opponent moves, and play returns to the searcher."""
        values = self._terminal_values(state, ply)
        if values is not None:
            self._enter(ply)
            return utility(values, self._me)
        if depth <= 0:
            self._enter(ply)
            return utility(self.game.evaluate(state), self._me)
        me = self._me
        best = INFINITY
        for player in range(self.game.num_players):
            if player == me:
                continue
            for move in state.moves_for(player):  # type: ignore[attr-defined]
                child = state.play_for(player, move, me)  # type: ignore[attr-defined]
                value = self._brs(child, depth - 1, alpha, beta, ply + 1)
                if value < best:
                    best = value
                    beta = min(beta, value)
                    if alpha >= beta:
                        return best
        if best == INFINITY:
            # No opponent can move (the rules put such players out when their turn
            # comes, so a settled state never gets here); value the position as it is.
            self._enter(ply)
            return utility(self.game.evaluate(state), me)
        return best

    def _maxn(self, state: State, depth: int, ply: int) -> tuple[int, ...]:
        """Every player picks the child best for itself; per-player values."""
        self._enter(ply)
        values = self._terminal_values(state, ply)
        if values is not None:
            return values
        if depth <= 0 or ply >= MAX_PLY:
            return self.game.evaluate(state)
        player = state.to_move
        best: tuple[int, ...] | None = None
        for move in state.legal_moves():
            child_values = self._maxn(state.play(move), depth - 1, ply + 1)
            if best is None or utility(child_values, player) > utility(best, player):
                best = child_values
                if ply == 0:
                    self._root_best = move
        assert best is not None
        return best

