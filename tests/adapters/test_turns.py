"""The CodinGame turn formats against the referee vectors, both ways, and the referees'
reading of output lines.

Every `input_lines` record of each game's vector file is checked twice: `format_turn` of
the record's position, with the game's history up to that turn, gives exactly the lines
the referee sent; `parse_turn` of those lines gives back the position, and what else the
record states of the turn (the last action, the referee's order of the moves, status
lines). The history is needed where the lines say more than the position: the last
action (Clobber, LOA), the placement order behind Othello's move order, and the Knights'
last destinations. A record's position comes from its own fields, read by the game's
oracle (`tests/oracle`), never from its input lines.
"""

from __future__ import annotations

import collections
import importlib
import random

import pytest

from adapters.codingame import formats, turn_format
from adapters.codingame.common import RANDOM, TurnFormatError, read_turn
from adapters.codingame import othello as othello_format
from tests.conftest import VECTORS, load_vectors

#: The games with referee vectors (Abalone has none: tests/adapters/test_abalone.py).
VECTOR_GAMES = tuple(game for game in formats() if (VECTORS / f"{game}.jsonl").exists())


def turns_of(game: str):
    """(record, its position, player, first turn, the player's earlier turns, history)
    per input_lines record, in game order."""
    fmt = turn_format(game)
    records = load_vectors(game)
    boards = importlib.import_module(f"tests.oracle.{game}").referee_boards(records)
    by_game: dict[int, list[tuple[dict, str]]] = collections.defaultdict(list)
    for record, board in zip(records, boards):
        by_game[record["game_index"]].append((record, board))
    for game_records in by_game.values():
        history: list[tuple[int, str]] = []
        turns: collections.Counter[int] = collections.Counter()
        for record, board in game_records:
            if "input_lines" not in record:
                continue
            player = fmt.GAME.player_names.index(record["to_move"])
            state = fmt.GAME.parse_board(board.split())
            yield record, state, player, turns[player] == 0, turns[player], list(history)
            turns[player] += 1
            history.append((player, record["move_played"]))


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_format_turn_reproduces_every_recorded_input(game: str) -> None:
    fmt = turn_format(game)
    count = 0
    for record, state, player, first, _, history in turns_of(game):
        lines = fmt.format_turn(state, player, first, history)
        assert lines == record["input_lines"], (record["game_index"], record.get("ply", record.get("turn")))
        count += 1
    assert count > 0


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_parse_turn_gives_back_every_recorded_position(game: str) -> None:
    fmt = turn_format(game)
    for record, state, player, first, earlier, _ in turns_of(game):
        turn = fmt.parse_turn(record["input_lines"], None if first else player, earlier)
        assert turn.player == player and turn.first_turn == first
        parsed = fmt.GAME.parse_board(turn.board_text.split())
        assert fmt.GAME.format_board(parsed) == fmt.GAME.format_board(state)
        assert sorted(fmt.legal_tokens(turn)) == record["legal"]
        if "last_action" in record:
            assert turn.last_action == (None if record["last_action"] == "null" else record["last_action"])
        if "legal_referee_order" in record:
            assert list(turn.legal) == record["legal_referee_order"]
        if "status_lines" in record:
            assert [f"{s.letter} {int(s.active)} {s.last or 'null'}" for s in turn.statuses] == record["status_lines"]


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_the_framer_ends_each_turn_on_its_last_line(game: str) -> None:
    fmt = turn_format(game)
    for record, _, _, first, _, _ in turns_of(game):
        framer = fmt.framer(first)
        ends = [framer.add(line) for line in record["input_lines"]]
        assert ends[-1] and not any(ends[:-1])


def test_read_turn_reads_no_further_than_its_turn() -> None:
    fmt = turn_format("loa")
    turns = [record for record, *_ in turns_of("loa")][:3]
    lines = [line + "\n" for record in turns for line in record["input_lines"]]
    source = iter(lines)
    first = read_turn(lambda: next(source, ""), fmt.framer(True))
    assert first == turns[0]["input_lines"]
    assert next(source) == turns[1]["input_lines"][0] + "\n"
    with pytest.raises(EOFError):
        read_turn(lambda: "", fmt.framer(False))


def random_games(game: str, count: int, seed: int):
    """The turns of random games from the start: (state, history, the player's earlier
    turns). A move the referee plays without asking (Othello's forced pass; LOA's passes
    are asked for) is in the history but no turn."""
    fmt = turn_format(game)
    rng = random.Random(seed)
    for index in range(count):
        params = {"seed": str(index)} if "seed" in fmt.GAME.parameters else {}
        state = fmt.GAME.initial_state(params)
        history: list[tuple[int, str]] = []
        turns: collections.Counter[int] = collections.Counter()
        while state.outcome() is None:
            forced = fmt.skipped(state)
            if forced is not None:
                history.append((state.to_move, forced))
                state = state.play(fmt.GAME.parse_move(state, forced))
                continue
            yield state, list(history), turns[state.to_move]
            turns[state.to_move] += 1
            move = rng.choice(state.legal_moves())
            history.append((state.to_move, fmt.GAME.format_move(state, move)))
            state = state.play(move)


@pytest.mark.parametrize("game", formats())
def test_format_then_parse_round_trips_over_random_games(game: str) -> None:
    fmt = turn_format(game)
    for state, history, earlier in random_games(game, 6, 7):
        player = state.to_move
        first = earlier == 0
        lines = fmt.format_turn(state, player, first, history)
        framer = fmt.framer(first)
        assert [framer.add(line) for line in lines][-1]
        turn = fmt.parse_turn(lines, None if first else player, earlier)
        assert fmt.GAME.format_board(fmt.GAME.parse_board(turn.board_text.split())) == fmt.GAME.format_board(state)
        assert sorted(fmt.legal_tokens(turn)) == sorted(
            fmt.GAME.format_move(state, move) for move in state.legal_moves())


def test_othello_expert_line_lists_the_opponents_actions_since_the_last_turn() -> None:
    fmt = othello_format
    assert fmt.actions_since_last_turn(0, [(0, "d3"), (1, "c3")]) == ["c3"]
    assert fmt.actions_since_last_turn(0, [(0, "d3"), (1, "pass")]) == ["pass"]
    # The player itself had to pass: the opponent moved twice.
    assert fmt.actions_since_last_turn(0, [(0, "d3"), (1, "c3"), (0, "pass"), (1, "c4")]) == ["c3", "c4"]
    state = fmt.GAME.initial_state({}).play(19)  # black d3
    lines = fmt.format_turn(state, 1, False, [(0, "d3")], expert=True)
    assert lines[8] == "d3;"
    turn = fmt.parse_turn(lines, 1, 1, expert=True)
    assert turn.expert_actions == ("d3",) and list(turn.legal) == lines[10:]
    framer = fmt.framer(False, expert=True)
    assert [framer.add(line) for line in lines][-1]


def test_first_turn_lines() -> None:
    start = {game: turn_format(game).GAME.initial_state({}) for game in formats()}
    assert turn_format("clobber").format_turn(start["clobber"], 0, True, [])[:3] == ["8", "w", "wbwbwbwb"]
    assert turn_format("othello").format_turn(start["othello"], 0, True, [])[:2] == ["0", "8"]
    assert turn_format("othello").format_turn(start["othello"], 0, True, [])[-5:] == ["4", "e6", "c4", "d3", "f5"]
    assert turn_format("loa").format_turn(start["loa"], 0, True, [])[:2] == ["b", ".bbbbbb."]
    lines = turn_format("isolation").format_turn(start["isolation"], 0, True, [])
    assert lines[:4] == ["r", "r 1 null", "g 1 null", "b 1 null"]


def test_bad_turn_lines_are_refused_with_the_line_quoted() -> None:
    with pytest.raises(TurnFormatError, match="'x'"):
        turn_format("clobber").parse_turn(["8", "x"] + ["." * 8] * 8 + ["null", "0"])
    framer = turn_format("loa").framer(False)
    with pytest.raises(TurnFormatError, match="count"):
        for line in ["."] * 9 + ["many"]:
            framer.add(line)


@pytest.mark.parametrize(("game", "line", "legal", "expected"), [
    ("clobber", "e2e3", ["e2e3", "e2f2"], "e2e3"),
    ("clobber", "e2e3xyz", ["e2e3"], "e2e3"),
    ("clobber", "e2e3 a comment", ["e2e3"], "e2e3"),
    ("clobber", " e2e3", ["e2e3"], None),
    ("clobber", "E2E3", ["e2e3"], None),
    ("clobber", "random", ["e2e3"], RANDOM),
    ("clobber", "e2e4", ["e2e3"], None),
    ("isolation", "e3 hi", ["c2", "e3"], "e3"),
    ("isolation", "e3\t", ["e3"], "e3"),
    ("loa", "pass", ["pass"], "pass"),
    ("loa", "random", ["pass"], "pass"),
    ("loa", "b1b3", ["pass"], None),
    ("loa", "pass", ["b1b3"], None),
    ("loa", "random", ["b1b3"], RANDOM),
    ("othello", "d3", ["d3", "c4"], "d3"),
    ("othello", " D3 ", ["d3"], "d3"),
    ("othello", "d3 MSG hello", ["d3"], "d3"),
    ("othello", "d3 hello", ["d3"], None),
    ("othello", "EXPERT d3", ["d3"], "d3"),
    ("othello", "random", ["d3"], None),
    ("othello", "MSG d3", ["d3"], None),
])
def test_output_lines_are_read_as_each_referee_reads_them(game, line, legal, expected) -> None:
    assert turn_format(game).parse_output(line, legal) == expected


def test_othello_expert_is_asked_by_any_output_containing_it() -> None:
    assert othello_format.asks_expert("EXPERT d3")
    assert not othello_format.asks_expert("d3 MSG expert")
