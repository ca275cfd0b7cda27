"""`engine-analyse`: analyse every position of a game with the engine, and say where the
moves played lost.

    engine-analyse GAME_FILE [--game GAME] [--depth N | --movetime MS | --nodes N] [--top 3]
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
scores and win chances, what the move lost and a mark) and PREFIX.png / PREFIX.svg, the
score over the game with the mistakes marked and the expected points of the moves
played.

A move is judged by what it costs its player in results: the expected points (win +
draw / 2, from the engine's win chances, ShowWDL) of the engine's best move minus those
of the move played. A `mistake` gives up at least MISTAKE_POINTS, a `blunder` at least
BLUNDER_POINTS. So a move between two won positions (two proven wins, or two scores
the game's model already counts as won) is no mistake, however far apart their scores.
The loss in centi-units (a proven result counting as PROVEN_CP) is reported beside it.
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

#: The expected points a move gives up to be marked a mistake, or a blunder.
MISTAKE_POINTS = 0.1
BLUNDER_POINTS = 0.2
#: What a proven win is worth in centi-units when losses in centi-units are counted.
PROVEN_CP = 10_000
#: The picture draws scores up to this size (centi-units) to a linear scale, larger ones
#: to a logarithmic one.
LINEAR_CP = 1000


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


def score_heights(scores: Sequence[Score]) -> tuple[list[float], float]:
    """Where the picture draws each score, and the height of the row of proven wins
    (proven losses: its negative). An unproven score is drawn at its own value, never
    clipped (the axis is linear up to ±LINEAR_CP, logarithmic beyond); a proven result
    on its row, twice the largest unproven size (at least LINEAR_CP), so that it stands
    beyond every unproven score."""
    largest = max([abs(score.cp) for score in scores if score.cp is not None] + [LINEAR_CP])
    proven = 2.0 * largest
    return [float(score.cp) if score.mate is None else proven if score.mate > 0 else -proven
            for score in scores], proven


def _score_ticks(proven: float) -> tuple[list[float], list[str]]:
    """The score axis's ticks: 0, sizes well below the proven rows (500, then 1000, 3000,
    10000, 30000 and on, half a decade apart on the logarithmic part), and the two proven
    rows, named."""
    steps = [500] + [size * 10 ** power for power in range(3, 12) for size in (1, 3)]
    sizes = [step for step in steps if step < proven / 1.5]
    ticks = [-proven, *(-size for size in reversed(sizes)), 0, *sizes, proven]
    labels = ["proven loss", *(f"{-size:,}" for size in reversed(sizes)), "0", *(f"{size:,}" for size in sizes),
              "proven win"]
    return ticks, labels


def player_labels(game: Game) -> list[str]:
    """How the picture names each player: its side (the game's `side_names`) and,
    where the record names it, the player (`black: bot-a`)."""
    sides = find_game(game.name).side_names
    names = [*game.players, *[None] * len(sides)]
    return [f"{side}: {name}" if name else side for side, name in zip(sides, names)]


def plot(game: Game, plies: list[dict], prefix: Path) -> list[Path]:
    """PREFIX.png and PREFIX.svg: each player's score after each of its turns (from its
    own point of view, drawn by `score_heights`: proven results as stars on rows beyond
    every unproven score), mistakes and blunders circled; below it, where the engine
    gave win chances, the expected points (win + draw / 2) of each move played for its
    player. The players are named by `player_labels`. None without matplotlib (the
    `analyse` extra)."""
    try:
        import matplotlib
    except ImportError:
        print("engine-analyse: no picture: matplotlib is not installed (pip install 'engine[analyse]')",
              file=sys.stderr)
        return []

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    labels, sides = player_labels(game), find_game(game.name).side_names
    chances = any(ply.get("played_wdl") for ply in plies)
    figure, panels = plt.subplots(2 if chances else 1, 1, figsize=(10, 7.5 if chances else 5), sharex=True,
                                  squeeze=False, height_ratios=[3, 2] if chances else None)
    axes = panels[0][0]
    scores = [_score(ply["played_score"]) for ply in plies]
    heights, proven = score_heights(scores)
    proven_labelled = False
    for player, (label, side) in enumerate(zip(labels, sides)):
        mine = [(ply, score, height) for ply, score, height in zip(plies, scores, heights) if ply["player"] == player]
        line, = axes.plot([ply["ply"] for ply, _, _ in mine], [height for _, _, height in mine], marker=".",
                          linewidth=1.2, label=label)
        certain = [(ply["ply"], height) for ply, score, height in mine if score.mate is not None]
        if certain:
            axes.scatter(*zip(*certain), marker="*", s=130, color=line.get_color(), edgecolors="black",
                         linewidths=0.6, zorder=4, label=None if proven_labelled else "proven result")
            proven_labelled = True
        for style, colour in (("mistake", "orange"), ("blunder", "red")):
            marked = [(ply["ply"], height) for ply, _, height in mine if ply["mark"] == style]
            if marked:
                axes.scatter(*zip(*marked), s=90, facecolors="none", edgecolors=colour, linewidths=1.6,
                             label=f"{style}s of {side}", zorder=3)
        if chances:
            points = [(ply["ply"], expected_points(ply["played_wdl"])) for ply, _, _ in mine if ply.get("played_wdl")]
            if points:
                panels[1][0].plot(*zip(*points), marker=".", linewidth=1.2, color=line.get_color(), label=label)
    axes.set_yscale("symlog", linthresh=LINEAR_CP, linscale=1.5)
    top = proven * 1.35
    axes.set_ylim(-top, top)
    for sign in (1, -1):  # the proven rows' bands start between them and the largest unproven size
        axes.axhspan(sign * proven / 1.4, sign * top, color="#f1f1f1", zorder=0)
    axes.set_yticks(*_score_ticks(proven))
    axes.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_ylabel(f"score of the move played, for its player\n(centi-units; linear to ±{LINEAR_CP:,})")
    axes.set_title(f"{game.name}: {len(plies)} plies analysed")
    axes.legend(fontsize="small", ncol=2)
    if chances:
        below = panels[1][0]
        below.axhline(0.5, color="grey", linewidth=0.8)
        below.set_ylim(0, 1)
        below.set_ylabel("expected points of the move\nplayed (win + draw / 2)")
        below.legend(fontsize="small", ncol=len(labels))
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
              "top": args.top, "players": list(game.players),
              "thresholds": {"mistake_points": MISTAKE_POINTS, "blunder_points": BLUNDER_POINTS,
                             "proven_cp": PROVEN_CP},
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
