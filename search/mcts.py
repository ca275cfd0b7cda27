"""Monte Carlo tree search (UCT) for three-player games, a searcher of its own beside the
depth-first searches of `search.multiplayer`, whose node prologue, root filter, work
layout and utility it shares.

Each player picks the children best for itself, as max^n does, with the evaluation in
place of random playouts. A leaf is valued by its rewards, one per player in [0, 1]: the
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
never a proof, and its line follows the most visited children.

The contract. `MctsSearch` searches the tree while three players are in; once two are
left it hands the whole search to the paranoid search (`search.multiplayer`), which is
then a two-player alpha-beta, with its table, its lines and its threads. The tree search
runs one thread, reports one line (MultiPV 1) and keeps no table entries. Its iteration
kernel, `mcts_root`, is written once over a game's kernels (`BINDS`: `legal_moves`,
`play`, `to_move`, `returns` and `evaluate` of the multi-player contract, and the root
filter `search.multiplayer` specialises for the game) and specialised per game by
`search.specialised`, after the multi-player searches. Its work block is theirs
(`search.multiplayer.layout`) and one more slot, the count of the tree's nodes in use
(`TREE_USED`); the path of a simulation lies in the move lists. A stopped iteration sets
work[ABORTED] and adds nothing of the simulation under way to the tree's visits and
rewards; the most visited root move is in work[PARTIAL_MOVE] (-1 none) and its score in
work[PARTIAL_SCORE].
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from games.base import Game, Position
from games.kernel import borrowed, inline_template, interpreted, kernel
from search import multiplayer
from search.base import MAX_PLY, SearchReport
from search.driver import bound_to_its_stop
from search.limits import StopSignal
from search.multiplayer import PLAYERS, MultiPlayerSearch, ThreePlayerSearch, _enter, new_block
from search.tt import TranspositionTable
from search.work import ABORTED, PARTIAL_MOVE, PARTIAL_SCORE

#: The game's kernels, and the multi-player searches' root filter, these templates call,
#: bound per game.
BINDS = ("MAX_MOVES", "legal_moves", "play", "to_move", "returns", "evaluate", "_root_filter")
MAX_MOVES = legal_moves = play = to_move = returns = evaluate = _root_filter = None
#: Where the evaluation triple, the move lists and the count of the tree's nodes in use
#: lie in the work block (`layout`).
VALUES = MOVE_LISTS = TREE_USED = None


def layout(kernels) -> dict[str, int]:
    """The work block offsets of a game with these kernels: the multi-player searches'
    (`search.multiplayer.layout`), then the count of the tree's nodes in use
    (`TREE_USED`)."""
    offsets = multiplayer.layout(kernels)
    return dict(offsets, TREE_USED=offsets["WORK_END"], WORK_END=offsets["WORK_END"] + 1)


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



TEMPLATES = (_leaf_rewards, _expand, _simulate, mcts_root)


def warm(kernels, position: Position) -> None:
    """Call the tree iteration once from `position` (one with moves), so that numba
    loads it from its cache, or compiles it the first time."""
    work = new_block(layout(vars(position.game.rules)))
    kernels.mcts_root(position.s, np.int64(1), kernels.to_move(position.s), *new_tree(64), work)


class MctsSearch(ThreePlayerSearch):
    """Iterative deepening over tree iterations while three players are in, the paranoid
    search once two are left (the module's contract); reports the searcher's score of
    its most visited root move. Runs its game's search kernels as `searches` gives them
    (`search.specialised`: compiled once loaded, else interpreted).

    Raises ValueError for a game of another number of players than PLAYERS and a table
    of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches):
        super().__init__(game, table, searches, layout)
        self._tree = new_tree()
        #: The search of two players left.
        self._paranoid = MultiPlayerSearch(game, table, searches)

    @property
    def threads(self) -> int:
        """The threads the paranoid search runs; the tree search runs one."""
        return self._paranoid.threads

    def set_threads(self, count: int) -> None:
        """Search two players left with `count` threads (the tree is this thread's
        alone), from the next search on. Not while a search runs."""
        self._paranoid.set_threads(count)

    def search(self, root: Position, stop: StopSignal, root_moves: Sequence[int] | None = None,
               multipv: int = 1) -> Iterator[SearchReport]:
        """The paranoid search of `root` when at most two players are in, with
        `root_moves` and `multipv` as it takes them; else the tree search (`_grow`)."""
        if interpreted(self.game.rules.players_in)(root.s) <= 2:
            return self._paranoid.search(root, stop, root_moves, multipv)
        return self._grow(root, stop, root_moves)

    @bound_to_its_stop
    def _grow(self, root: Position, stop: StopSignal, root_moves: Sequence[int] | None) -> Iterator[SearchReport]:
        """Deepen one tree iteration at a time until stopped or at `stop.max_depth`; at
        the root only `root_moves` (legal moves of `root`) when given.

        Yields a report per completed iteration and a final one whose pv[0] is the move
        (pv is empty when the root has no move).
        """
        yield from self._deepen_root(root, stop, root_moves, 1)

    def _iterate(self, root: Position, moves: list[int], depth: int) -> tuple[int, int]:
        self._allow_root_moves(moves)
        score = self._kernels.mcts_root(root.s, np.int64(depth), np.int64(self._me), *self._tree, self._work)
        return int(score), int(self._work[PARTIAL_MOVE])

    def _store_root(self, root: Position, depth: int, score: int, move: int) -> None:
        """None: the tree search keeps no table entries."""

    def _principal_variation(self, root: Position, first: int, length: int) -> tuple[int, ...]:
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
