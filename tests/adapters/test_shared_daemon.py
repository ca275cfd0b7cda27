"""`engine-cg` on the user's shared daemon, over real processes in a runtime folder of
each test's own: two bots started at once share one daemon; a daemon killed with
SIGKILL in the middle of a game is replaced and the game goes on; a full daemon, or a
runtime folder open to others, is said in words and the bot plays with an engine of
its own; `--private` starts no daemon. Every answer is a legal move within the turn's
limit (tests/adapters/deadlines.py), at TIME_SCALE times CodinGame's: these tests are
about the daemon, and a busy machine's scheduler must not make a search late."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from adapters.codingame import turn_format
from adapters.arena.process import BotProcess
from protocol import shared
from protocol.client import Engine, EngineError
from tests.adapters.deadlines import ask_turn, check_turn_reports, lenient_time_scale
from tests.adapters.test_adapter import ADAPTER, seats
from tests.conftest import engine_command, run
from tools.hostile import WAYS, broken

#: How long a daemon may take to start, or a bot to open its session (s).
WAIT_S = 60
GAME = "clobber"
#: The factor on CodinGame's time limits of the bots' turns: LOAD_SLACK more a turn (two
#: bots and their daemon's searches share the two cores with the rest of the suite).
TIME_SCALE = lenient_time_scale(GAME)
BOT = f"{ADAPTER} {GAME} --time-scale {TIME_SCALE}"


async def until(condition, what: str, bot: BotProcess | None = None) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, (what, None if bot is None else list(bot.stderr))
        await asyncio.sleep(0.05)


def sessions(folder: Path) -> int:
    """The sessions of the one daemon in `folder` (0 where none answers)."""
    found = [entry.figures for entry in shared.status(folder) if entry.figures is not None]
    assert len(found) <= 1, found
    return found[0].sessions if found else 0


async def play(bot: BotProcess, records: list[dict], between=None) -> list[str]:
    """Feed `records` (one seat's turns) to the started `bot`; each answer must be one
    of the turn's legal moves, in time. `between(turn)` runs after each answer."""
    fmt = turn_format(GAME)
    for index, record in enumerate(records):
        line = await ask_turn(bot, fmt, record["input_lines"], index == 0, TIME_SCALE)
        token = fmt.parse_output(line, record.get("legal_referee_order", record["legal"]))
        assert token in record["legal"], (index + 1, line, list(bot.stderr))
        if between is not None:
            await between(index + 1)
    return list(bot.stderr)


def test_two_bots_started_at_once_share_one_daemon(runtime: Path) -> None:
    async def match() -> None:
        bots = [BotProcess(f"{BOT} --stats") for _ in range(2)]
        await asyncio.gather(*(bot.start() for bot in bots))
        try:
            await until(lambda: sessions(runtime) == 2, "the two bots are not sessions of one daemon")
            await until(lambda: shared.status(runtime)[0].figures.games == (GAME,), "the game did not load")
            await asyncio.gather(*(play(bot, seats(GAME)[0, seat][:3]) for seat, bot in enumerate(bots)))
        finally:
            await asyncio.gather(*(bot.close() for bot in bots))
        for bot in bots:
            check_turn_reports(bot, turn_format(GAME), 3, TIME_SCALE)
            assert not [line for line in bot.stderr if "fallback" in line], list(bot.stderr)
        await until(lambda: sessions(runtime) == 0, "the bots' sessions did not end with them")
    run(match())
    (daemon,) = shared.status(runtime)
    assert daemon.current and daemon.figures.games == (GAME,)


#: The most turns of a game a bot may play one ply deep where the daemon cannot be used.
MOST_ONE_PLY_TURNS = 2
#: The turns played in each such game: the engine of its own is up within the first.
TURNS = 6


def one_ply_turns(log: list[str]) -> list[str]:
    """The fallback turns of a bot's `log` played from less than a two-ply search."""
    shallow = re.compile(r"\(no search iteration finished|\(searched 1 ply deep in the adapter\)")
    return [line for line in log if "fallback:" in line and shallow.search(line)]


def test_a_daemon_killed_mid_game_leaves_the_game_to_an_engine_of_its_own_at_once(runtime: Path) -> None:
    """The game goes on with an engine of its own, started at once, not with a new
    daemon that would first have to come up and load the game."""
    killed: list[int] = []

    async def game() -> list[str]:
        bot = BotProcess(f"{BOT} --stats")
        await bot.start()

        async def between(turn: int) -> None:
            if turn == 2:
                (daemon,) = shared.status(runtime)
                killed.append(daemon.figures.pid)
                os.kill(daemon.figures.pid, signal.SIGKILL)

        try:
            await until(lambda: sessions(runtime) == 1, "the bot opened no session")
            return await play(bot, seats(GAME)[0, 0][:TURNS], between)
        finally:
            await bot.close()
    log = run(game())
    assert any("the shared engine daemon is gone; starting an engine of its own" in line for line in log), log
    assert len(one_ply_turns(log)) <= MOST_ONE_PLY_TURNS, log
    assert shared.status(runtime) == [] or all(entry.pid != killed[0] for entry in shared.status(runtime))


#: The ways tried by default, one of each path through the bot: an answer that is no
#: engine's, no answer in time, a stuck start, a game the daemon cannot load. The others
#: run with --runslow (the stand-in engines' tests run every way).
SAMPLED = ("garbage", "silent", "lock-stopped", "full")


@pytest.mark.parametrize("way", [way if way in SAMPLED else pytest.param(way, marks=pytest.mark.slow)
                                 for way in WAYS])
def test_a_daemon_that_cannot_be_used_costs_at_most_two_one_ply_turns(runtime: Path, way: str) -> None:
    """Whatever takes the daemon's place or keeps it from serving (tools.hostile),
    the bot says why and plays on with an engine of its own, no more than
    MOST_ONE_PLY_TURNS turns one ply deep, every answer legal and in time."""
    if way == "foreign" and os.getuid() != 0:
        pytest.skip("a listener of another user needs root to make")

    async def game() -> list[str]:
        bot = BotProcess(f"{BOT} --stats")
        await bot.start()
        try:
            return await play(bot, seats(GAME)[0, 0][:TURNS])
        finally:
            await bot.close()
    with broken(way, engine_command()):
        log = run(game())
    (said,) = [line for line in log if "the shared engine daemon cannot be used" in line]
    assert "starting an engine of its own" in said, log
    assert len(one_ply_turns(log)) <= MOST_ONE_PLY_TURNS, log


def test_a_full_daemon_is_said_and_the_bot_starts_its_own_engine(runtime: Path) -> None:
    place = shared.Place.of()
    full = subprocess.Popen([*engine_command(), "--socket", str(place.socket), "--max-sessions", "1"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def game() -> list[str]:
        await until(lambda: shared.answers(place.socket), "the daemon did not listen")
        while True:  # its one session, once the probes' sessions are over
            try:
                holder = await Engine.shared()
                break
            except EngineError:
                await asyncio.sleep(0.05)
        bot = BotProcess(f"{BOT} --stats")
        await bot.start()
        try:
            await until(lambda: any("starting an engine of its own" in line for line in bot.stderr),
                        "the bot did not say that the daemon is full", bot)
            await asyncio.sleep(3.0)  # its own engine starts
            return await play(bot, seats(GAME)[0, 0][:3])
        finally:
            await bot.close()
            await holder.close()
    try:
        log = run(game())
    finally:
        full.terminate()
        full.wait(WAIT_S)
    (said,) = [line for line in log if "cannot be used" in line]
    assert "it is full (error busy" in said, said
    assert not [line for line in log if "fallback" in line], log


def test_a_runtime_folder_open_to_others_is_refused_and_the_bot_plays_on(runtime: Path) -> None:
    runtime.chmod(0o755)

    async def game() -> list[str]:
        bot = BotProcess(f"{BOT} --stats")
        await bot.start()
        try:
            await until(lambda: any("starting an engine of its own" in line for line in bot.stderr),
                        "the bot did not say why it starts its own engine", bot)
            await asyncio.sleep(3.0)
            return await play(bot, seats(GAME)[0, 0][:3])
        finally:
            await bot.close()
    log = run(game())
    assert any("must be this user's alone" in line for line in log), log
    assert list(runtime.iterdir()) == []


def test_private_starts_no_daemon(runtime: Path) -> None:
    async def game() -> list[str]:
        bot = BotProcess(f"{BOT} --private --stats")
        await bot.start()
        try:
            return await play(bot, seats(GAME)[0, 0][:3])
        finally:
            await bot.close()
    run(game())
    assert list(runtime.iterdir()) == []
