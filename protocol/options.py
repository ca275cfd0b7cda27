"""The options every session has, in UCI form, and the checking of their values."""

from __future__ import annotations

from typing import Sequence

import attrs

from games.text import NotAnInteger, OutOfRange, parse_integer, quote
from protocol.errors import Code, ProtocolError


@attrs.frozen
class OptionSpec:
    """One option as `uci` announces it.

    Attributes:
        name: the option's name (matched without regard to case).
        kind: the UCI type: `spin`, `check`, `combo` or `string`.
        default: the value before any `setoption`.
        minimum, maximum: the range of a `spin`.
        choices: the values of a `combo`.
    """

    name: str
    kind: str
    default: int | bool | str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def announce(self) -> str:
        """The `option name ...` line of the `uci` reply."""
        if self.kind == "spin":
            return (f"option name {self.name} type spin default {self.default}"
                    f" min {self.minimum} max {self.maximum}")
        if self.kind == "check":
            return f"option name {self.name} type check default {str(self.default).lower()}"
        if self.kind == "combo":
            return (f"option name {self.name} type combo default {self.default} "
                    + " ".join(f"var {choice}" for choice in self.choices))
        return f"option name {self.name} type string default {self.default or '<empty>'}"

    def parse(self, value: str | None) -> int | bool | str:
        """The typed value of `setoption ... value <value>`; raises ProtocolError."""
        if value is None:
            raise ProtocolError(Code.SYNTAX, "setoption", f"option {quote(self.name)} needs a value")
        if self.kind == "spin":
            assert self.minimum is not None and self.maximum is not None
            try:
                return parse_integer(value, self.minimum, self.maximum)
            except NotAnInteger:
                raise ProtocolError(Code.BAD_VALUE, "setoption",
                                    f"{self.name} must be an integer, got {quote(value)}") from None
            except OutOfRange:
                raise ProtocolError(Code.BAD_VALUE, "setoption",
                                    f"{self.name} must be in {self.minimum}..{self.maximum},"
                                    f" got {quote(value)}") from None
        if self.kind == "check":
            if value not in ("true", "false"):
                raise ProtocolError(Code.BAD_VALUE, "setoption",
                                    f"{self.name} must be true or false, got {quote(value)}")
            return value == "true"
        if self.kind == "combo":
            if value not in self.choices:
                raise ProtocolError(Code.BAD_VALUE, "setoption",
                                    f"{self.name} must be one of {', '.join(self.choices)},"
                                    f" got {quote(value)}")
            return value
        return "" if value == "<empty>" else value


#: The `Evaluation` value that picks each game's own default evaluation.
DEFAULT_EVALUATION = "default"
#: How far below the best (centi-units) a book move may score and still be played: the
#: best alone by default (docs/strength.md: at CodinGame's time, the book's best always
#: scored 60% against drawing among the moves within a disc of it).
BOOK_VARIETY = 0


def session_options(multiplayer_searches: Sequence[str], cores: Sequence[str],
                    evaluations: Sequence[str] = (), probcut: int = 0, max_threads: int = 1) -> tuple[OptionSpec, ...]:
    """Every option of a session, in the order `uci` announces them; the engine names
    its multi-player searches and its cores (the first of each is the default; a
    session may announce another default for `Core`), the evaluations its games have
    between them (`Evaluation`, whose default picks each game's own), the default
    confidence of its multi-ProbCut (`ProbCut`, hundredths of a deviation, 0 off), and
    the most threads a search may ask for (`Threads`: the daemon's thread budget)."""
    return (
        OptionSpec("Hash", "spin", 16, 1, 4096),
        OptionSpec("Threads", "spin", 1, 1, max(1, max_threads)),
        OptionSpec("HashFile", "string", ""),
        OptionSpec("Ponder", "check", False),
        OptionSpec("OwnBook", "check", True),
        OptionSpec("BookVariety", "spin", BOOK_VARIETY, 0, 10000),
        OptionSpec("MoveOverhead", "spin", 10, 0, 5000),
        OptionSpec("MultiPlayerSearch", "combo", multiplayer_searches[0], choices=tuple(multiplayer_searches)),
        OptionSpec("Core", "combo", cores[0], choices=tuple(cores)),
        OptionSpec("MultiPV", "spin", 1, 1, 256),
        OptionSpec("ShowWDL", "check", False),
        OptionSpec("ShowSteady", "check", False),
        OptionSpec("Evaluation", "combo", DEFAULT_EVALUATION, choices=(DEFAULT_EVALUATION, *evaluations)),
        OptionSpec("ProbCut", "spin", probcut, 0, 1000),
    )


def _option(name: str):
    return attrs.field(metadata={"option": name})


@attrs.frozen
class EngineOptions:
    """The values of a session's options (`session_options`), one typed field each, the
    option's name in its metadata. A `setoption` makes a new value (`set`)."""

    hash: int = _option("Hash")
    threads: int = _option("Threads")
    hash_file: str = _option("HashFile")
    ponder: bool = _option("Ponder")
    own_book: bool = _option("OwnBook")
    book_variety: int = _option("BookVariety")
    move_overhead: int = _option("MoveOverhead")
    multi_player_search: str = _option("MultiPlayerSearch")
    core: str = _option("Core")
    multi_pv: int = _option("MultiPV")
    show_wdl: bool = _option("ShowWDL")
    show_steady: bool = _option("ShowSteady")
    evaluation: str = _option("Evaluation")
    probcut: int = _option("ProbCut")

    @classmethod
    def defaults(cls, specs: Sequence[OptionSpec]) -> EngineOptions:
        """The options before any `setoption`: each of `specs`' default."""
        return cls(**{_FIELDS[spec.name]: spec.default for spec in specs})

    def set(self, name: str, value: int | bool | str) -> EngineOptions:
        """These options with the option `name` (as it names itself) `value`."""
        return attrs.evolve(self, **{_FIELDS[name]: value})


#: The field of `EngineOptions` of each option, by the option's name.
_FIELDS = {field.metadata["option"]: field.name for field in attrs.fields(EngineOptions)}


def find_option(options: Sequence[OptionSpec], name: str) -> OptionSpec:
    """The option of `options` called `name` (any case); raises ProtocolError(bad-value)."""
    for spec in options:
        if spec.name.lower() == name.lower():
            return spec
    raise ProtocolError(Code.BAD_VALUE, "setoption", f"unknown option {quote(name)}")
