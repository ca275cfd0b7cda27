"""What each move of a game lost, by engine sessions searching the position before it.

Each position before a move is searched with the limit, `--top` lines (MultiPV). Where
the move played is not among them, it is searched alone (`go searchmoves`), so its score
is exact at the same depth.

A move is judged by what it costs its player in results: the expected points (win +
draw / 2, from the engine's win chances, ShowWDL) of the engine's best move minus those
of the move played. A `mistake` gives up at least MISTAKE_POINTS, a `blunder` at least
BLUNDER_POINTS. So a move between two won positions (two proven wins, or two scores
the game's model already counts as won) is no mistake, however far apart their scores.
The loss in centi-units (a proven result counting as PROVEN_CP) is reported beside it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Sequence

from adapters.analysis.gamefile import Game
from games import find_game
from games.base import Position
from protocol.client import Engine, Limit
from protocol.info import Info, Score

#: The expected points a move gives up to be marked a mistake, or a blunder.
MISTAKE_POINTS = 0.1
BLUNDER_POINTS = 0.2
#: What a proven win is worth in centi-units when losses in centi-units are counted.
PROVEN_CP = 10_000

def centi(score: Score) -> int:
    """A score in centi-units, a proven result as ±PROVEN_CP."""
    if score.mate is None:
        return int(score.cp or 0)
    return PROVEN_CP if score.mate > 0 else -PROVEN_CP


def expected_points(wdl: Sequence[int] | None) -> float | None:
    """Win + draw / 2 of `[win, draw, loss]` per mille (in a three-player game: first,
    second and last place), between 0 and 1; None without win chances."""
    return None if wdl is None else (wdl[0] + wdl[1] / 2) / 1000


def mark(points_lost: float | None) -> str | None:
    """`blunder` from BLUNDER_POINTS expected points lost, `mistake` from MISTAKE_POINTS,
    else (and without win chances) None."""
    if points_lost is None:
        return None
    if points_lost >= BLUNDER_POINTS:
        return "blunder"
    if points_lost >= MISTAKE_POINTS:
        return "mistake"
    return None


def _wdl(info: Info) -> list[int] | None:
    return None if info.wdl is None else [info.wdl.win, info.wdl.draw, info.wdl.loss]


def _line(info: Info) -> dict:
    return {"move": info.move, "score": str(info.score), "wdl": _wdl(info), "pv": list(info.pv)}


async def analyse_ply(engine: Engine, game: str, position: Position, played: str,
                      limit: Limit, top: int) -> dict:
    """The analysis of one position (see the module docstring): `loss` in centi-units,
    `points_lost` in expected points (None where the engine gave no win chances), both
    at least 0, and the `mark` that `points_lost` earns."""
    board = find_game(game).format_board(position)
    lines = await engine.analyse(limit, position=f"board {board}", multipv=top)
    best = lines[0]
    own = next((info for info in lines if info.move == played), None)
    if own is None:
        own = (await engine.analyse(limit, multipv=1, searchmoves=[played]))[0]
    loss = max(0, centi(best.score) - centi(own.score)) if best.score and own.score else 0
    best_points, own_points = expected_points(_wdl(best)), expected_points(_wdl(own))
    points_lost = None if best_points is None or own_points is None else round(max(0.0, best_points - own_points), 4)
    return {"player": position.to_move, "board": board, "played": played, "best": best.move,
            "top": [_line(info) for info in lines], "played_score": str(own.score), "played_wdl": _wdl(own),
            "best_score": str(best.score), "loss": loss, "points_lost": points_lost, "mark": mark(points_lost)}

async def analyse_game(game: Game, limit: Limit, top: int, jobs: int, command: Sequence[str] | None,
                       address: tuple[str, int] | None, token: str | None, progress: bool = True) -> list[dict]:
    """Every ply's analysis, over `jobs` engine sessions."""
    from tqdm import tqdm

    plies = game.plies
    results: list[dict | None] = [None] * len(plies)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(plies)):
        queue.put_nowait(index)
    bar = tqdm(total=len(plies), unit="ply", disable=not progress, file=sys.stderr)

    async def worker() -> None:
        if address is not None:
            engine = await Engine.connect(*address, token=token)
        else:
            engine = await Engine.popen(list(command or ()), stderr=subprocess.DEVNULL)
        try:
            await engine.setgame(game.name, **dict(game.params))
            await engine.configure({"ShowWDL": True})
            while not queue.empty():
                index = queue.get_nowait()
                position, played = plies[index]
                results[index] = {"ply": index + 1, **await analyse_ply(engine, game.name, position, played,
                                                                      limit, top)}
                bar.update()
        finally:
            await engine.close()

    await asyncio.gather(*(worker() for _ in range(max(1, min(jobs, len(plies))))))
    bar.close()
    return [result for result in results if result is not None]

