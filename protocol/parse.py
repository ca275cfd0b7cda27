"""Parsing of command lines into command values.

`parse_line` is pure: it either returns a command (or None for an empty line) or raises
ProtocolError naming the first token and quoting the offending one.
"""

from __future__ import annotations

import re

import attrs

from games.text import NotAnInteger, OutOfRange, parse_integer, quote
from protocol import commands as c
from protocol.convert import converter
from protocol.errors import Code, ProtocolError

#: Lines longer than this (in bytes, without the line end) are refused.
MAX_LINE_BYTES = 64 * 1024
#: The largest integer a limit or depth may take.
MAX_INT = 2**31 - 1

_SEPARATORS = re.compile(r"[ \t]+")

_NO_ARGUMENTS = {
    "uci": c.Uci,
    "isready": c.IsReady,
    "games": c.Games,
    "daemon": c.DaemonStatus,
    "newgame": c.NewGame,
    "ucinewgame": c.NewGame,
    "moves": c.ListMoves,
    "d": c.Display,
    "eval": c.Eval,
    "stop": c.Stop,
    "ponderhit": c.PonderHit,
    "quit": c.Quit,
}

_GO_INTEGERS = frozenset(
    field.name for field in attrs.fields(c.Go) if field.name not in ("infinite", "ponder", "searchmoves")
)
_GO_FLAGS = frozenset(("infinite", "ponder"))


def split_tokens(line: str) -> list[str]:
    """The tokens of a line: runs of spaces or tabs separate them."""
    return [token for token in _SEPARATORS.split(line) if token]


def parse_line(line: str) -> c.Command | None:
    """The command of one line (without its line end), or None for a blank line.

    Raises ProtocolError for an unknown command, bad syntax or an impossible value.
    """
    tokens = split_tokens(line)
    if not tokens:
        return None
    name, arguments = tokens[0], tokens[1:]
    simple = _NO_ARGUMENTS.get(name)
    if simple is not None:
        if arguments:
            raise ProtocolError(Code.SYNTAX, name, f"{name} takes no argument, got {quote(arguments[0])}")
        return simple()
    parser = _PARSERS.get(name)
    if parser is None:
        raise ProtocolError(Code.UNKNOWN_COMMAND, name, f"unknown command {quote(name)}")
    return parser(name, arguments, line)


def _parse_int(command: str, token: str | None, what: str, minimum: int = 0) -> int:
    if token is None:
        raise ProtocolError(Code.SYNTAX, command, f"{what} needs a value")
    try:
        return parse_integer(token, minimum, MAX_INT)
    except NotAnInteger:
        raise ProtocolError(Code.BAD_VALUE, command, f"{what} must be an integer, got {quote(token)}") from None
    except OutOfRange:
        raise ProtocolError(Code.BAD_VALUE, command, f"{what} out of range: {quote(token)}") from None


def _parse_setgame(name: str, arguments: list[str], line: str) -> c.SetGame:
    if not arguments:
        raise ProtocolError(Code.SYNTAX, name, "setgame needs a game name")
    params = []
    for token in arguments[1:]:
        key, sep, value = token.partition("=")
        if not sep or not key or not value:
            raise ProtocolError(Code.SYNTAX, name, f"expected key=value, got {quote(token)}")
        params.append((key, value))
    return c.SetGame(arguments[0], tuple(params))


def _parse_position(name: str, arguments: list[str], line: str) -> c.Position:
    if not arguments or arguments[0] not in ("startpos", "board"):
        got = quote(arguments[0]) if arguments else "nothing"
        raise ProtocolError(Code.SYNTAX, name, f"expected startpos or board, got {got}")
    rest = arguments[1:]
    if "moves" in rest:
        split = rest.index("moves")
        board, moves = rest[:split], rest[split + 1:]
    else:
        board, moves = rest, []
    if arguments[0] == "startpos":
        if board:
            raise ProtocolError(Code.SYNTAX, name, f"expected moves after startpos, got {quote(board[0])}")
    elif not board:
        raise ProtocolError(Code.SYNTAX, name, "a board text must follow 'board'")
    return c.Position(tuple(board), tuple(moves))


def _parse_perft(name: str, arguments: list[str], line: str) -> c.Perft:
    if len(arguments) > 1:
        raise ProtocolError(Code.SYNTAX, name, f"unexpected {quote(arguments[1])}")
    return c.Perft(_parse_int(name, arguments[0] if arguments else None, "depth", 1))


def _parse_go(name: str, arguments: list[str], line: str) -> c.Go:
    fields: dict[str, object] = {}
    tokens = iter(arguments)
    for token in tokens:
        if token in fields:
            raise ProtocolError(Code.SYNTAX, name, f"repeated limit {quote(token)}")
        if token == "searchmoves":
            moves = list(tokens)
            if not moves:
                raise ProtocolError(Code.SYNTAX, name, "searchmoves needs at least one move")
            fields[token] = tuple(moves)
        elif token in _GO_FLAGS:
            fields[token] = True
        elif token in _GO_INTEGERS:
            minimum = 1 if token in ("depth", "movestogo", "mate") else 0
            fields[token] = _parse_int(name, next(tokens, None), token, minimum)
        else:
            raise ProtocolError(Code.SYNTAX, name, f"unknown limit {quote(token)}")
    return converter.structure(fields, c.Go)


def _rest_after(line: str, count: int) -> str:
    """The raw text after the first `count` tokens, so a value keeps its inner spaces."""
    pattern = r"[ \t]*" + r"[^ \t]+[ \t]+" * count
    match = re.match(pattern, line)
    return line[match.end():].rstrip(" \t") if match else ""


def _parse_setoption(name: str, arguments: list[str], line: str) -> c.SetOption:
    if not arguments or arguments[0] != "name" or len(arguments) < 2:
        raise ProtocolError(Code.SYNTAX, name, "expected setoption name <name> [value <value>]")
    if "value" in arguments[2:]:
        split = arguments.index("value", 2)
        option = " ".join(arguments[1:split])
        value = _rest_after(line, split + 2)
        if not value:
            raise ProtocolError(Code.SYNTAX, name, f"option {quote(option)} needs a value after 'value'")
        return c.SetOption(option, value)
    return c.SetOption(" ".join(arguments[1:]), None)


def _parse_hash(name: str, arguments: list[str], line: str) -> c.Command:
    action = arguments[0] if arguments else None
    if action == "clear":
        if len(arguments) > 1:
            raise ProtocolError(Code.SYNTAX, name, f"unexpected {quote(arguments[1])}")
        return c.HashClear()
    if action in ("save", "load"):
        if len(arguments) < 2:
            raise ProtocolError(Code.SYNTAX, name, f"{action} needs a file name")
        path = _rest_after(line, 2)
        return c.HashSave(path) if action == "save" else c.HashLoad(path)
    got = quote(action) if action else "nothing"
    raise ProtocolError(Code.SYNTAX, name, f"expected save, load or clear, got {got}")


def _parse_eof(name: str, arguments: list[str], line: str) -> c.EndOfInput:
    if len(arguments) != 1 or arguments[0] not in ("finish", "abandon"):
        got = quote(arguments[0]) if arguments else "nothing"
        raise ProtocolError(Code.SYNTAX, name, f"expected eof finish or eof abandon, got {got}")
    return c.EndOfInput(arguments[0] == "finish")


_PARSERS = {
    "setgame": _parse_setgame,
    "position": _parse_position,
    "perft": _parse_perft,
    "go": _parse_go,
    "setoption": _parse_setoption,
    "hash": _parse_hash,
    "eof": _parse_eof,
}
