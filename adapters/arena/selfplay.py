"""The `engine-selfplay` command: games between engine configurations, every position
recorded with the search's score and the game's result, for tuning and books.

    engine-selfplay GAME --games N [--engine NAME[:OPTION=VALUE,...]]...
                    [--command NAME=CMD]... [--nodes N | --movetime MS | --depth D]
                    [--random-plies K | --openings FILE] [--seed S] [--sprt ...]
                    [--jobs J | --ray local|auto|ADDRESS] [--out DIR] [--shard-size N]

Each configuration is an `engine` process (`--engine-command`, by default the one beside
this Python, or its own `--command NAME=CMD`: another build of the engine) with its
options set (`--engine fast:Hash=64`). With as many configurations as players, the
seats rotate through every order, as in the arena, and the first configuration's score
is printed with its Elo, or tested sequentially with `--sprt` as `engine-arena` does;
with one configuration, it plays every seat. The engines play through the protocol (`position startpos moves ...`, then
the `go` the limit names), the game's own rules referee, and a forced move the
CodinGame referee plays for a player (a pass) is played for it.

Games are reproducible: game i starts from the opening and seed of its group (its
index divided by the number of seat orders), drawn from `--seed`, and every engine
starts the game with an empty table; with `--nodes` or `--depth` the engines' moves
depend on nothing else.

The output directory holds `run.json` (the run's parameters), `shard-NNNNN.jsonl.gz`
(gzip-compressed JSON lines, one game a line) and `pending.jsonl` (the games finished
since the last shard). Running the same command again resumes: finished games are kept
and only the missing ones are played; a larger `--games` extends the run. The record of
one game is described in docs/selfplay.md; `read_records` reads a run back.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import itertools
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, Sequence

import attrs

from adapters.arena.openings import OpeningError, openings_option, play_opening, random_opening
from adapters.arena.stats import Sprt, elo, group_units, wilson
from adapters.codingame import game_name, turn_format
from adapters.pool import Runs, ray_argument
from games.base import GameError
from games.files import atomic_file
from protocol.client import Engine, EngineClosed, EngineError
from protocol.info import Info
from protocol.launch import engine_command

#: The version of the record format (docs/selfplay.md).
FORMAT = 1
#: Seconds an engine may take to start and to answer `isready`.
START_TIMEOUT = 120.0
#: Seconds a `go` may take beyond its own limit (a move time) before the game is abandoned.
GO_GRACE = 60.0


class SelfplayError(Exception):
    """A run that cannot go on: a bad option, an engine that refuses or vanishes."""


@attrs.frozen
class Player:
    """An engine configuration: its name, its options in the order set, its command."""

    name: str
    options: tuple[tuple[str, str], ...]
    command: tuple[str, ...]

    @classmethod
    def parse(cls, text: str, command: tuple[str, ...]) -> "Player":
        """From `NAME` or `NAME:OPTION=VALUE,OPTION=VALUE`."""
        name, _, rest = text.partition(":")
        if not name or not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
            raise ValueError(f"an engine name is letters, digits, '-', '_' and '.', not {name!r}")
        options = []
        for item in filter(None, rest.split(",")):
            option, equals, value = item.partition("=")
            if not equals or not option:
                raise ValueError(f"engine {name}: an option is OPTION=VALUE, not {item!r}")
            options.append((option.strip(), value.strip()))
        return cls(name, tuple(options), command)


@attrs.frozen
class SelfplayTask:
    """One game: the game, its index and seed, the players by seat, the `go` command
    of every move, and the opening."""

    game: str
    index: int
    seed: int
    seats: tuple[Player, ...]
    go: str
    opening: tuple[str, ...]


# ---- one game, in a worker process ---------------------------------------------------

#: The worker process's engines, one per configuration, kept from game to game, and the
#: event loop their pipes belong to.
_engines: dict[Player, Engine] = {}
_loop: asyncio.AbstractEventLoop | None = None


def play_selfplay(task: SelfplayTask) -> dict:
    """Play one game (a worker's job); returns its record."""
    global _loop
    if _loop is None:
        _loop = asyncio.new_event_loop()
    return _loop.run_until_complete(_play(task))


async def _engine(player: Player) -> Engine:
    client = _engines.get(player)
    if client is not None and client.process is not None and client.process.returncode is None:
        return client
    client = await Engine.popen(player.command, stderr=subprocess.DEVNULL)
    for option, value in player.options:
        await client.send(f"setoption name {option} value {value}")
    _check(await client.ready(START_TIMEOUT, raise_errors=False), f"engine {player.name}")
    _engines[player] = client
    return client


def _check(lines: Sequence[str], who: str) -> None:
    for line in lines:
        if line.startswith("error"):
            raise SelfplayError(f"{who}: {line}")


def _score(infos: Sequence[Info]) -> dict:
    """The last report's score (`cp` or `mate`), depth and nodes."""
    last = next((info for info in reversed(infos) if info.score is not None), None)
    if last is None:
        return {}
    found: dict = {"cp": last.score.cp} if last.score.mate is None else {"mate": last.score.mate}
    for key in ("depth", "nodes"):
        if getattr(last, key) is not None:
            found[key] = getattr(last, key)
    return found


async def _play(task: SelfplayTask) -> dict:
    fmt = turn_format(task.game)
    game = fmt.GAME
    params = {"seed": str(task.seed)} if "seed" in game.parameters else {}
    start = game.initial_state(params)
    setgame = " ".join([f"setgame {task.game}", *(f"{key}={value}" for key, value in params.items())])
    engines: dict[Player, Engine] = {}
    for player in dict.fromkeys(task.seats):
        client = engines[player] = await _engine(player)
        await client.send(setgame)
        await client.send("hash clear")
        _check(await client.ready(START_TIMEOUT, raise_errors=False), f"engine {player.name}")
    state = play_opening(game, start, task.opening)
    tokens = list(task.opening)
    moves: list[dict] = []
    record: dict = {"format": FORMAT, "game": task.game, "index": task.index, "seed": task.seed,
                    "seats": [player.name for player in task.seats], "go": task.go,
                    "start": game.format_board(start), "opening": list(task.opening)}
    forfeit: int | None = None
    started = time.monotonic()
    while state.outcome() is None:
        player = state.to_move
        forced = fmt.skipped(state)
        if forced is not None:
            moves.append({"player": player, "move": forced, "auto": True})
        else:
            client = engines[task.seats[player]]
            await client.send(f"position startpos moves {' '.join(tokens)}".rstrip())
            try:
                best = await client.bestmove(task.go, timeout=_go_timeout(task.go))
            except EngineError as error:
                raise SelfplayError(f"engine {task.seats[player].name}: {error.line} in game {task.index}") from None
            except (asyncio.TimeoutError, EngineClosed) as error:
                _engines.pop(task.seats[player], None)
                raise SelfplayError(f"engine {task.seats[player].name}: no bestmove "
                                    f"({type(error).__name__}) in game {task.index}") from None
            move = {"player": player, "board": game.format_board(state), "move": best.move,
                    **_score(best.infos), "ms": round(best.elapsed * 1000, 1)}
            moves.append(move)
            try:
                if best.move is None:
                    raise GameError("the engine answered (none) in a game that goes on")
                game.parse_move(state, best.move)
            except GameError as error:
                move["error"] = str(error)
                forfeit = player
                break
            forced = best.move
        tokens.append(forced)
        state = state.play(game.parse_move(state, forced))
    record["moves"] = moves
    record["final"] = game.format_board(state)
    record["seconds"] = round(time.monotonic() - started, 3)
    record["result"] = _result(state, forfeit, fmt.PLAYERS)
    return record


def _go_timeout(go: str) -> float | None:
    words = go.split()
    if "movetime" in words:
        return int(words[words.index("movetime") + 1]) / 1000 + GO_GRACE
    return None


def _result(state, forfeit: int | None, players: int) -> dict:
    """Returns, ranks (1 best, ties sharing) and points per seat (two players: 1 win,
    0.5 draw, 0 loss; more: the share of the others outlasted), the reason and the
    margin (where the game counts one)."""
    if forfeit is not None:
        returns = [1] * players
        returns[forfeit] = -1
        reason, margin = f"seat {forfeit} played an illegal move", None
    else:
        outcome = state.outcome()
        returns, reason = list(outcome.returns), outcome.reason
        margin = list(outcome.margin) if outcome.margin is not None else None
    ranks = [1 + sum(other > value for other in returns) for value in returns]
    points = [(sum(other < value for other in returns) + 0.5 * (sum(other == value for other in returns) - 1))
              / (players - 1) for value in returns]
    return {"returns": returns, "ranks": ranks, "points": points, "reason": reason, "margin": margin}


# ---- the run: tasks, storage, resume -------------------------------------------------

def plan_tasks(game: str, players: Sequence[Player], games: int, seed: int, go: str,
               random_plies: int, openings: Sequence[tuple[str, ...]],
               done: frozenset[int] = frozenset()) -> list[SelfplayTask]:
    """The games of a run not in `done`: seat orders rotate within a group of games that
    share a seed and an opening (every order once); one player plays every seat."""
    fmt = turn_format(game)
    orders = (list(itertools.permutations(range(fmt.PLAYERS))) if len(players) > 1
              else [(0,) * fmt.PLAYERS])
    tasks = []
    for index in range(games):
        if index in done:
            continue
        group = index // len(orders)
        game_seed = seed + group
        if openings:
            opening = openings[group % len(openings)]
        else:
            params = {"seed": str(game_seed)} if "seed" in fmt.GAME.parameters else {}
            start = fmt.GAME.initial_state(params)
            opening = random_opening(fmt.GAME, start, random_plies, random.Random(game_seed * 1_000_003 + 7))
        tasks.append(SelfplayTask(game, index, game_seed,
                                  tuple(players[seat] for seat in orders[index % len(orders)]), go, opening))
    return tasks


class Store:
    """A run's output directory: finished games go to `pending.jsonl` at once (one line,
    flushed), and every `shard_size` of them into the next compressed shard, written
    to a temporary name and renamed."""

    def __init__(self, out: Path, shard_size: int):
        self.out, self.shard_size = out, shard_size
        self.pending_path = out / "pending.jsonl"
        self.pending: list[str] = []
        self.done: set[int] = set()
        for record in read_records(out):
            self.done.add(record["index"])
        if self.pending_path.exists():
            # Keep the whole lines of games not already in a shard: an interrupted write
            # leaves at most one broken last line.
            shards = {record["index"] for record in _shard_records(out)}
            for line in self.pending_path.read_text().splitlines():
                record = _parse(line)
                if record is not None and record["index"] not in shards:
                    self.pending.append(line)
            self.pending_path.write_text("".join(line + "\n" for line in self.pending))
        self._file = self.pending_path.open("a")

    def add(self, record: dict) -> None:
        line = json.dumps(record, separators=(",", ":"))
        self._file.write(line + "\n")
        self._file.flush()
        self.pending.append(line)
        self.done.add(record["index"])
        if len(self.pending) >= self.shard_size:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        number = len(list(self.out.glob("shard-*.jsonl.gz")))
        path = self.out / f"shard-{number:05d}.jsonl.gz"
        with atomic_file(path) as raw, gzip.open(raw, "wt") as shard:
            shard.write("".join(line + "\n" for line in self.pending))
        self.pending = []
        self._file.close()
        self._file = self.pending_path.open("w")

    def close(self) -> None:
        self.flush()
        self._file.close()
        if self.pending_path.exists() and not self.pending_path.stat().st_size:
            self.pending_path.unlink()


def _parse(line: str) -> dict | None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return None
    return record if isinstance(record, dict) and "index" in record else None


def _shard_records(out: Path) -> Iterator[dict]:
    for path in sorted(out.glob("shard-*.jsonl.gz")):
        with gzip.open(path, "rt") as shard:
            for line in shard:
                record = _parse(line)
                if record is not None:
                    yield record


def read_records(out: Path) -> Iterator[dict]:
    """Every finished game of a run directory, each once (shards, then pending games)."""
    seen: set[int] = set()
    for record in _shard_records(out):
        if record["index"] not in seen:
            seen.add(record["index"])
            yield record
    pending = out / "pending.jsonl"
    if pending.exists():
        for line in pending.read_text().splitlines():
            record = _parse(line)
            if record is not None and record["index"] not in seen:
                seen.add(record["index"])
                yield record


# ---- the command ---------------------------------------------------------------------

def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="engine-selfplay",
        description="Play games between engine configurations and record every position with "
                    "the search's score and the result (docs/selfplay.md).")
    parser.add_argument("game", type=game_name, metavar="GAME")
    parser.add_argument("--games", type=int, default=100, help="games in the run (default 100)")
    parser.add_argument("--engine", action="append", default=[], metavar="NAME[:OPT=VAL,...]",
                        help="an engine configuration (repeat: one, or one per player; "
                             "default: one named 'engine' with default options)")
    parser.add_argument("--engine-command", default=None, metavar="CMD",
                        help="the engine program (default: engine beside this Python)")
    parser.add_argument("--command", action="append", default=[], metavar="NAME=CMD",
                        help="the engine program of configuration NAME (repeat)")
    parser.add_argument("--sprt", nargs="+", default=None, metavar="KEY=VALUE",
                        help="stop once a sequential test of the first configuration decides "
                             "(elo0= elo1= alpha= beta=, as engine-arena); --games is the most")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, default=None, help="nodes a move (default 50000)")
    limit.add_argument("--movetime", type=int, default=None, metavar="MS", help="milliseconds a move")
    limit.add_argument("--depth", type=int, default=None, help="plies a move")
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--random-plies", type=int, default=4, metavar="K",
                       help="random legal moves before the engines play (default 4)")
    start.add_argument("--openings", type=Path, default=None, metavar="FILE",
                       help="openings, one a line (see engine-arena), taken in turn")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                        help="games played at once (default: the number of cores)")
    parser.add_argument("--ray", type=ray_argument, default=None, metavar="local|auto|ADDRESS",
                        help="play the games as Ray tasks (see engine-arena --help)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="the run's directory (default selfplay-out/GAME)")
    parser.add_argument("--shard-size", type=int, default=200, metavar="N",
                        help="games a compressed shard (default 200)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1 or args.shard_size < 1 or args.random_plies < 0:
        parser.error("--games, --jobs and --shard-size must be at least 1, --random-plies not negative")
    for value in (args.nodes, args.movetime, args.depth):
        if value is not None and value < 1:
            parser.error("a move's limit must be at least 1")
    args.sprt = Sprt.option(args.sprt, parser)
    return args


def go_command(args: argparse.Namespace) -> str:
    if args.movetime is not None:
        return f"go movetime {args.movetime}"
    if args.depth is not None:
        return f"go depth {args.depth}"
    return f"go nodes {args.nodes or 50_000}"


def manifest(args: argparse.Namespace, players: Sequence[Player], openings) -> dict:
    """What makes a run: two runs with equal manifests play the same games."""
    return {"format": FORMAT, "game": args.game, "go": go_command(args), "seed": args.seed,
            "engines": [{"name": player.name, "options": [list(option) for option in player.options],
                         "command": list(player.command)} for player in players],
            "random_plies": None if openings else args.random_plies,
            "openings": [list(opening) for opening in openings] if openings else None}


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    fmt = turn_format(args.game)
    command = tuple(shlex.split(args.engine_command)) if args.engine_command else tuple(engine_command("--log-level", "error"))
    commands = dict(text.split("=", 1) for text in args.command if "=" in text)
    try:
        players = [Player.parse(text, command) for text in args.engine or ["engine"]]
        players = [attrs.evolve(player, command=tuple(shlex.split(commands.pop(player.name))))
                   if player.name in commands else player for player in players]
        if commands or len(args.command) != sum(1 for text in args.command if "=" in text):
            raise ValueError(f"--command takes NAME=CMD for a configuration's NAME: {args.command}")
    except ValueError as error:
        print(f"engine-selfplay: {error}", file=sys.stderr)
        return 2
    if len(players) not in (1, fmt.PLAYERS) or len({player.name for player in players}) != len(players):
        print(f"engine-selfplay: give one engine or {fmt.PLAYERS} with different names", file=sys.stderr)
        return 2
    try:
        openings = openings_option(args.openings, fmt.GAME)
    except OpeningError as error:
        print(f"engine-selfplay: {error}", file=sys.stderr)
        return 2
    out = args.out or Path("selfplay-out") / args.game
    out.mkdir(parents=True, exist_ok=True)
    wanted = manifest(args, players, openings)
    run_file = out / "run.json"
    if run_file.exists():
        if json.loads(run_file.read_text()) != wanted:
            print(f"engine-selfplay: {out} holds a run with other parameters (see its run.json); "
                  "choose another --out", file=sys.stderr)
            return 2
    else:
        run_file.write_text(json.dumps(wanted, indent=1) + "\n")
    store = Store(out, args.shard_size)
    tasks = plan_tasks(args.game, players, args.games, args.seed, go_command(args), args.random_plies,
                       openings, frozenset(store.done))
    print(f"engine-selfplay: {args.game}, {len(store.done)} of {args.games} games already in {out}, "
          f"playing {len(tasks)}", file=sys.stderr)
    # A scheduler's SIGTERM stops the run as Ctrl-C does: the finished games are kept.
    signal.signal(signal.SIGTERM, _interrupt)
    progress = _progress(args.games, len(store.done), args.quiet)
    match = Match(players, fmt.PLAYERS, args.sprt, read_records(out))
    try:
        with Runs(play_selfplay, tasks, args.jobs, args.ray) as runs:
            for record in runs:
                store.add(record)
                progress.update(1)
                if match.add(record):
                    progress.set_postfix_str(match.status(), refresh=True)
                    if match.decision is not None:
                        break
    except SelfplayError as error:
        print(f"\nengine-selfplay: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nengine-selfplay: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        progress.close()
        store.close()
    positions = sum(1 for record in read_records(out) for move in record["moves"] if "board" in move)
    print(f"{args.game}: {len(store.done)} games, {positions} positions in {out}")
    for line in match.summary():
        print(line)
    return 0


class Match:
    """The first configuration's results against the others, as games finish: its mean
    score with a 95 % interval and the Elo of it, and the SPRT's ratio if one runs.
    Units are seat-rotation groups (see `Sprt`)."""

    def __init__(self, players: Sequence[Player], seats: int, sprt: Sprt | None, records):
        self.name = players[0].name
        self.active = len(players) > 1
        self.group = len(list(itertools.permutations(range(seats))))
        self.sprt = sprt
        self.points: dict[int, float] = {}
        self.decision: str | None = None
        self.llr = 0.0
        for record in records:
            self.add(record)

    def add(self, record: dict) -> bool:
        """Count a game; False when there is no match (one configuration)."""
        if not self.active:
            return False
        seat = record["seats"].index(self.name)
        self.points[record["index"]] = record["result"]["points"][seat]
        if self.sprt is not None:
            self.llr = self.sprt.llr(group_units(self.points, self.group))
            self.decision = self.sprt.decision(self.llr)
        return True

    def score(self) -> float:
        return sum(self.points.values()) / len(self.points) if self.points else 0.0

    def status(self) -> str:
        text = f"{self.name} {100 * self.score():.1f}%"
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            text += f" LLR {self.llr:+.2f} [{lower:+.2f}, {upper:+.2f}]"
        return text

    def summary(self) -> list[str]:
        if not self.active or not self.points:
            return []
        low, high = wilson(self.score(), len(self.points))
        lines = [f"{self.name}: score {100 * self.score():.1f}% over {len(self.points)} games "
                 f"(95% interval {100 * low:.1f}% to {100 * high:.1f}%), "
                 f"Elo {elo(self.score()):+.0f} ({elo(low):+.0f} to {elo(high):+.0f})"]
        if self.sprt is not None:
            lines.append(self.sprt.report(self.llr, self.name))
        return lines


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _progress(total: int, initial: int, quiet: bool):
    """A progress bar on stderr with games per second and the time left."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=quiet, file=sys.stderr,
                smoothing=0.05, dynamic_ncols=True)


if __name__ == "__main__":
    sys.exit(main())
