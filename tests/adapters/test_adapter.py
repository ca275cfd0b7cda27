"""The `engine-cg` process fed recorded CodinGame turns: a legal move within CodinGame's
limit every turn, with its own engine, with a TCP daemon, and when the engine fails.

Each recorded game is replayed from one player's seat: that player's input lines, in
order, each answered before the next is sent. The answers are held to the turn's real
limit as tests/adapters/deadlines.py does: by the adapter's own deadline logic, and on
the wall clock give or take a loaded machine. The positions follow the record, not the
adapter's moves, so the adapter's pondering misses almost every turn: the
stop-and-search path runs all along. The ponderhit path, and the movetimes the adapter
gives its engine, are checked with a predictable stand-in engine
(tests/adapters/fake_engine.py).
"""

from __future__ import annotations

import asyncio
import collections
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.codingame import formats, turn_format
from adapters.arena.process import BotProcess
from adapters.bot.timing import FIRST_TURN_MARGIN_MS, budget, turn_margin_ms
from protocol.commands import Position
from protocol.parse import parse_line
from tests.adapters.deadlines import ask_turn, check_turn_reports
from tests.conftest import LOAD_SLACK, VECTORS, TcpEngine, load_vectors, run

ADAPTER = f"{sys.executable} -m adapters.bot.main"
FAKE_ENGINE = f"{sys.executable} -m tests.adapters.fake_engine"
#: The games with referee vectors (Abalone has none: tests/adapters/test_abalone.py).
VECTOR_GAMES = tuple(game for game in formats() if (VECTORS / f"{game}.jsonl").exists())
#: The first of them for each number of players.
GAME_PER_PLAYER_COUNT = tuple({turn_format(game).PLAYERS: game for game in reversed(VECTOR_GAMES)}.values())


def seats(game: str) -> dict[tuple[int, int], list[dict]]:
    """Every input_lines record of a vector file by (game index, player), in order."""
    players = turn_format(game).GAME.player_names
    grouped: dict[tuple[int, int], list[dict]] = collections.defaultdict(list)
    for record in load_vectors(game):
        if "input_lines" in record:
            grouped[record["game_index"], players.index(record["to_move"])].append(record)
    return grouped


async def stand_in_started(log: Path, timeout: float = 60.0) -> None:
    """Until the stand-in engine writing `log` has read `uci`, which it answers at once:
    the tests that watch what the adapter does with its engine's answers begin the game
    then, so that a slow start on a loaded machine (a fallback while there is no engine
    yet, tested in tests/adapters/test_engine_turns.py) costs them no turn."""
    deadline = time.monotonic() + timeout
    while not (log.exists() and "uci" in log.read_text().splitlines()):
        assert time.monotonic() < deadline, f"the stand-in engine has not read uci in {timeout} s"
        await asyncio.sleep(0.02)


async def feed(game: str, command: str, records: list[dict], engine_log: Path | None = None) -> BotProcess:
    """Send each record's input to a fresh adapter (`command`, run with `--stats`);
    every answer must be a legal move the referee accepts, in time. Returns the finished
    process (for its stderr). With `engine_log`, the game begins once the stand-in engine
    writing it has started (see stand_in_started)."""
    fmt = turn_format(game)
    bot = BotProcess(f"{command} --stats")
    await bot.start()
    try:
        if engine_log is not None:
            await stand_in_started(engine_log)
        for index, record in enumerate(records):
            line = await ask_turn(bot, fmt, record["input_lines"], index == 0)
            # The referee's own order of the moves where the record keeps it.
            token = fmt.parse_output(line, record.get("legal_referee_order", record["legal"]))
            assert token is not None and token in record["legal"], (
                f"{game} game {record['game_index']} turn {index + 1}: {line!r}")
    finally:
        await bot.close()
    check_turn_reports(bot, fmt, len(records))
    return bot


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_the_adapter_answers_recorded_turns_in_time(game: str) -> None:
    """The first recorded game, each seat, the first turns: the default, quick run."""
    for (index, _), records in sorted(seats(game).items()):
        if index == 0:
            run(feed(game, f"{ADAPTER} {game}", records[:8]))


@pytest.mark.slow
@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_the_adapter_answers_every_recorded_turn_in_time(game: str) -> None:
    for _, records in sorted(seats(game).items()):
        run(feed(game, f"{ADAPTER} {game}", records))


@pytest.mark.parametrize("game", GAME_PER_PLAYER_COUNT)
def test_the_adapter_plays_through_a_tcp_daemon(game: str, tcp_engine: TcpEngine) -> None:
    for (index, _), records in sorted(seats(game).items()):
        if index == 0:
            run(feed(game, f"{ADAPTER} {game} --connect 127.0.0.1:{tcp_engine.port}", records[:8]))


def first_records(game: str, count: int) -> list[dict]:
    return seats(game)[0, 0][:count]


@pytest.mark.parametrize(("engine", "why"), [
    ("sleep 100", "no engine"),
    (f"{FAKE_ENGINE} silent", "no engine"),
    (f"{FAKE_ENGINE} illegal", "not in the referee's list"),
])
def test_an_engine_that_fails_still_gets_legal_moves_in_time(engine: str, why: str, tmp_path: Path) -> None:
    # The stand-in begins the game once it has started: else, on a loaded machine, every
    # turn may pass before it is up, and "no engine" is all there is to see.
    log = tmp_path / "engine.log" if engine.startswith(FAKE_ENGINE) else None
    command = f"{ADAPTER} loa --engine '{engine} {log}'" if log else f"{ADAPTER} loa --engine '{engine}'"
    bot = run(feed("loa", command, first_records("loa", 4), engine_log=log))
    assert any(why in line for line in bot.stderr), bot.stderr
    assert any("fallback" in line for line in bot.stderr)


def test_an_engine_that_exits_is_noticed_and_replaced(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    bot = run(feed("othello", f"{ADAPTER} othello --engine '{FAKE_ENGINE} crash {log}'", first_records("othello", 6),
                   engine_log=log))
    assert any("the engine is gone" in line for line in bot.stderr), bot.stderr


def test_an_unreachable_daemon_means_fallback_moves() -> None:
    bot = run(feed("clobber", f"{ADAPTER} clobber --connect 127.0.0.1:1", first_records("clobber", 3)))
    assert any("cannot start the engine" in line for line in bot.stderr), bot.stderr


def test_ponderhit_when_the_opponent_plays_the_expected_reply(tmp_path: Path) -> None:
    """With an engine that always expects the first reply in string order, an opponent
    that plays it gets `ponderhit`; one that does not gets `stop` and a new search. Every
    movetime the adapter gives the engine ends its margin before CodinGame's limit."""
    fmt = turn_format("clobber")
    game = fmt.GAME
    log = tmp_path / "engine.log"

    async def scenario() -> list[str]:
        bot = BotProcess(f"{ADAPTER} clobber --stats --engine '{FAKE_ENGINE} predictable {log}'")
        await bot.start()
        state = game.initial_state({})
        history: list[tuple[int, str]] = []
        try:
            await stand_in_started(log)
            for turn in range(4):
                lines = fmt.format_turn(state, 0, turn == 0, history)
                line = await ask_turn(bot, fmt, lines, turn == 0)
                state = state.play(game.parse_move(state, line))
                history.append((0, line))
                # Turns 0 and 1: the expected reply; then another one.
                replies = sorted(game.format_move(state, move) for move in state.legal_moves())
                reply = replies[0] if turn < 2 else replies[-1]
                state = state.play(game.parse_move(state, reply))
                history.append((1, reply))
        finally:
            await bot.close()
        return [report["source"] for report in check_turn_reports(bot, fmt, 4)]

    sources = run(scenario())
    assert sources == ["engine", "ponderhit", "ponderhit", "engine"]
    commands = log.read_text().splitlines()
    heads = [("go ponder" if "ponder" in line else "go") if line.startswith("go") else line
             for line in commands if line.startswith(("go", "stop", "ponderhit"))]
    assert heads == ["go", "go ponder", "ponderhit", "go ponder", "ponderhit", "go ponder",
                     "stop", "go", "go ponder", "stop"]
    ponder_movetime = fmt.TURN_MS - turn_margin_ms(fmt.TURN_MS)
    assert all(line == f"go ponder movetime {ponder_movetime}" for line in commands if line.startswith("go ponder"))
    first_turn, *later = [int(line.split()[2]) for line in commands if line.startswith("go movetime ")]
    assert 0 < first_turn <= fmt.FIRST_TURN_MS - FIRST_TURN_MARGIN_MS
    assert later and all(0 < movetime <= fmt.TURN_MS - turn_margin_ms(fmt.TURN_MS) for movetime in later)


def test_options_reach_the_engine_before_the_game_and_refusals_are_reported(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    bot = run(feed("clobber", f"{ADAPTER} clobber --option Hash=8 --engine '{FAKE_ENGINE} predictable {log}'",
                   first_records("clobber", 2), engine_log=log))
    commands = log.read_text().splitlines()
    assert commands[:4] == ["setoption name Ponder value true", "setoption name Hash value 8",
                            "setgame clobber", "uci"], commands
    assert not any("fallback" in line for line in bot.stderr), bot.stderr

    bot = run(feed("clobber", f"{ADAPTER} clobber --option NoSuchOption=1", first_records("clobber", 8)))
    refused = [line for line in bot.stderr if "refused a start-up command" in line]
    assert refused and "NoSuchOption" in refused[0], bot.stderr
    # The real engine may still be starting on the first turns, fed back to back (it
    # takes 0.8 s or more to answer `uci`, and its first search loads the compiled code);
    # the refused option costs no turn of its own.
    starting = ("fallback: no engine;", "fallback: no bestmove ")
    assert not any("fallback:" in line and not any(why in line for why in starting) for line in bot.stderr), (
        bot.stderr)


def test_a_game_sets_its_own_options_first_and_the_user_may_change_them(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    run(feed("isolation", f"{ADAPTER} isolation --option MultiPlayerSearch=paranoid "
                          f"--engine '{FAKE_ENGINE} predictable {log}'", first_records("isolation", 2),
               engine_log=log))
    commands = log.read_text().splitlines()
    assert commands[:5] == ["setoption name Ponder value true", "setoption name MultiPlayerSearch value model",
                            "setoption name MultiPlayerSearch value paranoid", "setgame isolation", "uci"], commands


@pytest.mark.parametrize("game", formats())
def test_a_time_scale_stretches_every_deadline_of_a_turn(game: str) -> None:
    fmt = turn_format(game)
    for first_turn in (True, False):
        real, scaled = budget(fmt, first_turn, 10.0), budget(fmt, first_turn, 10.0, 3.0)
        assert scaled.limit_ms == 3 * real.limit_ms
        assert real.hard_deadline < scaled.hard_deadline < 10.0 + scaled.limit_ms / 1000
        assert real.engine_deadline < scaled.engine_deadline < scaled.hard_deadline
        assert real.ponder_movetime < scaled.ponder_movetime < 3 * fmt.TURN_MS


def test_a_time_scale_that_is_not_positive_is_refused() -> None:
    result = subprocess.run([*ADAPTER.split(), "clobber", "--time-scale", "0"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "--time-scale wants a positive number" in result.stderr


@pytest.mark.parametrize("option", ["Hash", "=8", "Hash="])
def test_a_malformed_option_is_refused_on_the_command_line(option: str) -> None:
    done = subprocess.run([sys.executable, "-m", "adapters.bot.main", "clobber", "--option", option],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "NAME=VALUE" in done.stderr


#: A process that watches its first input from its start and says, 1 s later, how long
#: after its start it dates that input (`main.FirstInput`).
WATCH = ("import time; from adapters.bot.main import FirstInput, process_started;"
         " watch = FirstInput(process_started()); time.sleep(1.0); print(watch.arrived() - watch.started)")


@pytest.mark.parametrize("delay", [None, 0.5])
def test_the_first_input_is_dated_when_it_arrived(delay: float | None) -> None:
    """Input written before the process starts counts from its start; input written
    0.5 s later (a seat whose first turn comes after the others') from then, not from
    the process start, however long the process then takes to read it."""
    process = subprocess.Popen([sys.executable, "-c", WATCH], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    if delay is None:
        process.stdin.write("8\n")
        process.stdin.flush()
    else:
        time.sleep(delay)
        process.stdin.write("8\n")
        process.stdin.flush()
    output, _ = process.communicate(timeout=30)
    dated = float(output)
    if delay is None:
        assert dated < 0.3  # the interpreter's start, at most
    else:
        assert delay - 0.1 <= dated <= delay + LOAD_SLACK


def test_the_line_of_the_game_reaches_the_engine(tmp_path: Path) -> None:
    """Knight Isolation's bot sends the game's moves since its first turn (its own and
    the rivals', found from the boards), so every `position` its engine gets is the
    first board and the moves that lead to the referee's board of the turn."""
    fmt = turn_format("isolation")
    game = fmt.GAME
    log = tmp_path / "engine.log"

    async def scenario() -> list[str]:
        bot = BotProcess(f"{ADAPTER} isolation --engine '{FAKE_ENGINE} predictable {log}'")
        await bot.start()
        state = game.initial_state({"seed": "8"})
        history: list[tuple[int, str]] = []
        boards = []
        try:
            await stand_in_started(log)
            for turn in range(4):
                boards.append(game.format_board(state))
                lines = fmt.format_turn(state, 0, turn == 0, history)
                line = await ask_turn(bot, fmt, lines, turn == 0)
                state = state.play(game.parse_move(state, line))
                history.append((0, line))
                for player in (1, 2):
                    if state.to_move != player or state.outcome() is not None:
                        continue
                    reply = fmt.referee_moves(state, history)[-1]
                    state = state.play(game.parse_move(state, reply))
                    history.append((player, reply))
                if state.outcome() is not None or state.to_move != 0:
                    break
        finally:
            await bot.close()
        return boards

    boards = run(scenario())
    commands = log.read_text().splitlines()
    positions = [line for line in commands if line.startswith("position")]
    assert all(line.startswith(f"position board {boards[0]}") for line in positions), positions
    # Each turn's search (not a ponder: the rivals never play the reply it expects;
    # none where the bot has only one move) is of the referee's board of that turn.
    searched = [commands[index - 1] for index, line in enumerate(commands)
                if line.startswith("go movetime")]
    reached = []
    for line in searched:
        command = parse_line(line)
        assert isinstance(command, Position)
        state = game.parse_board(command.board)
        for token in command.moves:
            state = state.play(game.parse_move(state, token))
        reached.append(game.format_board(state))
    assert len(reached) >= 2 and reached == [board for board in boards if board in reached], (reached, boards)
