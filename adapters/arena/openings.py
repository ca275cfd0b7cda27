"""Openings: the moves played from the start position before the players take over,
so that games between the same players differ.

An openings file holds one opening a line: moves in the engine's notation, separated by
spaces, from the game's start position. Blank lines and everything after a `#` are
ignored; an empty opening (a line of just `-`) starts at the start position.

    # two three-move openings
    f5 d6 c3
    f5 f6 e6
"""

from __future__ import annotations

import random
from pathlib import Path

from games.base import Game, GameError, Position


class OpeningError(ValueError):
    """An openings file that cannot be read, or an opening that is not legal play."""


def play_opening(game: Game, start: Position, moves: tuple[str, ...]) -> Position:
    """The position after `moves` from `start`; OpeningError names the first move that
    is not legal or that ends the game."""
    position = start
    for ply, token in enumerate(moves, 1):
        if position.outcome() is not None:
            raise OpeningError(f"move {ply} ({token}) comes after the end of the game")
        try:
            position = position.play(game.parse_move(position, token))
        except GameError as error:
            raise OpeningError(f"move {ply}: {error}") from None
    if position.outcome() is not None:
        raise OpeningError("the opening ends the game")
    return position


def read_openings(path: Path, game: Game, start: Position) -> list[tuple[str, ...]]:
    """The openings of a file, each checked against the rules from `start`."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise OpeningError(f"{path}: {error}") from None
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        moves = () if tokens == ["-"] else tuple(tokens)
        try:
            play_opening(game, start, moves)
        except OpeningError as error:
            raise OpeningError(f"{path}, line {number}: {error}") from None
        openings.append(moves)
    if not openings:
        raise OpeningError(f"{path}: no opening in the file")
    return openings


def openings_option(path: Path | None, game: Game) -> list[tuple[str, ...]]:
    """The openings of an `--openings` file (none without one); refused for a game that
    varies its start by a seed."""
    if path is None:
        return []
    if game.parameters:
        raise OpeningError(f"{game.name} varies its games by their seed; --openings is for games "
                           "with one start position")
    return read_openings(path, game, game.initial_state({}))


def random_opening(game: Game, start: Position, plies: int, rng: random.Random) -> tuple[str, ...]:
    """`plies` uniformly random legal moves from `start` (fewer if the game would end)."""
    moves: list[str] = []
    position = start
    for _ in range(plies):
        legal = position.legal_moves()
        choices = [move for move in legal if position.play(move).outcome() is None]
        if not choices:
            break
        move = rng.choice(choices)
        moves.append(game.format_move(position, move))
        position = position.play(move)
    return tuple(moves)
