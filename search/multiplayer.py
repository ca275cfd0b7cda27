"""Searches for three-player games, over per-player values.

Three algorithms, chosen by name:

- `paranoid`: the searching player maximises its utility, every other player is assumed
  to minimise it (a two-player alpha-beta against a coalition); with the table, killers
  and history of the two-player search.
- `brs` (best-reply search): the searching player's moves alternate with one layer of
  all the opponents' moves together, of which only the best reply (the one worst for
  the searcher) is played; the other opponents pass. Deeper for the searcher than
  paranoid at the same cost, at the price of positions that cannot occur.
- `maxn`: every player maximises its own utility (below); no pruning (for comparison).
- `mcts`: Monte Carlo tree search (UCT) in which each player picks the children best
  for itself, as max^n does, with the evaluation in place of random playouts (below).

The searcher's utility of per-player values v is v[me] - max(v[other]) over the other
players: what matters in a ranking game is being ahead of the best of the rest. Final
positions are valued at the game's returns times WIN_VALUE, sooner results counting
more.

Monte Carlo tree search values a leaf by its rewards, one per player in [0, 1]: the
mean over the other players q of the chance of being ahead of q, a logistic function of
the difference of their values (the evaluation's, scaled by REWARD_SCALE; a finished
game's returns, with certainty). A decided ranking gives the first 1, the second 0.5
and the last 0, as the game's scores do. The tree lives in two arrays (`new_tree`):
per node the move into it, the player who made it, its first child and its number of
children (links), its visits and the summed reward of the player who moved into it
(stats). Each iteration runs simulations until the root has been visited MCTS_BATCH
times 2^(iteration - 1), keeping the tree of the iterations before; a node is expanded
(all its children at once) at its second visit, while there is room. The searcher's
move is the root's most visited child; its score is 2000 x (its mean reward - 0.5),
never a proof.

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

ALGORITHMS = ("paranoid", "brs", "maxn", "mcts")
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
VALUES = ROOT_MOVES = MOVE_LISTS = TREE_USED = None


def layout(kernels) -> dict[str, int]:
    """The work block offsets of a game with these kernels: the history table takes
    MOVE_LIMIT slots (moves index it as they are); after the move lists, the tree
    search's count of the tree's nodes in use (`TREE_USED`)."""
    values = HISTORY + kernels["MOVE_LIMIT"]
    root_moves = values + PLAYERS
    move_lists = root_moves + 1 + kernels["MAX_MOVES"]
    tree_used = move_lists + (MAX_PLY + 2) * kernels["MAX_MOVES"]
    return {"VALUES": values, "ROOT_MOVES": root_moves, "MOVE_LISTS": move_lists, "TREE_USED": tree_used}


def _work_size(rules) -> int:
    return rules.MOVE_LIMIT + PLAYERS + 1 + rules.MAX_MOVES + (MAX_PLY + 2) * rules.MAX_MOVES + 1


#: The tree search's links columns: the move into a node, the player who made it, its
#: first child (-1: not expanded) and its number of children.
MOVE_IN, MOVER, FIRST_CHILD, CHILDREN = 0, 1, 2, 3
#: Its stats columns: visits, and the summed reward of the player who moved into it.
VISITS, REWARD = 0, 1
#: Nodes in the tree; once they are used up, leaves are no longer expanded.
TREE_NODES = 1 << 20
#: Root visits of the first tree iteration (each later one doubles them).
MCTS_BATCH = 256
#: The UCT exploration constant, for rewards in [0, 1].
EXPLORATION = 0.35
#: Evaluation units to one unit of the logistic function of a value difference.
REWARD_SCALE = 400.0
#: The same for a finished game's returns, a rank apart: certain.
RETURNS_SCALE = 1e-3


def new_tree(nodes: int = TREE_NODES) -> tuple[np.ndarray, np.ndarray]:
    """An empty tree for the tree search: (links, stats)."""
    return np.zeros((nodes, 4), dtype=np.int64), np.zeros((nodes, 2), dtype=np.float64)


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
            bound = entry_bound(entry)
            if bound == EXACT or (bound == LOWER and value >= beta) or (bound == UPPER and value <= alpha):
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


@kernel(inline=True)
def _ahead(a, b, scale):
    """The chance that a player valued `a` finishes ahead of one valued `b`."""
    return 1.0 / (1.0 + np.exp((b - a) / scale))


@kernel(inline=True)
def _rewards(v0, v1, v2, scale):
    """Each player's reward of values (v0, v1, v2): its mean chance of finishing ahead
    of each other player."""
    r0 = 0.5 * (_ahead(v0, v1, scale) + _ahead(v0, v2, scale))
    r1 = 0.5 * (_ahead(v1, v0, scale) + _ahead(v1, v2, scale))
    r2 = 0.5 * (_ahead(v2, v0, scale) + _ahead(v2, v1, scale))
    return r0, r1, r2


@inline_template
def _leaf_rewards(s, work):
    """The rewards of a leaf `s` of a game not over, by its evaluation (four random plies
    played from the leaf first won no more games)."""
    evaluate(s, work[VALUES:VALUES + PLAYERS])
    return _rewards(np.float64(work[VALUES]), np.float64(work[VALUES + 1]), np.float64(work[VALUES + 2]),
                    REWARD_SCALE)


@inline_template
def _expand(s, node, links, stats, work, base):
    """Give `node` (position `s`) all its children if the tree has room for them; at the
    root, only the moves `go searchmoves` allows."""
    count = legal_moves(s, work[base:base + MAX_MOVES])
    if node == 0:
        count = _root_filter(work, base, count)
    used = work[TREE_USED]
    if count == 0 or used + count > links.shape[0]:
        return
    mover = to_move(s)
    for i in range(count):
        links[used + i, MOVE_IN] = work[base + i]
        links[used + i, MOVER] = mover
        links[used + i, FIRST_CHILD] = -1
        links[used + i, CHILDREN] = 0
        stats[used + i, VISITS] = 0.0
        stats[used + i, REWARD] = 0.0
    links[node, FIRST_CHILD] = used
    links[node, CHILDREN] = count
    work[TREE_USED] = used + count


@kernel(inline=True)
def _select(node, links, stats):
    """The child of `node` with the best upper confidence bound for the player to move
    there (its first unvisited child, if any)."""
    first = links[node, FIRST_CHILD]
    spread = np.log(stats[node, VISITS] + 1.0)
    best = first
    best_bound = -1.0
    for child in range(first, first + links[node, CHILDREN]):
        visits = stats[child, VISITS]
        if visits == 0.0:
            return child
        bound = stats[child, REWARD] / visits + EXPLORATION * np.sqrt(spread / visits)
        if bound > best_bound:
            best_bound = bound
            best = child
    return best


def _simulate(s, links, stats, work):
    """One simulation from the root `s`: down the tree by `_select`, expanding the leaf
    it reaches at its second visit, the leaf's rewards added along the path. Leaves the
    tree untouched when stopped (work[ABORTED])."""
    path = MOVE_LISTS
    base = MOVE_LISTS + (MAX_PLY + 1) * MAX_MOVES
    node = 0
    ply = 0
    work[path] = 0
    while True:
        if _enter(ply, work):
            return
        if returns(s, work[VALUES:VALUES + PLAYERS]):
            r0, r1, r2 = _rewards(np.float64(work[VALUES]), np.float64(work[VALUES + 1]),
                                  np.float64(work[VALUES + 2]), RETURNS_SCALE)
            break
        if links[node, FIRST_CHILD] < 0 and (stats[node, VISITS] > 0.0 or node == 0) and ply < MAX_PLY:
            _expand(s, node, links, stats, work, base)
        if links[node, FIRST_CHILD] < 0:
            r0, r1, r2 = _leaf_rewards(s, work)
            break
        node = _select(node, links, stats)
        s = play(s, links[node, MOVE_IN])
        ply += 1
        work[path + ply] = node
    for i in range(ply + 1):
        node = work[path + i]
        stats[node, VISITS] += 1.0
        mover = links[node, MOVER]
        if mover == 0:
            stats[node, REWARD] += r0
        elif mover == 1:
            stats[node, REWARD] += r1
        elif mover == 2:
            stats[node, REWARD] += r2


@kernel
def most_visited(node, links, stats):
    """The most visited child of `node` (-1: none)."""
    best = -1
    most = -1.0
    first = links[node, FIRST_CHILD]
    if first < 0:
        return -1
    for child in range(first, first + links[node, CHILDREN]):
        if stats[child, VISITS] > most:
            most = stats[child, VISITS]
            best = child
    return best


def mcts_root(s, depth, me, links, stats, work):
    """One tree-search iteration from `s` for searcher `me`: simulations until the root
    has MCTS_BATCH x 2^(depth - 1) visits (2^40 at most), on the tree of the earlier
    iterations (a new one at depth 1). Returns the searcher's score of its most visited
    root move, whose move (and score) are in work[PARTIAL_MOVE] (and
    work[PARTIAL_SCORE]), also when stopped."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    if depth == 1:
        links[0, MOVE_IN] = -1
        links[0, MOVER] = -1
        links[0, FIRST_CHILD] = -1
        links[0, CHILDREN] = 0
        stats[0, VISITS] = 0.0
        stats[0, REWARD] = 0.0
        work[TREE_USED] = 1
    target = MCTS_BATCH * (1 << min(depth - 1, 40))  # no overflow however deep
    while stats[0, VISITS] < target and work[ABORTED] == 0:
        _simulate(s, links, stats, borrowed(work))
    best = most_visited(0, links, stats)
    if best < 0:
        return 0
    score = np.int64(2000.0 * (stats[best, REWARD] / stats[best, VISITS] - 0.5))
    work[PARTIAL_MOVE] = links[best, MOVE_IN]
    work[PARTIAL_SCORE] = score
    return score


TEMPLATES = (_terminal_utility, _static_utility, _root_filter, _paranoid, paranoid_root, _brs, brs_root, _maxn,
             maxn_root, _leaf_rewards, _expand, _simulate, mcts_root)
_ROOTS = {"paranoid": "paranoid_root", "brs": "brs_root", "maxn": "maxn_root", "mcts": "mcts_root"}


def warm(kernels, position: Position) -> None:
    """Call every root iteration and the line once from `position` (one with moves), so
    that numba loads them from its cache, or compiles them the first time."""
    cells = np.zeros((1 << 10, 2), dtype=np.uint64)
    work = new_work(_work_size(position.game.rules))
    me = kernels.to_move(position.s)
    for algorithm, name in _ROOTS.items():
        if algorithm == "mcts":
            kernels.mcts_root(position.s, np.int64(1), me, *new_tree(64), work)
        else:
            getattr(kernels, name)(position.s, np.int64(2), me, np.uint64(0), cells, work)


class MultiPlayerSearch(Deepening):
    """Iterative deepening with one of ALGORITHMS; reports the searcher's utility. Runs
    its game's search kernels as `searches` gives them (`search.specialised`: compiled
    once loaded, else interpreted).

    Raises ValueError for a game of another number of players than PLAYERS, an unknown
    algorithm and a table of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches, algorithm: str = "paranoid"):
        if game.num_players != PLAYERS:
            raise ValueError(f"the multi-player searches are for {PLAYERS} players, not {game.name!r}")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown multi-player search {algorithm!r}")
        super().__init__(game, table, searches, new_work(_work_size(game.rules)))
        self.algorithm = algorithm
        self._tree = new_tree() if algorithm == "mcts" else None
        #: The algorithm of the running search: `algorithm`, but paranoid for mcts with
        #: two players left.
        self._running = algorithm
        self._root_slot = layout({"MOVE_LIMIT": game.rules.MOVE_LIMIT, "MAX_MOVES": game.rules.MAX_MOVES})["ROOT_MOVES"]
        self._me = 0
        self._salt = 0

    def static_score(self, position: Position) -> int:
        """What a leaf of this search scores `position` at, for its side to move: its
        value minus the best of the other players' values (the game's evaluation, with
        no search), the `score cp` of a search that stops there."""
        return int(interpreted(_utility)(*self.game.evaluate(position), position.to_move))

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
        self._me = root.to_move
        self._salt = _SEARCHER_KEYS[self._me]
        started = self._start(root, stop)
        # The tree search plays while three are in; two play paranoid, a two-player
        # alpha-beta. It reports its best line alone.
        self._running = self.algorithm
        if self.algorithm == "mcts" and int(self._kernels.players_in(root.s)) <= 2:
            self._running = "paranoid"
        moves = self._root_moves(root, root_moves, 1 if self._running == "mcts" else multipv)
        if not moves:
            yield self._finished(root)
            return
        final, _ = yield from self._deepen(root, moves, stop, started, MAX_PLY)
        yield final

    def _iterate(self, root: Position, moves: list[int], depth: int) -> tuple[int, int]:
        # The root's moves the kernels may search: all (0), or the ones given.
        allowed = moves if len(moves) < self._root_count else []
        slot, work = self._root_slot, self._work
        work[slot] = len(allowed)
        work[slot + 1:slot + 1 + len(allowed)] = allowed
        if self._running == "mcts":
            score = self._kernels.mcts_root(root.s, np.int64(depth), np.int64(self._me), *self._tree, work)
            return int(score), int(work[PARTIAL_MOVE])
        iteration = getattr(self._kernels, _ROOTS[self._running])
        score = iteration(root.s, np.int64(depth), np.int64(self._me), np.uint64(self._salt), self.table.cells, work)
        return int(score), int(work[PARTIAL_MOVE])

    def _new_helper(self) -> MultiPlayerSearch:
        return MultiPlayerSearch(self.game, self.table, self.searches)

    def _follow(self, main: MultiPlayerSearch) -> None:
        super()._follow(main)
        self._me, self._salt, self._running = main._me, main._salt, main._running

    def _helped(self) -> bool:
        """The paranoid search alone shares a table between threads."""
        return self._running == "paranoid"

    def _store_root(self, root: Position, depth: int, score: int, move: int) -> None:
        """The paranoid search's root entry; the others keep none."""
        if self._running == "paranoid":
            tt_store(self.table.cells, np.uint64(root.key ^ self._salt), np.int64(depth), np.int64(EXACT),
                     np.int64(score), np.int64(move), np.int64(self.table.generation))

    def _line_salt(self) -> int:
        return self._salt

    def _principal_variation(self, root: Position, first: int, length: int) -> tuple[int, ...]:
        """The paranoid line from the table; the other searches' lines are not a
        sequence of turns, and report their first move alone."""
        if self._running == "mcts":
            return self._tree_line(first)
        if self._running != "paranoid":
            return (first,)
        return super()._principal_variation(root, first, length)

    def _tree_line(self, first: int) -> tuple[int, ...]:
        """`first`, then the most visited children of the tree below it."""
        links, stats = self._tree
        line = [first]
        children = range(links[0, FIRST_CHILD], links[0, FIRST_CHILD] + links[0, CHILDREN])
        node = next((child for child in children if links[child, MOVE_IN] == first), -1)
        while node >= 0 and len(line) < MAX_PLY:
            node = int(most_visited(node, links, stats))
            if node < 0 or stats[node, VISITS] == 0:
                break
            line.append(int(links[node, MOVE_IN]))
        return tuple(line)

    def _terminal_score(self, root: Position) -> int:
        """The searcher's utility of a root without moves (its returns at ply 0)."""
        values = np.zeros(PLAYERS, dtype=np.int64)
        self._kernels.returns(root.s, values)
        others = max(int(values[player]) for player in range(PLAYERS) if player != self._me)
        return WIN_VALUE * (int(values[self._me]) - others)
