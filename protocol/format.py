"""Formatting of replies: every line the engine writes but errors (`ProtocolError.line`)
and the options `uci` announces (`protocol.options`): `info` lines from search reports,
`bestmove`, `perft`, and the replies of the other commands."""

from __future__ import annotations

from typing import Callable, Iterable, Protocol, Sequence

import attrs


class Report(Protocol):
    """What an `info` line tells of a search (the daemon's search reports)."""

    depth: int
    seldepth: int
    score: int
    nodes: int
    elapsed_ms: int
    hashfull: int
    pv: tuple[int, ...]
    margin: int | None

    @property
    def mate_in(self) -> int | None: ...


def format_info(report: Report, format_pv: Callable[[tuple[int, ...]], list[str]],
                multipv: int | None = None, wdl: tuple[int, int, int] | None = None,
                steady: int | None = None) -> str:
    """The `info` line of a report; `format_pv` turns its moves into tokens. With
    `multipv`, the line says which of the MultiPV lines it is; with `wdl`, the side to
    move's win, draw and loss per mille; with `steady`, the line's score steadied over
    this iteration and the one before (`daemon.session.SteadyScores`); a report with a
    proved exact margin (the solver's) carries it as `margin`."""
    nps = report.nodes * 1000 // report.elapsed_ms if report.elapsed_ms else report.nodes * 1000
    mate = report.mate_in
    score = f"mate {mate}" if mate is not None else f"cp {report.score}"
    rank = f" multipv {multipv}" if multipv is not None else ""
    chances = f" wdl {wdl[0]} {wdl[1]} {wdl[2]}" if wdl is not None else ""
    steadied = f" steady {steady}" if steady is not None else ""
    exact = f" margin {report.margin}" if report.margin is not None else ""
    line = (
        f"info depth {report.depth} seldepth {report.seldepth}{rank} score {score}{chances}{steadied}{exact}"
        f" nodes {report.nodes} nps {nps} time {report.elapsed_ms} hashfull {report.hashfull}"
    )
    if report.pv:
        line += " pv " + " ".join(format_pv(report.pv))
    return line


def format_margin(report: Report) -> str | None:
    """`info string solved ...` when the report carries a proven exact margin."""
    if report.margin is None:
        return None
    return f"info string solved exactly: final margin {report.margin:+d} for the side to move"


def format_bestmove(move: str | None, ponder: str | None = None) -> str:
    """`bestmove <m> [ponder <m2>]`, or `bestmove (none)`."""
    if move is None:
        return "bestmove (none)"
    return f"bestmove {move} ponder {ponder}" if ponder else f"bestmove {move}"


def format_perft(depth: int, nodes: int, elapsed_ms: int) -> str:
    nps = nodes * 1000 // max(elapsed_ms, 1)
    return f"perft {depth} nodes {nodes} time {elapsed_ms} nps {nps}"


def format_id(name: str, author: str) -> list[str]:
    """`uci`'s `id` lines (its options and `uciok` follow)."""
    return [f"id name {name}", f"id author {author}"]


UCIOK = "uciok"
READYOK = "readyok"
#: What a `go` says while the compiled searches load: a search with a deadline waits for
#: them for most of its time, then runs on the Python core; one without waits for them.
LOADING_NOW = ("info string compiled core still loading: the search waits for it for most of its time,"
               " and searches on the Python core until it is ready after that")
LOADING_WAIT = "info string compiled core still loading: the search starts when it is ready"


def format_games(names: Iterable[str]) -> str:
    """`games <name> ...`: the games `setgame` takes."""
    return " ".join(["games", *names])


@attrs.frozen
class DaemonFigures:
    """What `daemon` tells of the serving process: its pid and seconds up, its sessions
    (connections; stdio counts as one) and how many search now, the searches and perfts
    running and the most it runs at once (`--max-searches`), its search threads' budget
    (`--threads`), its resident memory in MiB, and the games whose compiled code it has
    loaded."""

    pid: int
    uptime: int
    sessions: int
    searching: int
    searches: int
    max_searches: int
    threads: int
    memory: int
    games: tuple[str, ...]

    def line(self) -> str:
        """`daemon pid <n> uptime <s> sessions <n> searching <n> searches <n> max-searches
        <n> threads <n> memory <MiB> games [<name> ...]`: the fields in this order, the
        loaded games last."""
        words = ["daemon"]
        for field in attrs.fields(DaemonFigures):
            value = getattr(self, field.name)
            words += [field.name.replace("_", "-"), *(value if isinstance(value, tuple) else [str(value)])]
        return " ".join(words)

    @classmethod
    def parse(cls, line: str) -> "DaemonFigures":
        """The figures of a `daemon` reply line; ValueError when it is not one."""
        words = line.split()
        if words[:1] != ["daemon"] or "games" not in words:
            raise ValueError(f"not a daemon line: {line!r}")
        games = words.index("games")
        pairs = dict(zip(words[1:games:2], words[2:games:2]))
        try:
            numbers = {field.name: int(pairs[field.name.replace("_", "-")])
                       for field in attrs.fields(DaemonFigures) if field.name != "games"}
        except (KeyError, ValueError):
            raise ValueError(f"not a daemon line: {line!r}") from None
        return cls(**numbers, games=tuple(words[games + 1:]))


def format_moves(tokens: Iterable[str]) -> str:
    """`moves <m> ...`: the legal moves, as given (sorted by the caller)."""
    return " ".join(["moves", *tokens])


def format_eval(total: int, terms: Iterable[tuple[str, Sequence[int]]]) -> list[str]:
    """`eval total <value>`, then `eval term <name> <value per player>` for each term."""
    return [f"eval total {total}", *(" ".join(["eval term", name, *map(str, values)]) for name, values in terms)]


def format_display(picture: Iterable[str], board_text: str, result: tuple[str, str] | None) -> list[str]:
    """`d`: the picture's `board` lines, `board-text`, and `result <winner> <reason>`
    once the game is over."""
    lines = [f"board {line}" for line in picture] + [f"board-text {board_text}"]
    if result is not None:
        lines.append(f"result {result[0]} {result[1]}")
    return lines


def format_hash_saved(count: int, name: str, elapsed_ms: int) -> str:
    return f"info string hash saved {count} entries to {name} in {elapsed_ms} ms"


def format_hash_loaded(count: int, name: str, elapsed_ms: int) -> str:
    return f"info string hash loaded {count} entries from {name} in {elapsed_ms} ms"


def format_hash_cleared(count: int, elapsed_ms: int) -> str:
    return f"info string hash cleared {count} entries in {elapsed_ms} ms"


def format_book(text: str, score: int, depth: int) -> str:
    """The line that says a move comes from the opening book."""
    return f"info string book {text} score {score} depth {depth}"


def format_threads(asked: int, granted: int, reason: str) -> str:
    """The line that says a search runs fewer threads than its `Threads` option asks."""
    return f"info string Threads {asked} asked, searching with {granted}: {reason}"


def format_unsearched(move: str) -> str:
    """The line that says a move comes from no completed search iteration."""
    return f"info string no search iteration finished in time, playing {move}"
