"""Every turn of `engine-cg` comes from the engine's search: whole games at CodinGame's
real time limits in the arena, against greedy bots, with no fallback move (the adapter's
own move when the engine is missing, late or wrong) and no fault, but for a first turn
over before the engine process has started (see STARTING)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.codingame import turn_format

ARENA = [sys.executable, "-m", "adapters.codingame.arena.main"]
#: The one fallback allowed: a first turn over before the engine process answered. The
#: first turn includes starting it (about 0.45 s alone, 0.8-1.1 s on a two-core machine
#: where the referee and every bot start at the same time); every later turn, and a
#: first turn with the engine up, must come from its search.
STARTING = "engine-cg: turn 1: fallback: no engine;"
GAMES = ("othello", "clobber", "loa", "isolation", "abalone")


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
        fallbacks = [line for line in record["stderr"][seat]
                     if "fallback:" in line and not line.startswith(STARTING)]
        assert not fallbacks, (record["index"], fallbacks)
        assert not record["reason"].startswith("engine ("), record["reason"]
    assert turns > 0
