"""How a position is drawn, for the web GUI and the arena's replay page alike.

Both draw a board with one script (adapters/view/board.js) from a *view*: plain
JSON that this module makes from a board text's rows, so that the script knows no game.

    shape     "square" or "hex": how each cell is drawn
    width, height
              the drawing's extent, in cells
    cells     [[name, x, y, piece, blocked], ...]: each cell's name in the game's move
              notation (`e2`, or `x,y` on the hexagonal board), its centre in cells,
              the index of the player whose piece is on it (-1: none) and whether it is
              blocked (a burnt square)
    colours   per player, the [fill, stroke] of its pieces
    letters   per player, the letter drawn on its pieces, or null
    felt      one colour for every square, or null for a chequered board
    labels    [[text, x, y], ...]: the coordinates drawn around the board, each centred
              on its point
    pieces    what the game calls its pieces (discs, stones, ...)

A move is entered by clicking cells. `click_paths(token)` gives the ways of clicking a
move (see each board's docstring); the GUI plays the move whose path the clicks complete,
and highlights the cells that extend a path.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Sequence

import attrs

#: The script that draws a view (board.js): the GUI serves it, the replay page embeds it.
SCRIPT_FILE = Path(__file__).with_name("board.js")
#: A square's name: a file letter and a rank.
SQUARE = re.compile(r"[a-z][1-9][0-9]*")
#: A hexagonal row's height, in cells: the rows of a hexagonal board interlock.
HEX_ROW = math.sqrt(3) / 2
#: The hexagonal board's margin left and right, in cells, where its lines' labels go.
HEX_MARGIN = 0.6
#: ... and above and below, where the labels of its cells' places in their lines go.
HEX_MARGIN_Y = 0.65
#: The band of a square board's coordinates, left of its squares and under them, in cells.
SQUARE_MARGIN = 0.5


def _piece(cell: str, names: Sequence[str]) -> int:
    return names.index(cell) if cell in names else -1


@attrs.frozen
class SquareBoard:
    """A board of square cells, each row of the board text one row of squares.

    Squares are named by a file letter (a from the left) and a rank (1 at the bottom,
    or at the top with `row1_top`). A move token names its squares in the order they are
    clicked (`e2e3`: e2, then e3; `d3`: d3 alone); `pass` names none.

    Attributes:
        colours: per player (index order), the (fill, stroke) colours of its pieces; a
            piece is drawn wherever the board text holds the player's name.
        row1_top: whether the board text's top line is row 1 (else the last rank).
        felt: one colour for every square, or None for a chequered board.
        lettered: whether each piece also shows its player's name.
        blocked: the board text's letter for a blocked square, if the game has them.
        pieces: what the game calls its pieces, for the counts a page shows.
    """

    colours: tuple[tuple[str, str], ...]
    row1_top: bool = False
    felt: str | None = None
    lettered: bool = False
    blocked: str | None = None
    pieces: str = "pieces"

    def edit_cycle(self, names: Sequence[str]) -> str:
        """The letters a cell goes through when a position is edited by clicking it: the
        empty square, each player's piece, a blocked square."""
        return "." + "".join(names) + (self.blocked or "")

    def view(self, rows: Sequence[str], names: Sequence[str]) -> dict:
        """The view of a board whose text has `rows` (top line first); `names` are the
        players' names in the board text, by index."""
        height, width = len(rows), max(len(row) for row in rows)
        left = SQUARE_MARGIN  # the ranks' band; the files' is under the squares
        cells = []
        for r, row in enumerate(rows):
            rank = r + 1 if self.row1_top else height - r
            for c, cell in enumerate(row):
                cells.append([f"{chr(97 + c)}{rank}", left + c + 0.5, r + 0.5, _piece(cell, names),
                              cell == self.blocked])
        labels = [[str(r + 1 if self.row1_top else height - r), left / 2, r + 0.5] for r in range(height)]
        labels += [[chr(97 + c), left + c + 0.5, height + SQUARE_MARGIN / 2] for c in range(width)]
        return {"shape": "square", "width": width + left, "height": height + SQUARE_MARGIN, "cells": cells,
                "colours": [list(pair) for pair in self.colours], "letters": list(names) if self.lettered else None,
                "felt": self.felt, "labels": labels, "pieces": self.pieces}

    def click_paths(self, token: str) -> list[list[str]]:
        """The ways of clicking move `token`: its squares in order."""
        return [SQUARE.findall(token)]

    def marks(self, token: str) -> list[str]:
        """The cells that show move `token` on the board once it is played."""
        return SQUARE.findall(token)

    def arrow(self, token: str) -> list[str]:
        """The arrow that shows move `token` before it is played: its first square and
        its last (the same square, drawn as a ring, for a move of one); [] for none."""
        squares = SQUARE.findall(token)
        return [squares[0], squares[-1]] if squares else []


#: The six directions of a hexagonal board in axial steps (q, r), r growing downwards:
#: east, north-east, north-west, west, south-west, south-east.
HEX_STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@attrs.frozen
class HexBoard:
    """A hexagonal board of hexagonal rows: its board text's rows grow by one cell to the
    middle row, then shrink (5, 6, 7, 8, 9, 8, 7, 6, 5 on a board of side 5).

    A cell is named `x,y`: `y` its row from the top, `x` its place in the row from the
    left, both from 0. A move token is `x1,y1,x2,y2,d`: the two end marbles of a line
    (the same cell twice for one marble) and its direction `d` (HEX_STEPS' order). It is
    clicked as its ends, in either order (one marble once), then the cell that the first
    clicked marble moves to.

    Attributes:
        colours: per player (index order), the (fill, stroke) colours of its pieces.
        side: the cells on each side of the hexagon (the board text has 2 * side - 1
            rows).
        pieces: what the game calls its pieces, for the counts a page shows.
    """

    colours: tuple[tuple[str, str], ...]
    side: int = 5
    pieces: str = "pieces"

    def edit_cycle(self, names: Sequence[str]) -> str:
        """The letters a cell goes through when a position is edited by clicking it: the
        empty cell, then each player's marble."""
        return "0" + "".join(names)

    def view(self, rows: Sequence[str], names: Sequence[str]) -> dict:
        """The view of a board whose text has `rows` (top line first).

        Both coordinates of a cell's name, x,y, are labelled: each line's `y` at its left
        end (`y4`), and each `x` (`x2`) at both ends of the cells that share it. Those
        run parallel to the board's left edge (x counts from each line's left end), up
        and right to the top or upper right edge and down and right to the bottom or
        lower right edge, and the label stands one step beyond each end, where the next
        cell of that slant would be. The whole name is each cell's tooltip too."""
        widest = max(len(row) for row in rows)
        cells = []
        labels = []
        centres: dict[tuple[int, int], tuple[float, float]] = {}
        for y, row in enumerate(rows):
            # The line's left edge, in a margin of HEX_MARGIN cells each side.
            left = HEX_MARGIN + (widest - len(row)) / 2
            top = HEX_MARGIN_Y + y * HEX_ROW + 0.5
            labels.append([f"y{y}", left - 0.4, top])
            for x, cell in enumerate(row):
                centres[x, y] = (left + x + 0.5, top)
                cells.append([f"{x},{y}", left + x + 0.5, top, _piece(cell, names), False])
        for x in range(widest):
            ys = [y for (column, y) in centres if column == x]
            for y, rise in ((min(ys), -1), (max(ys), 1)):
                cx, cy = centres[x, y]
                labels.append([f"x{x}", cx + 0.5, cy + rise * HEX_ROW])
        return {"shape": "hex", "width": widest + 2 * HEX_MARGIN,
                "height": (len(rows) - 1) * HEX_ROW + 1 + 2 * HEX_MARGIN_Y,
                "cells": cells,
                "colours": [list(pair) for pair in self.colours], "letters": None, "felt": None, "labels": labels,
                "pieces": self.pieces}

    @staticmethod
    def _move(token: str) -> tuple[int, int, int, int, int] | None:
        """The ends and direction of move `token`; None where it is no move token."""
        try:
            x1, y1, x2, y2, direction = (int(part) for part in token.split(","))
        except ValueError:
            return None
        return (x1, y1, x2, y2, direction) if 0 <= direction < len(HEX_STEPS) else None

    def _next(self, x: int, y: int, direction: int) -> tuple[int, int]:
        """The cell one step from (x, y) in `direction` (it may be off the board)."""
        side = self.side
        q, r = x - (side - 1) + max(0, side - 1 - y), y - (side - 1)
        dq, dr = HEX_STEPS[direction]
        q, r = q + dq, r + dr
        return q + side - 1 - max(0, -r), r + side - 1

    def _step(self, x: int, y: int, direction: int) -> str:
        """The name of the cell one step from (x, y) in `direction` (off the board, no
        cell has that name)."""
        return "{},{}".format(*self._next(x, y, direction))

    def click_paths(self, token: str) -> list[list[str]]:
        """The ways of clicking move `token`."""
        move = self._move(token)
        if move is None:
            return []
        x1, y1, x2, y2, direction = move
        first, second = f"{x1},{y1}", f"{x2},{y2}"
        if first == second:
            return [[first, self._step(x1, y1, direction)]]
        paths = [[first, second, self._step(x1, y1, direction)],
                 [second, first, self._step(x2, y2, direction)]]
        # A line moving along itself is also clicked rear, front, then the cell ahead of
        # the front (where a player looks), as well as front, rear, that cell.
        inline = self._inline(move)
        if inline is not None:
            rear, front = inline
            paths.append(["{},{}".format(*rear), "{},{}".format(*front), self._step(*front, direction)])
        return paths

    def _inline(self, move: tuple[int, int, int, int, int]) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """(rear, front) of a line `move` moves along itself; None for a broadside move
        or a single marble."""
        x1, y1, x2, y2, direction = move
        ends = ((x1, y1), (x2, y2))
        if ends[0] == ends[1]:
            return None
        for rear, lead in (ends, ends[::-1]):
            cell = rear
            for _ in range(2):  # a line is at most three marbles
                cell = self._next(*cell, direction)
                if cell == lead:
                    return rear, lead
        return None

    def marks(self, token: str) -> list[str]:
        """The cells that show move `token` once it is played: where its marbles went."""
        move = self._move(token)
        if move is None:
            return []
        x1, y1, x2, y2, direction = move
        ends = {self._step(x1, y1, direction), self._step(x2, y2, direction)}
        return sorted(ends)

    def arrow(self, token: str) -> list[str]:
        """The arrow that shows move `token` before it is played: a line moving along
        itself, from its rear marble to where its lead marble goes; one marble, or a line
        moving sideways, from the first end to where that marble goes; [] for none."""
        move = self._move(token)
        if move is None:
            return []
        x1, y1, _, _, direction = move
        inline = self._inline(move)
        if inline is not None:
            rear, lead = inline
            return ["{},{}".format(*rear), self._step(*lead, direction)]
        return [f"{x1},{y1}", self._step(x1, y1, direction)]


BoardStyle = SquareBoard | HexBoard
