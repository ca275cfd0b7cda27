"""How `engine-cg` plays: one CodinGame game of one player, moves chosen by the engine.

Each turn the clock starts when the turn's first line arrives (on the first turn, as
the process watched for it from its start, `main.FirstInput`: the process start
where it was there before the watch began). The engine gets the referee's
board as `position board ...` and `go movetime T`, T leaving a margin inside CodinGame's
limit (see `timing`). Whatever happens to the engine (late, gone, refusing the position,
answering a move the referee would not accept) a legal move is printed before the limit,
and stderr says why: the running search's best move so far if it has one, else the
adapter's own, from the engine's search run interpreted in this process (`own.OwnMove`). Between turns the engine ponders
on the position after the move played and the replies it expects; if the referee's next
position is that one the search goes on (`ponderhit`), else it is stopped and a new one
starts.

The player keeps no game state of its own beyond its seat, its turn count (a game
whose board text counts plies derives them from it), where the turn format has a
`matcher`, the labelling of the referee's moves, and where it says `SENDS_LINE`, the
game's moves since its first turn (`line.GameLine`), which it then sends as the
position (`position board FIRST moves ...`) so that the engine sees how the others
play; every position comes from the referee's lines.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import json
import os
import select
import stat
import subprocess
import sys
import threading
import time
from typing import Callable, Sequence

import attrs

from adapters.bot.line import GameLine
from adapters.bot.own import OwnMove, OwnSearch
from adapters.bot.sharing import shared_session
from adapters.bot.link import Answer, EngineLink
from adapters.bot.timing import Budget, budget
from adapters.codingame import turn_format
from adapters.codingame.common import TurnFormat, TurnFormatError
from games.base import GameError
from protocol import shared
from protocol.errors import no_room_for_game
from protocol.client import Engine, EngineClosed

#: How long the engine may take to start and answer `isready` (seconds).
STARTUP_TIMEOUT = 10.0
#: At most this many engine starts per game, at least this many seconds apart.
MAX_STARTS = 3
RESTART_DELAY = 5.0


def log(message: str) -> None:
    sys.stderr.write(f"engine-cg: {message}\n")
    sys.stderr.flush()


def engine_preamble(game: str, options: Sequence[tuple[str, str]] = ()) -> bytes:
    """The first commands to the engine: pondering, the `options` (NAME, VALUE: the
    game's own, then the user's) and the game, whose compiled code starts loading as the
    engine reads it; then `uci`, whose `uciok` (after any refusal of an option) tells the
    process is up and has taken the game, so that the first `go` is read as soon as it
    is sent."""
    lines = ["setoption name Ponder value true"]
    lines += [f"setoption name {name} value {value}" for name, value in options]
    return "".join(line + "\n" for line in [*lines, f"setgame {game}", "uci"]).encode()


class StdinLines(asyncio.Protocol):
    """Standard input, each line with the time.monotonic() at which it was read (None at
    end of input). Pipes, sockets and terminals are read by the event loop itself, one
    wake-up per turn; a plain file by a thread. Lines already waiting when reading
    starts are dated `arrived()`: when the first input came, as the process watched it
    from its start (`main.FirstInput`)."""

    def __init__(self, arrived: Callable[[], float]) -> None:
        self._queue: asyncio.Queue[tuple[str | None, float]] = asyncio.Queue()
        self._buffer = b""
        self._arrived = arrived
        self._early = False

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        fd = sys.stdin.fileno()
        self._early = bool(select.select([fd], [], [], 0)[0])
        mode = os.fstat(fd).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
            await loop.connect_read_pipe(lambda: self, sys.stdin)
            return

        def pump() -> None:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    chunk = b""
                try:
                    loop.call_soon_threadsafe(self._take, chunk, time.monotonic())
                except RuntimeError:
                    return  # the loop is closed: the process is ending
                if not chunk:
                    return

        threading.Thread(target=pump, name="stdin", daemon=True).start()

    def data_received(self, data: bytes) -> None:
        self._take(data, time.monotonic())

    def eof_received(self) -> bool:
        self._take(b"", time.monotonic())
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self._buffer is not None:
            self._take(b"", time.monotonic())

    def _take(self, chunk: bytes, now: float) -> None:
        if self._buffer is None:
            return
        if self._early:
            now, self._early = min(now, self._arrived()), False
        if chunk:
            self._buffer += chunk
            *complete, self._buffer = self._buffer.split(b"\n")
            for line in complete:
                self._queue.put_nowait((line.decode("utf-8", "replace").rstrip("\r"), now))
            return
        if self._buffer:
            self._queue.put_nowait((self._buffer.decode("utf-8", "replace").rstrip("\r"), now))
        self._buffer = None  # type: ignore[assignment]
        self._queue.put_nowait((None, now))

    async def get(self) -> tuple[str | None, float]:
        return await self._queue.get()


@attrs.define
class Ponder:
    """The search running on the opponent's time: its number and the board text of the
    position it searches (the one the adapter expects next)."""

    number: int
    board: str


@attrs.define
class Choice:
    move: str
    source: str
    answer: Answer | None = None
    sent: float | None = None


class Adapter:
    """One CodinGame game of one player."""

    def __init__(self, fmt: TurnFormat, args: argparse.Namespace,
                 early: subprocess.Popen | concurrent.futures.Future | None = None):
        self.fmt = fmt
        #: What the command started before loading this module: the engine process (its
        #: preamble not yet written), or the search for the shared daemon (the future
        #: of its place).
        self.early = early
        self.game = fmt.GAME
        self.args = args
        self.player: int | None = None
        self.turns = 0
        self.link: EngineLink | None = None
        self._starting: asyncio.Task | None = None
        self._starts: list[float] = []
        #: When the last start failed.
        self._failed: float | None = None
        self.ponder: Ponder | None = None
        self.fallbacks = 0
        #: Maps the engine's moves to the referee's entries, where the turn format
        #: labels them its own way (its `matcher`).
        self.matcher = fmt.matcher() if hasattr(fmt, "matcher") else None
        #: The game's moves since this player's first turn, where the engine reads them.
        self.line = GameLine(self.game) if fmt.SENDS_LINE else None
        #: Seconds the last turn waited for the engine to come up.
        self.waited = 0.0
        #: Lost engines being closed.
        self._closing: list[asyncio.Future] = []
        #: The adapter's own search, for turns the engine does not answer in time.
        self.own_search = OwnSearch(self.game)

    # ---- the engine ----------------------------------------------------------------

    def start_engine(self) -> None:
        """Start (or restart) the engine in the background, within the start limits: at
        most MAX_STARTS, and RESTART_DELAY after a start that failed (an engine that
        served and was lost is replaced at once)."""
        now = time.monotonic()
        if self._starting is not None or len(self._starts) >= MAX_STARTS:
            return
        if self._failed is not None and now - self._failed < RESTART_DELAY:
            return
        self._starts.append(now)
        self._starting = asyncio.ensure_future(self._open())

    async def _connect(self) -> Engine:
        """A new session: with the shared daemon (found or started by the command, or
        again after it was lost), a running daemon (`--connect`), the engine the command
        started, or a new engine of its own."""
        if self.args.connect:
            host, _, port = self.args.connect.rpartition(":")
            return await Engine.connect(host or "127.0.0.1", int(port))
        if self.args.shared:
            if isinstance(self.early, concurrent.futures.Future) and len(self._starts) == 1:
                channel = await asyncio.wrap_future(self.early)
            else:
                channel = await asyncio.to_thread(shared_session, self.args.time_scale)
            return await Engine.connect_unix(sock=channel)
        if isinstance(self.early, subprocess.Popen) and len(self._starts) == 1:
            # The engine the command started; still importing, it reads the preamble next.
            return await Engine.attach(self.early)
        return await Engine.popen(self.args.engine_command, env=self.args.engine_env)

    async def _open(self) -> EngineLink:
        try:
            client = await self._connect()
            return EngineLink(await self._handshake(client))
        except (OSError, EngineClosed) as error:
            if not self.args.shared:
                raise
            why = f"{type(error).__name__}: {error}" if not isinstance(error, shared.Unusable) else str(error)
        # The shared daemon cannot serve this game: an engine of its own from now on.
        log(f"the shared engine daemon cannot be used, {why}: starting an engine of its own")
        self.args.shared = False
        return EngineLink(await self._handshake(await self._connect()))

    async def _handshake(self, client: Engine) -> Engine:
        """`client` once it has taken the preamble and answered `uci`; a process of its
        own is killed when it fails, and a session of the shared daemon closed where the
        daemon cannot load the game (shared.Unusable: its tables' budget is full)."""
        try:
            await client.send_raw(engine_preamble(self.game.name, [*self.fmt.ENGINE_OPTIONS, *self.args.option]))
            # Ready once the process answers `uci`: `isready` would also wait for the
            # game's compiled code to load (0.3 s, more on a busy machine), and a search
            # can wait for it within its own time (see search.specialised).
            for line in await client.until("uciok", STARTUP_TIMEOUT, raise_errors=False):
                if no_room_for_game(line) and self.args.shared:
                    raise shared.Unusable(f"it cannot load the game ({line})")
                if line.startswith("error"):
                    log(f"the engine refused a start-up command: {line}")
        except BaseException:
            if client.process is None:
                await client.close()
            if client.process is not None and client.process.returncode is None:
                client.process.kill()
            if isinstance(self.early, subprocess.Popen) and self.early.poll() is None:
                self.early.kill()
            raise
        return client

    async def engine(self, wait_until: float) -> EngineLink | None:
        """The engine session if it is up, waiting for a start in progress until
        `wait_until`; a lost engine is restarted in the background (at the first turn
        the start limits allow)."""
        if self.link is not None and self.link.closed:
            if self.args.shared:
                # A game in progress does not wait for a new daemon to come up and load it.
                log(f"turn {self.turns + 1}: the shared engine daemon is gone; starting an engine of its own")
                self.args.shared = False
            else:
                log(f"turn {self.turns + 1}: the engine is gone; starting another in the background")
            self._closing.append(asyncio.ensure_future(self.link.close()))
            self.link = None
            self.ponder = None
        if self.link is None and self._starting is None:
            self.start_engine()
        if self.link is None and self._starting is not None:
            starting = self._starting
            if not starting.done():
                await asyncio.wait([starting], timeout=max(wait_until - time.monotonic(), 0))
            if starting.done():
                self._starting = None
                try:
                    self.link = starting.result()
                except Exception as error:  # noqa: BLE001 - any start failure means no engine
                    log(f"cannot start the engine: {type(error).__name__}: {error}")
                    self._failed = time.monotonic()
                    self.start_engine()
        return self.link

    # ---- one turn ------------------------------------------------------------------

    async def play_turn(self, lines: list[str], first_line_at: float, last_line_at: float) -> None:
        turn = self.fmt.parse_turn(lines, self.player, self.turns)
        self.player = turn.player
        plan = budget(self.fmt, turn.first_turn, first_line_at, self.args.time_scale)
        legal = self.fmt.legal_tokens(turn)
        state = self.game.parse_board(turn.board_text.split())
        if self.line is not None:
            self.line.turn(turn.board_text, state)
        outputs: dict[str, str] = {}
        if self.matcher is not None:
            legal, outputs = self.matcher.match(state, legal)
        choice = await self.choose(turn.board_text, state, legal, plan)
        await self.await_load(plan)
        printed = self.emit(outputs.get(choice.move, choice.move))
        if self.args.stats:
            self.report(choice, first_line_at, last_line_at, printed)
        self.turns += 1
        if choice.answer is not None and choice.answer.move == choice.move:
            await self.start_ponder(turn.board_text, state, choice.move, choice.answer)
        if self.line is not None:
            self.line.played(choice.move)

    def position_command(self, board_text: str, moves: list[str] | tuple[str, ...] = ()) -> str:
        """The `position` command of this turn's board `board_text` after `moves`: from
        the first board of the game's line, after the line's moves, where the player
        keeps one."""
        if self.line is not None:
            assert self.line.start is not None
            board_text, moves = self.line.start, [*self.line.moves, *moves]
        return f"position board {board_text}" + (f" moves {' '.join(moves)}" if moves else "")

    async def await_load(self, plan: Budget) -> None:
        """Until the engine has loaded the game's compiled code, spend what is left of a
        turn whose move is already known waiting for that (the `isready` barrier), so that
        a later turn's search does not wait for it: a move from the opening book comes
        in milliseconds, long before the code has loaded on a busy machine."""
        link = self.link
        if link is not None and not link.loaded and not link.closed and not link.pending:
            await link.ready(plan.engine_deadline)

    async def choose(self, board_text: str, state, legal: list[str], plan: Budget) -> Choice:
        ponder, self.ponder = self.ponder, None
        asked = time.monotonic()
        own = OwnMove(self.own_search, state, legal)
        link = await self.engine(plan.own_move_at)
        if link is None and len(legal) > 1:
            # The engine is still starting halfway through its time: the adapter works
            # out its own move first, so that a fallback is more than the first move
            # however late the start turns out.
            own.work(plan.engine_wait)
            link = await self.engine(plan.engine_wait)
        self.waited = time.monotonic() - asked
        if len(legal) == 1:
            if link is not None and link.pending:
                await link.send(["stop"])
            return Choice(legal[0], "only move")
        if link is None:
            return self.fallback(plan, legal, own, "no engine")
        board = self.game.format_board(state)
        if ponder is not None and ponder.board == board:
            sent = time.monotonic()
            await link.send(["ponderhit"])
            number: int | None = ponder.number
            source = "ponderhit"
        else:
            movetime = int((plan.engine_deadline - time.monotonic()) * 1000)
            if movetime < 1:
                return self.fallback(plan, legal, own, "no time left for a search")
            commands = ["stop"] if link.pending else []
            commands += [self.position_command(board_text), f"go movetime {movetime}"]
            sent = time.monotonic()
            number = await link.search(commands)
            source = "engine"
        if number is None:
            return self.fallback(plan, legal, own, "the engine is gone")
        answer = await link.answer(number, plan.own_move_at)
        if answer is None and self.search_move(link.progress(number), legal) is None:
            # Halfway through its time the search has found no move (the engine still
            # loads its compiled code, or waits for a core): the adapter works out its
            # own while the search may still run, and leaves the rest of the turn to
            # reading a late answer and printing.
            own.work(plan.engine_deadline)
        if answer is None:
            answer = await link.answer(number, plan.hard_deadline)
        if answer is None:
            late = int((time.monotonic() - plan.started) * 1000)
            why = "the engine is gone" if link.closed else f"no bestmove {late} ms into the turn"
            return self.fallback(plan, legal, own, why, link.progress(number))
        if answer.move is None:
            return self.fallback(plan, legal, own, answer.error or "the engine had no move")
        if answer.move not in legal:
            return self.fallback(plan, legal, own, f"the engine's move {answer.move!r} is not in the referee's list")
        return Choice(answer.move, source, answer, sent)

    @staticmethod
    def search_move(progress: Answer | None, legal: list[str]) -> str | None:
        """A running search's best move so far (the first of its last pv) if it is one
        of `legal`, else None."""
        if progress is None or not progress.pv or progress.pv[0] not in legal:
            return None
        return progress.pv[0]

    def fallback(self, plan: Budget, legal: list[str], own: OwnMove, why: str,
                 progress: Answer | None = None) -> Choice:
        """A legal move without the engine's answer: the running search's best so far
        (`progress`) if it has one, else the adapter's own (`own`, worked out until the
        turn's hard deadline where it is not yet)."""
        self.fallbacks += 1
        move, how = self.search_move(progress, legal), "the search's best so far"
        if move is None:
            own.work(plan.hard_deadline)
            move, how = own.best, own.describe()
        log(f"turn {self.turns + 1}: fallback: {why}; playing {move} ({how})")
        return Choice(move, "fallback")

    def emit(self, move: str) -> float:
        os.write(1, (self.fmt.format_output(move) + "\n").encode())
        return time.monotonic()

    def report(self, choice: Choice, first_line_at: float, last_line_at: float, printed: float) -> None:
        answer = choice.answer
        engine_ms = None
        if answer is not None and answer.received is not None and choice.sent is not None:
            engine_ms = round((answer.received - choice.sent) * 1000, 2)
        respond_ms = round((printed - last_line_at) * 1000, 2)
        waited_ms = round(self.waited * 1000, 2)
        log("stats " + json.dumps({
            "turn": self.turns + 1, "source": choice.source,
            "read_ms": round((last_line_at - first_line_at) * 1000, 2),
            "respond_ms": respond_ms, "engine_ms": engine_ms,
            "search_ms": None if answer is None else answer.info_ms,
            "engine_start_wait_ms": waited_ms,
            # The adapter's own part: the answer's time minus the engine's round trip
            # (from sending `go` or `ponderhit` to reading `bestmove`) and minus any wait
            # for the engine to start.
            "adapter_ms": None if engine_ms is None else round(respond_ms - engine_ms - waited_ms, 2),
            # time.monotonic() is one clock for every process of the machine: a referee on
            # it can tell its own latencies from these.
            "first_line_at": round(first_line_at, 6), "printed_at": round(printed, 6),
        }))

    # ---- pondering -----------------------------------------------------------------

    async def start_ponder(self, board_text: str, state, move: str, answer: Answer) -> None:
        """Search the position after `move` and the replies the engine expects, until
        this player's next turn, on the opponents' time."""
        link = self.link
        if link is None or link.closed or answer.ponder is None:
            return
        predicted = list(answer.pv[1:]) if answer.pv[:2] == (move, answer.ponder) else [answer.ponder]
        moves = [move]
        try:
            after = state.play(self.game.parse_move(state, move))
            for token in predicted:
                if after.outcome() is not None or after.to_move == self.player:
                    break
                after = after.play(self.game.parse_move(after, token))
                moves.append(token)
        except GameError:
            return
        if after.outcome() is not None or after.to_move != self.player:
            return
        plan = budget(self.fmt, False, 0.0, self.args.time_scale)
        commands = ["stop"] if link.pending else []
        commands += [self.position_command(board_text, moves), f"go ponder movetime {plan.ponder_movetime}"]
        number = await link.search(commands)
        if number is not None:
            self.ponder = Ponder(number, self.game.format_board(after))

    # ---- the game loop -------------------------------------------------------------

    async def run(self) -> int:
        stdin = StdinLines(self.args.first_input.arrived)
        await stdin.open()
        self.start_engine()
        frozen = False
        while True:
            line, first_line_at = await stdin.get()
            if line is None:
                break
            framer = self.fmt.framer(self.player is None)
            last_line_at = first_line_at
            try:
                done = framer.add(line)
                while not done:
                    line, last_line_at = await stdin.get()
                    if line is None:
                        log("the input ended inside a turn")
                        return await self.finish(1)
                    done = framer.add(line)
                await self.play_turn(framer.lines, first_line_at, last_line_at)
            except TurnFormatError as error:
                log(f"turn {self.turns + 1}: unreadable input: {error}")
                return await self.finish(1)
            if not frozen and self.link is not None:
                # Everything allocated so far lives for the game: keep the collector
                # off it, and off the turns (collected between turns instead).
                gc.freeze()
                gc.disable()
                frozen = True
            elif frozen:
                gc.collect(1)
        return await self.finish(0)

    async def finish(self, code: int) -> int:
        if self.link is not None:
            await self.link.send(["stop"])
            await self.link.close()
        if self._starting is not None:
            self._starting.cancel()
        if self._closing:
            await asyncio.wait(self._closing, timeout=3)
        if isinstance(self.early, subprocess.Popen):
            try:
                await asyncio.wait_for(asyncio.to_thread(self.early.wait), 2)
            except asyncio.TimeoutError:
                self.early.kill()
        if self.fallbacks:
            log(f"{self.fallbacks} fallback move(s) in {self.turns} turns")
        return code


def play(args: argparse.Namespace, early: subprocess.Popen | concurrent.futures.Future | None = None) -> int:
    """Play the game of `args` (see `adapters.bot.main`) until the input ends."""
    return asyncio.run(Adapter(turn_format(args.game), args, early).run())
