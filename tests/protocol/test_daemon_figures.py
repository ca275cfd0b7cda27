"""The `daemon` command: parsed, its reply line written and read back (a property test),
and answered by a real `engine` on stdio."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import commands as c
from protocol.errors import ProtocolError
from protocol.format import DaemonFigures
from protocol.parse import parse_line
from tests.conftest import engine_command

counts = st.integers(min_value=0, max_value=2**40)
names = st.lists(st.from_regex(r"[a-z]{1,12}", fullmatch=True), max_size=5, unique=True).map(sorted).map(tuple)


def test_daemon_and_eof_parse() -> None:
    """`daemon` takes no argument; `eof` takes finish or abandon."""
    assert parse_line("eof finish") == c.EndOfInput(True) and parse_line("eof abandon") == c.EndOfInput(False)
    for wrong in ("eof", "eof later", "eof finish now"):
        with pytest.raises(ProtocolError, match="expected eof finish or eof abandon"):
            parse_line(wrong)
    assert parse_line("daemon") == c.DaemonStatus()
    with pytest.raises(ProtocolError, match="takes no argument") as refused:
        parse_line("daemon now")
    assert refused.value.line().startswith("error syntax daemon ")


@given(st.builds(DaemonFigures, counts, counts, counts, counts, counts, counts, counts, counts, names))
def test_a_daemon_line_reads_back_as_its_figures(figures: DaemonFigures) -> None:
    assert DaemonFigures.parse(figures.line()) == figures


@pytest.mark.parametrize("line", ["", "daemon", "daemon pid 1 games", "games clobber",
                                  "daemon pid x uptime 1 sessions 1 searching 0 searches 0 max-searches 8"
                                  " threads 2 memory 3 games"])
def test_other_lines_are_not_daemon_figures(line: str) -> None:
    with pytest.raises(ValueError):
        DaemonFigures.parse(line)


def test_an_engine_on_stdio_tells_its_figures() -> None:
    done = subprocess.run(engine_command(), input="setgame clobber\nisready\ndaemon\n",
                          capture_output=True, text=True, timeout=120)
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("daemon ")]
    figures = DaemonFigures.parse(line)
    assert figures.sessions == 1 and figures.searching == 0 and figures.searches == 0
    assert figures.max_searches >= 1 and figures.threads >= 1 and figures.memory > 0 and figures.uptime >= 0
