"""The `Core` option through the real engine: compiled and interpreted kernels answer the
same search with the same nodes, score and line; tables and hash files serve both; the
option and `--core` refuse what they cannot do."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from games import all_games
from tests.conftest import StdioEngine, engine_command, run

pytest.importorskip("numba")


def search_lines(lines: list[str]) -> list[str]:
    """The info lines without their timing fields (time, nps), which vary."""
    kept = []
    for line in lines:
        if line.startswith("info depth"):
            tokens = line.split()
            fields = dict(zip(tokens[1::2], tokens[2::2]))
            kept.append(" ".join(f"{key} {fields[key]}" for key in ("depth", "score", "nodes") if key in fields)
                        + " pv " + line.split(" pv ")[1])
        elif line.startswith("bestmove"):
            kept.append(line)
    return kept


@pytest.mark.parametrize("game", list(all_games()))
def test_both_cores_search_the_same_tree(game: str) -> None:
    async def scenario():
        async with StdioEngine() as engine:
            options = await engine.ask("uci", "uciok")
            assert "option name Core type combo default compiled var compiled var python" in options
            results = {}
            for core in ("compiled", "python"):
                await engine.send(f"setoption name Core value {core}")
                await engine.send(f"setgame {game}")
                await engine.send("hash clear")
                results[core] = search_lines(await engine.ask("go depth 3", "bestmove"))
            assert results["compiled"] == results["python"] and results["python"]
    run(scenario())


def test_tables_and_hash_files_cross_cores(tmp_path) -> None:
    path = "clobber.hash"

    async def scenario():
        async with StdioEngine("--hash-dir", str(tmp_path)) as engine:
            await engine.send("setgame clobber")
            await engine.ask("go depth 4", "bestmove")
            saved = await engine.ask(f"hash save {path}", "info string hash saved")
            count = int(saved[-1].split()[4])
            await engine.send("setoption name Core value python")
            moved = await engine.ask("hash clear", "info string hash cleared")
            assert int(moved[-1].split()[4]) == count
            loaded = await engine.ask(f"hash load {path}", "info string hash loaded")
            assert int(loaded[-1].split()[4]) == count
            await engine.send("setoption name Core value compiled")
            again = await engine.ask(f"hash load {path}", "info string hash loaded")
            assert int(again[-1].split()[4]) == count
            assert (await engine.bestmove("go depth 4")).move
    run(scenario())


def test_bad_core_values_are_refused() -> None:
    async def scenario():
        async with StdioEngine("--core", "python") as engine:
            options = await engine.ask("uci", "uciok")
            assert "option name Core type combo default python var compiled var python" in options
            reply = await engine.ask("setoption name Core value fast", "error")
            assert reply[-1].startswith("error bad-value setoption Core must be one of compiled, python")
            await engine.send("setgame othello")
            assert (await engine.bestmove("go depth 2")).move
    run(scenario())
    failed = subprocess.run([*engine_command(), "--core", "quick"], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=60)
    assert failed.returncode == 2 and "invalid choice: 'quick'" in failed.stderr


def test_without_numba_the_engine_searches_on_python(tmp_path) -> None:
    """An installation where numba cannot be imported: said on stderr, Core defaults to
    python, compiled is refused, searches work."""
    (tmp_path / "numba.py").write_text("raise ImportError('numba is broken here')\n")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ["PYTHONPATH"]]))
    environment.pop("ENGINE_CORE", None)
    commands = "uci\nsetoption name Core value compiled\nsetgame othello\ngo depth 3\n"
    done = subprocess.run([sys.executable, "-m", "daemon.main"], input=commands, capture_output=True,
                          text=True, env=environment, timeout=120)
    assert "numba cannot be imported (numba is broken here); searching with the Python core" in done.stderr
    lines = done.stdout.splitlines()
    assert "option name Core type combo default python var compiled var python" in lines
    assert any(line.startswith("error bad-value setoption Core compiled is not available: numba cannot be"
                               " imported") for line in lines)
    assert lines[-1].startswith("bestmove ")
