"""Abalone on the 61-cell hexagon, as the CodinGame statement describes it.

No referee source is public; the reading below fits the statement's own example and is
the one this project uses (see the rules spec, "Abalone: the convention this project
uses").

Rules: each side has 14 marbles. White (`1`, player 1) starts on the top two lines and
the three middle cells of the third, black (`2`, player 0) the same at the bottom; black
moves first. A move takes 1, 2 or 3 own marbles that form a straight contiguous line and
moves each of them one cell in one of the six directions:

- in-line (the direction runs along the line; a single marble always moves in-line):
  the front marble steps into the next cell. That cell must be empty or hold an enemy
  marble. An enemy column of m marbles right in front is pushed one cell (sumito) when
  the mover has more marbles in the line (2 push 1, 3 push 1, 3 push 2) and the cell
  behind the enemy column is empty or off the board; in the last case the enemy marble
  at the end of the column is pushed off and counts for the mover. An own marble behind
  the enemy column, or an enemy column as long as the mover's or longer, blocks the
  push; a single marble never pushes. Lines of four or more own marbles exist, but only
  three of them move.
- broadside (2 or 3 marbles moving sideways to their line): every destination cell must
  be empty and on the board; nothing is pushed.
An own marble never leaves the board. Pushing off a sixth enemy marble wins at once.
After 350 plies (turn 350) the side that has pushed off more marbles wins; equal counts
are a draw. A side to move without any legal move (only a set-up position can do this)
loses. Outcome margins are black's pushed-off marbles minus white's, from each player's
view.

Cells: (x, y) with y the 0-based printed line from the top (lines of 5, 6, 7, 8, 9, 8,
7, 6, 5 cells) and x the 0-based index inside the line; internally the bit (r + 5) * 11
+ (q + 5) of an 11x11 grid with a border, axial q = x - 4 + max(0, 4 - y), r = y - 4
(`games.abalone.hexboard`). Directions 0..5 are, on screen, E, NE, NW, W, SW, SE.

Moves: ints below 2**19 (layout in `games.abalone.hexboard`): an anchor marble, the
direction, the marble count, the line's axis, the enemy marbles pushed and an ordering
rank. The token is the CodinGame output `x1 y1 x2 y2 d` joined by commas,
`2,3,3,5,4`: the two end marbles of the line and the direction; a single marble names
its cell twice, `4,4,4,4,0`. The engine writes it canonically: for an in-line move the
rear marble then the front marble; for a broadside move the end that comes first in
reading order (smaller y, then smaller x) first. It accepts the two ends in either order.

Board text: the 9 lines of `0` (empty), `1` (white), `2` (black) joined by `/`, then the
side to move `1` or `2`, then `score1=<n>` and `score2=<n>` (marbles pushed off by
player 1, white, and by player 2, black; 0..6, not both 6) and `turn=<n>` (plies played,
0..350), each optional with default 0. At most 14 marbles of a colour, and a colour's
marbles on the board plus those the other side pushed off at most 14. The engine writes
every field.

Keys: Zobrist keys over the marbles, the side to move, both pushed-off counts and the
turn. The turn is in the key because the outcome depends on it (the 350-ply limit): the
same marbles nearer the limit are a different position.
"""

from games.abalone.game import GAME

__all__ = ["GAME"]
