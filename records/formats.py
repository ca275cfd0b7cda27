"""The record formats a game has of its own beside SGF, found in its `games.<name>.records`
module where it has one: `SGF_NUMBER`, SGF's number of the game, `FORMATS`, each
format's reader and writer of lines of moves (GGF and transcripts, say), and `Line`, the
line its readers give and its writers take (headers, start board text, moves)."""

from __future__ import annotations

from types import ModuleType

from games import all_games, game_part
from records.tree import Record, grown


def game_records(game: str) -> ModuleType | None:
    """The `records` module of `game`, None where it has none."""
    return game_part(game, "records")


def sgf_number(game: str) -> int | None:
    """SGF's number (GM) of `game`, None where SGF has none."""
    module = game_records(game)
    return getattr(module, "SGF_NUMBER", None) if module is not None else None


def game_of_sgf_number(number: int) -> str | None:
    """The game SGF's number `number` is, among the engine's; None where it is none."""
    return next((game for game in sorted(all_games()) if sgf_number(game) == number), None)


def formats(game: str) -> dict:
    """The formats of `game`'s own: name -> (read, write, many)."""
    module = game_records(game)
    return dict(getattr(module, "FORMATS", {})) if module is not None else {}


def read_format(game: str, name: str, text: str, where: str) -> list[Record]:
    """The records of `text` in `game`'s format `name`; raises ValueError where it is
    refused, or where the game has no such format."""
    known = formats(game)
    if name not in known:
        raise ValueError(f"{game} has no record format {name!r} (it has: {', '.join(['sgf', *known])})")
    read, _, many = known[name]
    return records_of(game, read(text, where) if many else [read(text, where)])


def records_of(game: str, lines) -> list[Record]:
    """The records of `lines` of `game` (its format module's `Line`s: headers, start
    board text, moves), each followed by the rules."""
    return [grown(game, line.moves, line.start, headers=line.headers) for line in lines]


def write_format(game: str, name: str, records: list[Record]) -> str:
    """`records`' main lines in `game`'s format `name` (one record where it holds one)."""
    known = formats(game)
    if name not in known:
        raise ValueError(f"{game} has no record format {name!r}")
    _, write, many = known[name]
    line = game_records(game).Line  # type: ignore[union-attr]  (a game with formats has a records module)
    lines = [line(dict(record.headers), record.start, record.moves()) for record in records]
    if many:
        return write(lines)
    if len(lines) != 1:
        raise ValueError(f"a {name} holds one game, not {len(lines)}")
    return write(lines[0])

