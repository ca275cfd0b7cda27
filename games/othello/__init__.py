"""Othello on 8x8, exactly as the CodinGame referee plays it.

Rules: the start position has white discs on d4 and e5 and black discs on e4 and d5.
Black (player 0, `0` on the board) moves first, then white (player 1, `1`). A move puts
a disc of the mover's colour on an empty square from which at least one straight line
(orthogonal or diagonal) runs over one or more enemy discs to a disc of the mover; every
such line of enemy discs is flipped to the mover's colour. A player with no such square
passes, and then `pass` is the only legal move; when neither player can place a disc the
game is over (a full board and a player without discs are cases of this). The player
with more discs wins; equal counts are a draw.

Squares: index = 8 * (row - 1) + file, with row 1 the top line of the board text and
file a = 0: a1 = 0, h1 = 7, d3 = 19, a8 = 56, h8 = 63. The names are those of
`games.base.square_name`, read with row 1 at the top.
Moves: the square index of the new disc, 0..63, or PASS = 64; the tokens are the square
name in lower case, `d3`, and `pass`.
Board text: 8 rows of `0 1 .`, row 1 first, joined by `/`, then `0` or `1` to move; no
fields.
"""

from games.othello.game import GAME

__all__ = ["GAME"]
