"""The engine's view of a move as the GUI and the replay pages show it (`engine_view`), and
a position's expected points from its win chances (`expected_points`), by which the
analysis judges moves and the pages show them."""

from __future__ import annotations

from typing import Sequence


def expected_points(wdl: Sequence[int] | None) -> float | None:
    """Win + draw / 2 of `[win, draw, loss]` per mille (in a three-player game: first,
    second and last place), between 0 and 1; None without win chances."""
    return None if wdl is None else (wdl[0] + wdl[1] / 2) / 1000


def engine_view(ply: dict) -> dict:
    """The engine's view of a move, as the pages show it, from the move's analysis (an
    `engine-analyse` ply): the best move and top lines in the position before it, the
    move's score, its expected points (None without win chances), the expected points it
    gave up (`lost`), its loss in centi-units, its mark and its player."""
    return {"best": ply["best"], "top": [[line["move"], line["score"]] for line in ply["top"]],
            "played": ply["played"], "score": ply["played_score"], "loss": ply["loss"],
            "lost": ply.get("points_lost"), "mark": ply["mark"], "player": ply["player"],
            "points": _round(expected_points(ply.get("played_wdl")))}


def _round(points: float | None) -> float | None:
    return None if points is None else round(points, 3)
