"""ShowWDL: the win/draw/loss model (`daemon.wdl`), its fit (`tools.wdl`), and the `wdl`
field of `info` lines through the protocol."""

from __future__ import annotations

import numpy as np
import pytest

from daemon.wdl import WdlModel, game_model
from games import all_games
from tests.conftest import StdioEngine, run
from tools import wdl as wdl_tool


@pytest.mark.parametrize("score", [-900, -150, -1, 0, 37, 400, 5000])
def test_per_mille_adds_up_and_mirrors(score: int) -> None:
    model = WdlModel(0.004, 60.0)
    win, draw, loss = model.per_mille(score)
    assert win + draw + loss == 1000 and min(win, draw, loss) >= 0
    assert model.per_mille(-score) == (loss, draw, win)


@pytest.mark.parametrize("offset", [0.0, -700.0])
def test_the_fit_recovers_a_known_model(offset: float) -> None:
    rng = np.random.default_rng(4)
    truth = WdlModel(0.004, 60.0, offset=offset)
    scores = rng.uniform(-800, 800, 60_000) + offset
    win, draw, _ = truth.probabilities(scores)
    draws = rng.random(len(scores))
    results = np.where(draws < win, 1.0, np.where(draws < win + draw, 0.5, 0.0))
    fitted = wdl_tool.fit(scores, results, offset=bool(offset))
    assert fitted.scale == pytest.approx(0.004, rel=0.05)
    assert fitted.draw_margin == pytest.approx(60.0, rel=0.1)
    assert fitted.offset == pytest.approx(offset, abs=10.0)


def test_every_game_ships_a_model_fitted_on_its_self_play() -> None:
    for game in all_games().values():
        model = game_model(game)
        assert model is not None and model.scale > 0 and model.source["positions"] > 10_000, game.name
        assert model.offset == 0.0 or game.num_players > 2, "two-player scores are symmetric"


def test_a_proved_ranking_of_three_players_is_certain() -> None:
    """A finished game (WIN_VALUE a rank, less the plies) or a decided one (the
    evaluation's DECIDED_RANK a rank, plus moves left as a tie-breaker)."""
    from daemon.wdl import wdl
    from games.isolation.evaluation import DECIDED_RANK
    from search.multiplayer import WIN_VALUE

    knights = all_games()["isolation"]
    assert wdl(knights, WIN_VALUE - 7, None) == wdl(knights, DECIDED_RANK + 3, None) == (1000, 0, 0)
    assert wdl(knights, -DECIDED_RANK - 12, None) == wdl(knights, -WIN_VALUE - 5, None) == (0, 1000, 0)
    assert wdl(knights, -2 * WIN_VALUE + 3, None) == (0, 0, 1000)
    assert sum(wdl(knights, -4000, None)) == 1000


def test_info_lines_carry_wdl_when_asked() -> None:
    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame loa")
            plain = await engine.bestmove("go depth 2")
            assert not any(" wdl " in info for info in plain.info_lines)
            await engine.send("setoption name ShowWDL value true")
            shown = await engine.bestmove("go depth 3")
            for info in shown.info_lines:
                words = info.split()
                at = words.index("wdl")
                win, draw, loss = (int(word) for word in words[at + 1:at + 4])
                assert win + draw + loss == 1000
                score = int(words[words.index("score") + 2])
                assert (win > loss) == (score > 0) or score == 0
            await engine.send("setgame clobber")
            await engine.send("position board ......../......../......../......../......../......../bw....../........ w")
            won = await engine.bestmove("go depth 2")
            assert " score mate 1 wdl 1000 0 0 " in won.info_lines[-1]
            await engine.send("setgame isolation")
            knights = await engine.bestmove("go depth 2")
            assert any(" score " in info for info in knights.info_lines)
            for info in (info for info in knights.info_lines if " score " in info):
                words = info.split()
                assert sum(int(word) for word in words[words.index("wdl") + 1:words.index("wdl") + 4]) == 1000
    run(scenario())
