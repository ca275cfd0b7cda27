"""A port of java.util.Random, enough for the referee's start squares."""

from __future__ import annotations

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """java.util.Random(seed): the same 48-bit linear congruential sequence."""

    def __init__(self, seed: int):
        self._seed = (seed ^ _MULTIPLIER) & _MASK

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * _MULTIPLIER + 0xB) & _MASK
        return self._seed >> (48 - bits)

    def next_int(self, bound: int) -> int:
        """A value in [0, bound), as Random.nextInt(bound)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & (bound - 1) == 0:
            return (bound * self._next(31)) >> 31
        while True:
            bits = self._next(31)
            value = bits % bound
            if bits - value + (bound - 1) < 1 << 31:
                return value


def start_squares(seed: int) -> tuple[int, int, int]:
    """The red, green and blue start squares the referee derives from `seed`."""
    rng = JavaRandom(seed)
    squares: list[int] = []
    for _ in range(3):
        while True:
            rank = rng.next_int(8)
            file = rng.next_int(8)
            square = rank * 8 + file
            if 1 <= rank <= 6 and 1 <= file <= 6 and square not in squares:
                break
        squares.append(square)
    return squares[0], squares[1], squares[2]
