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
children (links), its visits, the summed reward of the player who moved into it and
the models' probability of its move (stats). Each iteration runs simulations until
the root has been visited MCTS_BATCH times 2^(iteration - 1), keeping the tree of the
iterations before; a node is expanded (all its children at once) at its second visit,
while there is room. The searcher's move is the root's most visited child; its score
is 2000 x (its mean reward - 0.5), never a proof, and its line follows the most
visited children.

Modelled (`MctsSearch(modelled=True)`, the option value `model`), the searcher's rivals
are not assumed to play the children best for themselves: a game's rival models
(`Game.rivals`) predict each rival's move as a probability over its moves, the models
weighed by how well they predicted that rival's moves before the root (`observe`,
`model_weights`), the share of the rival's moves they miss spread evenly over its
moves, and a rival node's children are visited in proportion to those probabilities
(a chance node). The searcher's reward is then its chance of finishing first, not its
mean chance of finishing ahead of each other player. A rival whose moves even the
picking model that predicts it best misses more than a fifth of the time plays
otherwise than they do (a deeper search, say): it is left to pick its moves by its own
rewards, as in the plain search, and where no rival is modelled the search is the
plain one.

The contract. `MctsSearch` searches the tree while three players are in; once two are
left it hands the whole search to the paranoid search (`search.multiplayer`), which is
then a two-player alpha-beta, with its table, its lines and its threads. The tree search
runs one thread, reports one line (MultiPV 1) and keeps no table entries. Its iteration
kernel, `mcts_root`, is written once over a game's kernels (`BINDS`: `legal_moves`,
`play`, `to_move`, `returns` and `evaluate` of the multi-player contract, the rival
models' `predict` (`model_binds`), and the root filter `search.multiplayer`
specialises for the game) and specialised per game by `search.specialised`, after the
multi-player searches. Its work block is theirs (`search.multiplayer.layout`) and one
more slot, the count of the tree's nodes in use (`TREE_USED`); the path of a
simulation lies in the move lists. A stopped iteration sets work[ABORTED] and adds
nothing of the simulation under way to the tree's visits and rewards; the most
visited root move is in work[PARTIAL_MOVE] (-1 none) and its score in
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
BINDS = ("MAX_MOVES", "legal_moves", "play", "to_move", "returns", "evaluate", "_root_filter",
         "predict", "MODEL_COUNT", "MODEL_SCRATCH")
MAX_MOVES = legal_moves = play = to_move = returns = evaluate = _root_filter = None
predict = MODEL_COUNT = MODEL_SCRATCH = None
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
#: Its stats columns: visits, the summed reward of the player who moved into it, and
#: the probability the rival models give the move into it (0 where its mover is not
#: modelled).
VISITS, REWARD, PRIOR = 0, 1, 2
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
#: The share of a modelled rival's move probabilities spread evenly over its moves,
#: so that a move no model expects is still looked at: until its moves have been
#: judged; then the share of its moves that the picking model (`Game.rivals`) that
#: predicts it best missed (did not rate among its likeliest), at least MIN_SURPRISE.
SURPRISE = 0.1
MIN_SURPRISE = 0.05
#: A rival whose moves even that model misses more often than this is not modelled:
#: it plays otherwise than any of them (a deeper search, say), and is searched as a
#: player who picks the moves best for itself.
MAX_MISSED = 0.2


@kernel
def no_prediction(s, moves, count, out, scratch):
    """The rival models of a game without any: none."""


def model_binds(game: Game) -> dict:
    """The rival models of `game` as the templates bind them: its `predict` kernel, the
    number of models, the scratch space `predict` takes and which models pick a best
    move (`Game.rivals`); a game without models binds one that predicts nothing, never
    called."""
    rivals = game.rivals
    if rivals is None:
        return {"predict": no_prediction, "MODEL_COUNT": 1, "MODEL_SCRATCH": 1, "MODEL_PICKS": (False,)}
    return {"predict": rivals.predict, "MODEL_COUNT": rivals.MODEL_COUNT, "MODEL_SCRATCH": rivals.SCRATCH,
            "MODEL_PICKS": rivals.PICKS}


def new_tree(nodes: int = TREE_NODES) -> tuple[np.ndarray, np.ndarray]:
    """An empty tree for the tree search: (links, stats)."""
    return np.zeros((nodes, 4), dtype=np.int64), np.zeros((nodes, 3), dtype=np.float64)


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


@kernel(inline=True)
def _modelled(weights, player):
    """Whether the rival models predict `player`'s moves (a row of weights not all 0)."""
    total = 0.0
    for column in range(weights.shape[1]):
        total += weights[player, column]
    return total > 0.0


@kernel(inline=True)
def _first_chance(v0, v1, v2, me, scale):
    """`me`'s chance of finishing ahead of both others, as if the two were apart."""
    if me == 0:
        return _ahead(v0, v1, scale) * _ahead(v0, v2, scale)
    if me == 1:
        return _ahead(v1, v0, scale) * _ahead(v1, v2, scale)
    return _ahead(v2, v0, scale) * _ahead(v2, v1, scale)


@inline_template
def _expand(s, node, links, stats, work, base, weights, probs, scratch):
    """Give `node` (position `s`) all its children if the tree has room for them; at the
    root, only the moves `go searchmoves` allows. The children of a modelled mover get
    the probability of their move: the models' by their weights, and the share of the
    last column of weights spread evenly."""
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
        stats[used + i, PRIOR] = 0.0
    if _modelled(weights, mover):
        predict(s, work[base:base + count], count, probs, scratch)
        for i in range(count):
            chance = 0.0
            for model in range(MODEL_COUNT):
                chance += weights[mover, model] * probs[model, i]
            stats[used + i, PRIOR] = chance + weights[mover, MODEL_COUNT] / count
    links[node, FIRST_CHILD] = used
    links[node, CHILDREN] = count
    work[TREE_USED] = used + count


@kernel(inline=True)
def _select(node, links, stats, weights):
    """The child of `node` with the best upper confidence bound for the player to move
    there (its first unvisited child, if any); for a modelled mover, the child whose
    visits fall furthest short of its probability's share, so that visits follow the
    models' prediction."""
    first = links[node, FIRST_CHILD]
    if _modelled(weights, links[first, MOVER]):
        total = stats[node, VISITS] + 1.0
        best = first
        best_gap = -1e300
        for child in range(first, first + links[node, CHILDREN]):
            gap = stats[child, PRIOR] * total - stats[child, VISITS]
            if gap > best_gap:
                best_gap = gap
                best = child
        return best
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


def _simulate(s, me, links, stats, weights, probs, scratch, work):
    """One simulation from the root `s`: down the tree by `_select`, expanding the leaf
    it reaches at its second visit, the leaf's rewards added along the path. Where the
    rivals of searcher `me` are modelled, `me`'s reward is its chance of finishing first
    (`_first_chance`). Leaves the tree untouched when stopped (work[ABORTED])."""
    first_only = _modelled(weights, 0) or _modelled(weights, 1) or _modelled(weights, 2)
    path = MOVE_LISTS
    base = MOVE_LISTS + (MAX_PLY + 1) * MAX_MOVES
    node = 0
    ply = 0
    work[path] = 0
    while True:
        if _enter(ply, work):
            return
        if returns(s, work[VALUES:VALUES + PLAYERS]):
            scale = RETURNS_SCALE
            break
        if links[node, FIRST_CHILD] < 0 and (stats[node, VISITS] > 0.0 or node == 0) and ply < MAX_PLY:
            _expand(s, node, links, stats, work, base, weights, probs, scratch)
        if links[node, FIRST_CHILD] < 0:
            evaluate(s, work[VALUES:VALUES + PLAYERS])
            scale = REWARD_SCALE
            break
        node = _select(node, links, stats, weights)
        s = play(s, links[node, MOVE_IN])
        ply += 1
        work[path + ply] = node
    v0, v1, v2 = np.float64(work[VALUES]), np.float64(work[VALUES + 1]), np.float64(work[VALUES + 2])
    r0, r1, r2 = _rewards(v0, v1, v2, scale)
    if first_only:
        mine = _first_chance(v0, v1, v2, me, scale)
        if me == 0:
            r0 = mine
        elif me == 1:
            r1 = mine
        else:
            r2 = mine
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


def mcts_root(s, depth, me, links, stats, weights, work):
    """One tree-search iteration from `s` for searcher `me`: simulations until the root
    has MCTS_BATCH x 2^(depth - 1) visits (2^40 at most), on the tree of the earlier
    iterations (a new one at depth 1). weights[p, m] is the weight of rival model m for
    player p's moves, and weights[p, MODEL_COUNT] the share of its probability spread
    evenly (`model_weights`; a row of zeros: p is not modelled, and picks its moves by
    its own rewards). Returns the searcher's score of its most visited root move, whose
    move (and score) are in work[PARTIAL_MOVE] (and work[PARTIAL_SCORE]), also when
    stopped."""
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
    probs = np.zeros((MODEL_COUNT, MAX_MOVES), dtype=np.float64)
    scratch = np.zeros(MODEL_SCRATCH, dtype=np.int64)
    while stats[0, VISITS] < target and work[ABORTED] == 0:
        _simulate(s, me, links, stats, weights, probs, scratch, borrowed(work))
    best = most_visited(0, links, stats)
    if best < 0:
        return 0
    score = np.int64(2000.0 * (stats[best, REWARD] / stats[best, VISITS] - 0.5))
    work[PARTIAL_MOVE] = links[best, MOVE_IN]
    work[PARTIAL_SCORE] = score
    return score



TEMPLATES = (_expand, _simulate, mcts_root)


def warm(kernels, position: Position) -> None:
    """Call the tree iteration once from `position` (one with moves), and the rival
    models as `model_weights` calls them, so that numba loads both from its cache, or
    compiles them the first time: a modelled search's first weighing would otherwise
    load `predict` inside its time (about 0.1 s)."""
    work = new_block(layout(vars(position.game.rules)))
    # The side to move weighed on its first move: the search below then models it.
    weights = model_weights(kernels, [position.to_move] if position.game.rivals else [],
                            [(position, position.legal_moves()[0])])
    kernels.mcts_root(position.s, np.int64(1), kernels.to_move(position.s), *new_tree(64), weights, work)


#: A model's prediction of a move counts this much however small it was, so that one
#: surprise never rules a model out.
PREDICTION_FLOOR = 0.1
#: A rival is judged by its moves from this many on (before, it is modelled).
MIN_OBSERVED = 3


def model_weights(kernels, rivals: Sequence[int], line: Sequence[tuple[Position, int]]) -> np.ndarray:
    """weights[p, m]: the weight of rival model m for player p, for each player of
    `rivals`, from the moves p played in `line` ((position, move), oldest first), and in
    the last column the share spread evenly over p's moves (its surprise); the other
    rows 0. Each model starts at the same weight, and each move multiplies it by
    PREDICTION_FLOOR + (1 - PREDICTION_FLOOR) x the model's probability of that move
    (Bayes' rule with a floor). The surprise is SURPRISE until MIN_OBSERVED moves have
    been seen, then the share of its moves that the picking model (one that picks a
    best move, `MODEL_PICKS`) that predicts it best missed (gave less than its likeliest
    move's probability), at least MIN_SURPRISE; the row sums to 1. A rival that even
    that model misses more often than MAX_MISSED is not modelled (its row is 0)."""
    count = kernels.MODEL_COUNT
    weights = np.zeros((PLAYERS, count + 1), dtype=np.float64)
    probs = np.zeros((count, kernels.MAX_MOVES), dtype=np.float64)
    scratch = np.zeros(kernels.MODEL_SCRATCH, dtype=np.int64)
    moves = np.zeros(kernels.MAX_MOVES, dtype=np.int64)
    for player in rivals:
        log_weights = np.zeros(count)
        seen = []
        for position, move in line:
            if position.to_move != player:
                continue
            n = int(kernels.legal_moves(position.s, moves))
            index = list(moves[:n]).index(move)
            kernels.predict(position.s, moves, np.int64(n), probs, scratch)
            seen.append(probs[:count, index] >= probs[:count, :n].max(axis=1))
            log_weights += np.log(PREDICTION_FLOOR + (1.0 - PREDICTION_FLOOR) * probs[:count, index])
        row = np.exp(log_weights - log_weights.max())
        row /= row.sum()
        surprise = SURPRISE
        if len(seen) >= MIN_OBSERVED:
            missed = 1.0 - float(np.mean(seen, axis=0)[list(kernels.MODEL_PICKS)].max())
            if missed > MAX_MISSED:
                continue
            surprise = max(missed, MIN_SURPRISE)
        weights[player, :count] = (1.0 - surprise) * row
        weights[player, count] = surprise
    return weights


class MctsSearch(ThreePlayerSearch):
    """Iterative deepening over tree iterations while three players are in, the paranoid
    search once two are left (the module's contract); reports the searcher's score of
    its most visited root move. Runs its game's search kernels as `searches` gives them
    (`search.specialised`: compiled once loaded, else interpreted).

    Raises ValueError for a game of another number of players than PLAYERS and a table
    of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches, modelled: bool = False):
        if modelled and game.rivals is None:
            raise ValueError(f"{game.name} has no rival models")
        super().__init__(game, table, searches, layout)
        self._tree = new_tree()
        #: The search of two players left.
        self._paranoid = MultiPlayerSearch(game, table, searches)
        #: Whether the rivals' moves are predicted by the game's rival models.
        self.modelled = modelled
        self._line: Sequence[tuple[Position, int]] = ()
        self._weights = np.zeros((PLAYERS, 2), dtype=np.float64)

    def observe(self, line: Sequence[tuple[Position, int]]) -> None:
        """The moves before the next search's root: a modelled search weighs the rival
        models by how well they predicted each rival's moves there (`model_weights`)."""
        self._line = tuple(line)

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

    def _start(self, root: Position, stop: StopSignal) -> float:
        started = super()._start(root, stop)
        rivals = [player for player in range(PLAYERS) if player != root.to_move] if self.modelled else []
        self._weights = model_weights(self._kernels, rivals, self._line)
        return started

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
        score = self._kernels.mcts_root(root.s, np.int64(depth), np.int64(self._me), *self._tree, self._weights,
                                        self._work)
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
