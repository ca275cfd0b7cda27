"""A game record as a tree: headers, moves, variations, comments, glyphs and shapes.

A `Record` is one game of one of the engine's games: its name, its headers (who played,
where, when, the result: free text by name), the `setgame` parameters and the board text
it starts from (None: the game's own start), and the tree of its moves from `root`, the
position before the first move. Each `Node` below the root is a move, written as the
protocol's move token (`f5`, `b1c1`, `3,4,3,4,0`; `leave` where a player of a game of
three left it), with the seat of the player who made it; its `children` are the moves
that follow it, the first the main line, the others variations. Any node carries a
comment, annotation glyphs (`GLYPHS`: `!` `?` `!!` `??` `!?` `?!`, numbered as chess's
NAGs 1 to 6) and shapes drawn on the board (`Shape`: arrows and circles in four colours,
cells named as the GUI names them).

The tree holds text only: `follow` checks it against the game's rules, and `grown`
builds one from a list of move tokens, finding each mover from the rules. Trees are
bounded (`MAX_NODES` moves, `MAX_TEXT` characters of comments and headers), and every
walk here is iterative, so a deep tree costs no recursion.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import attrs

from games import find_game
from games.base import GameError, Position

#: Annotation glyphs by number (chess's NAGs 1-6) and the reverse.
GLYPHS = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!"}
GLYPH_NUMBERS = {text: number for number, text in GLYPHS.items()}
#: The colours of shapes (lichess's four brushes); the first is the default.
COLOURS = ("green", "red", "blue", "yellow")
#: The most moves a record may hold, in all its variations.
MAX_NODES = 100_000
#: The most characters of one comment or one header's value.
MAX_TEXT = 65_536
#: The token of a player who left a game of three (a timeout or a bad move):
#: no move of the rules, but a step of the record (`adapters.analysis.gamefile`).
LEAVE = "leave"


@attrs.frozen
class Shape:
    """An arrow from cells[0] to cells[1], or a circle on cells[0], in `colour`."""

    cells: tuple[str, ...] = attrs.field(converter=tuple)
    colour: str = COLOURS[0]

    def __attrs_post_init__(self) -> None:
        if len(self.cells) not in (1, 2) or not all(_is_cell(cell) for cell in self.cells):
            raise ValueError(f"a shape is one cell (a circle) or two (an arrow), not {self.cells!r}")
        if self.colour not in COLOURS:
            raise ValueError(f"a shape's colour is one of {', '.join(COLOURS)}, not {self.colour!r}")

    @property
    def is_arrow(self) -> bool:
        return len(self.cells) == 2


def _is_cell(cell: object) -> bool:
    return (isinstance(cell, str) and 0 < len(cell) <= 16 and cell.isprintable()
            and not any(c in cell for c in " :[]\\;()"))


@attrs.define(eq=True)
class Node:
    """A move (`move`, the token; `player`, the mover's seat) and what follows it; the
    root of a record has neither."""

    move: str | None = None
    player: int | None = None
    comment: str = ""
    glyphs: list[int] = attrs.Factory(list)
    shapes: list[Shape] = attrs.Factory(list)
    children: list["Node"] = attrs.Factory(list)

    def add(self, move: str, player: int) -> "Node":
        """The child for `move` by `player`: the existing one, else a new last child."""
        for child in self.children:
            if child.move == move:
                return child
        child = Node(move, player)
        self.children.append(child)
        return child

    def main_line(self) -> list["Node"]:
        """The nodes of the main line below this one, first child after first child."""
        line, node = [], self
        while node.children:
            node = node.children[0]
            line.append(node)
        return line

    def walk(self) -> Iterator["Node"]:
        """Every node of the tree from here, depth first, main line before variations."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


@attrs.define(eq=True)
class Record:
    """One game of `game` (a registered name) as a tree of moves from `root`."""

    game: str
    headers: dict[str, str] = attrs.Factory(dict)
    params: dict[str, str] = attrs.Factory(dict)
    start: str | None = None
    root: Node = attrs.Factory(Node)

    def moves(self) -> list[str]:
        """The main line's move tokens."""
        return [node.move for node in self.root.main_line()]

    def size(self) -> int:
        """How many moves the tree holds, variations included."""
        return sum(1 for _ in self.root.walk()) - 1

    def start_position(self) -> Position:
        """The position before the first move; raises ValueError where the parameters or
        the board text are refused."""
        game = find_game(self.game)
        try:
            if self.start is not None:
                return game.parse_board(self.start.split())
            return game.initial_state(dict(self.params))
        except GameError as error:
            raise ValueError(f"the record's start: {error}") from None

    def follow(self, leave: Callable[[Position, int], Position] | None = None) -> None:
        """Check every move of the tree against the rules, and its `player` where set
        (not None or -1) against the seat to move there, then set it so; raises
        ValueError naming the first move refused, by its line from the start. A `LEAVE` (a player leaving a game of three) is no move of
        the rules: the moves after one are followed where `leave(position, player)`
        gives the position that player's leaving makes (the CodinGame turn format's,
        `adapters.codingame`), and refused where it is not given."""
        game = find_game(self.game)
        stack: list[tuple[Node, Position, tuple[str, ...]]] = [(self.root, self.start_position(), ())]
        while stack:
            node, position, line = stack.pop()
            for child in node.children:
                where = line + (child.move or "",)
                place = f"move {len(where)} ({' '.join(where)})"
                if child.player is not None and child.player >= 0 and child.player != position.to_move:
                    raise ValueError(f"{place}: a move of {game.side_names[child.player]}"
                                     f" where {game.side_names[position.to_move]} is to move")
                child.player = position.to_move
                if child.move == LEAVE:
                    if game.num_players <= 2 or position.outcome() is not None:
                        raise ValueError(f"{place}: only a game of more than two players goes on when one leaves")
                    if leave is not None:
                        stack.append((child, leave(position, position.to_move), where))
                    elif child.children:
                        raise ValueError(f"{place}: the moves after a player left need the rule of leaving")
                    continue
                try:
                    after = position.play(game.parse_move(position, child.move or ""))
                except GameError as error:
                    raise ValueError(f"{place}: {error}") from None
                stack.append((child, after, where))


def grown(game: str, moves: Sequence[str], start: str | None = None, params: dict[str, str] | None = None,
          headers: dict[str, str] | None = None,
          leave: Callable[[Position, int], Position] | None = None) -> Record:
    """The record of the single line `moves` of `game`, each mover found by the rules
    (`leave`: as `Record.follow` takes it); raises ValueError where a move is refused."""
    record = Record(game, dict(headers or {}), dict(params or {}), start)
    node = record.root
    for move in moves:
        node = node.add(move, -1)
    record.follow(leave)
    return record


def move_property(game: str, player: int) -> str:
    """The SGF property that holds a move of seat `player` of `game`: B and W for the
    black and white sides, else the side's name in capitals (RED, GREEN, BLUE)."""
    side = find_game(game).side_names[player]
    return {"black": "B", "white": "W"}.get(side, side.upper())


def player_header(game: str, player: int) -> str:
    """The header (SGF property) naming the player of seat `player` of `game`: PB and PW
    for the black and white sides, else P and the side's name in capitals (PRED)."""
    side = find_game(game).side_names[player]
    return {"black": "PB", "white": "PW"}.get(side, "P" + side.upper())


def check_bounds(record: Record) -> None:
    """Raise ValueError where `record` passes a bound: MAX_NODES moves, MAX_TEXT
    characters of a comment or header, glyphs other than GLYPHS'."""
    count = 0
    for node in record.root.walk():
        count += 1
        if count > MAX_NODES + 1:
            raise ValueError(f"the record holds more than {MAX_NODES} moves")
        if len(node.comment) > MAX_TEXT:
            raise ValueError(f"a comment of {len(node.comment)} characters: at most {MAX_TEXT}")
        for glyph in node.glyphs:
            if glyph not in GLYPHS:
                raise ValueError(f"glyph {glyph}: the glyphs are {', '.join(map(str, GLYPHS))}")
    for name, value in record.headers.items():
        if len(value) > MAX_TEXT:
            raise ValueError(f"header {name} has {len(value)} characters: at most {MAX_TEXT}")
