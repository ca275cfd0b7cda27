"""`engine-analyse`: analyse every position of a game with the engine, and say where the
moves played lost.

    engine-analyse GAME_FILE [--game GAME] [--depth 10 | --movetime MS | --nodes N] [--top 3]
                   [--jobs J] [--engine CMD | --connect HOST:PORT [--token-file F]] [--out PREFIX]

GAME_FILE is one of (see `adapters.analysis.gamefile`):
- an `engine-arena` game record (JSON: `game`, `start`, `moves`);
- a CodinGame replay (JSON: the site's `frames`, or the local runner's `outputs`), of
  the game `--game` names or of the one whose rules read it;
- a move list: a first line `setgame GAME [key=value ...]`, an optional line
  `board <board text>` (else the start position), then the moves in the game's notation
  (CodinGame's), separated by blanks or line ends; `#` starts a comment.

Each position before a move is searched with the limit, `--top` lines (MultiPV), spread
over `--jobs` engine sessions. Where the move played is not among them, it is searched
alone (`go searchmoves`), so its score is exact at the same depth. It writes
PREFIX.json (per ply: the move played, the engine's best, the top lines with their
scores and win chances, the score the move lost and a mark) and PREFIX.png /
PREFIX.svg, the score over the game with the mistakes marked and the expected points of
the moves played. Marks: a `mistake` loses at least MISTAKE_CP, a `blunder` at least
BLUNDER_CP centi-units for its player; a proven result counts as PROVEN_CP.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import attrs

from adapters.analysis.gamefile import Game, read_game
from games import find_game
from games.base import Position
from protocol.client import Engine, EngineClosed, EngineError, Limit
from protocol.info import Info, Score

MISTAKE_CP = 100
BLUNDER_CP = 300
#: What a proven win is worth in centi-units when losses are counted.
PROVEN_CP = 10_000


def centi(score: Score) -> int:
    """A score in centi-units, a proven result as ±PROVEN_CP."""
    if score.mate is None:
        return int(score.cp or 0)
    return PROVEN_CP if score.mate > 0 else -PROVEN_CP


def mark(loss: int) -> str | None:
    if loss >= BLUNDER_CP:
        return "blunder"
    if loss >= MISTAKE_CP:
        return "mistake"
    return None


def _wdl(info: Info) -> list[int] | None:
    return None if info.wdl is None else [info.wdl.win, info.wdl.draw, info.wdl.loss]


def _line(info: Info) -> dict:
    return {"move": info.move, "score": str(info.score), "wdl": _wdl(info), "pv": list(info.pv)}


async def analyse_ply(engine: Engine, game: str, position: Position, played: str,
                      limit: Limit, top: int) -> dict:
    """The analysis of one position (see the module docstring)."""
    board = find_game(game).format_board(position)
    lines = await engine.analyse(limit, position=f"board {board}", multipv=top)
    best = lines[0]
    own = next((info for info in lines if info.move == played), None)
    if own is None:
        own = (await engine.analyse(limit, multipv=1, searchmoves=[played]))[0]
    loss = max(0, centi(best.score) - centi(own.score)) if best.score and own.score else 0
    return {"player": position.to_move, "board": board, "played": played, "best": best.move,
            "top": [_line(info) for info in lines], "played_score": str(own.score), "played_wdl": _wdl(own),
            "best_score": str(best.score), "loss": loss, "mark": mark(loss)}


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


def plot(game: Game, plies: list[dict], prefix: Path) -> list[Path]:
    """PREFIX.png and PREFIX.svg: each player's score after each of its turns (from its
    own point of view, proven results at ±PROVEN_CP clipped to the plot), mistakes and
    blunders marked; below it, where the engine gave win chances, the expected points
    (win + draw / 2) of each move played for its player. None without matplotlib (the
    `analyse` extra)."""
    try:
        import matplotlib
    except ImportError:
        print("engine-analyse: no picture: matplotlib is not installed (pip install 'engine[analyse]')",
              file=sys.stderr)
        return []

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = find_game(game.name).player_names
    chances = any(ply.get("played_wdl") for ply in plies)
    figure, panels = plt.subplots(2 if chances else 1, 1, figsize=(10, 7 if chances else 4.5), sharex=True,
                                  squeeze=False, height_ratios=[3, 2] if chances else None)
    axes = panels[0][0]
    limit = 1500
    for player, name in enumerate(names):
        mine = [ply for ply in plies if ply["player"] == player]
        values = [max(-limit, min(limit, centi(_score(ply["played_score"])))) for ply in mine]
        line, = axes.plot([ply["ply"] for ply in mine], values, marker=".", linewidth=1.2, label=f"player {name}")
        for style, colour in (("mistake", "orange"), ("blunder", "red")):
            marked = [(ply["ply"], value) for ply, value in zip(mine, values) if ply["mark"] == style]
            if marked:
                axes.scatter(*zip(*marked), s=70, facecolors="none", edgecolors=colour, linewidths=1.6,
                             label=f"{style}s of {name}", zorder=3)
        if chances:
            points = [(ply["ply"], (ply["played_wdl"][0] + ply["played_wdl"][1] / 2) / 1000)
                      for ply in mine if ply.get("played_wdl")]
            if points:
                panels[1][0].plot(*zip(*points), marker=".", linewidth=1.2, color=line.get_color(),
                                  label=f"player {name}")
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_ylabel("score of the move played,\nfor its player (centi-units)")
    axes.set_title(f"{game.name}: {len(plies)} plies analysed")
    axes.legend(fontsize="small", ncol=2)
    if chances:
        below = panels[1][0]
        below.axhline(0.5, color="grey", linewidth=0.8)
        below.set_ylim(0, 1)
        below.set_ylabel("expected points of the move\nplayed (win + draw / 2)")
        below.legend(fontsize="small", ncol=len(names))
    panels[-1][0].set_xlabel("ply")
    figure.tight_layout()
    written = []
    for suffix in (".png", ".svg"):
        path = prefix.with_suffix(suffix)
        figure.savefig(path, dpi=110)
        written.append(path)
    plt.close(figure)
    return written


def _score(text: str) -> Score:
    kind, value = text.split()
    return Score(**{kind: int(value)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engine-analyse", description=__doc__.split("\n\n")[0])
    parser.add_argument("game_file", type=Path)
    parser.add_argument("--game", help="the game of a CodinGame replay (default: the one whose rules read it)")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--depth", type=int)
    limits.add_argument("--movetime", type=int, metavar="MS")
    limits.add_argument("--nodes", type=int)
    parser.add_argument("--top", type=int, default=3, help="lines per position (MultiPV, default 3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="engine sessions at once")
    parser.add_argument("--engine", default=None, help="the engine command (default: engine beside this Python)")
    parser.add_argument("--connect", metavar="HOST:PORT", help="use a running daemon instead")
    parser.add_argument("--token-file", type=Path, help="the daemon's token file, with --connect")
    parser.add_argument("--out", type=Path, help="output prefix (default: the game file's, with -analysis)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.top < 1 or args.jobs < 1:
        parser.error("--top and --jobs must be at least 1")
    limit = Limit(depth=args.depth, movetime=args.movetime, nodes=args.nodes)
    if limit == Limit():
        limit = Limit(depth=8)
    try:
        game = read_game(args.game_file, args.game)
    except (OSError, ValueError) as error:
        print(f"engine-analyse: {error}", file=sys.stderr)
        return 2
    if game.stopped:
        print(f"engine-analyse: the record stops after {len(game.plies)} moves: {game.stopped}", file=sys.stderr)
    address = None
    if args.connect:
        host, _, port = args.connect.rpartition(":")
        if not port.isdigit():
            parser.error(f"--connect wants HOST:PORT, got {args.connect!r}")
        address = (host or "127.0.0.1", int(port))
    command = shlex.split(args.engine) if args.engine else [str(Path(sys.executable).parent / "engine")]
    try:
        token = args.token_file.read_text().split()[0] if args.token_file else None
        plies = asyncio.run(analyse_game(game, limit, args.top, args.jobs, command, address, token,
                                         progress=not args.quiet))
    except (OSError, ValueError, IndexError, EngineError, EngineClosed, asyncio.TimeoutError) as error:
        what = f"the engine answered {error.line!r}" if isinstance(error, EngineError) else (
            f"{type(error).__name__}: {error}" if not isinstance(error, ValueError) else str(error))
        print(f"engine-analyse: {what}", file=sys.stderr)
        return 2
    prefix = args.out or args.game_file.with_name(args.game_file.stem + "-analysis")
    report = {"game": game.name, "params": dict(game.params), "start": game.board, "stopped": game.stopped,
              "limit": attrs.asdict(limit),
              "top": args.top, "thresholds": {"mistake": MISTAKE_CP, "blunder": BLUNDER_CP, "proven": PROVEN_CP},
              "plies": plies}
    prefix.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    pictures = plot(game, plies, prefix)
    marks = [ply for ply in plies if ply["mark"]]
    print(f"{game.name}: {len(plies)} plies, {sum(ply['mark'] == 'mistake' for ply in marks)} mistakes,"
          f" {sum(ply['mark'] == 'blunder' for ply in marks)} blunders; wrote"
          f" {', '.join(str(path) for path in [prefix.with_suffix('.json'), *pictures])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
