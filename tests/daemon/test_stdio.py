"""The real `engine` process over its stdin and stdout, command by command."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from games import all_games, find_game
from games.text import quote
from protocol.client import EngineError
from tests.conftest import LOAD_SLACK, StdioEngine, engine_command, move_tokens, run

CLOBBER = find_game("clobber")
START = CLOBBER.format_board(CLOBBER.initial_state({}))
#: White to move wins at once by a8b8: a proven position for ponder tests.
PROVEN = "wb....../......../......../......../......../......../......../.......b w"
OVER = "w......./......../......../......../......../......../......../.......b w"


def legal_tokens(board: str) -> set[str]:
    return move_tokens(CLOBBER.parse_board(board.split()))


def test_uci_handshake_and_games() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            lines = await engine.ask("uci", "uciok")
            assert lines[0].startswith("id name ") and lines[1].startswith("id author ")
            options = [line for line in lines if line.startswith("option name ")]
            assert [line.split()[2] for line in options] == ["Hash", "Threads", "HashFile", "Ponder", "OwnBook", "BookVariety", "MoveOverhead", "MultiPlayerSearch", "Core", "MultiPV", "ShowWDL", "ShowSteady", "Evaluation", "ProbCut"]
            assert "option name Hash type spin default 16 min 1 max 4096" in options
            assert (await engine.ask("games", "games")) == ["games " + " ".join(all_games())]
            assert await engine.ready() == []
    run(scenario())


def test_commands_before_setgame_say_no_game() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            for command in ("position startpos", "moves", "d", "go depth 1", "perft 1", "newgame",
                            "hash save x.hash"):
                reply = await engine.ask(command, "error")
                assert reply == [reply[0]] and reply[0].startswith(f"error no-game {command.split()[0]} ")
            assert await engine.ready() == []
    run(scenario())


def test_positions_moves_display_and_perft() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            (moves,) = await engine.ask("moves", "moves")
            tokens = moves.split()[1:]
            assert tokens == sorted(tokens) and len(tokens) == 112
            lines = await engine.ask("d", "board-text")
            assert all(line.startswith("board ") for line in lines[:-1])
            assert lines[-1] == f"board-text {START}"
            (perft,) = await engine.ask("perft 3", "perft")
            assert perft.startswith("perft 3 nodes 1182276 time ")
            await engine.send("position startpos moves a2a3 b1b2")
            with pytest.raises(EngineError) as refused:
                await engine.ready()
            assert (refused.value.code, refused.value.command) == ("illegal-move", "position")
            assert refused.value.message == "move 2: illegal move 'b1b2'"
            assert await engine.ready() == []
            await engine.send("position startpos moves a2a3 a1b1")
            (text,) = [line for line in await engine.ask("d", "board-text") if line.startswith("board-text")]
            board = text.split(" ", 1)[1]
            await engine.send(f"position board {board}")
            assert (await engine.ask("d", "board-text"))[-1] == text
            await engine.send(f"position board {OVER}")
            lines = await engine.ask("d", "result")
            assert lines[-1] == "result b no move"
            assert await engine.ask("moves", "moves") == ["moves"]
            assert (await engine.bestmove("go depth 3")).move is None
            await engine.send("newgame")
            assert (await engine.ask("d", "board-text"))[-1] == f"board-text {START}"
    run(scenario())


def test_perft_deeper_than_its_maximum_is_refused_in_words() -> None:
    """A perft keeps a row of moves per ply: a depth past MAX_DEPTH (the searches' own
    maximum) is a bad value, not a table of a billion rows that fails inside; the
    maximum itself counts, and the session goes on."""
    from search.perft import MAX_DEPTH

    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            await engine.send(f"position board {OVER}")
            for depth in (MAX_DEPTH + 1, 1_000_000_000):
                await engine.send(f"perft {depth}")
                replies = await engine.ready(raise_errors=False)
                assert replies == [f"error bad-value perft depth must be at most {MAX_DEPTH}, got '{depth}'"]
            (perft,) = await engine.ask(f"perft {MAX_DEPTH}", "perft")
            assert perft.startswith(f"perft {MAX_DEPTH} nodes 0 time ")
            await engine.send("position startpos")
            assert (await engine.ask("perft 1", "perft"))[0].startswith("perft 1 nodes 112 ")
    run(scenario())


def test_failed_commands_change_nothing() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            await engine.send("position startpos moves c2c3")
            before = await engine.ask("d", "board-text")
            bad = [
                ("position board wbwb/bwbw w", "error bad-position position "),
                ("position startpos moves c2c3 zz", "error illegal-move position move 2: bad move 'zz'"),
                ("setgame chess", "error bad-value setgame unknown game 'chess'"),
                ("setgame clobber size=10", "error bad-value setgame clobber takes no parameter"),
                ("setoption name Hash value lots", "error bad-value setoption Hash must be an integer"),
                ("setoption name Colour value red", "error bad-value setoption unknown option 'Colour'"),
                ("go wtime x", "error bad-value go wtime must be an integer"),
                ("hash load /nonexistent/file.hash",
                 "error bad-value hash '/nonexistent/file.hash' is not a hash file name"),
                ("hash load ../up.hash", "error bad-value hash '../up.hash' is not a hash file name"),
                ("hash load missing.hash", "error io hash no hash file 'missing.hash'"),
            ]
            for command, prefix in bad:
                replies = await engine.ready()
                assert replies == []
                await engine.send(command)
                replies = await engine.ready(raise_errors=False)
                assert len(replies) == 1 and replies[0].startswith(prefix), (command, replies)
            assert await engine.ask("d", "board-text") == before
    run(scenario())


#: Numbers Python's int() reads that the protocol does not: a sign, digits of other
#: scripts (Arabic-Indic, full-width), blanks that are not the protocol's separators, `_`.
ODD_NUMBERS = ("+2", "\u0662", "\uff12", "\u00a02", "2\u2003", "\x0b2", "1_0")


def test_numbers_are_ascii_digits_with_a_minus_only_where_negatives_are_allowed() -> None:
    """Every number a command carries (option values, go limits, perft depths, setgame
    parameters, board fields) is read one way: ASCII digits, a leading `-` where the
    value may be negative; any other form is a bad value (a bad position in a board
    text), and the usual forms still work."""
    async def refused(engine, command: str) -> str:
        await engine.send(command)
        (reply,) = await engine.ready(raise_errors=False)
        return reply

    async def scenario():
        async with StdioEngine("--threads", "2") as engine:
            await engine.send("setgame clobber")
            for odd in ODD_NUMBERS:
                shown = quote(odd)
                for option in ("Threads", "Hash", "MultiPV"):
                    assert await refused(engine, f"setoption name {option} value {odd}") == \
                        f"error bad-value setoption {option} must be an integer, got {shown}"
                assert await refused(engine, f"go depth {odd}") == f"error bad-value go depth must be an integer, got {shown}"
                assert await refused(engine, f"go movetime {odd}") == \
                    f"error bad-value go movetime must be an integer, got {shown}"
                assert await refused(engine, f"perft {odd}") == f"error bad-value perft depth must be an integer, got {shown}"
                assert await refused(engine, f"setgame isolation seed={odd}") == \
                    f"error bad-value setgame seed must be an integer, got {shown}"
            assert await refused(engine, "setoption name MoveOverhead value -0") == \
                "error bad-value setoption MoveOverhead must be in 0..5000, got '-0'"
            assert await refused(engine, "go movetime -5") == "error bad-value go movetime out of range: '-5'"
            assert await engine.ready() == []
            for command in ("setoption name Threads value 2", "setoption name Hash value 32",
                            "setoption name MultiPV value 002", "setoption name Threads value 1"):
                await engine.send(command)
                assert await engine.ready() == []
            assert (await engine.ask("perft 02", "perft"))[0].startswith("perft 2 nodes 11848 ")
            assert (await engine.bestmove("go depth 2 movetime 60000")).move
            await engine.send("setgame isolation seed=-3")
            assert await engine.ready() == []
            await engine.send("setgame isolation seed=3")
            assert (await engine.ask("d", "board-text"))[-1].startswith("board-text ")
    run(scenario())


def test_go_reports_info_and_a_legal_bestmove() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            answer = await engine.bestmove("go depth 3")
            assert answer.move in legal_tokens(START)
            after = CLOBBER.parse_board(START.split())
            after = after.play(CLOBBER.parse_move(after, answer.move))
            assert answer.ponder in {CLOBBER.format_move(after, m) for m in after.legal_moves()}
            depths = []
            for info in answer.info_lines:
                if info.startswith("info string "):
                    continue
                tokens = info.split()
                fields = {tokens[i]: tokens[i + 1] for i in range(1, len(tokens) - 1)
                          if tokens[i] in ("depth", "seldepth", "nodes", "nps", "time", "hashfull")}
                assert set(fields) == {"depth", "seldepth", "nodes", "nps", "time", "hashfull"}
                assert " score cp " in info or " score mate " in info
                assert " pv " in info
                depths.append(int(fields["depth"]))
            assert depths[:3] == [1, 2, 3]
            await engine.send(f"position board {PROVEN}")
            answer = await engine.bestmove("go depth 5")
            assert answer.move == "a8b8" and " score mate 1 " in answer.info_lines[-1]
            await engine.send("position board ......../......../......../......../......../......../......../wb...... b")
            answer = await engine.bestmove("go depth 5")
            assert answer.move == "b1a1" and " score mate 1 " in answer.info_lines[-1]
    run(scenario())


def test_bad_bytes_and_long_lines_are_errors_and_the_session_goes_on() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send_raw(b"isready \xff\xfe\n")
            assert (await engine.until("error"))[-1].startswith("error syntax isready ")
            await engine.send_raw(b"go " + b"x" * (70 * 1024) + b"\n")
            assert (await engine.until("error"))[-1] == "error syntax go line too long"
            await engine.send_raw(b"setgame clobber\r\n\r\n\n")
            await engine.send_raw(b"\tmoves  \r\n")
            assert len((await engine.until("moves"))[-1].split()) == 113
    run(scenario())


def test_a_file_of_commands_runs_as_a_script(tmp_path) -> None:
    script = tmp_path / "commands.txt"
    script.write_text("setgame clobber\ngo depth 2\nposition startpos moves a2a3\ngo depth 2\n"
                      "go movetime 50\nmoves\n")
    with open(script) as stdin:
        result = subprocess.run(engine_command(), stdin=stdin, capture_output=True, timeout=60)
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0
    assert [line.split()[0] for line in lines if not line.startswith("info")] == [
        "bestmove", "bestmove", "bestmove", "moves"]
    assert not any(line.startswith("error") for line in lines)


def test_end_of_piped_input_finishes_the_search_then_exits() -> None:
    result = subprocess.run(engine_command(), input=b"setgame clobber\ngo depth 3\n",
                            capture_output=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.decode().splitlines()[-1].startswith("bestmove ")


def test_quit_ends_the_process_even_while_searching() -> None:
    process = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    process.stdin.write(b"setgame clobber\ngo infinite\n")
    process.stdin.flush()
    time.sleep(0.2)
    process.stdin.write(b"quit\n")
    process.stdin.flush()
    assert process.wait(5) == 0
    assert not process.stdout.read().decode().count("bestmove")


def test_hash_commands_and_hash_file_option(tmp_path) -> None:
    path = tmp_path / "clobber.hash"
    folder = ("--hash-dir", str(tmp_path))

    async def scenario():
        async with StdioEngine(*folder) as engine:
            await engine.send("setgame clobber")
            await engine.bestmove("go depth 3")
            (saved,) = await engine.ask("hash save clobber.hash", "info string")
            count = int(saved.split()[4])
            assert saved.startswith("info string hash saved ") and count > 100
            (loaded,) = await engine.ask("hash load clobber.hash", "info string")
            assert loaded.startswith(f"info string hash loaded {count} entries")
            (cleared,) = await engine.ask("hash clear", "info string")
            assert cleared.startswith(f"info string hash cleared {count} entries in ")
            cold = await engine.bestmove("go depth 3")
            await engine.ask("hash load clobber.hash", "info string")
            warm = await engine.bestmove("go depth 3")
            nodes = [int(info.split(" nodes ")[1].split()[0]) for info in (cold.info_lines[-1], warm.info_lines[-1])]
            assert nodes[1] < nodes[0], "a loaded table saves work"
            await engine.send("setoption name HashFile value auto.hash")
        assert (tmp_path / "auto.hash").exists(), "quit saves the HashFile"

        async with StdioEngine(*folder) as engine:
            await engine.send("setoption name HashFile value auto.hash")
            assert await engine.ready() == [], "setoption is silent"
            await engine.send("setgame clobber")
            (saved,) = await engine.ask("hash save copy.hash", "info string")
            assert int(saved.split()[4]) > 100, "the HashFile was loaded when set"
            path.write_bytes(path.read_bytes()[:-10])
            replies = await engine.ask("hash load clobber.hash", "error")
            assert replies[-1].startswith("error bad-value hash ") and "truncated" in replies[-1]
            (tmp_path / "other.hash").write_bytes(b"ENGINE-TT\n" + b"\0" * 40)
            replies = await engine.ask("setoption name HashFile value other.hash", "error")
            assert replies[-1].startswith("error bad-value setoption ")
    run(scenario())


def test_sigterm_saves_the_hash_file(tmp_path) -> None:
    path = tmp_path / "term.hash"
    process = subprocess.Popen([*engine_command(), "--hash-dir", str(tmp_path)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write(b"setgame clobber\nsetoption name HashFile value term.hash\ngo depth 4\n")
    process.stdin.flush()
    while not process.stdout.readline().startswith(b"bestmove"):
        pass
    os.kill(process.pid, signal.SIGTERM)
    assert process.wait(10) == 0
    assert path.exists() and path.stat().st_size > 100


def test_othello_go_solves_what_its_clock_allows() -> None:
    """With a deadline, Othello solves exactly where its solve-time model says the proof
    fits the time left: it then reports the exact margin and answers as soon as it is
    proved; far from the end it searches heuristically to the deadline."""
    from tests.search.test_othello_endgame import FIRST, LATER

    near = next(board for number, board, _ in FIRST if number == 1)  # 14 empties, a win
    far = next(board for number, board, _ in LATER if number == 37)  # 22 empties

    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame othello")
            await engine.bestmove("go depth 1")  # a search without deadline waits for the code
            await engine.send(f"position board {near}")
            answer = await engine.bestmove("go movetime 10000")
            solved = next(info for info in answer.info_lines if info.startswith("info string solved exactly: final margin +"))
            margin = int(solved.split("+")[1].split()[0])
            assert " score mate " in answer.info_lines[-2] and f" margin {margin} " in answer.info_lines[-2]
            assert answer.elapsed < 5, "a proved result ends the search, long before its deadline"
            await engine.send(f"position board {far}")
            answer = await engine.bestmove("go movetime 300")
            assert not any("solved exactly" in info or " margin " in info for info in answer.info_lines)
            assert " score cp " in answer.info_lines[-1]
            assert answer.elapsed < 0.3 + LOAD_SLACK
    run(scenario())
