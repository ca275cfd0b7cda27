"""Every turn of `engine-cg` comes from the engine's search: whole games in the arena,
against greedy bots, with no fallback move (the adapter's own move when the engine is
missing, late or wrong) and no fault, but for the turns over before the engine process
has started and loaded the game's compiled code (see STARTING_S).

The games run at the lenient factor on CodinGame's limits (`lenient_time_scale`: each
turn LOAD_SLACK longer), the bot spending the same (its `--time-scale`), so that a
turn's search is as long against the scheduler's delays on a busy machine as the tests
need, and the logic is the one of real limits; how the bot keeps the real limits is
measured on a quiet machine (docs/codingame.md). Three games by default, one of each
kind of turn (a book and an endgame solver, three players, moves matched to the
referee's list), one game each (the engine's seat first); all five, two games each (both
seats), with --runslow.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.codingame import turn_format
from protocol import shared
from tests.adapters.deadlines import lenient_time_scale

ARENA = [sys.executable, "-m", "adapters.arena.main"]
BOT = f"{sys.executable} -m adapters.bot.main"
#: The fallbacks allowed: those of the engine still starting, only while the game is
#: younger than this (s). The process takes about 0.8 s to answer `uci` alone and
#: 1-1.7 s on a two-core machine where the referee and every bot start at the same
#: time, and its first search then loads the game's compiled code (0.3-1 s). A first
#: turn lasts 1-2 s, so the engine's next turns may come before it is up; and turns
#: answered from the opening book, which needs no compiled code, may come before a
#: search that still waits for it (75 ms turns leave little time to wait). Later,
#: every turn must come from the engine.
STARTING_S = 4.0
GAMES = ("othello", "clobber", "loa", "isolation", "abalone")
#: The fallbacks of an engine still starting: no process yet, or no answer yet.
MISSING, LATE = "no engine;", "no bestmove "
FALLBACK = re.compile(r"engine-cg: turn (\d+): fallback: (.*)")


def unexplained_fallbacks(record: dict) -> list[str]:
    """The engine seat's fallback lines in arena `record` that starting the engine does
    not explain: all but those begun within STARTING_S of the game's first turn that are
    of a missing engine, on its turns 1, 2, ... in a row from the first, or of a late
    answer."""
    seat = record["seats"].index("engine")
    began = [move["at"][0] for move in record["moves"] if move["player"] == seat]
    first = record["moves"][0]["at"][0]
    missing, unexplained = 0, []
    for line in record["stderr"][seat]:
        match = FALLBACK.match(line)
        if match is None:
            continue
        turn, why = int(match.group(1)), match.group(2)
        starting = turn <= len(began) and began[turn - 1] - first < STARTING_S
        if starting and why.startswith(MISSING) and turn == missing + 1:
            missing += 1
        elif not (starting and why.startswith(LATE)):
            unexplained.append(line)
    return unexplained


SAMPLED = ("othello", "isolation", "abalone")


@pytest.mark.parametrize("game", [game if game in SAMPLED else pytest.param(game, marks=pytest.mark.slow)
                                  for game in GAMES])
def test_every_turn_is_the_engines(game: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    games = 2 if request.config.getoption("--runslow") else 1
    players = turn_format(game).PLAYERS
    time_scale = lenient_time_scale(game)
    # The game loaded in the shared daemon first, as the arena's `engine` shortcut has it.
    shared.load(shared.ensure_running(), [game])
    bots = ["--bot", f"engine={BOT} {game} --time-scale {time_scale}"] + ["--bot", "greedy"] * (players - 1)
    out = tmp_path / "out"
    result = subprocess.run([*ARENA, game, *bots, "--games", str(games), "--jobs", "1", "--time-scale", str(time_scale),
                             "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    records = [json.loads(path.read_text()) for path in sorted(out.glob("game-*.json"))]
    assert len(records) == games
    turns = 0
    for record in records:
        seat = record["seats"].index("engine")
        turns += sum(1 for move in record["moves"] if move["player"] == seat)
        assert not unexplained_fallbacks(record), (record["index"], record["stderr"][seat])
        assert not record["reason"].startswith("engine ("), record["reason"]
    assert turns > 0


def test_only_a_starting_engine_explains_a_fallback() -> None:
    def record(*lines: str) -> dict:
        moves = [{"player": turn % 2, "at": [turn * 1.1, turn * 1.1 + 0.1]} for turn in range(8)]
        return {"seats": ["engine", "greedy"], "moves": moves, "stderr": [list(lines), []]}

    # The engine's turns begin at 0, 2.2, 4.4 and 6.6 s.
    starting = ["engine-cg: turn 1: fallback: no engine; playing a1 (one ply deep)",
                "engine-cg: turn 2: fallback: no engine; playing b1 (one ply deep)"]
    assert unexplained_fallbacks(record("engine-cg: starting", *starting)) == []
    late = "engine-cg: turn 3: fallback: no engine; playing c1 (one ply deep)"
    assert unexplained_fallbacks(record(*starting, late)) == [late]
    gone = "engine-cg: turn 2: fallback: the engine is gone; playing b1 (one ply deep)"
    assert unexplained_fallbacks(record(starting[0], gone)) == [gone]
    loading = "engine-cg: turn 2: fallback: no bestmove 63 ms into the turn; playing b1 (one ply deep)"
    assert unexplained_fallbacks(record(loading)) == []  # turn 1 came from the book
    assert unexplained_fallbacks(record(starting[0], loading)) == []
    slow = loading.replace("turn 2", "turn 3")
    assert unexplained_fallbacks(record(starting[0], slow)) == [slow]
    wrong = "engine-cg: turn 1: fallback: no time left for a search; playing a1 (one ply deep)"
    assert unexplained_fallbacks(record(wrong, starting[1])) == [wrong, starting[1]]
    assert unexplained_fallbacks(record(starting[1])) == [starting[1]]  # turn 1 came from the engine
