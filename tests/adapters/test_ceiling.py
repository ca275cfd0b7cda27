"""The Knight Isolation ceiling tool (`scripts/sparring/ceiling.py`): its best response
against deterministic bots equals a brute force on small boards, and on a real arena
game its computed bot replies are the moves the bot processes played."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import ROOT

SPARRING = ROOT / "scripts" / "sparring"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SPARRING / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


# The tool imports the paranoid bot as the module beside it, as a script does.
sys.modules.setdefault("paranoid", _load("paranoid"))
ceiling = _load("ceiling")
GAME = ceiling.GAME


def _late_position(seed: int, free: int, rng: random.Random):
    """A position of a random game from a seeded start with at most `free` free squares
    left (fewer when the game ends sooner: then the last position before its end)."""
    position = GAME.initial_state({"seed": str(seed)})
    while True:
        moves = position.legal_moves()
        child = position.play(rng.choice(moves))
        if child.outcome() is not None:
            return position
        position = child
        if 64 - bin(GAME.blocked(position)).count("1") - 3 <= free:
            return position


def _brute_first(position, me: int, rivals) -> bool:
    """Whether `me` can finish first, by trying every move of `me` in every line."""
    outcome = position.outcome()
    if outcome is not None:
        return outcome.returns[me] == ceiling.FIRST
    if not GAME.alive(position) >> me & 1:
        return False
    mover = position.to_move
    if mover != me:
        return _brute_first(position.play(rivals[mover](position)), me, rivals)
    return any(_brute_first(position.play(move), me, rivals) for move in position.legal_moves())


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), draw=st.integers(0, 2**32), me=st.integers(0, 2),
       paranoid_seat=st.integers(0, 1))
def test_best_response_equals_brute_force_on_small_boards(seed, draw, me, paranoid_seat):
    position = _late_position(seed, 20, random.Random(draw))
    others = [player for player in range(3) if player != me]
    rivals = {others[paranoid_seat]: ceiling.paranoid_reply(seed, 2),
              others[1 - paranoid_seat]: ceiling.greedy_reply(seed + 1)}
    search = ceiling.BestResponse(me, rivals)
    assert search.first_reachable(position) == _brute_first(position, me, rivals)


def test_a_question_past_its_budget_is_unknown():
    position = GAME.initial_state({"seed": "3"})
    rivals = {1: ceiling.greedy_reply(1), 2: ceiling.greedy_reply(2)}
    search = ceiling.BestResponse(0, rivals, nodes=3)
    assert ceiling._settle(search, position) is None


def test_the_computed_replies_are_the_bot_processes_moves(tmp_path):
    """A real match of a random seat against the paranoid bot at depth 2 and the greedy
    bot, analysed: every bot move the tool recomputes matches, and its verdict agrees
    with the result."""
    out = tmp_path / "records"
    paranoid = f"{sys.executable} {SPARRING / 'paranoid.py'} --depth 2"
    subprocess.run([sys.executable, "-m", "adapters.arena.main", "isolation", "--bot", "me=random",
                    "--bot", f"paranoid={paranoid}", "--bot", "greedy", "--games", "3", "--seed", "11",
                    "--jobs", "1", "--quiet", "--time-scale", "5", "--out", str(out)],
                   check=True, cwd=ROOT, capture_output=True, timeout=300)
    summaries = tmp_path / "summaries.jsonl"
    result = subprocess.run([sys.executable, str(SPARRING / "ceiling.py"), str(out), "--seat", "me",
                             "--json", str(summaries)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "skipped" not in result.stderr
    assert "games: 3" in result.stdout
    games = [json.loads(line) for line in summaries.read_text().splitlines()]
    assert len(games) == 3
    for game in games:
        if game["first"]:
            assert game["reachable"] is True and game["mistake"] is None
        elif game["reachable"]:
            assert game["mistake"] is not None


def test_a_timed_bot_is_refused():
    with pytest.raises(ceiling.NotDeterministic, match="--depth"):
        ceiling.reply_of_command(f"python {SPARRING / 'paranoid.py'}", 1)


def test_a_changed_bot_move_is_found(tmp_path):
    """A record whose bot move is not the bot's computed reply is refused, naming the ply."""
    position = GAME.initial_state({"seed": "4"})
    rivals = {1: ceiling.greedy_reply(ceiling.bot_seed(4, 0, 1)), 2: ceiling.greedy_reply(ceiling.bot_seed(4, 0, 2))}
    moves = []
    for _ in range(6):
        mover = position.to_move
        move = position.legal_moves()[0] if mover == 0 else rivals[mover](position)
        moves.append({"player": mover, "move": GAME.format_move(position, move)})
        position = position.play(move)
    wrong = next(entry for entry in moves if entry["player"] == 1)
    start = GAME.initial_state({"seed": "4"})
    legal = [GAME.format_move(start, move) for move in start.play(start.legal_moves()[0]).legal_moves()]
    wrong["move"] = next(token for token in legal if token != wrong["move"])
    greedy = f"{sys.executable} -m adapters.bot.bots greedy isolation"
    record = {"game": "isolation", "seed": 4, "index": 0, "seats": ["me", "g1", "g2"],
              "commands": ["x", greedy, greedy], "events": [], "moves": moves,
              "result": {"ranks": [1, 2, 3]}}
    with pytest.raises(ceiling.NotDeterministic, match="ply 1: the bot in seat 1"):
        ceiling.analyse(record, "me", 50)
