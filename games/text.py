"""Text helpers that every layer may use: this module imports nothing of the project."""

from __future__ import annotations

import argparse
import re

#: A number as the protocol writes it: ASCII digits, a leading `-` for a negative one.
_INTEGER = re.compile(r"-?[0-9]+")


class NotAnInteger(ValueError):
    """A text that is not a number as the protocol writes it."""


class OutOfRange(ValueError):
    """A number outside the range it may take."""


def quote(text: str) -> str:
    """`text` in single quotes for an error message, control characters as `\\xNN`."""
    return "'" + "".join(
        char if char.isprintable() and char not in "'\\" else f"\\x{ord(char):02x}"
        for char in text
    ) + "'"


def parse_integer(text: str, minimum: int, maximum: int) -> int:
    """The number `text` writes, from `minimum` to `maximum`: the one reading of numbers
    in the protocol's commands, options, parameters and board texts.

    A number is ASCII digits (leading zeros allowed), with a leading `-` only where
    `minimum` is negative: no `+`, no blank, no `_`, no digit of another script (Python's
    `int` takes `+2`, ` 2`, `٢` and `２`). Raises NotAnInteger for text of another form,
    OutOfRange for a number outside the range (`-0` where no negative is allowed
    included), without converting a number of more digits than the range has.
    """
    if not _INTEGER.fullmatch(text):
        raise NotAnInteger(f"not an integer: {quote(text)}")
    negative = text.startswith("-")
    digits = text.lstrip("-").lstrip("0")
    if (negative and minimum >= 0) or len(digits) > len(str(max(abs(minimum), abs(maximum)))):
        raise OutOfRange(f"not in {minimum}..{maximum}: {quote(text)}")
    value = -int(digits or "0") if negative else int(digits or "0")
    if not minimum <= value <= maximum:
        raise OutOfRange(f"not in {minimum}..{maximum}: {quote(text)}")
    return value


def positive(text: str) -> int:
    """`text` as a whole number of at least 1 (`parse_integer`): an argparse type, whose
    error says so."""
    try:
        return parse_integer(text, 1, 2**63 - 1)
    except NotAnInteger:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {quote(text)}") from None
    except OutOfRange:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}") from None
