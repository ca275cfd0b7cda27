#!/usr/bin/env python3
"""How far the engine's Knight Isolation play is from the best it could do against the
sparring bots in a match: the ceiling, and where the engine's games left it.

    python scripts/sparring/ceiling.py RECORDS... [--seat NAME] [--nodes N] [--jobs J]

RECORDS are `engine-arena` game records (files, or folders of them) of Knight Isolation
games in which the seat named NAME (default `engine`) played against bots that are
functions of the position they are asked about: the example greedy bot and the paranoid
bot at a fixed depth (`paranoid.py --depth D`), with the seeds the arena gave them. Their
replies are then computed, not assumed: for each game the tool searches the seat's best
response to the bots themselves (`BestResponse`), and says

- whether first place could be had at all from the start;
- whether the seat had it, and if it could have had it and did not, its first mistake:
  the ply of the first move after which first place was out of reach, and what kind of
  position it was (three players in, two left, or the knights walled off from each other).

A game whose bots are not such functions (the timed paranoid bot) is refused: the tool
first replays each bot's recorded moves and stops where one differs from its computed
reply. The search is exact, within a node budget a question (`--nodes`, default
200,000): a question it cannot settle within it is reported as unknown.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import shlex
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from adapters.arena.referee import bot_seed  # noqa: E402
from adapters.bot.bots import greedy_move, position_rng  # noqa: E402
from adapters.codingame import turn_format  # noqa: E402
from adapters.pool import Runs  # noqa: E402
from games.base import Position  # noqa: E402
from paranoid import paranoid_move  # noqa: E402

FMT = turn_format("isolation")
GAME = FMT.GAME
PLAYERS = GAME.num_players
#: The final score of the last player standing: first place.
FIRST = PLAYERS - 1
#: A rival's move: a function of the position where it is to move (a square).
Reply = Callable[[Position], int]


class Exhausted(Exception):
    """A question took more nodes than its budget."""


class NotDeterministic(ValueError):
    """A game's bots are not functions of the position: their replies cannot be
    computed."""


def seen_by_bot(position: Position) -> Position:
    """The position as a bot reads it from its turn input (status lines and board),
    which is what its choice is a function of."""
    lines = FMT.format_turn(position, position.to_move, True, [])
    return GAME.parse_board(FMT.parse_turn(lines).board_text.split())


def bot_reply(choose: Callable, seed: int) -> Reply:
    """A bot of the `adapters.bot.bots` kind (`choose(game, position, legal tokens,
    rng)`), seeded with `seed`, as the function of the position it is, memoised."""

    @functools.lru_cache(maxsize=None)
    def reply(position: Position) -> int:
        state = seen_by_bot(position)
        token = choose(GAME, state, FMT.referee_moves(state, []), position_rng(seed, state))
        return GAME.parse_move(position, token)

    return reply


def greedy_reply(seed: int) -> Reply:
    return bot_reply(greedy_move, seed)


def paranoid_reply(seed: int, depth: int) -> Reply:
    return bot_reply(functools.partial(paranoid_move, depth=depth), seed)


def reply_of_command(command: str, seed: int) -> Reply:
    """The reply function of a bot given by its arena command, seeded with its
    ARENA_SEED; raises NotDeterministic for any other bot."""
    words = shlex.split(command)
    if words[-2:] == ["greedy", "isolation"] and "adapters.bot.bots" in words:
        return greedy_reply(seed)
    if any(word.endswith("paranoid.py") for word in words):
        if "--depth" not in words[:-1]:
            raise NotDeterministic(f"the paranoid bot searches to its clock: {command!r} (give it --depth)")
        return paranoid_reply(seed, int(words[words.index("--depth") + 1]))
    raise NotDeterministic(f"not a bot whose replies can be computed: {command!r}")


def phase(position: Position) -> str:
    """The kind of position: `decided` once no two knights still in can meet, else
    `three in` or `two left`."""
    if GAME.evaluation_terms(position)[0][0] == "decided":
        return "decided"
    return "three in" if bin(GAME.alive(position)).count("1") == PLAYERS else "two left"


class BestResponse:
    """Whether player `me` can finish first against rivals that are functions of the
    position (`rivals[player]`): an OR over `me`'s moves, the rivals' moves computed.

    Exact: every move of `me` is tried until one reaches first place, in the order of
    `me`'s value by the evaluation less the best rival's (in a walled-off position, the
    moves along its longest path first). Answers are memoised by position; a question
    that takes more than `nodes` positions of `me` to settle raises Exhausted.
    """

    def __init__(self, me: int, rivals: dict[int, Reply], nodes: int = 200_000):
        self.me = me
        self.rivals = rivals
        self.nodes = nodes
        self.visited = 0
        self.memo: dict[Position, bool] = {}

    def first_reachable(self, position: Position) -> bool:
        """Whether `me` can finish first from `position` (any player to move)."""
        self.visited = 0
        return self._first(position)

    def _first(self, position: Position) -> bool:
        while True:
            outcome = position.outcome()
            if outcome is not None:
                return outcome.returns[self.me] == FIRST
            if not GAME.alive(position) >> self.me & 1:
                return False
            mover = position.to_move
            if mover == self.me:
                break
            position = position.play(self.rivals[mover](position))
        known = self.memo.get(position)
        if known is not None:
            return known
        self.visited += 1
        if self.visited > self.nodes:
            raise Exhausted
        reachable = any(self._first(child) for child in self.ordered(position))
        self.memo[position] = reachable
        return reachable

    def ordered(self, position: Position) -> list[Position]:
        """The positions after each move of `me`, the most promising first."""
        children = [position.play(move) for move in position.legal_moves()]
        return sorted(children, key=self._promise, reverse=True)

    def _promise(self, child: Position) -> int:
        values = GAME.evaluate(child)
        rivals = [values[player] for player in range(PLAYERS) if player != self.me]
        return values[self.me] - max(rivals)


def record_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.json")) if path.is_dir() else [path])
    return files


def analyse(record: dict, seat_name: str, nodes: int) -> dict:
    """The ceiling of one recorded game for the seat named `seat_name`: a summary with
    `reachable` (first place from the start: True, False or None for unknown), `first`
    (the seat finished first), and for a game it could have won and did not, `mistake`
    (the ply, counted from 0 over the record's moves, and the kind of position)."""
    if record.get("game") != GAME.name:
        raise NotDeterministic(f"not a Knight Isolation record: {record.get('game')!r}")
    if seat_name not in record["seats"]:
        raise NotDeterministic(f"no seat named {seat_name!r} in {record['seats']}")
    me = record["seats"].index(seat_name)
    if any(event["event"] != "eliminated" for event in record["events"]):
        raise NotDeterministic("a bot left the game (timeout or invalid action)")
    rivals = {seat: reply_of_command(command, bot_seed(record["seed"], record["index"], seat))
              for seat, command in enumerate(record["commands"]) if seat != me}
    search = BestResponse(me, rivals, nodes)
    position = GAME.initial_state({"seed": str(record["seed"])})
    summary: dict = {"seed": record["seed"], "seat": me, "seats": record["seats"],
                     "first": record["result"]["ranks"][me] == 1, "mistake": None}
    reachable = _settle(search, position)
    summary["reachable"] = reachable
    for ply, entry in enumerate(record["moves"]):
        move = GAME.parse_move(position, entry["move"])
        if entry["player"] != me:
            computed = rivals[entry["player"]](position)
            if computed != move:
                raise NotDeterministic(
                    f"ply {ply}: the bot in seat {entry['player']} played {entry['move']}, its computed "
                    f"reply is {GAME.format_move(position, computed)}")
        elif reachable and summary["mistake"] is None:
            after = _settle(search, position.play(move))
            if after is False:
                summary["mistake"] = {"ply": ply, "kind": phase(position),
                                      "free": 64 - bin(GAME.blocked(position)).count("1") - PLAYERS}
            elif after is None:
                summary["mistake"] = {"ply": ply, "kind": "unknown"}
        position = position.play(move)
    return summary


def _settle(search: BestResponse, position: Position) -> bool | None:
    try:
        return search.first_reachable(position)
    except Exhausted:
        return None


def _analyse_file(job: tuple[Path, str, int]) -> tuple[str, dict | str]:
    path, seat_name, nodes = job
    try:
        return str(path), analyse(json.loads(path.read_text()), seat_name, nodes)
    except NotDeterministic as error:
        return str(path), str(error)


def report(summaries: Sequence[dict]) -> list[str]:
    """The table of a set of analysed games."""
    total = len(summaries)
    reachable = [s for s in summaries if s["reachable"]]
    unknown = sum(s["reachable"] is None for s in summaries)
    won = sum(s["first"] for s in reachable)
    lines = [f"games: {total}",
             f"first place reachable: {len(reachable)} ({_share(len(reachable), total)}), "
             f"unknown {unknown}, out of reach {total - len(reachable) - unknown}",
             f"first places where reachable: {won} of {len(reachable)} ({_share(won, len(reachable))})",
             f"first places in all: {sum(s['first'] for s in summaries)} "
             f"(the ceiling's share: {_share(sum(s['first'] for s in summaries), len(reachable))})"]
    kinds = collections.Counter(s["mistake"]["kind"] for s in reachable if s["mistake"])
    for kind, count in kinds.most_common():
        plies = sorted(s["mistake"]["ply"] for s in reachable if s["mistake"] and s["mistake"]["kind"] == kind)
        lines.append(f"first mistakes, {kind}: {count}, plies {plies[0]}-{plies[-1]}, median {plies[len(plies) // 2]}")
    return lines


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ceiling.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path, help="game records, or folders of them")
    parser.add_argument("--seat", default="engine", metavar="NAME",
                        help="the seat whose play is measured, by its name in the records (default engine)")
    parser.add_argument("--nodes", type=int, default=200_000, metavar="N",
                        help="positions of the seat a question may visit (default 200,000)")
    parser.add_argument("--jobs", type=int, default=1, metavar="J", help="records analysed at once")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="write each game's summary here, one a line")
    args = parser.parse_args(argv)
    jobs = [(path, args.seat, args.nodes) for path in record_files(args.records)]
    if not jobs:
        parser.error("no game records found")
    with Runs(_analyse_file, jobs, args.jobs) as runs:
        results = sorted(runs)  # in the order of the records, however they finished
    summaries = []
    for path, result in results:
        if isinstance(result, str):
            print(f"{path}: skipped: {result}", file=sys.stderr)
        else:
            summaries.append(result)
    if args.json:
        args.json.write_text("".join(json.dumps(summary) + "\n" for summary in summaries))
    if not summaries:
        print("no game could be analysed", file=sys.stderr)
        return 1
    print("\n".join(report(summaries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
