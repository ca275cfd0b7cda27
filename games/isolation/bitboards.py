"""Knight jumps over 64-bit boards held in ints."""

from __future__ import annotations

FULL = (1 << 64) - 1
_NOT_A = 0xFEFEFEFEFEFEFEFE
_NOT_AB = 0xFCFCFCFCFCFCFCFC
_NOT_H = 0x7F7F7F7F7F7F7F7F
_NOT_GH = 0x3F3F3F3F3F3F3F3F


def knight_spread(squares: int) -> int:
    """Every square a knight jump away from one of `squares`."""
    return (
        ((squares << 17) & _NOT_A) | ((squares << 15) & _NOT_H)
        | ((squares << 10) & _NOT_AB) | ((squares << 6) & _NOT_GH)
        | ((squares >> 17) & _NOT_H) | ((squares >> 15) & _NOT_A)
        | ((squares >> 10) & _NOT_GH) | ((squares >> 6) & _NOT_AB)
    ) & FULL
