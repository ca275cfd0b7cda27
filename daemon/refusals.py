"""What a session's engine refuses, in its own words.

The engine (`daemon.engine`) and its tables (`daemon.tables`) raise these for a request
they refuse, changing nothing; the session (`daemon.session`) answers each with the
protocol's error line, naming the command that made the request. A game's own refusals
(a bad board text, an illegal move) are `games.base.GameError`s, a hash file's
`search.tt.HashFileError`s.
"""

from __future__ import annotations


class Refusal(Exception):
    """A request the engine refuses; the message says why."""


class NoGame(Refusal):
    """The request needs a game, and none is selected."""


class Busy(Refusal):
    """A search of the session runs, or a bound of the daemon (search slots, table
    memory, the hash directory's disk) has no room for the request."""


class Stopped(Refusal):
    """A long job was ended by `stop`, `quit` or a disconnect before it was done."""


class Unsupported(Refusal):
    """The game has no such search."""


class BadValue(Refusal):
    """A value the engine cannot take (an option it cannot set, a size that could never
    fit)."""
