"""Knight Isolation for three players ("Mad Knights"), exactly as the CodinGame referee
plays it.

Rules: red `r` (player 0), green `g` (1) and blue `b` (2) each have a knight and move
in that order, skipping players that are out. A move takes the knight to a square a
knight's jump away that is neither blocked nor occupied by a knight; the square it left
becomes blocked for good. A player whose turn comes with no move is out at once (it is
never asked) and its knight keeps standing on its square. The last player standing wins.
Scores rank the players: the first one out scores 0, the next 1, the survivor 2.

Turn cap: the referee plays at most 62 global turns, where every move, every elimination
and the final winner declaration each take one. The turns used so far are the blocked
squares plus the players out, so a position tells its own count. When the cap is reached
with several players in, they all keep score 0; a survivor whose declaration would fall
after the cap keeps 0 too.

Start squares: `setgame isolation seed=N` derives them as the referee does from
java.util.Random(N): for red, green, then blue, draw two `nextInt(8)` until both are in
1..6 and the square is free; the first is the rank index (0 = rank 1), the second the file.

Squares: index = 8 * (rank - 1) + file, a1 = 0, h8 = 63. A move is the destination
square's index; its token is the square name, `e3`.
Board text: 8 rows of `. # r g b`, rank 8 first, joined by `/`, then the side to move
(`r`, `g` or `b`), then `alive=<letters>` (default `rgb`): the players still in, and
optionally `out=<letters>`: the players out, first out first (their scores; without it
they all count as first out, score 0).
"""

from games.isolation.game import GAME

__all__ = ["GAME"]
