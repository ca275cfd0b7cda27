"""The game's line as engine-cg keeps it (`adapters.bot.line`): the others' moves between
two of the player's turns found from the boards alone, and a new line where no moves
lead to the board (a player left the game)."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from adapters.bot.line import GameLine
from adapters.codingame import formats, turn_format


def _replayed(line: GameLine):
    """The position the line names: its first board after its moves."""
    game = line.game
    position = game.parse_board(line.start.split())
    for token in line.moves:
        position = position.play(game.parse_move(position, token))
    return position


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(formats()), seed=st.integers(0, 10_000), seat=st.integers(0, 2))
def test_the_line_follows_a_game_from_the_boards_alone(name: str, seed: int, seat: int) -> None:
    fmt = turn_format(name)
    game = fmt.GAME
    seat %= fmt.PLAYERS
    rng = random.Random(seed)
    state = game.initial_state({"seed": str(seed)} if "seed" in game.parameters else {})
    line = GameLine(game)
    turns = 0
    for _ in range(40):
        if state.outcome() is not None:
            break
        if state.to_move == seat:
            board_text = game.format_board(state)
            line.turn(board_text, game.parse_board(board_text.split()))
            assert game.format_board(_replayed(line)) == board_text
            if turns:
                # One line from the first turn: the others' moves were all found.
                assert line.start != board_text
            turns += 1
            move = rng.choice(state.legal_moves())
            line.played(game.format_move(state, move))
            state = state.play(move)
        else:
            state = state.play(rng.choice(state.legal_moves()))


def test_a_player_who_leaves_starts_a_new_line() -> None:
    fmt = turn_format("isolation")
    game = fmt.GAME
    state = game.initial_state({"seed": "5"})
    line = GameLine(game)
    line.turn(game.format_board(state), state)
    first = line.start
    token = game.format_move(state, state.legal_moves()[0])
    line.played(token)
    state = state.play(game.parse_move(state, token))
    # Green moves; blue leaves the game (a timeout): its knight stays, no move is made.
    state = state.play(state.legal_moves()[0])
    state = fmt.leave(state, 2)
    board_text = game.format_board(state)
    line.turn(board_text, game.parse_board(board_text.split()))
    assert line.start == board_text != first and line.moves == []
