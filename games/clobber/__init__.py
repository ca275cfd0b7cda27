"""Clobber on 8x8, exactly as the CodinGame referee plays it.

Rules: every square starts occupied, a black stone where file+rank is even (a1 is black)
and a white one elsewhere. White (player 0) moves first. A move takes one of the mover's
stones onto an orthogonally adjacent enemy stone, which is removed. The player who
cannot move loses (the last player to move wins); there is no pass and no draw.

Squares: index = 8 * (rank - 1) + file, a1 = 0, h1 = 7, h8 = 63.
Moves: the int `from_square << 6 | to_square`; the token is the two square names, `e2e3`.
Board text: 8 rows of `w b .`, rank 8 first, joined by `/`, then `w` or `b` to move.
"""

from games.clobber.game import GAME

__all__ = ["GAME"]
