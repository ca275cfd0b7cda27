"""The CodinGame turn formats against the referee vectors, both ways, and the referees'
reading of output lines.

Every `input_lines` record of the four vector files is checked twice: `format_turn` of
the record's position, with the game's history up to that turn, gives exactly the lines
the referee sent; `parse_turn` of those lines gives back the position. The history is
needed where the lines say more than the position: the last action (Clobber, LOA), the
placement order behind Othello's move order, and the Knights' last destinations.
"""

from __future__ import annotations

import collections
import random

import pytest

from adapters.codingame import formats, turn_format
from adapters.codingame.common import RANDOM, TurnFormatError, read_turn
from adapters.codingame import othello as othello_format
from tests.conftest import load_vectors

NAMES = {"clobber": "wb", "othello": "01", "loa": "bw", "isolation": "rgb"}
#: The games with referee vectors (Abalone has none: tests/adapters/test_abalone.py).
VECTOR_GAMES = tuple(NAMES)


def record_state(game: str, record: dict):
    """The position of a vector record, from its own fields (not its input lines)."""
    fmt = turn_format(game)
    tokens = ["/".join(record["board"]), record["to_move"]]
    if game == "loa":
        tokens.append(f"ply={record['ply']}")
    if game == "isolation":
        flags = {line[0]: line.split()[1] == "1" for line in record["status_lines"]}
        tokens.append("alive=" + "".join(letter for letter in "rgb" if flags[letter]))
        out = [letter for letter in "rgb" if not flags[letter]]
        if len(out) == 1:
            tokens.append(f"out={out[0]}")
    return fmt.GAME.parse_board(tokens)


def turns_of(game: str):
    """(record, player, first turn, the player's earlier turns, history) per input_lines
    record, in game order."""
    by_game: dict[int, list[dict]] = collections.defaultdict(list)
    for record in load_vectors(game):
        by_game[record["game_index"]].append(record)
    for records in by_game.values():
        history: list[tuple[int, str]] = []
        turns: collections.Counter[int] = collections.Counter()
        for record in records:
            if "input_lines" not in record:
                continue
            player = NAMES[game].index(record["to_move"])
            yield record, player, turns[player] == 0, turns[player], list(history)
            turns[player] += 1
            history.append((player, record["move_played"]))


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_format_turn_reproduces_every_recorded_input(game: str) -> None:
    fmt = turn_format(game)
    count = 0
    for record, player, first, _, history in turns_of(game):
        lines = fmt.format_turn(record_state(game, record), player, first, history)
        assert lines == record["input_lines"], (record["game_index"], record.get("ply", record.get("turn")))
        count += 1
    assert count == {"clobber": 605, "othello": 1200, "loa": 1200, "isolation": 776}[game]


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_parse_turn_gives_back_every_recorded_position(game: str) -> None:
    fmt = turn_format(game)
    for record, player, first, earlier, _ in turns_of(game):
        turn = fmt.parse_turn(record["input_lines"], None if first else player, earlier)
        assert turn.player == player and turn.first_turn == first
        state = fmt.GAME.parse_board(turn.board_text.split())
        assert fmt.GAME.format_board(state) == fmt.GAME.format_board(record_state(game, record))
        assert sorted(fmt.legal_tokens(turn)) == record["legal"]
        if game in ("clobber", "loa"):
            assert turn.last_action == (None if record["last_action"] == "null" else record["last_action"])
        if game == "othello":
            assert list(turn.legal) == record["legal_referee_order"]
        if game == "isolation":
            assert [f"{s.letter} {int(s.active)} {s.last or 'null'}" for s in turn.statuses] == record["status_lines"]


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_the_framer_ends_each_turn_on_its_last_line(game: str) -> None:
    fmt = turn_format(game)
    for record, _, first, _, _ in turns_of(game):
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
    """Positions of random games from the start with their histories: (state, history)."""
    fmt = turn_format(game)
    rng = random.Random(seed)
    for index in range(count):
        params = {"seed": str(index)} if game == "isolation" else {}
        state = fmt.GAME.initial_state(params)
        history: list[tuple[int, str]] = []
        while state.outcome() is None:
            moves = state.legal_moves()
            if game == "othello" and fmt.GAME.format_move(state, moves[0]) == "pass":
                history.append((state.to_move, "pass"))
                state = state.play(moves[0])
                continue
            yield state, list(history)
            move = rng.choice(moves)
            history.append((state.to_move, fmt.GAME.format_move(state, move)))
            state = state.play(move)


@pytest.mark.parametrize("game", formats())
def test_format_then_parse_round_trips_over_random_games(game: str) -> None:
    fmt = turn_format(game)
    for state, history in random_games(game, 6, 7):
        player = state.to_move
        # Othello's forced passes are no turns of the player; LOA's passes are.
        earlier = sum(1 for mover, token in history
                      if mover == player and not (game == "othello" and token == "pass"))
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
