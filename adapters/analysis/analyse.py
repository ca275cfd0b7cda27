"""What each move of a game lost, by engine sessions searching the position before it.

Each position before a move is searched with the limit, `--top` lines (MultiPV), and its
last whole set of lines is kept: every line of one completed iteration, at one depth
(`protocol.info.LineSets`). Where the move played is not among them, it is searched
alone (`go searchmoves`) to that same depth, so that its score compares with theirs: no
two scores of an analysis come from searches of different depths. Every position starts from an empty table (`hash clear`),
and the engine searches rather than answering from its opening book: so at a fixed
depth or node count a position's analysis is the same whichever session searches it and
whatever it searched before.

The positions are spread over worker sessions as `adapters.pool.Runs`
spreads an arena's games: in this process, in a pool of local processes, or as Ray
tasks. Each worker process keeps one engine session (started on first use, or a
connection to a running daemon) for the positions it is given.

A move is judged by what it costs its player in results: the expected points (win +
draw / 2, from the engine's win chances, ShowWDL) of the engine's best move minus those
of the move played. A `mistake` gives up at least MISTAKE_POINTS, a `blunder` at least
BLUNDER_POINTS. So a move between two won positions (two proven wins, or two scores
the game's model already counts as won) is no mistake, however far apart their scores.
The loss in centi-units (a proven result counting as PROVEN_CP) is reported beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing.util
import shlex
import subprocess
import sys
from typing import Awaitable, Callable, Iterator, Mapping, Sequence

import attrs

from adapters.analysis.gamefile import Game, played_game
from adapters.analysis.summary import seat_summary
from adapters.pool import Runs
from adapters.view.engine import expected_points
from games import find_game
from protocol import shared as shared_daemon
from protocol.client import Engine, EngineClosed, EngineError, Limit
from protocol.errors import no_room_for_game
from protocol.info import Info, Score
from protocol.launch import engine_command
from records.tree import Record

#: The expected points a move gives up to be marked a mistake, or a blunder.
MISTAKE_POINTS = 0.1
BLUNDER_POINTS = 0.2
#: What a proven win is worth in centi-units when losses in centi-units are counted.
PROVEN_CP = 10_000


#: The options of a session that analyses: win chances, and no opening book (whose
#: moves come without a search).
ANALYSIS_OPTIONS = {"ShowWDL": True, "OwnBook": False}


def centi(score: Score) -> int:
    """A score in centi-units, a proven result as ±PROVEN_CP."""
    if score.mate is None:
        return int(score.cp or 0)
    return PROVEN_CP if score.mate > 0 else -PROVEN_CP


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
    return {"move": info.move, "score": str(info.score), "wdl": _wdl(info), "pv": list(info.pv), "depth": info.depth}


#: The fields of a position's analysis (`analyse_ply`).
PLY_FIELDS = frozenset(("player", "board", "played", "best", "top", "depth", "played_score", "played_wdl",
                        "best_score", "loss", "points_lost", "mark"))


class Stopped(Exception):
    """An analysis was stopped before it was done."""


async def analyse_ply(engine: Engine, board: str, player: int, played: str, limit: Limit, top: int,
                      stop: asyncio.Event | None = None) -> dict:
    """The analysis of the position `board` (a board text of the session's game, `player`
    to move) before `played` (see the module docstring): the last whole set of `top`
    lines the search to `limit` completed, all at one `depth`, and the move played
    valued at that depth too (in the set, or searched alone to it; a search that gave
    no line at all is followed by one to a single ply); `loss` in
    centi-units, `points_lost` in expected points (None where the engine gave no win
    chances), both at least 0, and the `mark` that `points_lost` earns. Raises Stopped
    once `stop` is set (the searches it runs stop then)."""
    lines = await engine.analyse(limit, position=f"board {board}", multipv=top, stop=stop)
    if stop is not None and stop.is_set():
        raise Stopped
    if not lines:
        # A search whose time ran out before its first iteration, as the interpreted
        # stand-in of a compiled core still loading may (a game just chosen, a few ms a
        # position): a search to one ply, which always completes, gives the lines.
        lines = await engine.analyse(Limit(depth=1), multipv=top, stop=stop)
        if stop is not None and stop.is_set():
            raise Stopped
    if not lines:
        raise ValueError(f"the engine gave no line for the position before {played}")
    best = lines[0]
    depth = max(1, best.depth or 1)
    own = next((info for info in lines if info.move == played), None)
    if own is None:
        alone = await engine.analyse(Limit(depth=depth), multipv=1, searchmoves=[played], stop=stop)
        if stop is not None and stop.is_set():
            raise Stopped
        if not alone:
            raise ValueError(f"the engine gave no line for {played}")
        own = alone[0]
    loss = max(0, centi(best.score) - centi(own.score)) if best.score and own.score else 0
    best_points, own_points = expected_points(_wdl(best)), expected_points(_wdl(own))
    points_lost = None if best_points is None or own_points is None else round(max(0.0, best_points - own_points), 4)
    return {"player": player, "board": board, "played": played, "best": best.move,
            "top": [_line(info) for info in lines], "depth": depth, "played_score": str(own.score),
            "played_wdl": _wdl(own), "best_score": str(best.score), "loss": loss, "points_lost": points_lost,
            "mark": mark(points_lost)}


async def analyse_afresh(engine: Engine, board: str, player: int, played: str, limit: Limit, top: int,
                         stop: asyncio.Event | None = None) -> dict:
    """`analyse_ply` from an empty table (`hash clear`), in a session with
    ANALYSIS_OPTIONS: the same analysis whoever runs it."""
    await engine.send("hash clear")
    await engine.ready()
    return await analyse_ply(engine, board, player, played, limit, top, stop)


async def analyse_game(engine: Engine, game: Game | Record, limit: Limit = Limit(movetime=200), top: int = 3, *,
                       stop: asyncio.Event | None = None, prepare: bool = True,
                       progress: Callable[[int, int], Awaitable[None]] | None = None) -> dict:
    """The analysis of every ply of `game`, a record's main line where it is a `Record`
    (`records`), by the session `engine`, one position after the other
    (`analyse_afresh`): the report engine-analyse writes (`report`), with each player's
    `summary` (`adapters.analysis.summary.seat_summary`). With `prepare` the session is
    first set to the game (`setgame`) and to ANALYSIS_OPTIONS; a caller that keeps its
    session's game and options itself passes False. `progress(done, total)` is awaited
    before each ply. Raises ValueError where the record's moves are not the game's, and
    Stopped once `stop` is set."""
    if isinstance(game, Record):
        board = game.start
        if board is None and game.params:
            board = find_game(game.game).format_board(game.start_position())
        game = played_game(game.game, board, game.moves())
    if prepare:
        await engine.setgame(game.name, **dict(game.params))
        await engine.configure(ANALYSIS_OPTIONS)
    rules = find_game(game.name)
    plies = []
    for index, (state, played) in enumerate(game.plies):
        if stop is not None and stop.is_set():
            raise Stopped
        if progress is not None:
            await progress(index, len(game.plies))
        analysed = await analyse_afresh(engine, rules.format_board(state), state.to_move, played, limit, top, stop=stop)
        plies.append({"ply": index + 1, **analysed})
    document = report(game, limit, top, plies)
    document["summary"] = seat_summary(document)
    return document


#: How long an engine has to answer the protocol's handshake (`uci`, answered by
#: `uciok`) by default, seconds: ours answers in about one, a busy machine's in a few.
HANDSHAKE_TIMEOUT_S = 30.0


class NoEngine(OSError):
    """An engine that cannot be started or reached, or that does not answer the
    handshake: why, in words naming its command or address."""


@attrs.frozen
class EngineSpec:
    """Where a worker's engine session comes from: with `shared`, the user's shared
    daemon on the worker's machine (started where none runs); else `command` started on
    stdio (empty: the `engine` command beside the worker's Python), or, with `address`,
    a running daemon there, with `token` when it asks for one. An engine that does not
    answer `uci` with `uciok` within `handshake_s` seconds is given up."""

    command: tuple[str, ...] = ()
    address: tuple[str, int] | None = None
    token: str | None = None
    shared: bool = False
    handshake_s: float = HANDSHAKE_TIMEOUT_S

    async def open(self) -> Engine:
        """A new session, once the engine has answered `uci` with `uciok` (within
        `handshake_s`); raises NoEngine when it cannot be started or reached, ends
        first, or does not answer so. Where the shared daemon cannot be used (it cannot
        start, or it is full) the worker says why on stderr and starts an engine of its
        own."""
        if self.shared:
            try:
                return await self._handshake(await Engine.shared(), "the shared engine daemon")
            except (OSError, EngineError, EngineClosed, asyncio.TimeoutError) as error:
                print(f"engine-analyse: the shared engine daemon cannot be used ({failure_text(error)}):"
                      " starting an engine of its own", file=sys.stderr)
        command = list(self.command) or engine_command()
        if self.address is not None:
            where, opening = f"the engine at {self.address[0]}:{self.address[1]}", "reached"
        else:
            where, opening = f"the engine {shlex.join(command)}", "started"
        try:
            if self.address is not None:
                engine = await Engine.connect(*self.address, token=self.token)
            else:
                engine = await Engine.popen(command, stderr=subprocess.DEVNULL)
        except OSError as error:
            raise NoEngine(f"{where} cannot be {opening}: {error.strerror or error}") from None
        return await self._handshake(engine, where)

    async def _handshake(self, engine: Engine, where: str) -> Engine:
        """`engine` once it has answered `uci` with `uciok`; else closed, and NoEngine
        saying why."""
        why = None
        try:
            await engine.send("uci")
            await engine.until("uciok", self.handshake_s)
            return engine
        except asyncio.TimeoutError:
            why = (f"did not answer uci with uciok within {self.handshake_s:g} s:"
                   " is it an engine of this protocol?")
        except EngineError as error:
            why = f"answered uci with {error.line!r}"
        except (EngineClosed, OSError):
            pass  # it ended: said once it is closed, with its exit status
        with contextlib.suppress(OSError):
            await engine.close()
        if why is None:
            status = "" if engine.process is None else f" (exit status {engine.process.returncode})"
            why = f"ended before it answered uci{status}"
        raise NoEngine(f"{where} {why}")


@attrs.frozen
class PositionJob:
    """One position to analyse, as a worker gets it (picklable): `key` says the caller
    where its answer belongs; the position is `board` of `game` with `params`, `player`
    to move, before `played`."""

    key: tuple[int, int]
    engine: EngineSpec
    game: str
    params: tuple[tuple[str, str], ...]
    board: str
    player: int
    played: str
    limit: Limit
    top: int


class _Session:
    """The engine session of a worker process, kept from one position to the next, with
    the event loop its streams belong to."""

    def __init__(self, spec: EngineSpec):
        self.spec = spec
        self.runner = asyncio.Runner()
        try:
            self.engine = self.runner.run(spec.open())
        except BaseException:
            self.runner.close()
            raise
        self.game: tuple[str, tuple[tuple[str, str], ...]] | None = None

    def analyse(self, job: PositionJob) -> dict:
        return self.runner.run(self._analyse(job))

    async def _analyse(self, job: PositionJob) -> dict:
        if self.game != (job.game, job.params):
            self.game = None
            try:
                await self.engine.setgame(job.game, **dict(job.params))
            except EngineError as error:
                if not (self.spec.shared and no_room_for_game(error.line)):
                    raise
                # A session that cannot load its game is a daemon that cannot be used.
                print(f"engine-analyse: the shared engine daemon cannot load {job.game} ({error.line}):"
                      " starting an engine of its own", file=sys.stderr)
                await self.engine.close()
                self.engine = await attrs.evolve(self.spec, shared=False).open()
                await self.engine.setgame(job.game, **dict(job.params))
            await self.engine.configure(ANALYSIS_OPTIONS)
            self.game = (job.game, job.params)
        return await analyse_afresh(self.engine, job.board, job.player, job.played, job.limit, job.top)

    def close(self) -> None:
        try:
            self.runner.run(asyncio.wait_for(self.engine.close(), 15))
        except (OSError, RuntimeError, EngineClosed, asyncio.TimeoutError):
            pass  # a session already gone
        finally:
            self.runner.close()


_session: _Session | None = None


def close_session() -> None:
    """End this process's engine session, if it has one."""
    global _session
    if _session is not None:
        session, _session = _session, None
        session.close()


def analyse_position(job: PositionJob) -> tuple[tuple[int, int], dict | str]:
    """(`job.key`, the analysis of its position (see `analyse_ply`)), or (`job.key`, what
    went wrong) when the engine refused the position, closed, or did not answer; the
    next job then starts a new session. Runs in a worker process, whose session it starts
    on first use (and ends when the process ends). Raises OSError when the engine cannot
    be started or reached at all."""
    global _session
    if _session is None or _session.spec != job.engine:
        close_session()
        _session = _Session(job.engine)
        if multiprocessing.parent_process() is not None:  # a pool's worker ends without atexit
            multiprocessing.util.Finalize(None, close_session, exitpriority=0)
    try:
        return job.key, _session.analyse(job)
    except (EngineError, EngineClosed, asyncio.TimeoutError, OSError, ValueError, IndexError) as error:
        if not isinstance(error, EngineError):
            close_session()
        return job.key, failure_text(error)


def failure_text(error: BaseException) -> str:
    """What went wrong with an engine, in words."""
    if isinstance(error, EngineError):
        return f"the engine answered {error.line!r}"
    told = (ValueError, NoEngine, shared_daemon.Unusable)  # their words say what failed
    return str(error) if isinstance(error, told) else f"{type(error).__name__}: {error}"


def report(game: Game, limit: Limit, top: int, plies: list[dict]) -> dict:
    """The analysis of `game` as PREFIX.json holds it (see docs/analysis.md): the game,
    what it was analysed with (`limit`, `top`, the thresholds) and its `plies`."""
    return {"game": game.name, "params": dict(game.params), "start": game.board, "stopped": game.stopped,
            "limit": attrs.asdict(limit), "top": top, "players": list(game.players),
            "thresholds": {"mistake_points": MISTAKE_POINTS, "blunder_points": BLUNDER_POINTS,
                           "proven_cp": PROVEN_CP},
            "plies": plies}


def analyse_games(games: Sequence[Game], limit: Limit, top: int, jobs: int, engine: EngineSpec,
                  ray: str | None = None, progress: bool = True, known: Sequence[Mapping[int, dict]] = (),
                  on_position: Callable[[int, int, dict], None] | None = None
                  ) -> Iterator[tuple[int, list[dict] | str]]:
    """Analyse every ply of `games` (see `analyse_ply`): the positions of all of them,
    handed out in the order of the games, spread over `jobs` workers (`ray`: as Ray
    tasks on that cluster, see `Runs`), with one progress bar (on stderr) over them all.
    `known[g]` holds analyses of game g's positions made before (by the index of the
    position), which are not made again; `on_position(g, index, analysis)` is called
    with each position's analysis as it comes.

    Yields (index of a game, its plies' analyses, each with its `ply` number from 1) as
    each game's last position is done, or (index of a game, what went wrong, at which
    ply) at the first of its positions that failed; a game with no position left at
    once. Raises OSError when an engine cannot be started or reached."""
    from tqdm import tqdm

    known = list(known) + [{}] * (len(games) - len(known))
    results: list[list[dict]] = [[{"ply": index + 1, **known[number][index]} if index in known[number] else {}
                                  for index in range(len(game.plies))] for number, game in enumerate(games)]
    specs = [PositionJob((number, index), engine, game.name, game.params, find_game(game.name).format_board(position),
                         position.to_move, played, limit, top)
             for number, game in enumerate(games) for index, (position, played) in enumerate(game.plies)
             if index not in known[number]]
    left = [0] * len(games)
    for spec in specs:
        left[spec.key[0]] += 1
    failed: set[int] = set()
    for number in range(len(games)):
        if not left[number]:
            yield number, results[number]
    total = sum(len(game.plies) for game in games)
    with tqdm(total=total, initial=total - len(specs), unit="pos", disable=not progress, file=sys.stderr,
              smoothing=0.1) as bar, Runs(analyse_position, specs, jobs, ray) as runs:
        try:
            for (number, index), outcome in runs:
                bar.update()
                left[number] -= 1
                if number in failed:
                    continue
                if isinstance(outcome, str):
                    failed.add(number)
                    yield number, f"ply {index + 1}: {outcome}"
                    continue
                if on_position is not None:
                    on_position(number, index, outcome)
                results[number][index] = {"ply": index + 1, **outcome}
                if not left[number]:
                    yield number, results[number]
        finally:
            close_session()
