"""Knight Isolation rival models as kernels: classes of play that a rival may show, each
predicting the move of the player to move as a probability over its moves.

- mobility: greedy on its knight's exits after the move;
- territory: greedy on its value by the evaluation after the move (territory, exits),
  a move that ends the game by the result;
- paranoid: the move whose worst case over the next two rival plies is best, by
  2 x its own exits - the exits of each other player still in;
- best few: any of the BEST_FEW moves the evaluation rates best for it, at random.

A greedy model splits its probability evenly among moves of equal score. None is a
model of a particular program: the searches weigh them by how well each has predicted
a rival's moves in the game so far (`search.mcts`).
"""

from __future__ import annotations

from games.isolation.evaluation import evaluate
from games.isolation.rules import PLAYERS, legal_moves, move_mask, play, returns
from games.kernel import kernel, popcount

#: The models, in the order of `predict`'s rows.
MODELS = ("mobility", "territory", "paranoid", "best few")
MODEL_COUNT = len(MODELS)
#: Whether each model picks a best move (sharing only among equal ones) rather than
#: spreading by design: how often such a model's likeliest moves hold a rival's move
#: says whether the rival plays as it does.
PICKS = (True, True, True, False)
#: The moves the `best few` model picks among.
BEST_FEW = 3
#: The paranoid model's value of a position where the player it predicts is out.
_OUT = -1000
#: The territory model's value of a finished game, per point of the player's score:
#: beyond any evaluation.
_FINISHED = 1 << 40
#: `predict`'s scratch space: three values, then two lists of moves.
SCRATCH = PLAYERS + 2 * 8


@kernel(inline=True)
def _exits(s, player):
    return popcount(move_mask(s[0], s[1], s[2], s[3], player))


@kernel
def _mobility_value(s, me):
    """2 x `me`'s exits - the exits of each other player still in (_OUT once `me` is
    out)."""
    if (s[5] >> me) & 1 == 0:
        return _OUT
    value = 2 * _exits(s, me)
    for player in range(PLAYERS):
        if player != me and (s[5] >> player) & 1:
            value -= _exits(s, player)
    return value


@kernel
def _worst_case(s, me, scratch):
    """The least `_mobility_value` for `me` over the next two plies of its rivals (fewer
    when its turn or the game's end comes sooner)."""
    first = scratch[PLAYERS:PLAYERS + 8]
    second = scratch[PLAYERS + 8:PLAYERS + 16]
    if s[4] == me:
        return _mobility_value(s, me)
    n = legal_moves(s, first)
    if n == 0:
        return _mobility_value(s, me)
    worst = 1 << 30
    for i in range(n):
        child = play(s, first[i])
        if child[4] == me:
            value = _mobility_value(child, me)
        else:
            m = legal_moves(child, second)
            if m == 0:
                value = _mobility_value(child, me)
            else:
                value = 1 << 30
                for j in range(m):
                    value = min(value, _mobility_value(play(child, second[j]), me))
        worst = min(worst, value)
    return worst


@kernel(inline=True)
def _share_best(row, count):
    """Turn scores row[:count] into the distribution that splits 1 among the best."""
    best = row[0]
    for i in range(1, count):
        best = max(best, row[i])
    ties = 0
    for i in range(count):
        if row[i] == best:
            ties += 1
    for i in range(count):
        row[i] = 1.0 / ties if row[i] == best else 0.0


@kernel
def predict(s, moves, count, out, scratch):
    """Each model's probability of each move of the player to move in `s`: out[m, i]
    for model m (`MODELS`) and moves[i], i < count (count >= 1, the legal moves).
    `scratch` is int64 space of at least SCRATCH."""
    player = s[4]
    values = scratch[:PLAYERS]
    for i in range(count):
        child = play(s, moves[i])
        out[0, i] = _exits(child, player)
        if returns(child, values):
            out[1, i] = _FINISHED * (1 + values[player])
        else:
            evaluate(child, values)
            out[1, i] = values[player]
        out[2, i] = _worst_case(child, player, scratch)
    # Best few: the BEST_FEW best by the evaluation (all those tied with the last).
    for i in range(count):
        above = 0
        for j in range(count):
            if out[1, j] > out[1, i]:
                above += 1
        out[3, i] = 1.0 if above < BEST_FEW else 0.0
    picked = 0.0
    for i in range(count):
        picked += out[3, i]
    for i in range(count):
        out[3, i] /= picked
    for model in range(3):
        _share_best(out[model], count)
