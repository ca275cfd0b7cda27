"""Parsing of command lines and formatting of error lines."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import commands as c
from protocol.errors import Code, ProtocolError
from protocol.options import find_option as find_in, session_options
from protocol.parse import parse_line


OPTIONS = session_options(("paranoid", "brs", "maxn"), ("compiled", "python"))


def find_option(name: str):
    return find_in(OPTIONS, name)


@pytest.mark.parametrize("line, command", [
    ("uci", c.Uci()),
    ("  isready \t", c.IsReady()),
    ("ucinewgame", c.NewGame()),
    ("setgame isolation seed=3", c.SetGame("isolation", (("seed", "3"),))),
    ("position startpos", c.Position()),
    ("position startpos moves", c.Position()),
    ("position startpos moves a2a3 b1b2", c.Position((), ("a2a3", "b1b2"))),
    ("position board a/b w ply=3 moves e2e3", c.Position(("a/b", "w", "ply=3"), ("e2e3",))),
    ("go", c.Go()),
    ("go movetime 100 depth 3 nodes 0", c.Go(movetime=100, depth=3, nodes=0)),
    ("go ponder wtime 1000 btime 900 winc 10 binc 0 movestogo 5",
     c.Go(ponder=True, wtime=1000, btime=900, winc=10, binc=0, movestogo=5)),
    ("go infinite p1time 1 p2time 2 p3time 3 p1inc 4 p2inc 5 p3inc 6",
     c.Go(infinite=True, p1time=1, p2time=2, p3time=3, p1inc=4, p2inc=5, p3inc=6)),
    ("setoption name Hash value 64", c.SetOption("Hash", "64")),
    ("setoption name Ponder", c.SetOption("Ponder", None)),
    ("setoption name HashFile value /tmp/my  file", c.SetOption("HashFile", "/tmp/my  file")),
    ("hash save /tmp/a b", c.HashSave("/tmp/a b")),
    ("hash load x", c.HashLoad("x")),
    ("hash clear", c.HashClear()),
    ("perft 4", c.Perft(4)),
    ("", None),
    (" \t ", None),
])
def test_commands(line: str, command) -> None:
    assert parse_line(line) == command


@pytest.mark.parametrize("line, code, reply", [
    ("foo bar", Code.UNKNOWN_COMMAND, "error unknown-command foo unknown command 'foo'"),
    ("ISREADY", Code.UNKNOWN_COMMAND, "error unknown-command ISREADY unknown command 'ISREADY'"),
    ("isready now", Code.SYNTAX, "error syntax isready isready takes no argument, got 'now'"),
    ("go depth", Code.SYNTAX, "error syntax go depth needs a value"),
    ("go depth x", Code.BAD_VALUE, "error bad-value go depth must be an integer, got 'x'"),
    ("go depth 0", Code.BAD_VALUE, "error bad-value go depth out of range: '0'"),
    ("go movetime -5", Code.BAD_VALUE, "error bad-value go movetime out of range: '-5'"),
    ("go movetime 99999999999", Code.BAD_VALUE, "error bad-value go movetime out of range: '99999999999'"),
    ("go depth 3 depth 4", Code.SYNTAX, "error syntax go repeated limit 'depth'"),
    ("go fast", Code.SYNTAX, "error syntax go unknown limit 'fast'"),
    ("position", Code.SYNTAX, "error syntax position expected startpos or board, got nothing"),
    ("position fen x", Code.SYNTAX, "error syntax position expected startpos or board, got 'fen'"),
    ("position startpos e2e3", Code.SYNTAX, "error syntax position expected moves after startpos, got 'e2e3'"),
    ("position board", Code.SYNTAX, "error syntax position a board text must follow 'board'"),
    ("setgame", Code.SYNTAX, "error syntax setgame setgame needs a game name"),
    ("setgame clobber size", Code.SYNTAX, "error syntax setgame expected key=value, got 'size'"),
    ("setoption Hash 3", Code.SYNTAX, "error syntax setoption expected setoption name <name> [value <value>]"),
    ("hash", Code.SYNTAX, "error syntax hash expected save, load or clear, got nothing"),
    ("hash save", Code.SYNTAX, "error syntax hash save needs a file name"),
    ("perft", Code.SYNTAX, "error syntax perft depth needs a value"),
    ("x\x01y", Code.UNKNOWN_COMMAND, "error unknown-command x\\x01y unknown command 'x\\x01y'"),
    ("a" * 40, Code.UNKNOWN_COMMAND, f"error unknown-command {'a' * 32} unknown command '{'a' * 40}'"),
])
def test_errors(line: str, code: Code, reply: str) -> None:
    with pytest.raises(ProtocolError) as error:
        parse_line(line)
    assert error.value.code == code
    assert error.value.line() == reply


def test_options_check_their_values() -> None:
    assert find_option("hash").parse("64") == 64
    assert find_option("PONDER").parse("true") is True
    assert find_option("HashFile").parse("<empty>") == ""
    for name, value in (("Hash", "0"), ("Hash", "x"), ("Ponder", "yes"), ("MoveOverhead", "-1")):
        with pytest.raises(ProtocolError) as error:
            find_option(name).parse(value)
        assert error.value.code == Code.BAD_VALUE
    with pytest.raises(ProtocolError) as error:
        find_option("Threads").parse("2")
    assert error.value.line() == "error bad-value setoption Threads must be in 1..1, got '2'"
    with pytest.raises(ProtocolError) as error:
        find_option("Cores")
    assert error.value.line() == "error bad-value setoption unknown option 'Cores'"


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=80))
def test_any_line_parses_or_fails_with_one_error_line(line: str) -> None:
    try:
        parse_line(line)
    except ProtocolError as error:
        reply = error.line()
        assert "\n" not in reply and reply.startswith("error ")
        assert len(reply.split(" ")[2]) <= 32 * 4


def test_searchmoves_takes_the_rest_of_a_go_line() -> None:
    assert parse_line("go depth 3 searchmoves e2e3 a2a3") == c.Go(depth=3, searchmoves=("e2e3", "a2a3"))
    assert parse_line("go searchmoves depth") == c.Go(searchmoves=("depth",))
    with pytest.raises(ProtocolError) as error:
        parse_line("go movetime 10 searchmoves")
    assert error.value.line() == "error syntax go searchmoves needs at least one move"


def test_go_mate_takes_a_move_count() -> None:
    assert parse_line("go mate 3") == c.Go(mate=3)
    with pytest.raises(ProtocolError) as error:
        parse_line("go mate 0")
    assert error.value.code == Code.BAD_VALUE


_AT_LEAST_ONE = ("depth", "movestogo", "mate")


@st.composite
def go_commands(draw) -> c.Go:
    values = {}
    for field in attrs.fields(c.Go):
        if field.name == "searchmoves":
            values[field.name] = tuple(draw(st.lists(st.from_regex(r"[a-h][1-8][a-h]?[1-8]?", fullmatch=True),
                                                     max_size=4)))
        elif field.name in ("infinite", "ponder"):
            values[field.name] = draw(st.booleans())
        else:
            low = 1 if field.name in _AT_LEAST_ONE else 0
            values[field.name] = draw(st.none() | st.integers(low, 2**31 - 1))
    return c.Go(**values)


@settings(max_examples=300)
@given(go_commands())
def test_a_go_command_writes_the_line_it_reads_back_from(command: c.Go) -> None:
    assert parse_line(command.line()) == command
