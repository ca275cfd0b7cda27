"""Formatting of replies: `info` lines from search reports, `bestmove`, `perft`."""

from __future__ import annotations

from typing import Callable, Protocol


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
                multipv: int | None = None, wdl: tuple[int, int, int] | None = None) -> str:
    """The `info` line of a report; `format_pv` turns its moves into tokens. With
    `multipv`, the line says which of the MultiPV lines it is; with `wdl`, the side to
    move's win, draw and loss per mille; a report with a proved exact margin (the
    solver's) carries it as `margin`."""
    nps = report.nodes * 1000 // report.elapsed_ms if report.elapsed_ms else report.nodes * 1000
    mate = report.mate_in
    score = f"mate {mate}" if mate is not None else f"cp {report.score}"
    rank = f" multipv {multipv}" if multipv is not None else ""
    chances = f" wdl {wdl[0]} {wdl[1]} {wdl[2]}" if wdl is not None else ""
    exact = f" margin {report.margin}" if report.margin is not None else ""
    line = (
        f"info depth {report.depth} seldepth {report.seldepth}{rank} score {score}{chances}{exact}"
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
