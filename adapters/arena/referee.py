"""One game between CodinGame bots, refereed as the CodinGame referee does it.

The rules are the engine's own (`games`); the input each bot gets is `format_turn` of
its game; each output line is read with that referee's own parsing (`parse_output`).
A bot that answers late, whose output ends, or whose action is invalid loses as on
CodinGame: in a two-player game the other player wins at once; in a game of more players
it leaves the game with score -1 (the turn format's `leave`), and the others play on.

Scores are CodinGame's: two-player games give the winner 1 and the loser 0 (-1 for a
timeout or bad action), a draw 0 each. Games of more players count up from 0: each
player the rules put out (the turn format's `players_out`) takes the next value, the
last player standing the one after, a player that timed out or played a bad action
gets -1, and players still in when the turn cap ends the game keep 0. Ranks follow the
scores (equal scores share a rank).
"""

from __future__ import annotations

import itertools
import os
import random
import time
from typing import Sequence

import attrs

from adapters.arena.process import BotProcess
from adapters.codingame import turn_format
from adapters.codingame.common import RANDOM
from protocol.launch import single_blas_thread


@attrs.frozen
class GameSpec:
    """What one game needs: the game, its number and seed, the bot commands by seat,
    the factor on the time limits, and the opening: moves played from the start
    position before the bots' first turn."""

    game: str
    index: int
    seed: int
    commands: tuple[str, ...]
    names: tuple[str, ...]
    time_scale: float = 1.0
    opening: tuple[str, ...] = ()


async def play_game(spec: GameSpec) -> dict:
    """Play one game; returns its record (see `docs/codingame.md`)."""
    fmt = turn_format(spec.game)
    game = fmt.GAME
    players = fmt.PLAYERS
    assert len(spec.commands) == players
    rng = random.Random(spec.seed * 1000 + spec.index)
    state = game.initial_state({"seed": str(spec.seed)} if "seed" in game.parameters else {})
    record: dict = {
        "game": spec.game, "index": spec.index, "seed": spec.seed,
        "start": game.format_board(state), "seats": list(spec.names),
        "commands": list(spec.commands), "time_scale": spec.time_scale,
        "moves": [], "events": [],
    }
    history: list[tuple[int, str]] = []
    for token in spec.opening:
        record["moves"].append({"player": state.to_move, "move": token, "opening": True})
        history.append((state.to_move, token))
        state = state.play(game.parse_move(state, token))
    bots = []
    for seat, command in enumerate(spec.commands):
        bot = BotProcess(command, env=_bot_env(spec, seat))
        bots.append(bot)
    asked = [False] * players
    expert = [False] * players
    cg_scores: list[int | None] = [None] * players
    counter = 0
    reason = ""
    started = time.monotonic()
    try:
        for bot in bots:
            await bot.start()
        while True:
            outcome = state.outcome()
            if outcome is not None:
                break
            player = state.to_move
            forced = fmt.skipped(state)
            if forced is not None:
                record["moves"].append({"player": player, "move": forced, "auto": True})
                history.append((player, forced))
                state = state.play(game.parse_move(state, forced))
                continue
            first = not asked[player]
            asked[player] = True
            limit_ms = (fmt.FIRST_TURN_MS if first else fmt.TURN_MS) * spec.time_scale
            legal = fmt.referee_moves(state, history)
            lines = fmt.format_turn(state, player, first, history, expert=expert[player])
            line, elapsed, status = await bots[player].ask(lines, limit_ms / 1000)
            ms = round(elapsed * 1000, 2)
            token = None
            if status == "ok":
                assert line is not None
                token = fmt.parse_output(line, legal)
                if token == RANDOM:
                    token = rng.choice(legal)
                if token is None:
                    status = "invalid"
                elif getattr(fmt, "asks_expert", None) and fmt.asks_expert(line):  # type: ignore[attr-defined]
                    expert[player] = True
            if token is None:
                record["events"].append({"at": len(record["moves"]), "player": player, "event": status,
                                         "output": None if line is None else line[:80], "ms": ms,
                                         "limit_ms": limit_ms})
                if players == 2:
                    cg_scores[player], cg_scores[1 - player] = -1, 0
                    reason = f"{spec.names[player]} (seat {player}) {_REASONS[status]}"
                    break
                cg_scores[player] = -1
                out = {player, *fmt.players_out(state)}  # type: ignore[attr-defined]
                state = fmt.leave(state, player)  # type: ignore[attr-defined]
                counter = _eliminations(record, fmt, state, out, cg_scores, counter)
                continue
            record["moves"].append({"player": player, "move": token, "output": line[:80] if line else "",
                                    "ms": ms, "limit_ms": limit_ms,
                                    # time.monotonic() of the input written and the answer
                                    # read: one clock for every process of the machine.
                                    "at": [round(bots[player].sent_at, 6),
                                           round(bots[player].received_at, 6)]})
            history.append((player, token))
            out = set(fmt.players_out(state)) if players > 2 else set()  # type: ignore[attr-defined]
            state = state.play(game.parse_move(state, token))
            if players > 2:
                counter = _eliminations(record, fmt, state, out, cg_scores, counter)
        outcome = state.outcome()
        if outcome is not None and not reason:
            reason = outcome.reason
            if players == 2:
                cg_scores = [1 if value > 0 else 0 for value in outcome.returns]
            elif outcome.winner is not None:
                cg_scores[outcome.winner] = counter
                counter += 1
    finally:
        exits = [await bot.close() for bot in bots]
    scores = [0 if score is None else score for score in cg_scores]
    ranks = [1 + sum(other > score for other in scores) for score in scores]
    winners = [seat for seat, rank in enumerate(ranks) if rank == 1]
    record.update({
        "result": {"scores": scores, "ranks": ranks,
                   "winner": winners[0] if len(winners) == 1 else None},
        "reason": reason,
        "final": game.format_board(state),
        "seconds": round(time.monotonic() - started, 3),
        "exit_codes": exits,
        "stderr": [list(bot.stderr) for bot in bots],
    })
    return record


_REASONS = {"timeout": "did not answer in time", "crashed": "stopped answering (output ended)",
            "invalid": "played an invalid action"}


def bot_seed(seed: int, index: int, seat: int) -> int:
    """The ARENA_SEED of the bot in `seat` of the game numbered `index` of a match,
    played from the start position of `seed`: a seed of its own per game and seat."""
    return seed * 1_000_003 + index * 10 + seat


def _bot_env(spec: GameSpec, seat: int) -> dict[str, str]:
    """The bots' environment, with ARENA_SEED (`bot_seed`); and one BLAS thread unless
    the arena's environment sets it (`single_blas_thread`)."""
    env = single_blas_thread(os.environ)
    env["ARENA_SEED"] = str(bot_seed(spec.seed, spec.index, seat))
    return env


def _eliminations(record: dict, fmt, state, out: set[int], cg_scores: list[int | None], counter: int) -> int:
    """Give the players the rules have put out since `out` (the players out before) the
    next scores, in the order they went out; returns the counter. `fmt` is the turn
    format of a game of more than two players (its `players_out`)."""
    for player in fmt.players_out(state):
        if player not in out:
            cg_scores[player] = counter
            counter += 1
            record["events"].append({"at": len(record["moves"]), "player": player, "event": "eliminated"})
    return counter


def seat_orders(players: int) -> list[tuple[int, ...]]:
    """The seat orders a match cycles through: both for two players, all six for three
    (entry i of an order is the bot in seat i)."""
    return list(itertools.permutations(range(players)))


def plan(game: str, bots: Sequence[tuple[str, str]], games: int, seed: int,
         time_scale: float, openings: Sequence[tuple[str, ...]] = ()) -> list[GameSpec]:
    """The games of a match: seat orders rotate every game; the seed and the opening
    change once every order has been played from them (the seed matters for a seeded
    start position and the bots' RNGs). Openings are taken in turn, from the first
    again once all have been played."""
    orders = seat_orders(len(bots))
    specs = []
    for index in range(games):
        order = orders[index % len(orders)]
        group = index // len(orders)
        specs.append(GameSpec(
            game=game, index=index, seed=seed + group,
            commands=tuple(bots[bot][1] for bot in order),
            names=tuple(bots[bot][0] for bot in order),
            time_scale=time_scale,
            opening=openings[group % len(openings)] if openings else (),
        ))
    return specs
