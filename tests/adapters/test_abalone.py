"""Abalone's CodinGame turns: no referee vectors exist, so the format is checked by round
trips over random games, the move matching by a referee list written under another
labelling, and the `engine-cg` process and the arena by playing."""

from __future__ import annotations

import asyncio
import random
import sys

import pytest

from adapters.codingame import abalone as fmt
from adapters.arena.process import BotProcess
from adapters.arena.referee import GameSpec, play_game
from adapters.codingame.common import TurnFormatError
from tests.adapters.deadlines import ask_turn, check_turn_reports, lenient_time_scale
from tests.conftest import run

ADAPTER = f"{sys.executable} -m adapters.bot.main"
EXAMPLE = f"{sys.executable} -m adapters.bot.bots"
GAME = fmt.GAME


def random_game(seed: int, plies: int | None = None):
    """(state, history, first turn, earlier turns of the player to move) of a random game."""
    rng = random.Random(seed)
    state = GAME.initial_state({})
    history: list[tuple[int, str]] = []
    while state.outcome() is None and (plies is None or len(history) < plies):
        player = state.to_move
        earlier = sum(1 for mover, _ in history if mover == player)
        yield state, list(history), earlier == 0, earlier
        move = rng.choice(state.legal_moves())
        history.append((player, GAME.format_move(state, move)))
        state = state.play(move)


def test_format_then_parse_round_trips_over_random_games() -> None:
    positions = 0
    for seed in range(3):
        for state, history, first, earlier in random_game(seed):
            player = state.to_move
            lines = fmt.format_turn(state, player, first, history)
            framer = fmt.framer(first)
            assert [framer.add(line) for line in lines] == [False] * (len(lines) - 1) + [True]
            turn = fmt.parse_turn(lines, None if first else player, earlier)
            assert turn.player == player and turn.first_turn == first
            assert GAME.format_board(GAME.parse_board(turn.board_text.split())) == GAME.format_board(state)
            assert fmt.legal_tokens(turn) == fmt.referee_moves(state, history) == sorted(
                GAME.format_move(state, move) for move in state.legal_moves())
            assert turn.last_action == (history[-1][1] if history else None)
            scores = GAME.fields(state)
            mine = scores.black_score if player == 0 else scores.white_score
            theirs = scores.white_score if player == 0 else scores.black_score
            assert turn.scores == (mine, theirs)
            positions += 1
    assert positions > 300


def test_first_turn_lines_and_spaced_board_lines() -> None:
    state = GAME.initial_state({})
    lines = fmt.format_turn(state, 0, True, [])
    assert lines[:3] == ["2", "0 0", "11111"] and lines[11] == "-1 -1 -1 -1 -1"
    assert int(lines[12]) == len(lines) - 13
    spaced = lines[:2] + [" ".join(row) for row in lines[2:11]] + lines[11:]
    turn = fmt.parse_turn(spaced)
    assert turn.board_text.startswith("11111/111111/0011100/") and turn.board_text.endswith(
        " 2 score1=0 score2=0 turn=0")
    white = fmt.parse_turn(["1", "3 1"] + lines[2:], None)
    assert white.player == 1 and white.board_text.endswith(" 1 score1=3 score2=1 turn=1")
    with pytest.raises(TurnFormatError, match="'3'"):
        fmt.parse_turn(["3"] + lines[1:])
    with pytest.raises(TurnFormatError, match="5 integers"):
        fmt.parse_turn(lines[:12] + ["1", "1 2 3"])


@pytest.mark.parametrize(("line", "expected"), [
    ("2 6 2 8 2", "2,6,2,8,2"),
    ("2 8 2 6 2", "2,6,2,8,2"),      # the two ends in the other order
    (" 2  6 2 8 2 ", "2,6,2,8,2"),
    ("2,6,2,8,2", None),
    ("2 6 2 8", None),
    ("2 6 2 8 2 x", None),
    ("2 6 2 8 3", None),
    ("random", None),
])
def test_the_referee_reads_five_integers_either_end_first(line: str, expected: str | None) -> None:
    legal = ["2,6,2,8,2", "0,6,0,6,1"]
    assert fmt.parse_output(line, legal) == expected


def relabelled(tokens: list[str], reading: str, perm: tuple[int, ...]) -> list[str]:
    """The engine's tokens written under a referee labelling: the inverse of `reading`
    (each of those readings is its own inverse) and of `perm`, ends in reverse order."""
    inverse = {engine: label for label, engine in enumerate(perm)}
    out = []
    for token in tokens:
        x1, y1, x2, y2, d = (int(part) for part in token.split(","))
        (a1, b1), (a2, b2) = fmt.READINGS[reading](x1, y1), fmt.READINGS[reading](x2, y2)
        out.append(f"{a2},{b2},{a1},{b1},{inverse[d]}")
    return out


@pytest.mark.parametrize("reading", ["x y", "y x"])
def test_a_referee_list_under_another_labelling_is_worked_out(reading: str) -> None:
    perm = fmt.PERMUTATIONS[17]
    assert perm != fmt.PERMUTATIONS[0]
    messages: list[str] = []
    matcher = fmt.MoveMatcher(messages.append)
    for state, history, _, _ in random_game(5, plies=12):
        listed = relabelled(fmt.referee_moves(state, history), reading, perm)
        random.Random(len(history)).shuffle(listed)
        legal, outputs = matcher.match(state, listed)
        assert sorted(legal) == fmt.referee_moves(state, history)
        assert set(outputs.values()) == set(listed)
        for move in legal:  # each engine move is answered with the list's entry for it
            assert relabelled([move], reading, perm)[0] == outputs[move]
    assert (matcher.reading, matcher.perm) == (reading, perm)
    assert len(messages) == 1 and "match the engine's" in messages[0]


def test_a_list_matching_no_labelling_falls_back_to_its_own_entries() -> None:
    messages: list[str] = []
    matcher = fmt.MoveMatcher(messages.append)
    state = GAME.initial_state({})
    legal, outputs = matcher.match(state, ["9,9,9,9,0", "8,8,8,8,1"])
    assert legal == ["9,9,9,9,0", "8,8,8,8,1"] and outputs == {}
    assert "do not match" in messages[0] and matcher.perm == fmt.PERMUTATIONS[0]
    # Half a list: only the engine's moves that map are offered.
    full = fmt.referee_moves(state, [])
    legal, outputs = matcher.match(state, full[:10])
    assert legal == full[:10] and all(outputs[move] == move for move in legal)


def test_engine_cg_answers_random_game_turns_in_time() -> None:
    """A real engine behind `engine-cg`, fed the turns of one seat of a random game, held
    to the turns' limits as tests/adapters/deadlines.py does."""
    async def scenario() -> None:
        for seat in (0, 1):
            bot = BotProcess(f"{ADAPTER} abalone --stats")
            await bot.start()
            try:
                asked = 0
                for state, history, first, _ in random_game(11, plies=24):
                    if state.to_move != seat:
                        continue
                    lines = fmt.format_turn(state, seat, first, history)
                    line = await ask_turn(bot, fmt, lines, first)
                    # Printed exactly as one of the referee's lines.
                    assert line.strip() in lines[13 if first else 12:], line
                    asked += 1
                    if first:
                        # The engine may still be starting on a busy machine: the
                        # turns after it are about answering at 75 ms.
                        await asyncio.sleep(1.0)
            finally:
                await bot.close()
            assert asked == 12
            check_turn_reports(bot, fmt, asked)
            assert not any("Traceback" in text or "do not match" in text for text in bot.stderr), bot.stderr
    run(scenario())


def test_an_arena_game_random_against_greedy() -> None:
    for index in range(2):
        names = ("random", "greedy")[::1 if index == 0 else -1]
        spec = GameSpec("abalone", index, 3, tuple(f"{EXAMPLE} {name} abalone" for name in names), names,
                        lenient_time_scale("abalone"))
        record = run(play_game(spec))
        assert record["events"] == [], record["events"]
        assert record["result"]["winner"] == names.index("greedy"), record["reason"]
        assert all(move["ms"] <= move["limit_ms"] for move in record["moves"])


def test_engine_cg_works_out_a_permuted_labelling_and_answers_list_entries() -> None:
    reading, perm = "y x", fmt.PERMUTATIONS[30]

    async def scenario() -> BotProcess:
        bot = BotProcess(f"{ADAPTER} abalone --stats")
        await bot.start()
        asked = 0
        try:
            for state, history, first, _ in random_game(13, plies=10):
                if state.to_move != 0:
                    continue
                lines = fmt.format_turn(state, 0, first, history)
                head = 13 if first else 12
                listed = relabelled(fmt.referee_moves(state, history), reading, perm)
                lines = lines[:head] + [fmt.format_output(token) for token in listed]
                line = await ask_turn(bot, fmt, lines, first)
                assert line.strip() in lines[head:], line
                asked += 1
                if first:
                    await asyncio.sleep(1.0)
        finally:
            await bot.close()
        check_turn_reports(bot, fmt, asked)
        return bot

    bot = run(scenario())
    assert sum("match the engine's under reading 'y x'" in line for line in bot.stderr) == 1, bot.stderr
