"""Every turn of `engine-cg` comes from the engine's search: whole games at CodinGame's
real time limits in the arena, against greedy bots, with no fallback move (the adapter's
own move when the engine is missing, late or wrong) and no fault, but for the turns over
before the engine process has started and answered once (see STARTING_S)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.codingame import turn_format

ARENA = [sys.executable, "-m", "adapters.codingame.arena.main"]
#: The fallbacks allowed: those of the engine still starting, on the turns before its
#: first answer, and only while the game is younger than this (s). The process takes
#: about 0.8 s to answer `uci` alone and 1-1.7 s on a two-core machine where the referee
#: and every bot start at the same time; its first search then loads the game's compiled
#: code (0.3-1 s). A first turn lasts 1-2 s, so the engine's second turn, or a few more,
#: may come before it is ready. Once one turn has come from the engine, every later turn
#: must.
STARTING_S = 3.0
GAMES = ("othello", "clobber", "loa", "isolation", "abalone")
#: The fallbacks of an engine still starting: no process yet, or no answer yet.
STARTING = ("no engine;", "no bestmove ")
FALLBACK = re.compile(r"engine-cg: turn (\d+): fallback: (.*)")


def unexplained_fallbacks(record: dict) -> list[str]:
    """The engine seat's fallback lines in arena `record` that starting the engine does
    not explain: all but those of a missing engine or a late answer on its turns 1, 2,
    ... in a row from the first, each begun within STARTING_S of the game's first turn."""
    seat = record["seats"].index("engine")
    began = [move["at"][0] for move in record["moves"] if move["player"] == seat]
    first = record["moves"][0]["at"][0]
    starts, unexplained = 0, []
    for line in record["stderr"][seat]:
        match = FALLBACK.match(line)
        if match is None:
            continue
        turn = int(match.group(1))
        if (not unexplained and turn == starts + 1 and match.group(2).startswith(STARTING)
                and turn <= len(began) and began[turn - 1] - first < STARTING_S):
            starts += 1
        else:
            unexplained.append(line)
    return unexplained


@pytest.mark.parametrize("game", GAMES)
def test_every_turn_is_the_engines(game: str, tmp_path: Path) -> None:
    players = turn_format(game).PLAYERS
    bots = ["--bot", "engine"] + ["--bot", "greedy"] * (players - 1)
    out = tmp_path / "out"
    result = subprocess.run([*ARENA, game, *bots, "--games", "2", "--jobs", "1", "--out", str(out), "--quiet"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    records = [json.loads(path.read_text()) for path in sorted(out.glob("game-*.json"))]
    assert len(records) == 2
    turns = 0
    for record in records:
        seat = record["seats"].index("engine")
        turns += sum(1 for move in record["moves"] if move["player"] == seat)
        assert not unexplained_fallbacks(record), (record["index"], record["stderr"][seat])
        assert not record["reason"].startswith("engine ("), record["reason"]
    assert turns > 0


def test_only_a_starting_engine_explains_a_fallback() -> None:
    def record(*lines: str) -> dict:
        moves = [{"player": turn % 2, "at": [turn * 0.9, turn * 0.9 + 0.1]} for turn in range(8)]
        return {"seats": ["engine", "greedy"], "moves": moves, "stderr": [list(lines), []]}

    starting = ["engine-cg: turn 1: fallback: no engine; playing a1 (one ply deep)",
                "engine-cg: turn 2: fallback: no engine; playing b1 (one ply deep)"]
    assert unexplained_fallbacks(record("engine-cg: starting", *starting)) == []
    late = "engine-cg: turn 3: fallback: no engine; playing c1 (one ply deep)"  # begun at 3.6 s
    assert unexplained_fallbacks(record(*starting, late)) == [late]
    gone = "engine-cg: turn 2: fallback: the engine is gone; playing b1 (one ply deep)"
    assert unexplained_fallbacks(record(starting[0], gone)) == [gone]
    after = "engine-cg: turn 2: fallback: no engine; playing b1 (one ply deep)"
    late = "engine-cg: turn 3: fallback: no bestmove 63 ms into the turn; playing c1 (one ply deep)"
    assert unexplained_fallbacks(record(*starting[:1], late.replace("turn 3", "turn 2"))) == []
    wrong = "engine-cg: turn 1: fallback: no time left for a search; playing a1 (one ply deep)"
    assert unexplained_fallbacks(record(wrong, after)) == [wrong, after]
    assert unexplained_fallbacks(record(after)) == [after]  # turn 1 came from the engine
