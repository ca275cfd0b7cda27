"""Lines of Action evaluation (placeholder)."""

from __future__ import annotations


def evaluate(black: int, white: int, to_move: int, ply: int) -> tuple[int, int]:
    return 0, 0
