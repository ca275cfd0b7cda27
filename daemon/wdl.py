"""Win/draw/loss estimates from scores (`ShowWDL`): a game's model in its `wdl.json`.

The model (fitted by `scripts/wdl` to self-play games, see docs/protocol.md#showwdl):

    P(win)  = 1 / (1 + exp(-k (s - o - m)))
    P(loss) = 1 / (1 + exp( k (s - o + m)))
    P(draw) = 1 - P(win) - P(loss)

for the side to move's score s in centi-units, with a scale k, a draw margin m and an
offset o (0 in a two-player game, whose scores are symmetric). In a game of three
players the three outcomes are ranks: first, second and last. A proved result is
certain: a win is `wdl 1000 0 0`, and in a game of three players a decided ranking is
`1000 0 0`, `0 1000 0` or `0 0 1000`. A game without a `wdl.json` gives none.
"""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Mapping

import attrs
import numpy as np

from games.base import Game
from search.multiplayer import proven_rank_gap

LOG = logging.getLogger("engine.wdl")

FILE_NAME = "wdl.json"


@attrs.frozen
class WdlModel:
    """A game's model: the scale k (per centi-unit), the draw margin m and the offset o
    (centi-units)."""

    scale: float
    draw_margin: float
    source: Mapping[str, object] = attrs.field(factory=dict)
    offset: float = 0.0

    def probabilities(self, scores: np.ndarray | float) -> tuple:
        """(P(win), P(draw), P(loss)) of the side to move at `scores`."""
        scores = np.asarray(scores, dtype=float) - self.offset
        win = 1.0 / (1.0 + np.exp(-self.scale * (scores - self.draw_margin)))
        loss = 1.0 / (1.0 + np.exp(self.scale * (scores + self.draw_margin)))
        return win, np.clip(1.0 - win - loss, 0.0, 1.0), loss

    def per_mille(self, score: int) -> tuple[int, int, int]:
        """(win, draw, loss) per mille at `score`, summing to 1000."""
        win, _, loss = self.probabilities(float(score))
        wins, losses = int(round(1000 * float(win))), int(round(1000 * float(loss)))
        return wins, 1000 - wins - losses, losses

    def to_json(self) -> dict:
        return {"scale": self.scale, "draw_margin": self.draw_margin, "offset": self.offset,
                "source": dict(self.source)}


def model_path(game: Game) -> Path:
    """Where `game`'s model lives: beside its rules."""
    return Path(game.rules.__file__).with_name(FILE_NAME)


@functools.cache
def game_model(game: Game) -> WdlModel | None:
    """`game`'s model, read once; None when it has none or its file is unusable."""
    path = model_path(game)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        model = WdlModel(float(data["scale"]), float(data["draw_margin"]), data.get("source", {}),
                         float(data.get("offset", 0.0)))
    except (OSError, ValueError, KeyError, TypeError) as error:
        LOG.error("%s: not a win/draw/loss model (%s)", path, error)
        return None
    if not (model.scale > 0 and model.draw_margin >= 0 and np.isfinite(model.offset)):
        LOG.error("%s: the scale must be positive, the draw margin not negative and the offset a number", path)
        return None
    return model


def wdl(game: Game, score: int, mate_in: int | None) -> tuple[int, int, int] | None:
    """The side to move's (win, draw, loss) per mille for a search's score, or None when
    the game has no model."""
    model = game_model(game)
    if model is None:
        return None
    if mate_in is not None:
        return (1000, 0, 0) if mate_in > 0 else (0, 0, 1000)
    if game.num_players > 2:
        gap = proven_rank_gap(score)
        if gap is not None:
            return (1000, 0, 0) if gap > 0 else (0, 0, 1000) if gap < -1 else (0, 1000, 0)
    return model.per_mille(score)
