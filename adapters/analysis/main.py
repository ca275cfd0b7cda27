"""`engine-analyse`: analyse every position of a game, or of many, with the engine, and
say where the moves played lost.

    engine-analyse GAME_FILE [--game GAME] [--depth N | --movetime MS | --nodes N] [--top 3]
                   [--jobs J | --ray local|auto|ADDRESS]
                   [--private | --engine CMD | --connect HOST:PORT [--token-file F]] [--handshake-timeout S]
                   [--out PREFIX]
                   [--progress | --quiet]
    engine-analyse RECORD|FOLDER|'GLOB' ... [the same options] [--out DIR]
                   [--summary FILE] [--worst N] [--pictures]

GAME_FILE is one of (see `adapters.analysis.gamefile`):
- an `engine-arena` game record (JSON: `game`, `start`, `moves`);
- a CodinGame replay (JSON: the site's `frames`, or the local runner's `outputs`), of
  the game `--game` names or of the one whose rules read it;
- a move list: a first line `setgame GAME [key=value ...]`, an optional line
  `board <board text>` (else the start position), then the moves in the game's notation
  (CodinGame's), separated by blanks or line ends; `#` starts a comment.
An arena record and a move list name their own game: a `--game` naming another is an
error.

It writes PREFIX.json (per ply: the move played, the engine's best, the top lines with
their scores and win chances, what the move lost and a mark; see
`adapters.analysis.analyse`), PREFIX.sgf (the game annotated: each move's analysis as
its comment, mistakes `?` and blunders `??` with the engine's line as a variation; see
`adapters.analysis.annotated`) and PREFIX.png / PREFIX.svg, the score over the game with
the mistakes marked and the expected points of the moves played (see
`adapters.analysis.picture`), in a folder made where missing and checked before the
analysis starts.

Several records, a folder of them or a glob pattern make a batch (see
`adapters.analysis.batch`): each record's PREFIX.json is `RECORD-analysis.json` (beside
it, or in the folder `--out`), an arena record gets its replay page, records analysed
already with the same settings are skipped, and a summary across the games ends it.

The positions are searched by `--jobs` workers, each with its session of the user's
shared daemon (found, or started where none runs, so that its compiled code and books
are warm from the last run on; at most as many as the daemon runs searches at once), or
by Ray tasks (`--ray`), each worker with an engine of its own. `--private` gives each
worker an engine of its own, `--engine CMD` that command, `--connect` a session of a
running daemon. The progress bar shows on stderr when it is a terminal, or with
`--progress`.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

import attrs

from adapters.analysis.analyse import HANDSHAKE_TIMEOUT_S, EngineSpec, analyse_games, failure_text, report
from adapters.analysis.annotated import write_annotated
from adapters.analysis.batch import INTERRUPTED, SUMMARY_NAME, Settings, is_batch, write_json
from adapters.analysis.batch import run as batch_run
from adapters.analysis.gamefile import read_game
from adapters.analysis.outputs import CannotWrite, check_folder
from adapters.analysis.picture import plot
from adapters.codingame import game_name
from adapters.pool import ray_argument
from games.text import positive
from protocol import shared
from protocol.client import Limit

#: The limit of each position's search without --depth, --movetime or --nodes.
DEFAULT_LIMIT = Limit(depth=8)


def shared_sessions(jobs: int) -> int:
    """How many of `jobs` workers the shared daemon takes (started here where none
    runs): at most as many as it runs searches at once, said on stderr when fewer.
    Where it cannot start, `jobs` (each worker then says so and starts its own)."""
    try:
        about = shared.figures(shared.ensure_running().socket)
    except OSError:
        return jobs
    if about is not None and jobs > about.max_searches:
        print(f"engine-analyse: {about.max_searches} jobs, as many as the shared daemon runs searches at once"
              " (its --max-searches)", file=sys.stderr)
        return about.max_searches
    return jobs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engine-analyse", description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", metavar="GAME_FILE",
                        help="a game record; several, folders of them or glob patterns: a batch")
    parser.add_argument("--game", type=game_name,
                        help="the game of a CodinGame replay (default: the one whose rules read it); a record"
                             " of another game is an error")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--depth", type=positive, metavar="N",
                        help=f"search each position N plies deep (default {DEFAULT_LIMIT.depth}, without"
                             " --movetime or --nodes)")
    limits.add_argument("--movetime", type=positive, metavar="MS",
                        help="search each position MS milliseconds instead")
    limits.add_argument("--nodes", type=positive, metavar="N", help="search each position N nodes instead")
    parser.add_argument("--top", type=positive, default=3, help="lines per position (MultiPV, default 3)")
    parser.add_argument("--jobs", type=positive, default=os.cpu_count() or 1,
                        help="engine sessions at once (with --ray: the CPUs of a local cluster; default: the"
                             " cores)")
    parser.add_argument("--ray", type=ray_argument, default=None, metavar="local|auto|ADDRESS",
                        help="search the positions as Ray tasks, each worker with its own engine: on a "
                             "private local cluster of --jobs CPUs, the cluster this machine is in, or the "
                             "head at ADDRESS")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--private", action="store_true",
                       help="an engine of its own for each worker instead of the user's shared daemon")
    where.add_argument("--engine", default=None,
                       help="the engine command each worker starts (default: sessions of the user's shared daemon)")
    where.add_argument("--connect", metavar="HOST:PORT", help="use a running daemon instead")
    parser.add_argument("--token-file", type=Path, help="the daemon's token file, with --connect")
    parser.add_argument("--handshake-timeout", type=float, default=HANDSHAKE_TIMEOUT_S, metavar="S",
                        help=f"give up an engine that has not answered uci within S seconds "
                             f"(default {HANDSHAKE_TIMEOUT_S:g})")
    parser.add_argument("--out", type=Path, help="output prefix (default: the game file's, with -analysis); "
                                                 "of a batch, the folder of its outputs (default: beside each record)")
    parser.add_argument("--summary", type=Path, metavar="FILE",
                        help=f"a batch's summary JSON (default: {SUMMARY_NAME} in --out or the records' folder)")
    parser.add_argument("--worst", type=int, default=10, metavar="N",
                        help="the worst moves a batch's summary lists (default 10)")
    parser.add_argument("--pictures", action="store_true", help="a picture of each game of a batch too")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true", help="a progress bar even when stderr is no terminal")
    shown.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.ray and args.connect:
        parser.error("--ray runs an engine in each Ray worker: it does not take --connect")
    batch = is_batch(args.inputs)
    if not batch and (args.summary or args.pictures or args.worst != 10):
        parser.error("--summary, --worst and --pictures are for a batch of records")
    if args.worst < 0:
        parser.error("--worst must be at least 0")
    if not args.handshake_timeout > 0:
        parser.error("--handshake-timeout must be a positive number of seconds")
    limit = Limit(depth=args.depth, movetime=args.movetime, nodes=args.nodes)
    if limit == Limit():
        limit = DEFAULT_LIMIT
    address = None
    if args.connect:
        host, _, port = args.connect.rpartition(":")
        if not port.isdigit():
            parser.error(f"--connect wants HOST:PORT, got {args.connect!r}")
        address = (host or "127.0.0.1", int(port))
    progress = args.progress or (not args.quiet and sys.stderr.isatty())
    try:
        token = args.token_file.read_text().split()[0] if args.token_file else None
    except (OSError, IndexError) as error:
        print(f"engine-analyse: the token file: {failure_text(error)}", file=sys.stderr)
        return 2
    use_shared = not (args.private or args.engine or args.connect or args.ray)
    engine = EngineSpec(tuple(shlex.split(args.engine or "")), address, token, use_shared, args.handshake_timeout)
    if use_shared:
        args.jobs = shared_sessions(args.jobs)
    if batch:
        return batch_run(args.inputs, Settings(limit, args.top, args.jobs, engine, args.ray, progress, args.game,
                                               args.out, args.summary, args.worst, args.pictures))
    game_file = Path(args.inputs[0])
    try:
        game = read_game(game_file, args.game)
    except (OSError, ValueError) as error:
        print(f"engine-analyse: {error}", file=sys.stderr)
        return 2
    if game.stopped:
        print(f"engine-analyse: the record stops after {len(game.plies)} moves: {game.stopped}", file=sys.stderr)
    prefix = args.out or game_file.with_name(game_file.stem + "-analysis")
    try:
        check_folder(prefix.parent)
        (_, plies), = analyse_games([game], limit, args.top, args.jobs, engine, args.ray, progress)
        if isinstance(plies, str):
            print(f"engine-analyse: {plies}", file=sys.stderr)
            return 2
        write_json(prefix.with_suffix(".json"), report(game, limit, args.top, plies))
        write_annotated(prefix.with_suffix(".sgf"), game, attrs.asdict(limit), plies)
        pictures = plot(game, plies, prefix)
    except CannotWrite as error:
        print(f"engine-analyse: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"engine-analyse: {failure_text(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("engine-analyse: interrupted", file=sys.stderr)
        return INTERRUPTED
    marks = [ply for ply in plies if ply["mark"]]
    print(f"{game.name}: {len(plies)} plies, {sum(ply['mark'] == 'mistake' for ply in marks)} mistakes,"
          f" {sum(ply['mark'] == 'blunder' for ply in marks)} blunders; wrote"
          f" {', '.join(str(path) for path in [prefix.with_suffix('.json'), prefix.with_suffix('.sgf'), *pictures])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
