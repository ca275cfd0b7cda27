"""The games `engine-analyse` reads: CodinGame replays of every game, read back as the
referee read them, arena records with players that left, and move lists."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from adapters.analysis.gamefile import LEAVE, played_game, read_game, read_game_text, read_replay, replay_outputs
from adapters.codingame import formats, turn_format
from games import find_game

#: Ways a bot may decorate its output line, the most decorated first: a replay uses the
#: first its game's referee reads as the line's move.
DECORATIONS = (lambda line: f"{line} comment after a space", lambda line: f" {line.upper()} MSG good luck",
               lambda line: line)


def decorated(fmt, token: str, legal: list[str]) -> str:
    """The output line of `token`, decorated as the game's referee allows."""
    line = fmt.format_output(token)
    return next(text for text in (decorate(line) for decorate in DECORATIONS) if fmt.parse_output(text, legal) == token)


def random_replay(name: str, seed: int, shift: int = 0, leave_at: int | None = None):
    """A CodinGame replay (the site's JSON) of a random game, and the moves the referee
    played, forced ones included. Agent ids are the seats turned by `shift`; in a game of
    more players, the player asked at turn `leave_at` gives no output (a timeout)."""
    fmt = turn_format(name)
    rules = find_game(name)
    rng = random.Random(seed)
    params = {"seed": str(seed)} if "seed" in rules.parameters else {}
    state, history, moves = rules.initial_state(params), [], []
    frames = [{"agentId": -1, "gameInformation": "start", "keyframe": True}]
    while state.outcome() is None and len(moves) < 40:
        forced = fmt.skipped(state)
        if forced is None:
            agent = (state.to_move + shift) % fmt.PLAYERS
            if len(frames) == leave_at and fmt.PLAYERS > 2:
                frames.append({"agentId": agent, "stdout": "", "keyframe": True})
                state = fmt.leave(state, state.to_move)
                continue
            legal = fmt.referee_moves(state, history)
            token = rng.choice(legal)
            frames.append({"agentId": agent, "stdout": decorated(fmt, token, legal) + "\nextra line\n",
                           "keyframe": True})
        else:
            token = forced
        moves.append(token)
        history.append((state.to_move, token))
        state = state.play(rules.parse_move(state, token))
    document = {"gameResult": {"frames": frames, "refereeInput": "\n".join(f"{k}={v}" for k, v in params.items()),
                               "ranks": [0, 1], "scores": [1, 0]}}
    return document, moves, params


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(formats())), st.integers(0, 2**20), st.integers(0, 2))
def test_a_replay_reads_back_as_its_referee_read_it(name: str, seed: int, shift: int) -> None:
    document, moves, params = random_replay(name, seed, shift)
    read = read_replay(document, name)
    assert [token for _, token in read.plies] == moves
    assert dict(read.params) == params and read.stopped is None
    if len(moves) >= 8:
        assert read_replay(document).name == name, "the game is found by its rules alone"


def test_a_three_player_replay_follows_a_timeout() -> None:
    document, moves, params = random_replay("isolation", 5, leave_at=4)
    read = read_replay(document)
    assert read.name == "isolation" and dict(read.params) == {"seed": "5"}
    assert [token for _, token in read.plies] == moves
    # The same game with the silent turn missing from the replay: the player to move
    # when another player's turn comes has left.
    frames = document["gameResult"]["frames"]
    document["gameResult"]["frames"] = [frame for frame in frames if frame.get("stdout") != ""]
    assert [token for _, token in read_replay(document, "isolation").plies] == moves


def test_a_two_player_replay_stops_where_the_record_does() -> None:
    document, moves, _ = random_replay("clobber", 3)
    frames = document["gameResult"]["frames"]
    frames[6]["stdout"] = "random"
    read = read_replay(document, "clobber")
    assert [token for _, token in read.plies] == moves[:5]
    assert read.stopped.startswith("random: agent") and "turn 6" in read.stopped
    frames[6]["stdout"] = ""
    assert read_replay(document, "clobber").stopped == "timeout: agent 1 gave no output at turn 6"
    frames[6]["stdout"] = "z9z9"
    assert read_replay(document, "clobber").stopped.startswith("invalid: agent 1's output 'z9z9'")


def test_the_local_runner_result_reads_like_the_site_replay() -> None:
    document, moves, _ = random_replay("loa", 8)
    frames = document["gameResult"]["frames"]
    outputs = {str(agent): [frame.get("stdout") if frame["agentId"] == agent else None for frame in frames]
               for agent in (0, 1)}
    local = {"outputs": {**outputs, "referee": ["" for _ in frames]}, "summaries": [], "views": []}
    assert replay_outputs(local) == replay_outputs(document)
    assert [token for _, token in read_replay(local).plies] == moves


def test_a_replay_no_game_reads_says_so(tmp_path: Path) -> None:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"frames": [{"agentId": 0, "stdout": "hello\n"}, {"agentId": 1, "stdout": "x\n"}]}))
    with pytest.raises(ValueError, match="no game's rules read it: say it with --game"):
        read_game(path)
    clobber = find_game("clobber")
    start = clobber.initial_state({})
    first = clobber.format_move(start, start.legal_moves()[0])
    path.write_text(json.dumps({"frames": [{"agentId": 0, "stdout": first}, {"agentId": 0, "stdout": "x\n"}]}))
    with pytest.raises(ValueError, match="agent 0 played, but it is the other player's turn"):
        read_game(path, "clobber")
    path.write_text('{"seed": 3}')
    with pytest.raises(ValueError, match="neither an arena record"):
        read_game(path)


def test_an_arena_record_of_three_players_keeps_its_leaves(tmp_path: Path) -> None:
    document, moves, _ = random_replay("isolation", 9, leave_at=3)
    # The same game as an arena record: the timeout is an event before the move that
    # follows it.
    record = {"game": "isolation", "start": find_game("isolation").format_board(
        find_game("isolation").initial_state({"seed": "9"})),
        "moves": [{"move": token} for token in moves],
        "events": [{"at": 2, "player": 2, "event": "timeout"}]}
    path = tmp_path / "game-0000.json"
    path.write_text(json.dumps(record))
    assert [token for _, token in read_game(path).plies] == moves


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**20), st.integers(1, 12))
def test_a_game_with_leaves_is_its_line_of_moves_and_leaves(seed: int, leave_at: int) -> None:
    document, moves, params = random_replay("isolation", seed, leave_at=leave_at)
    read = read_replay(document, "isolation")
    line = read.line()
    assert [token for token in line if token != LEAVE] == moves
    assert line.count(LEAVE) == len(read.leaves) <= 1
    start = find_game("isolation").format_board(find_game("isolation").initial_state(params))
    again = played_game("isolation", start, line)
    assert again.plies == read.plies and again.leaves == read.leaves
    assert again.line() == line


def test_a_move_list_says_where_a_player_leaves(tmp_path: Path) -> None:
    document, moves, params = random_replay("isolation", 9, leave_at=3)
    line = read_replay(document, "isolation").line()
    assert line[2] == LEAVE
    path = tmp_path / "game.txt"
    path.write_text(f"setgame isolation seed={params['seed']}\n{' '.join(line)}\n")
    read = read_game(path)
    assert [token for _, token in read.plies] == moves and read.leaves == (2,)
    # The third player leaves at its first turn: the first is to move, the third is out.
    before, _ = read.plies[2]
    assert before.to_move == 0 and find_game("isolation").format_board(before).endswith(" r alive=rg out=b")


def test_only_a_player_of_a_game_going_on_of_more_players_can_leave() -> None:
    with pytest.raises(ValueError, match=r"move 1 \(leave\): only a game of more than two players"):
        played_game("othello", None, [LEAVE])
    board = "r.....gb" + "/........" * 7 + " r alive=r out=gb"
    with pytest.raises(ValueError, match=r"move 1 \(leave\): the game is over"):
        played_game("isolation", board, [LEAVE])


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=6)
                    | st.sampled_from([*formats(), "a1a2", "e2e3", "seed=1"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["game", "moves", "move", "player", "start", "events", "at", "event",
                                         "frames", "agentId", "stdout", "gameResult", "outputs", "refereeInput"]),
                        inner, max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["game", "moves", "frames", "gameResult", "outputs", "start", "events"]),
                       JSON, max_size=4))
def test_a_malformed_game_file_is_a_clear_error(tmp_path_factory, document: dict) -> None:
    path = tmp_path_factory.mktemp("bad") / "game.json"
    path.write_text(json.dumps(document))
    try:
        read_game(path)
    except ValueError as error:
        assert str(error)


@pytest.mark.parametrize(("text", "words"), [
    ('{"game": "clobber", "moves": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deep"),
    ('{"gameResult": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001, "nested too deep"),
    ('{"game": "clobber", "moves": [{"move": "a2a3", "player": ' + "9" * 5000 + "}]}", "not JSON"),
    ('{"game": ["clobber"], "moves": []}', "its game and start are texts"),
    ('{"game": "clobber", "start": 5, "moves": []}', "its game and start are texts"),
    ('{"game": "clobber", "moves": [], "seats": [["a"], "b"]}', "its seats are a list of names"),
], ids=["deep list", "deep object", "long number", "game", "start", "seats"])
def test_a_record_too_deep_too_long_or_of_other_types_is_a_clear_error(tmp_path: Path, text: str,
                                                                      words: str) -> None:
    """However malformed, a record is a ValueError in words naming it: what a batch
    skips and engine-gui's load reports."""
    with pytest.raises(ValueError, match=f"^the record: .*{words}"):
        read_game_text(text, "the record")
    path = tmp_path / "game.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: .*{words}"):
        read_game(path)


def test_a_file_not_of_utf8_text_is_named(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_bytes(b"setgame clobber\n\xff\xfe a2a3\n")
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: not UTF-8 text"):
        read_game(path)


def test_a_game_named_is_the_records_own(tmp_path: Path) -> None:
    """`game` names a replay's game, and must be the game of a record that names its own."""
    _, moves, _ = random_replay("clobber", 4)
    listed = tmp_path / "game.txt"
    listed.write_text(f"setgame clobber\n{' '.join(moves)}\n")
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"game": "clobber", "moves": [{"move": move} for move in moves]}))
    for path in (listed, record):
        assert read_game(path, "clobber").name == "clobber"
        with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: a game of clobber, not of othello$"):
            read_game(path, "othello")
