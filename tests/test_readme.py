"""The examples of the README and of docs/ (client.md, remote.md, codingame.md) run as
written (their engine command, host and port aside)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, StdioEngine, engine_command, run


def example_env(tmp_path: Path) -> dict[str, str]:
    """A bare environment, but for the test run's folders of shared daemons (which end
    with the run)."""
    return {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg",
            "ENGINE_HASH_DIR": str(tmp_path), "HOME": str(tmp_path),
            **{name: os.environ[name] for name in ("ENGINE_RUNTIME_DIR", "XDG_STATE_HOME")}}


def test_the_readme_analysis_example_writes_its_json_and_plot(tmp_path: Path) -> None:
    """The example writes into `analysis-out/` of the directory it runs in (the project
    root, as the README says), which git ignores there, so the checkout stays clean."""
    readme = (ROOT / "README.md").read_text()
    code = readme.split("<!-- example: analyse -->\n```python\n", 1)[1].split("```", 1)[0]
    assert '["scripts/engine"]' in code
    code = code.replace('["scripts/engine"]', repr(engine_command()))
    script = tmp_path / "example.py"
    script.write_text(code)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=example_env(tmp_path))
    assert result.returncode == 0, result.stderr
    files = (path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    written = sorted(path for path in files if not path.parts[0].startswith("."))  # HOME's caches aside
    assert written == [Path("analysis-out/analysis.json"), Path("analysis-out/analysis.png"), Path("example.py")]
    plies = json.loads((tmp_path / "analysis-out" / "analysis.json").read_text())
    assert [ply["ply"] for ply in plies] == list(range(1, 11)) and all(ply["best"] for ply in plies)
    assert (tmp_path / "analysis-out" / "analysis.png").read_bytes()[:4] == b"\x89PNG"
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: whether git ignores the example's output was not checked")
    for path in written[:2]:
        ignored = subprocess.run([git, "check-ignore", "--quiet", "--no-index", str(path)], cwd=ROOT)
        assert ignored.returncode == 0, f"git does not ignore {path}, which the README example writes"


def client_examples() -> list[str]:
    import textwrap

    text = (ROOT / "docs" / "client.md").read_text()
    blocks = []
    for part in text.split("```python\n")[1:]:
        block = part.split("```", 1)[0]
        blocks.append(textwrap.dedent(block))
    return blocks


@pytest.mark.parametrize("index", range(len(client_examples())))
def test_the_client_page_examples_run(index: int, tmp_path: Path) -> None:
    code = client_examples()[index]
    assert '["engine"]' in code
    script = tmp_path / "example.py"
    script.write_text(code.replace('["engine"]', repr(engine_command())))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=example_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


@pytest.mark.parametrize("shared", [False, True], ids=["own", "shared"])
def test_the_readme_stdio_example_piped_at_once_searches(shared: bool, tmp_path: Path) -> None:
    """The README's first example, piped in one write as the README shows it (to a
    depth), to an engine of its own and to the shared daemon (`engine --shared`): a
    searched move, after the compiled code has loaded."""
    readme = (ROOT / "README.md").read_text()
    command = readme.split("`printf '", 1)[1].split("' |", 1)[0]
    assert command == r"setgame clobber\nposition startpos moves e2e3\nisready\ngo depth 5\n"
    result = subprocess.run(engine_command(*(["--shared"] if shared else [])), input=command.replace(r"\n", "\n"),
                            capture_output=True,
                            text=True, timeout=120, env={**example_env(tmp_path), "PATH": "/usr/bin:/bin"})
    lines = result.stdout.splitlines()
    assert lines[0] == "readyok" and lines[-1].startswith("bestmove "), lines
    assert not any("no search iteration" in line for line in lines)
    assert any(line.startswith("info depth 5 ") for line in lines), lines


def line_shape(line: str) -> tuple[str, ...]:
    """What a reply line keeps wherever it runs, whatever the evaluation: its words, each
    number as `N`, each move (a word of letters and digits, as `g1g2`) as the form of its
    characters (`a1a1`); the moves of a `pv`, however many, as the set of their forms."""
    def form(word: str) -> str:
        if re.fullmatch(r"-?[0-9]+", word):
            return "N"
        if any(char.isdigit() for char in word):
            return re.sub("[0-9]", "1", re.sub("[a-z]", "a", word))
        return word

    words = line.split()
    if "pv" in words:
        cut = words.index("pv") + 1
        return (*map(form, words[:cut]), *sorted(set(map(form, words[cut:]))))
    return tuple(map(form, words))


def run_shapes(lines: list[str]) -> list[tuple[str, ...]]:
    """The shapes of `lines`, a run of lines of one shape as one (how many `info` lines a
    search writes depends on the machine)."""
    shapes: list[tuple[str, ...]] = []
    for shape in map(line_shape, lines):
        if not shapes or shapes[-1] != shape:
            shapes.append(shape)
    return shapes


def test_line_shapes_keep_fields_and_move_forms_not_numbers() -> None:
    shown = "info depth 4 seldepth 4 score cp -30 nodes 46391 nps 5798875 time 8 hashfull 9 pv e1d1 b1b2 g1g2 f1f2"
    now = "info depth 5 seldepth 6 score cp 29 nodes 698688 nps 9840676 time 71 hashfull 36 pv e1d1 b1b2"
    assert line_shape(shown) == line_shape(now)
    assert line_shape(shown) != line_shape(now.replace(" seldepth 6", ""))
    assert line_shape(shown) != line_shape(now.replace("score cp", "score mate"))
    assert line_shape(shown) != line_shape(now.replace("b1b2", "b1-b2"))
    assert line_shape("bestmove e1d1 ponder b1b2") != line_shape("bestmove e1d1")


def test_the_readme_stdio_session_replies_as_shown() -> None:
    """The README's first example, sent line by line as a client would (each reply
    awaited): the engine's replies have the shapes of those shown, and `quit` ends it."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Example: stdio", 1)[1].split("```\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0] == "$ scripts/engine" and all(line[:2] in ("> ", "< ") for line in block[1:]), block
    exchange: list[tuple[str, list[str]]] = []  # each line sent, with the replies shown to it
    for line in block[1:]:
        if line.startswith("> "):
            exchange.append((line[2:], []))
        else:
            exchange[-1][1].append(line[2:])

    async def scenario() -> None:
        async with StdioEngine() as engine:
            for sent, shown in exchange:
                await engine.send(sent)
                if not shown:
                    continue
                last = line_shape(shown[-1])
                replies = [await engine.read_line(60)]
                while line_shape(replies[-1]) != last and not replies[-1].startswith("error "):
                    replies.append(await engine.read_line(60))
                assert run_shapes(replies) == run_shapes(shown), (sent, replies)
            assert exchange[-1][0] == "quit"
            assert await asyncio.wait_for(engine.process.wait(), 30) == 0

    run(scenario())


def test_the_readme_tcp_example_prints_the_search(tmp_path: Path) -> None:
    from tests.conftest import TcpEngine

    readme = (ROOT / "README.md").read_text()
    code = readme.split("## Example: TCP", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert "9123" in code
    daemon = TcpEngine()
    try:
        script = tmp_path / "example.py"
        script.write_text(code.replace("9123", str(daemon.port)))
        result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                                timeout=120, env=example_env(tmp_path))
    finally:
        daemon.stop()
    assert result.returncode == 0, result.stderr
    shown = readme.split("## Example: TCP", 1)[1].split("It prints:\n\n```\n", 1)[1].split("```", 1)[0]
    lines, shown_lines = result.stdout.splitlines(), shown.splitlines()
    assert shown_lines[0].startswith("info string ")
    # The first line shown comes only while the compiled core loads.
    if lines[0] != shown_lines[0]:
        shown_lines = shown_lines[1:]
    assert run_shapes(lines) == run_shapes(shown_lines), lines
    searched = [line for line in lines if line.startswith("info depth")]
    assert [line.split()[2] for line in searched] == ["1", "2", "3"], lines


def doc_python_blocks(name: str) -> list[str]:
    text = (ROOT / "docs" / name).read_text()
    return [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]


def test_the_remote_page_client_example_connects_with_the_token(tmp_path: Path) -> None:
    """docs/remote.md's client, against a daemon with the token file the page makes
    (host and port substituted)."""
    from tests.conftest import TcpEngine

    (code,) = doc_python_blocks("remote.md")
    token = tmp_path / ".engine-token"
    token.write_text("a-token-of-the-example-run-0123456789\n")
    token.chmod(0o600)
    daemon = TcpEngine("--token", str(token))
    try:
        script = tmp_path / "example.py"
        script.write_text(code.replace('"engine.example.org", 9123', f'"127.0.0.1", {daemon.port}'))
        result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                                timeout=120, env=example_env(tmp_path))
    finally:
        daemon.stop()
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"[a-h][1-8]", result.stdout.strip()), result.stdout


def test_the_codingame_page_bot_plays_a_game_in_the_arena(tmp_path: Path) -> None:
    (code,) = doc_python_blocks("codingame.md")
    bot = tmp_path / "mybot.py"
    bot.write_text(code)
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "adapters.arena.main", "othello",
                             "--bot", f"mine={sys.executable} {bot}", "--bot", "random", "--games", "2",
                             "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=300,
                            env={**example_env(tmp_path), "PATH": os.environ["PATH"]})
    assert result.returncode == 0, result.stderr
    records = [json.loads(path.read_text()) for path in sorted(out.glob("game-*.json"))]
    assert len(records) == 2
    assert all(record["reason"] != "timeout" and "invalid" not in record["reason"] for record in records), \
        [record["reason"] for record in records]
