"""The commands of the protocol as frozen values, one class per command."""

from __future__ import annotations

import attrs


@attrs.frozen
class Uci:
    pass


@attrs.frozen
class IsReady:
    pass


@attrs.frozen
class Games:
    pass


@attrs.frozen
class DaemonStatus:
    """`daemon`: what the serving process runs (see `protocol.format.format_daemon`)."""


@attrs.frozen
class SetGame:
    name: str
    params: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class NewGame:
    pass


@attrs.frozen
class Position:
    """`position startpos|board <board-text> [moves ...]`; `board` is empty for startpos."""

    board: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()


@attrs.frozen
class ListMoves:
    pass


@attrs.frozen
class Display:
    pass


@attrs.frozen
class Perft:
    depth: int


@attrs.frozen
class Eval:
    """`eval`: the static evaluation of the position, and its terms."""


@attrs.frozen
class Go:
    """`go` and its limits, as the client wrote them (player clocks not yet resolved)."""

    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    ponder: bool = False
    p1time: int | None = None
    p2time: int | None = None
    p3time: int | None = None
    p1inc: int | None = None
    p2inc: int | None = None
    p3inc: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    #: `mate <n>`: look for a win in at most n moves of the side to move.
    mate: int | None = None
    #: `searchmoves m1 m2 ...` (last on the line): the only root moves to search.
    searchmoves: tuple[str, ...] = ()

    def line(self) -> str:
        """The `go` line that reads back as this command: its flags and limits in the
        order of the fields, `searchmoves` last."""
        words = ["go"]
        for field in attrs.fields(Go):
            value = getattr(self, field.name)
            if field.name == "searchmoves" or value is None or value is False:
                continue
            words += [field.name] if value is True else [field.name, str(value)]
        if self.searchmoves:
            words += ["searchmoves", *self.searchmoves]
        return " ".join(words)


@attrs.frozen
class Stop:
    pass


@attrs.frozen
class PonderHit:
    pass


@attrs.frozen
class SetOption:
    name: str
    value: str | None = None


@attrs.frozen
class HashSave:
    path: str


@attrs.frozen
class HashLoad:
    path: str


@attrs.frozen
class HashClear:
    pass


@attrs.frozen
class Quit:
    pass


@attrs.frozen
class EndOfInput:
    """`eof finish|abandon`: what the end of the session's input does (`finish`: a
    search with limits or a long job is finished and answered, as on stdio)."""

    finish: bool


Command = (
    Uci | IsReady | Games | DaemonStatus | SetGame | NewGame | Position | ListMoves | Display | Perft | Eval | Go
    | Stop | PonderHit | SetOption | HashSave | HashLoad | HashClear | Quit | EndOfInput
)
