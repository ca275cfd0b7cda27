"""`info` lines as typed values: what a client reads of a search.

    info depth 4 seldepth 4 multipv 2 score cp -101 wdl 310 50 640 nodes 294 nps 73500
        time 4 hashfull 0 pv f6 e6 f4 e3

`parse_info` turns such a line into an `Info`; `Info.line` writes it back, field for
field as `protocol.format.format_info` does (a round-trip test keeps the two together).
Scores compare as results do: a proven win beats every centi-unit score, the sooner the
better; a proven loss is below every one, the later the better.
"""

from __future__ import annotations

import functools

import attrs

from protocol.convert import converter


@functools.total_ordering
@attrs.frozen(eq=True)
class Score:
    """A search's score for the side to move: `cp` centi-units, or `mate` moves to a
    proven win (negative: to a proven loss)."""

    cp: int | None = None
    mate: int | None = None

    def __attrs_post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("a score is either cp or mate")

    def _key(self) -> tuple[int, int]:
        if self.mate is None:
            return (1, self.cp or 0)
        return (2, -self.mate) if self.mate > 0 else (0, -self.mate)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._key() < other._key()

    def __str__(self) -> str:
        return f"cp {self.cp}" if self.mate is None else f"mate {self.mate}"


@attrs.frozen
class Wdl:
    """The side to move's chances of a win, a draw and a loss, per mille."""

    win: int
    draw: int
    loss: int


@attrs.frozen
class Info:
    """One `info` line of a search (fields it does not carry are None; `pv` is the
    moves as the game writes them)."""

    depth: int | None = None
    seldepth: int | None = None
    multipv: int | None = None
    score: Score | None = None
    wdl: Wdl | None = None
    #: The score steadied over this iteration and the one before: the mean of the two
    #: iterations' scores of this line's first move, in centi-units (not for a proven
    #: result). A score swings with the parity of the depth; this one much less.
    steady: int | None = None
    #: The exact final margin (a disc difference, say) the solver proved.
    margin: int | None = None
    nodes: int | None = None
    nps: int | None = None
    time: int | None = None
    hashfull: int | None = None
    pv: tuple[str, ...] = ()

    @property
    def move(self) -> str | None:
        """The line's first move."""
        return self.pv[0] if self.pv else None

    def line(self) -> str:
        """The `info` line, fields in the engine's order."""
        words = ["info"]
        for name in ("depth", "seldepth", "multipv"):
            if getattr(self, name) is not None:
                words += [name, str(getattr(self, name))]
        if self.score is not None:
            words += ["score", *str(self.score).split()]
        if self.wdl is not None:
            words += ["wdl", str(self.wdl.win), str(self.wdl.draw), str(self.wdl.loss)]
        if self.steady is not None:
            words += ["steady", str(self.steady)]
        if self.margin is not None:
            words += ["margin", str(self.margin)]
        for name in ("nodes", "nps", "time", "hashfull"):
            if getattr(self, name) is not None:
                words += [name, str(getattr(self, name))]
        if self.pv:
            words += ["pv", *self.pv]
        return " ".join(words)


_INTEGERS = ("depth", "seldepth", "multipv", "steady", "margin", "nodes", "nps", "time", "hashfull")


def parse_info(line: str) -> Info | None:
    """The `Info` of a search's `info` line; None for another line (`info string ...`
    included). Unknown fields are skipped, as UCI asks."""
    words = line.split()
    if len(words) < 2 or words[0] != "info" or words[1] == "string":
        return None
    fields: dict[str, object] = {}
    index = 1
    while index < len(words):
        word = words[index]
        if word in _INTEGERS and index + 1 < len(words):
            fields[word] = words[index + 1]
            index += 2
        elif word == "score" and index + 2 < len(words) and words[index + 1] in ("cp", "mate"):
            fields["score"] = {words[index + 1]: words[index + 2]}
            index += 3
        elif word == "wdl" and index + 3 < len(words):
            fields["wdl"] = dict(zip(("win", "draw", "loss"), words[index + 1:index + 4]))
            index += 4
        elif word == "pv":
            fields["pv"] = words[index + 1:]
            break
        else:
            index += 1
    return converter.structure(fields, Info)


class LineSets:
    """The lines of one search as its scored `Info`s arrive, kept as whole sets.

    Each completed iteration of a MultiPV search writes one set: `multipv 1` to
    `multipv n`, all at one depth (n is the smaller of MultiPV and the root moves
    searched). Lines are compared only within such a set, never with those of another
    depth: `complete` is the last whole set, best first. A set is whole once it has
    `expected` lines, where the caller knows how many a set has; else, and for a set
    that never gets that many, once the next set begins or the search ends (`close`),
    if it has as many lines as the longest set before it (a shorter one is an
    unfinished iteration's). A line without `multipv` is a set of its own (MultiPV 1)."""

    def __init__(self, expected: int | None = None):
        self.expected = expected
        #: The last whole set, best first; empty before the first.
        self.complete: tuple[Info, ...] = ()
        self._longest = 0
        self._building: list[Info] = []

    def add(self, info: Info) -> bool:
        """Take the search's next scored line; whether `complete` changed (a set became
        whole)."""
        rank = info.multipv or 1
        changed = False
        if rank == 1:
            changed = self._close_building()
            self._building = [info]
        elif self._building and rank == len(self._building) + 1 and info.depth == self._building[0].depth:
            self._building.append(info)
        else:  # out of order: not a set's line
            self._building = []
        if self.expected is not None and len(self._building) >= self.expected:
            changed = self._close_building() or changed
        return changed

    def close(self) -> bool:
        """The search has ended; whether `complete` changed (its last set was whole)."""
        return self._close_building()

    def _close_building(self) -> bool:
        building, self._building = self._building, []
        if not building or len(building) < self._longest:
            return False
        self._longest = len(building)
        self.complete = tuple(building)
        return True
