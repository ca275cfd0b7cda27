"""Lines of Action on 8x8, exactly as the CodinGame referee plays it.

Rules: black (`b`, player 0) starts on b1-g1 and b8-g8 and moves first; white (`w`,
player 1) starts on a2-a7 and h2-h7. A checker moves along its row, column or either
diagonal exactly as many squares as that whole line holds checkers (both sides, both
directions, the mover included). It may jump over its own checkers but not over enemy
ones, and lands on an empty square or on an enemy checker, which is captured; never on
its own. A side with no move plays `pass`, which is legal only then.

End, as the referee checks after every move (a pass included): if the mover's checkers
are one 8-connected group it wins, even when the opponent's are too; else if the
opponent's are (a capture can do that, and a single checker counts as connected) the
opponent wins; else the game is drawn once 150 plies have been played. A position given
as text is judged the same way, the side not to move being the last mover.

Squares: index = 8 * (rank - 1) + file, a1 = 0, h1 = 7, h8 = 63.
Moves: the int `from_square << 6 | to_square`, token `b1b3`; `pass` is the int 4096.
Board text: 8 rows of `b w .`, rank 8 first, joined by `/`, then `b` or `w` to move,
then optionally `ply=<n>`, the plies already played (0..150, default 0; always written).
A side has 1 to 12 checkers. The ply counter is part of the state and of the Zobrist key
(see `rules`).
"""

from games.loa.game import GAME

__all__ = ["GAME"]
