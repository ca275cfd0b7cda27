"""The multi-player tree search (`MultiPlayerSearch=mcts`) on Knight Isolation: the
tree's counts add up, the compiled and the interpreted search grow the same tree, it
keeps out of a trap that puts its player out at once, it honours `go searchmoves`, and
with two players left it plays the two-player alpha-beta instead. The modelled search
(`MultiPlayerSearch=model`): the rival models' weights follow their predictions, and
its rival nodes are visited as the models predict."""

from __future__ import annotations

import random

import numpy as np
import pytest

from adapters.bot.bots import greedy_move
from games import find_game
from games.kernel import COMPILING
from search import new_searcher
from search.limits import StopSignal
from search.mcts import (CHILDREN, FIRST_CHILD, MIN_SURPRISE, MOVE_IN, MOVER, PREDICTION_FLOOR, PRIOR, REWARD,
                         VISITS, MctsSearch, layout, model_weights)
from search.specialised import searches
from search.work import PARTIAL_MOVE
from search.multiplayer import proven_rank_gap
from search.tt import TranspositionTable

GAME = find_game("isolation")


def tree_search(compiled: bool = COMPILING, algorithm: str = "mcts"):
    return new_searcher(GAME, TranspositionTable("isolation", GAME.rules.KEY_SCHEME, 1 << 16), algorithm,
                        compiled=compiled)


def reports(searcher, position, depth: int, root_moves=None):
    stop = StopSignal()
    stop.arm(None, None, depth)
    return list(searcher.search(position, stop, root_moves))


def random_position(seed: int, plies: int):
    rng = random.Random(seed)
    position = GAME.initial_state({"seed": str(seed)})
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves or GAME.alive(position) != 0b111:
            break
        position = position.play(rng.choice(moves))
    return position


@pytest.mark.parametrize("seed", range(4))
def test_the_tree_adds_up(seed: int) -> None:
    position = random_position(seed, 3 * seed)
    searcher = tree_search()
    final = reports(searcher, position, 4)[-1]
    links, stats = searcher._tree
    assert stats[0, VISITS] >= 256 * 8
    used = int(searcher._work[layout({"MOVE_LIMIT": GAME.rules.MOVE_LIMIT,
                                      "MAX_MOVES": GAME.rules.MAX_MOVES})["TREE_USED"]])
    assert 1 < used < links.shape[0]
    for node in range(used):
        first, count = int(links[node, FIRST_CHILD]), int(links[node, CHILDREN])
        assert 0 <= stats[node, REWARD] <= stats[node, VISITS]
        if first < 0:
            continue
        children = stats[first:first + count, VISITS].sum()
        # Expanded at its second visit (the root at its first), each later visit goes
        # down to one child.
        assert stats[node, VISITS] == children + (0 if node == 0 else 1)
        movers = set(links[first:first + count, MOVER].tolist())
        assert len(movers) == 1
    root_children = [int(links[child, MOVE_IN]) for child in range(links[0, FIRST_CHILD],
                                                                     links[0, FIRST_CHILD] + links[0, CHILDREN])]
    assert sorted(root_children) == sorted(position.legal_moves())
    assert final.pv[0] in position.legal_moves()
    assert proven_rank_gap(final.score) is None and -1000 <= final.score <= 1000
    # The line is a sequence of turns.
    line = position
    for move in final.pv:
        assert move in line.legal_moves()
        line = line.play(move)


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_compiled_and_interpreted_grow_the_same_tree() -> None:
    position = random_position(7, 6)
    compiled, interpreted = tree_search(True), tree_search(False)
    first = [(r.depth, r.score, r.pv, r.nodes) for r in reports(compiled, position, 2)]
    second = [(r.depth, r.score, r.pv, r.nodes) for r in reports(interpreted, position, 2)]
    assert first == second
    assert np.array_equal(compiled._tree[0][:5000], interpreted._tree[0][:5000])
    assert np.array_equal(compiled._tree[1][:5000, VISITS], interpreted._tree[1][:5000, VISITS])
    # The same sums, but for the last bits of the logistic function's exp.
    assert np.allclose(compiled._tree[1][:5000, REWARD], interpreted._tree[1][:5000, REWARD], rtol=1e-12)


def test_it_keeps_out_of_a_trap() -> None:
    # Red on a1 can go to b3 (open board) or c2, from which every jump is blocked or
    # taken: red would be out at its next turn.
    rows = "......../......../......../......../.#.b..../#...#.../....#.g./r...#..."
    position = GAME.parse_board([rows, "r"])
    c2, b3 = GAME.parse_move(position, "c2"), GAME.parse_move(position, "b3")
    assert set(position.legal_moves()) == {c2, b3}
    trapped = position.play(c2)
    for _ in range(2):
        trapped = trapped.play(trapped.legal_moves()[0])
    assert GAME.alive(trapped) == 0b110
    final = reports(tree_search(), position, 3)[-1]
    assert final.pv[0] == b3


def test_searchmoves_limit_the_root() -> None:
    position = random_position(2, 3)
    allowed = position.legal_moves()[-1:]
    final = reports(tree_search(), position, 3, allowed)[-1]
    assert final.pv[0] == allowed[0]


def test_two_players_left_play_alpha_beta() -> None:
    # Green is out: red and blue play on, and the search is the paranoid one (a
    # two-player alpha-beta), with its table line.
    rows = "r......./......../......../....g.../......../..#...../......../.......b"
    position = GAME.parse_board([rows, "r", "alive=rb", "out=g"])
    assert GAME.alive(position) == 0b101
    mcts, paranoid = tree_search(), tree_search(algorithm="paranoid")
    assert isinstance(mcts, MctsSearch)
    first = [(r.depth, r.score, r.pv) for r in reports(mcts, position, 5)]
    second = [(r.depth, r.score, r.pv) for r in reports(paranoid, position, 5)]
    assert first == second


def _line(seed: int, choose, plies: int):
    rng = random.Random(seed)
    position = GAME.initial_state({"seed": str(seed)})
    line = []
    for _ in range(plies):
        if position.outcome() is not None or GAME.alive(position) != 0b111:
            break
        move = choose(position, rng)
        line.append((position, move))
        position = position.play(move)
    return line, position


def _most_exits(position, rng):
    def exits(move):
        child = position.play(move)
        own = GAME.knights(child)[position.to_move]
        occupied = GAME.blocked(child) | sum(1 << square for square in GAME.knights(child))
        return bin(int(GAME.rules.KNIGHT[own]) & ~occupied).count("1")

    best = max(exits(move) for move in position.legal_moves())
    return rng.choice([move for move in position.legal_moves() if exits(move) == best])


def test_the_weights_follow_the_models_predictions() -> None:
    kernels = searches(GAME, False)
    models = GAME.rivals.MODELS
    mobility, territory, few = (models.index(name) for name in ("mobility", "territory", "best few"))
    # Players greedy on their exits: the mobility model outweighs territory and best
    # few (the paranoid model, on exits too, may predict them as well).
    line, _ = _line(3, _most_exits, 24)
    weights = model_weights(kernels, [1, 2], line)
    assert np.all(weights[0] == 0)
    for player in (1, 2):
        assert np.isclose(weights[player].sum(), 1.0)
        assert weights[player][mobility] > max(weights[player][territory], weights[player][few])
        # The floor: a model that missed keeps some weight.
        assert np.all(weights[player] > 0)

    # Players greedy on the evaluation: the territory model, above all.
    def greedy(position, rng):
        legal = [GAME.format_move(position, move) for move in position.legal_moves()]
        return GAME.parse_move(position, greedy_move(GAME, position, legal, rng))

    line, _ = _line(3, greedy, 24)
    weights = model_weights(kernels, [0, 1, 2], line)
    assert all(weights[player].argmax() == territory for player in range(3))
    # They are predicted so well that the share spread evenly is the least there is.
    assert np.allclose(weights[:, -1], MIN_SURPRISE)
    # A player who plays at random is not modelled once its moves are seen to be
    # unpredictable: uniform over up to eight moves, the mixture gives it too little.
    random_line, _ = _line(4, lambda position, rng: rng.choice(position.legal_moves()), 30)
    unpredictable = model_weights(kernels, [0, 1, 2], random_line)
    assert any(np.all(unpredictable[player] == 0) for player in range(3))
    assert PREDICTION_FLOOR > 0


def test_the_modelled_search_visits_the_rivals_as_predicted() -> None:
    line, position = _line(5, _most_exits, 9)
    searcher = tree_search(algorithm="model")
    searcher.observe(line)
    final = reports(searcher, position, 4)[-1]
    assert final.pv[0] in position.legal_moves()
    links, stats = searcher._tree
    me = position.to_move
    checked = 0
    for node in range(1, 2000):
        first, count = int(links[node, FIRST_CHILD]), int(links[node, CHILDREN])
        if first < 0 or links[first, MOVER] == me or stats[node, VISITS] < 40:
            continue
        priors = stats[first:first + count, PRIOR]
        visits = stats[first:first + count, VISITS]
        assert np.isclose(priors.sum(), 1.0)
        # Visits follow the probabilities, each within a visit or two of its share.
        assert np.all(np.abs(visits - priors * visits.sum()) <= 2.0), (priors, visits)
        checked += 1
    assert checked > 0


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_compiled_and_interpreted_modelled_searches_agree() -> None:
    line, position = _line(6, _most_exits, 6)
    results = []
    for compiled in (True, False):
        searcher = tree_search(compiled, algorithm="model")
        searcher.observe(line)
        results.append([(r.depth, r.score, r.pv, r.nodes) for r in reports(searcher, position, 2)])
    assert results[0] == results[1]


@pytest.mark.parametrize("model", GAME.rivals.MODELS)
def test_the_tree_search_plays_legal_moves_under_each_model_alone(model: str) -> None:
    """Every rival predicted by one model only: the tree adds up as a chance tree (each
    rival node's visits follow its probabilities) and the move is legal."""
    kernels = searches(GAME)
    for seed in range(3):
        _, position = _line(seed, _most_exits, 4 + seed)
        weights = np.zeros((3, kernels.MODEL_COUNT + 1))
        for player in range(3):
            if player != position.to_move:
                weights[player, GAME.rivals.MODELS.index(model)] = 1.0
        searcher = tree_search()
        work = searcher._work
        links, stats = searcher._tree
        for depth in (1, 2, 3):  # a tree starts at iteration 1
            kernels.mcts_root(position.s, np.int64(depth), np.int64(position.to_move), links, stats, weights, work)
        move = int(work[PARTIAL_MOVE])
        assert move in position.legal_moves()
        first, count = int(links[0, FIRST_CHILD]), int(links[0, CHILDREN])
        child = first + int(np.argmax(stats[first:first + count, VISITS]))
        grand, grand_count = int(links[child, FIRST_CHILD]), int(links[child, CHILDREN])
        assert grand >= 0 and np.isclose(stats[grand:grand + grand_count, PRIOR].sum(), 1.0)
