"""How `engine-cg` plays where the shared daemon cannot be used (prints figures; times
nothing in the tests).

    scripts/shared_failures [--game G] [--games N] [--time-scale X] [--ways WAY ...]

For each way the daemon can be unusable (`tools.hostile.WAYS`: a flood, garbage, a
socket that never answers, another user's listener, a start lock held or held by a
stopped process, a full budget, a daemon stopped, or stopped while starting) and for a
daemon killed (SIGKILL) one second into the game (`killed`) and a healthy one
(`healthy`), N games of `engine-cg G` against the greedy bot through the arena's
referee at CodinGame's limits (times X), each in a runtime folder of its own. Printed
per way: the engine's turns, its fallback turns, those played from less than a two-ply
search (`one-ply`: the target is at most 2 a game), its first turn's answer time, and
what it said of the daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from adapters.arena.referee import GameSpec, play_game
from adapters.codingame import formats
from protocol import shared
from protocol.launch import engine_command
from tools.hostile import WAYS, broken

ADAPTER = f"{sys.executable} -m adapters.bot.main"
SHALLOW = re.compile(r"\(no search iteration finished|\(searched 1 ply deep in the adapter\)")
#: When the `killed` case kills the daemon (seconds into the game).
KILL_AFTER_S = 1.0


async def _game(game: str, index: int, time_scale: float, kill: bool) -> dict:
    spec = GameSpec(game, index, 1 + index, (f"{ADAPTER} {game} --time-scale {time_scale}",
                                             f"{sys.executable} -m adapters.bot.bots greedy {game}"),
                    ("engine", "greedy"), time_scale)
    playing = asyncio.ensure_future(play_game(spec))
    if kill:
        await asyncio.sleep(KILL_AFTER_S)
        for found in shared.status():
            if found.pid is not None:
                os.kill(found.pid, signal.SIGKILL)
    return await playing


def measure(way: str, game: str, games: int, time_scale: float) -> None:
    turns = fallbacks = shallow = worst = 0
    said: set[str] = set()
    for index in range(games):
        folder = Path(tempfile.mkdtemp(prefix="engine-run-"))
        os.environ["ENGINE_RUNTIME_DIR"] = str(folder)
        try:
            setting = broken(way, engine_command()) if way in WAYS else contextlib.nullcontext()
            with setting:
                if way in ("healthy", "killed"):
                    shared.load(shared.ensure_running(), [game])
                record = asyncio.run(_game(game, index, time_scale, way == "killed"))
        finally:
            with contextlib.suppress(OSError):
                shared.stop_all(folder)
            shutil.rmtree(folder, ignore_errors=True)
        log = record["stderr"][0]
        own = sum(1 for move in record["moves"] if move["player"] == 0)
        low = [line for line in log if "fallback:" in line and SHALLOW.search(line)]
        turns, fallbacks, shallow = turns + own, fallbacks + sum("fallback:" in line for line in log), shallow + len(low)
        worst = max(worst, len(low))
        said.update(re.sub(r"pid \d+|/\S+", "…", line.split("used, ", 1)[1]) for line in log
                    if "the shared engine daemon cannot be used" in line)
        said.update("gone: an engine of its own at once" for line in log if "daemon is gone" in line)
    print(f"{way:17} games {games}  turns {turns:4}  fallbacks {fallbacks:3}  one-ply {shallow:3}"
          f" (most in a game {worst})  said: {'; '.join(sorted(said)) or '-'}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default=next(iter(formats())), choices=list(formats()))
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--time-scale", type=float, default=1.0)
    parser.add_argument("--ways", nargs="+", default=["healthy", "killed", *WAYS],
                        choices=["healthy", "killed", *WAYS])
    args = parser.parse_args()
    for way in args.ways:
        measure(way, args.game, args.games, args.time_scale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
