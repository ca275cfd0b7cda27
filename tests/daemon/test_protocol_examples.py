"""The example sessions of docs/protocol.md, replayed against the real engine: every reply
has the form the page shows (scores, node counts, times and the moves a search prefers
may differ, as the page says; every other line is exact)."""

from __future__ import annotations

import asyncio
import re
import subprocess

from protocol.client import Engine
from tests.conftest import ROOT, TcpEngine, engine_command, run

#: Words of an info line whose value varies from run to run.
_VARYING = {"depth", "seldepth", "cp", "mate", "nodes", "nps", "time", "hashfull", "multipv"}


def example_blocks() -> list[list[str]]:
    """The code blocks of the page's "Example sessions" section, as lines."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text.split("## Example sessions", 1)[1]
    return [block.split("```", 1)[0].splitlines() for block in section.split("```\n")[1::2]]


def form(line: str) -> str:
    """What every run of an example shares: an info line's words without their values
    and pv, a bestmove's shape, a perft's count, a shortened line's ends, the Threads
    option without its maximum."""
    tokens = line.split()
    if line.startswith("info ") and not line.startswith("info string"):
        words = []
        for word, value in zip(tokens, tokens[1:] + [""]):
            if word == "pv":
                break
            if word not in _VARYING and not re.fullmatch(r"-?\d+", word):
                words.append(word)
        return " ".join(words + ["pv" if "pv" in tokens else ""])
    if tokens[:1] == ["bestmove"]:
        return "bestmove" + (" ponder" if "ponder" in tokens else "")
    if tokens[:1] == ["perft"]:
        return " ".join(tokens[:4])
    if tokens[:3] == ["option", "name", "Threads"]:
        return " ".join(tokens[:-1])  # its maximum is the daemon's thread budget: the cores
    return line


def same(expected: str, actual: str) -> bool:
    if " ... " in expected:
        head, tail = expected.split(" ... ")
        return actual.startswith(head + " ") and actual.endswith(" " + tail)
    return form(expected) == form(actual)


def is_search_line(line: str) -> bool:
    return line.startswith("info ") and not line.startswith("info string")


async def replay(clients: dict[str, Engine], steps: list[tuple[str, str, list[str]]]) -> None:
    """Send each step's command on its connection and read its replies. Every reply but
    a search's lines must come, in order; search lines come as the search goes, more or
    fewer than shown, each of the form the page shows."""
    shown = next(line for _, _, expected in steps for line in expected if is_search_line(line))

    async def reply(client: Engine, command: str) -> str:
        while True:
            actual = await client.read_line(30)
            if is_search_line(actual):
                assert same(shown, actual), (command, actual)
            elif not actual.startswith("info string"):
                return actual

    for who, command, expected in steps:
        client = clients[who]
        await client.send(command)
        for target in (line for line in expected if not is_search_line(line)):
            actual = await reply(client, command)
            assert same(target, actual), (command, target, actual)
        if command.startswith("go") and not any(line.startswith("bestmove") for line in expected):
            # The page's client waited a moment: the search has a line of two moves.
            while True:
                actual = await client.read_line(30)
                assert actual.startswith("info string") or same(shown, actual), (command, actual)
                if is_search_line(actual) and int(actual.split()[2]) >= 2:
                    break


def steps_of(lines: list[str], marks: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """(connection, command, expected replies) from a block whose lines begin with one
    of `marks` ('>' -> connection, '<' -> its replies)."""
    steps: list[tuple[str, str, list[str]]] = []
    for line in lines:
        mark, _, text = line.partition(" ")
        if mark not in marks:
            continue
        who, sent = marks[mark]
        if sent:
            steps.append((who, text, []))
        else:
            owner = next(step for step in reversed(steps) if step[0] == who)
            owner[2].append(text)
    return steps


def test_the_stdio_example_session() -> None:
    block = next(block for block in example_blocks() if block[0] == "$ engine")
    steps = steps_of(block, {">": ("1", True), "<": ("1", False)})

    async def scenario() -> None:
        client = await Engine.popen(engine_command(), stderr=subprocess.DEVNULL)
        try:
            await replay({"1": client}, steps)
            await client.process.wait()
        finally:
            if client.process.returncode is None:
                client.process.kill()

    run(asyncio.wait_for(scenario(), 120))


def test_the_file_and_pipe_examples(tmp_path) -> None:
    file_block = next(block for block in example_blocks() if block[0] == "$ cat commands.txt")
    end = file_block.index("$ engine < commands.txt")
    commands = tmp_path / "commands.txt"
    commands.write_text("\n".join(file_block[1:end]) + "\n")
    with open(commands) as stdin:
        result = subprocess.run(engine_command(), stdin=stdin, capture_output=True, text=True, timeout=120)
    assert "no search iteration" not in result.stdout  # each go's time counts from its turn
    actual = [line for line in result.stdout.splitlines() if not line.startswith("info string")]
    expected = file_block[end + 1:]
    assert [form(line) for line in actual if not is_search_line(line)] == \
           [form(line) for line in expected if not is_search_line(line)]
    assert all(same(next(line for line in expected if is_search_line(line)), line)
               for line in actual if is_search_line(line))

    pipe_block = next(block for block in example_blocks() if block[0].startswith("$ printf"))
    command = pipe_block[0].split("'")[1].replace("\\n", "\n")
    result = subprocess.run(engine_command(), input=command, capture_output=True, text=True, timeout=120)
    actual = [line for line in result.stdout.splitlines() if not line.startswith("info string")]
    # The busy error comes whenever the pipe's line arrives during the search.
    assert sorted(form(line) for line in actual if not is_search_line(line)) == \
           sorted(form(line) for line in pipe_block[1:] if not is_search_line(line))


def test_the_tcp_example_session() -> None:
    block = next(block for block in example_blocks() if any(line.startswith("1> ") for line in block))
    steps = steps_of(block, {"1>": ("1", True), "1<": ("1", False), "2>": ("2", True), "2<": ("2", False)})
    daemon = TcpEngine()

    async def scenario() -> None:
        clients = {who: await Engine.connect("127.0.0.1", daemon.port) for who in ("1", "2")}
        await replay(clients, steps)

    try:
        run(asyncio.wait_for(scenario(), 120))
    finally:
        daemon.stop()
