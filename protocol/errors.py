"""Protocol error codes and the error every failing command maps to."""

from __future__ import annotations

import enum

from games.text import quote

#: The `<command>` field of an error line is cut to this many characters.
COMMAND_FIELD_LIMIT = 32


class Code(str, enum.Enum):
    UNKNOWN_COMMAND = "unknown-command"
    SYNTAX = "syntax"
    BAD_VALUE = "bad-value"
    NO_GAME = "no-game"
    BAD_POSITION = "bad-position"
    ILLEGAL_MOVE = "illegal-move"
    BUSY = "busy"
    UNSUPPORTED = "unsupported"
    IO = "io"
    INTERNAL = "internal"
    #: A long job (perft, hash save or load) ended by `stop`, `quit` or a disconnect.
    STOPPED = "stopped"
    #: A TCP connection whose first line is not `auth <token>` with the daemon's token.
    UNAUTHORIZED = "unauthorized"
    #: The daemon ends (`engine daemon stop`, SIGTERM, its idle time) and closes the session.
    ENDING = "ending"


#: How the message of a refusal for want of memory begins (`error busy setgame no room
#: for a 16 MiB table: ...`): the daemon's tables' budget is full (--max-hash-mib).
NO_ROOM = "no room for"


def no_room_for_game(line: str) -> bool:
    """Whether `line` is a daemon's refusal of `setgame` for want of room for the game's
    tables: a session that cannot load its game, which a tool takes as a daemon it
    cannot use."""
    return line.startswith(f"error {Code.BUSY.value} setgame {NO_ROOM} ")


class ProtocolError(Exception):
    """A command that fails: one `error <code> <command> <message>` line, no change.

    Attributes:
        code: the error code.
        command: the first token of the offending line ("" for none).
        message: what is wrong, quoting the offending token.
    """

    def __init__(self, code: Code, command: str, message: str):
        super().__init__(message)
        self.code = code
        self.command = command
        self.message = message

    def line(self) -> str:
        """The reply line."""
        command = quote(self.command[:COMMAND_FIELD_LIMIT])[1:-1] or "-"
        return f"error {self.code.value} {command} {self.message}"
