"""Text helpers that every layer may use: this module imports nothing of the project."""

from __future__ import annotations


def quote(text: str) -> str:
    """`text` in single quotes for an error message, control characters as `\\xNN`."""
    return "'" + "".join(
        char if char.isprintable() and char not in "'\\" else f"\\x{ord(char):02x}"
        for char in text
    ) + "'"
