"""Analysis limits through the protocol: `go searchmoves` (the root cut to the given
moves, in every game) and `go mate`."""

from __future__ import annotations

import pytest

from games import all_games
from protocol.client import EngineError
from tests.conftest import StdioEngine, run


def scores(infos) -> list[str]:
    return [info.split(" score ")[1].split(" nodes")[0] for info in infos if " score " in info]


@pytest.mark.parametrize("name", sorted(all_games()))
def test_the_root_is_cut_to_the_moves_given(name: str) -> None:
    game = all_games()[name]
    start = game.initial_state({"seed": "3"} if "seed" in game.parameters else {})
    tokens = sorted(game.format_move(start, move) for move in start.legal_moves())
    setgame = f"setgame {name} seed=3" if "seed" in game.parameters else f"setgame {name}"

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send(setgame)
            free = await engine.bestmove("go depth 3")
            others = [token for token in tokens if token != free.move]
            # One move: it is played, and every line's pv starts with it.
            forced = await engine.bestmove(f"go depth 3 searchmoves {others[-1]}")
            assert forced.move == others[-1]
            assert all(info.split(" pv ")[1].split()[0] == others[-1] for info in forced.infos if " pv " in info)
            # Two moves, neither the best: one of them.
            pair = others[:2]
            assert (await engine.bestmove(f"go depth 3 searchmoves {' '.join(pair)}")).move in pair
            # The table keeps nothing a restricted root would mislead a later search with.
            again = await engine.bestmove("go depth 3")
            await engine.send("hash clear")
            fresh = await engine.bestmove("go depth 3")
            assert scores(again.infos)[-1] == scores(fresh.infos)[-1] == scores(free.infos)[-1]
            with pytest.raises(EngineError) as refused:
                await engine.bestmove(f"go depth 2 searchmoves {others[0]} zz9")
            assert refused.value.code == "illegal-move" and "searchmoves 2" in refused.value.message
    run(scenario())


def test_go_mate_finds_a_win_within_its_moves_and_stops() -> None:
    """Clobber, white to move: b2a2 takes the last black stone's only partner at once."""
    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            await engine.send("position board ......../......../......../......../......../......../bw....../........ w")
            found = await engine.bestmove("go mate 3")
            assert found.move == "b2a2" and " score mate 1 " in found.infos[-1]
            await engine.send("position startpos")
            bounded = await engine.bestmove("go mate 2")  # no win that soon: depth 3, then the best move
            assert max(int(info.split()[2]) for info in bounded.infos if info.startswith("info depth")) == 3
            await engine.send("setgame isolation")
            with pytest.raises(EngineError) as refused:
                await engine.bestmove("go mate 2")
            assert refused.value.code == "bad-value"
    run(scenario())
