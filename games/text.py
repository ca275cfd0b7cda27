"""Text helpers that every layer may use: this module imports nothing of the project."""

from __future__ import annotations

import argparse


def quote(text: str) -> str:
    """`text` in single quotes for an error message, control characters as `\\xNN`."""
    return "'" + "".join(
        char if char.isprintable() and char not in "'\\" else f"\\x{ord(char):02x}"
        for char in text
    ) + "'"


def positive(text: str) -> int:
    """`text` as a whole number of at least 1: an argparse type, whose error says so."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
