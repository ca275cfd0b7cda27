"""Depth-first searches for three-player games, over per-player values.

Three algorithms, chosen by name:

- `paranoid`: the searching player maximises its utility, every other player is assumed
  to minimise it (a two-player alpha-beta against a coalition); with the table, killers
  and history of the two-player search.
- `brs` (best-reply search): the searching player's moves alternate with one layer of
  all the opponents' moves together, of which only the best reply (the one worst for
  the searcher) is played; the other opponents pass. Deeper for the searcher than
  paranoid at the same cost, at the price of positions that cannot occur.
- `maxn`: every player maximises its own utility (below); no pruning (for comparison).

Monte Carlo tree search, the other multi-player search, is `search.mcts`; it builds on
this module's node prologue (`_enter`), root filter, work layout and `ThreePlayerSearch`,
and plays paranoid once two players are left.

The searcher's utility of per-player values v is v[me] - max(v[other]) over the other
players: what matters in a ranking game is being ahead of the best of the rest. Final
positions are valued at the game's returns times WIN_VALUE, sooner results counting
more.

The iterations are kernels written once over a game's kernels (`BINDS`, with the
multi-player part of the contract: `moves_for(s, player, out)`, `play_for(s, player,
move, next_player)`, `players_in(s)` (how many players are still in), `returns(s, out)`
(whether the game is over; each player's return into out) and `evaluate(s, out)` (each player's value into out)), specialised per game
by `search.specialised`. Their work block holds, after the shared slots and the history
table, the evaluation triple (`VALUES`), the root moves a `go searchmoves` allows
(`ROOT_MOVES`: a count, 0 for all, then the moves) and the per-ply move lists
(`MOVE_LISTS`).
`MultiPlayerSearch` gives the deepening frame of `search.driver` these root iterations;
the paranoid line is read from the table by `search.pv`. A stopped iteration sets
work[ABORTED] and unwinds at once; the best root move found so far is in
work[PARTIAL_MOVE] (-1 none) and its value in work[PARTIAL_SCORE].
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from games.base import Game, Position, zobrist_keys
from games.kernel import borrowed, inline_template, interpreted, kernel
from search.base import INFINITY, MAX_PLY, SearchReport
from search.driver import Deepening, bound_to_its_stop
from search.limits import StopSignal
from search.tt import (
    DEFER_DEPTH,
    EXACT,
    LOWER,
    NO_MARK,
    UPPER,
    TranspositionTable,
    bound_decides,
    entry_bound,
    entry_depth,
    entry_move,
    entry_value,
    move_mark,
    next_move,
    tt_claim,
    tt_probe,
    tt_store,
    tt_unmark,
)
from search.work import (
    ABORTED,
    GENERATION,
    HISTORY,
    KILLERS,
    NODES,
    PARTIAL_MOVE,
    PARTIAL_SCORE,
    POLL,
    SELDEPTH,
    SHARED,
    must_stop,
    new_work,
)

#: One step of a game's returns (a rank) in search values.
WIN_VALUE = 100_000


def proven_rank_gap(utility: int) -> int | None:
    """The ranks between the searcher and the best of the others that a utility proves
    (1: the searcher finishes first; -1: one rank below the best other; -2: two), or None
    when the utility is an estimate.

    A finished game is worth WIN_VALUE a rank (less the plies to it); a game's
    evaluation values a position whose ranking is decided at 0.9 WIN_VALUE a rank or
    more, and any other position below WIN_VALUE / 2."""
    if abs(utility) < WIN_VALUE // 2:
        return None
    return round(utility / WIN_VALUE)
PLAYERS = 3
# Utilities depend on who searches: table keys of a search are mixed with the searcher's.
_SEARCHER_KEYS = zobrist_keys(0x3_91A7E5, 8)

#: The game's kernels these templates call, bound per game.
BINDS = ("MAX_MOVES", "legal_moves", "moves_for", "play", "play_for", "key", "to_move", "players_in", "returns",
         "evaluate")
MAX_MOVES = legal_moves = moves_for = play = play_for = key = to_move = players_in = returns = evaluate = None
#: Where the evaluation triple, the allowed root moves and the per-ply move lists lie in
#: the work block (`layout`).
VALUES = ROOT_MOVES = MOVE_LISTS = None


def layout(kernels) -> dict[str, int]:
    """The work block offsets of a game with these kernels (the history table takes
    MOVE_LIMIT slots: moves index it as they are), and the block's end (`WORK_END`)."""
    values = HISTORY + kernels["MOVE_LIMIT"]
    root_moves = values + PLAYERS
    move_lists = root_moves + 1 + kernels["MAX_MOVES"]
    end = move_lists + (MAX_PLY + 2) * kernels["MAX_MOVES"]
    return {"VALUES": values, "ROOT_MOVES": root_moves, "MOVE_LISTS": move_lists, "WORK_END": end}


def new_block(offsets: dict[str, int]) -> np.ndarray:
    """A work block, reset, of a search whose slots lie at `offsets` (a `layout`)."""
    return new_work(offsets["WORK_END"] - HISTORY)


@kernel(inline=True)
def _utility(v0, v1, v2, me):
    """v[me] minus the best of the others' values."""
    if me == 0:
        return v0 - max(v1, v2)
    if me == 1:
        return v1 - max(v0, v2)
    return v2 - max(v0, v1)


@kernel(inline=True)
def _enter(ply, work):
    """Count a node, poll every POLL + 1 nodes; True when the search must stop."""
    nodes = work[NODES] + 1
    work[NODES] = nodes
    if (nodes & POLL) == 0 and must_stop(work, nodes):
        work[ABORTED] = 1
        return True
    if ply > work[SELDEPTH]:
        work[SELDEPTH] = ply
    return False


@inline_template
def _terminal_utility(work, ply, me):
    return _utility(WIN_VALUE * work[VALUES] - ply, WIN_VALUE * work[VALUES + 1] - ply,
                    WIN_VALUE * work[VALUES + 2] - ply, me)


@inline_template
def _root_filter(work, base, count):
    """The root's move list at work[base:base + count] cut to the moves `go searchmoves`
    allows (work[ROOT_MOVES], 0 for all), in order; their count."""
    allowed = work[ROOT_MOVES]
    if allowed == 0:
        return count
    kept = 0
    for i in range(count):
        move = work[base + i]
        for j in range(allowed):
            if work[ROOT_MOVES + 1 + j] == move:
                work[base + kept] = move
                kept += 1
                break
    return kept


@inline_template
def _static_utility(s, me, work):
    evaluate(s, work[VALUES:VALUES + PLAYERS])
    return _utility(work[VALUES], work[VALUES + 1], work[VALUES + 2], me)


@kernel
def _promote(work, base, count, move):
    """Move `move` to the front of the list at work[base:base + count] if it is there,
    keeping the others' order."""
    if move < 0:
        return
    for i in range(count):
        if work[base + i] == move:
            for j in range(base + i, base, -1):
                work[j] = work[j - 1]
            work[base] = move
            return


@kernel
def _order(work, base, count, tt_move, ply):
    """A stable sort of the move list at work[base:base + count] by history, highest
    first, then the second killer, the first killer and the table move to the front."""
    for i in range(base + 1, base + count):
        move = work[i]
        score = work[HISTORY + move]
        j = i
        while j > base and work[HISTORY + work[j - 1]] < score:
            work[j] = work[j - 1]
            j -= 1
        work[j] = move
    _promote(work, base, count, work[KILLERS + 2 * ply + 1])
    _promote(work, base, count, work[KILLERS + 2 * ply])
    _promote(work, base, count, tt_move)


@kernel(inline=True)
def _cutoff(move, depth, ply, work):
    killer = KILLERS + 2 * ply
    if move != work[killer]:
        work[killer + 1] = work[killer]
        work[killer] = move
    work[HISTORY + move] += depth * depth


def _paranoid(s, depth, alpha, beta, ply, me, salt, cells, work):
    if _enter(ply, work):
        return 0
    if returns(s, work[VALUES:VALUES + PLAYERS]):
        return _terminal_utility(work, ply, me)
    if depth <= 0 or ply >= MAX_PLY:
        return _static_utility(s, me, work)
    position = key(s) ^ salt
    entry = tt_probe(cells, position)
    tt_move = -1
    if entry != 0:
        tt_move = entry_move(entry)
        if entry_depth(entry) >= depth and ply != 0:
            value = entry_value(entry)
            if bound_decides(entry_bound(entry), value, alpha, beta):
                return value
    maximising = to_move(s) == me
    base = MOVE_LISTS + ply * MAX_MOVES
    count = legal_moves(s, work[base:base + MAX_MOVES])
    if ply == 0:
        count = _root_filter(work, base, count)
    _order(work, base, count, tt_move, ply)
    original_alpha = alpha
    original_beta = beta
    best = -INFINITY if maximising else INFINITY
    best_move = work[base]
    # As in the two-player search (`search.alphabeta`): with other threads on the
    # tree, a move another one is searching comes last; the deferred moves go to the
    # front of the list, whose moves are spent by then.
    sharing = work[SHARED] != 0 and depth >= DEFER_DEPTH
    deferred = 0
    taken = 0
    i = 0
    while True:
        more, move, i, taken = next_move(work, base, count, base, i, taken, deferred)
        if not more:
            break
        mark = move_mark(position, move) if sharing else NO_MARK
        if sharing and not tt_claim(cells, mark, taken == 0 and i > 1):
            work[base + deferred] = move
            deferred += 1
            continue
        value = _paranoid(play(s, move), depth - 1, alpha, beta, ply + 1, me, salt, cells, work)
        if sharing:
            tt_unmark(cells, mark)
        if work[ABORTED] != 0:
            return 0
        if maximising:
            if value > best:
                best = value
                best_move = move
                if ply == 0:
                    work[PARTIAL_MOVE] = move
                    work[PARTIAL_SCORE] = value
                alpha = max(alpha, value)
        elif value < best:
            best = value
            best_move = move
            beta = min(beta, value)
        if alpha >= beta:
            _cutoff(move, depth, ply, work)
            break
    if best >= original_beta or (ply == 0 and work[ROOT_MOVES] != 0):
        bound = LOWER  # a root cut to some moves: the whole root is worth at least this
    elif best <= original_alpha:
        bound = UPPER
    else:
        bound = EXACT
    tt_store(cells, position, depth, bound, best, best_move, work[GENERATION])
    return best


def paranoid_root(s, depth, me, salt, cells, work):
    """One paranoid iteration to `depth` from `s` for searcher `me`: its utility."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    # Typed values, not literals: a literal argument would compile another specialisation
    # of the recursive function, and numba's cache cannot reload those.
    return _paranoid(s, np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0), me,
                     salt, borrowed(cells), borrowed(work))


def _brs(s, depth, alpha, beta, ply, opponents, me, work):
    """Best-reply search: the searcher's layer (opponents False) or the opponents' layer
    (True), where only the reply worst for the searcher is played."""
    if not opponents:
        if _enter(ply, work):
            return 0
        if returns(s, work[VALUES:VALUES + PLAYERS]):
            return _terminal_utility(work, ply, me)
        if depth <= 0 or ply >= MAX_PLY:
            return _static_utility(s, me, work)
        if to_move(s) == me:
            best = -INFINITY
            base = MOVE_LISTS + ply * MAX_MOVES
            count = legal_moves(s, work[base:base + MAX_MOVES])
            if ply == 0:
                count = _root_filter(work, base, count)
            _order(work, base, count, -1, ply)
            for i in range(count):
                move = work[base + i]
                # Straight to the opponents' layer, whoever the rules say moves next.
                value = _brs(play(s, move), depth - 1, alpha, beta, ply + 1, np.bool_(True), me, work)
                if work[ABORTED] != 0:
                    return 0
                if value > best:
                    best = value
                    if ply == 0:
                        work[PARTIAL_MOVE] = move
                        work[PARTIAL_SCORE] = value
                    alpha = max(alpha, value)
                    if alpha >= beta:
                        _cutoff(move, depth, ply, work)
                        break
            return best
    # The layer where any one opponent moves, and play returns to the searcher.
    if returns(s, work[VALUES:VALUES + PLAYERS]):
        if _enter(ply, work):
            return 0
        return _terminal_utility(work, ply, me)
    if depth <= 0:
        if _enter(ply, work):
            return 0
        return _static_utility(s, me, work)
    best = INFINITY
    base = MOVE_LISTS + ply * MAX_MOVES
    for player in range(PLAYERS):
        if player == me:
            continue
        count = moves_for(s, player, work[base:base + MAX_MOVES])
        for i in range(count):
            value = _brs(play_for(s, player, work[base + i], me), depth - 1, alpha, beta, ply + 1,
                         np.bool_(False), me, work)
            if work[ABORTED] != 0:
                return 0
            if value < best:
                best = value
                beta = min(beta, value)
                if alpha >= beta:
                    return best
    if best == INFINITY:
        # No opponent can move (a settled state never gets here); value it as it is.
        if _enter(ply, work):
            return 0
        return _static_utility(s, me, work)
    return best


def brs_root(s, depth, me, salt, cells, work):
    """One best-reply iteration (the table is not used: its values are not a sequence of
    turns)."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    return _brs(s, np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0),
                np.bool_(False), me, borrowed(work))


def _maxn(s, depth, ply, me, work):
    """Max^n: the per-player values every player's best choice leads to."""
    if _enter(ply, work):
        return 0, 0, 0
    if returns(s, work[VALUES:VALUES + PLAYERS]):
        return (WIN_VALUE * work[VALUES] - ply, WIN_VALUE * work[VALUES + 1] - ply,
                WIN_VALUE * work[VALUES + 2] - ply)
    if depth <= 0 or ply >= MAX_PLY:
        evaluate(s, work[VALUES:VALUES + PLAYERS])
        return work[VALUES], work[VALUES + 1], work[VALUES + 2]
    player = to_move(s)
    base = MOVE_LISTS + ply * MAX_MOVES
    count = legal_moves(s, work[base:base + MAX_MOVES])
    if ply == 0:
        count = _root_filter(work, base, count)
    b0 = b1 = b2 = 0
    best_utility = 0
    for i in range(count):
        move = work[base + i]
        c0, c1, c2 = _maxn(play(s, move), depth - 1, ply + 1, me, work)
        if work[ABORTED] != 0:
            return 0, 0, 0
        child_utility = _utility(c0, c1, c2, player)
        if i == 0 or child_utility > best_utility:
            b0, b1, b2 = c0, c1, c2
            best_utility = child_utility
            if ply == 0:
                work[PARTIAL_MOVE] = move
                work[PARTIAL_SCORE] = _utility(c0, c1, c2, me)
    return b0, b1, b2


def maxn_root(s, depth, me, salt, cells, work):
    """One max^n iteration: the searcher's utility of the values its tree leads to."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    v0, v1, v2 = _maxn(s, np.int64(depth), np.int64(0), me, borrowed(work))
    return _utility(v0, v1, v2, me)


TEMPLATES = (_terminal_utility, _static_utility, _root_filter, _paranoid, paranoid_root, _brs, brs_root, _maxn,
             maxn_root)
#: The root iteration kernel of each algorithm, by name.
_ROOTS = {"paranoid": "paranoid_root", "brs": "brs_root", "maxn": "maxn_root"}


def warm(kernels, position: Position) -> None:
    """Call every root iteration and the line once from `position` (one with moves), so
    that numba loads them from its cache, or compiles them the first time."""
    cells = np.zeros((1 << 10, 2), dtype=np.uint64)
    work = new_block(layout(vars(position.game.rules)))
    me = kernels.to_move(position.s)
    for name in _ROOTS.values():
        getattr(kernels, name)(position.s, np.int64(2), me, np.uint64(0), cells, work)


class ThreePlayerSearch(Deepening):
    """What the searchers of three-player games share: a work block whose slots a
    `layout` (this module's, or one that extends it) places, the searcher (`_me`), its
    utility as the score of a leaf and of a finished root, and the root moves the
    kernels may search.

    Raises ValueError for a game of another number of players than PLAYERS and a table
    of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches, layout):
        if game.num_players != PLAYERS:
            raise ValueError(f"the multi-player searches are for {PLAYERS} players, not {game.name!r}")
        offsets = layout(vars(game.rules))
        super().__init__(game, table, searches, new_block(offsets))
        self._root_slot = offsets["ROOT_MOVES"]
        self._me = 0

    def static_score(self, position: Position) -> int:
        """What a leaf of this search scores `position` at, for its side to move: its
        value minus the best of the other players' values (the game's evaluation, with
        no search), the `score cp` of a search that stops there."""
        return int(interpreted(_utility)(*self.game.evaluate(position), position.to_move))

    def _allow_root_moves(self, moves: list[int]) -> None:
        """Give the kernels the root moves they may search: all (0), or `moves` when
        they are fewer than the root's."""
        allowed = moves if len(moves) < self._root_count else []
        slot, work = self._root_slot, self._work
        work[slot] = len(allowed)
        work[slot + 1:slot + 1 + len(allowed)] = allowed

    def _deepen_root(self, root: Position, stop: StopSignal, root_moves: Sequence[int] | None,
                     multipv: int) -> Iterator[SearchReport]:
        """The body of a search of `root` for its side to move: a report per completed
        iteration and a final one (with no move where the root has none)."""
        self._me = root.to_move
        started = self._start(root, stop)
        moves = self._root_moves(root, root_moves, multipv)
        if not moves:
            yield self._finished(root)
            return
        final, _ = yield from self._deepen(root, moves, stop, started, MAX_PLY)
        yield final

    def _terminal_score(self, root: Position) -> int:
        """The searcher's utility of a root without moves (its returns at ply 0)."""
        values = np.zeros(PLAYERS, dtype=np.int64)
        self._kernels.returns(root.s, values)
        others = max(int(values[player]) for player in range(PLAYERS) if player != self._me)
        return WIN_VALUE * (int(values[self._me]) - others)


class MultiPlayerSearch(ThreePlayerSearch):
    """Iterative deepening with paranoid, brs or maxn; reports the searcher's utility.
    Runs its game's search kernels as `searches` gives them (`search.specialised`:
    compiled once loaded, else interpreted).

    Raises ValueError for a game of another number of players than PLAYERS, an unknown
    algorithm and a table of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches, algorithm: str = "paranoid"):
        super().__init__(game, table, searches, layout)
        if algorithm not in _ROOTS:
            raise ValueError(f"unknown multi-player search {algorithm!r}")
        self.algorithm = algorithm
        self._salt = 0

    @bound_to_its_stop
    def search(self, root: Position, stop: StopSignal, root_moves: Sequence[int] | None = None,
               multipv: int = 1) -> Iterator[SearchReport]:
        """Deepen one ply at a time until stopped or at `stop.max_depth`; at the root
        only `root_moves` (legal moves of `root`) when given. With `multipv` above 1 each
        iteration also searches the next best root moves, up to `multipv` lines in all
        (`others`).

        Yields a report per completed iteration and a final one whose pv[0] is the move
        (pv is empty when the root has no move).
        """
        self._salt = _SEARCHER_KEYS[root.to_move]
        yield from self._deepen_root(root, stop, root_moves, multipv)

    def _iterate(self, root: Position, moves: list[int], depth: int) -> tuple[int, int]:
        self._allow_root_moves(moves)
        iteration = getattr(self._kernels, _ROOTS[self.algorithm])
        score = iteration(root.s, np.int64(depth), np.int64(self._me), np.uint64(self._salt), self.table.cells,
                          self._work)
        return int(score), int(self._work[PARTIAL_MOVE])

    def _new_helper(self) -> MultiPlayerSearch:
        return MultiPlayerSearch(self.game, self.table, self.searches, self.algorithm)

    def _follow(self, main: MultiPlayerSearch) -> None:
        super()._follow(main)
        self._me, self._salt = main._me, main._salt

    def _helped(self) -> bool:
        """The paranoid search alone shares a table between threads."""
        return self.algorithm == "paranoid"

    def _store_root(self, root: Position, depth: int, score: int, move: int) -> None:
        """The paranoid search's root entry; the others keep none."""
        if self.algorithm == "paranoid":
            tt_store(self.table.cells, np.uint64(root.key ^ self._salt), np.int64(depth), np.int64(EXACT),
                     np.int64(score), np.int64(move), np.int64(self.table.generation))

    def _line_salt(self) -> int:
        return self._salt

    def _principal_variation(self, root: Position, first: int, length: int) -> tuple[int, ...]:
        """The paranoid line from the table; the other searches' lines are not a
        sequence of turns, and report their first move alone."""
        if self.algorithm != "paranoid":
            return (first,)
        return super()._principal_variation(root, first, length)
