"""A summary over many analysed games: inaccuracies, mistakes, blunders, points lost and
accuracy per player and per game phase, and the worst moves of all; and the same per
seat of one game (`seat_summary`).

A move's phase is that of the position it was played in (`Game.phase`: from what is
left on the board, the empty squares or the pieces, so the same position has the same
phase in every record; docs/analysis.md gives each game's bounds).

A player is named as its records name it (an arena record's bot, a CodinGame player);
a seat a record does not name counts for its side in parentheses, `(white)`. The same
name in several games (in any seat) is one player.
"""

from __future__ import annotations

import math
from typing import Sequence

import attrs

from games import find_game
from games.base import PHASE_NAMES, Game

PHASES = PHASE_NAMES


def phase(game: Game, ply: dict) -> str:
    """The phase of the position an analysed `ply` (of a report of `game`) was played in."""
    return PHASES[game.phase(game.parse_board(ply["board"].split()))]


def player_name(report: dict, seat: int) -> str:
    """Who played `seat` in the game of `report` (an `engine-analyse` report)."""
    names = report.get("players") or []
    name = names[seat] if seat < len(names) else None
    return name if name else f"({find_game(report['game']).side_names[seat]})"


@attrs.frozen
class Analysed:
    """One analysed game of a summary: its `report` (as PREFIX.json holds it), the
    `record` it was made from, as the summary names it, and `link`, the address of its
    replay page (to which `#PLY` is added), or None without one."""

    report: dict
    record: str
    link: str | None = None


#: The expected points an unmarked move gives up to count as an inaccuracy (`?!`), below
#: a mistake's (`adapters.analysis.analyse.MISTAKE_POINTS`).
INACCURACY_POINTS = 0.05


def move_accuracy(points_lost: float) -> float:
    """A move's accuracy, 0 to 100, from the expected points it gave up (0 to 1): lichess's
    curve, 103.1668 e^(-0.04354 L) - 3.1669 with L the win chances lost in percent,
    here 100 x the points lost. A best move scores 100, 0.05 points lost 79.8, 0.1 points
    63.6, 0.2 points 40.0, 0.5 points 8.5."""
    return min(100.0, max(0.0, 103.1668 * math.exp(-4.354 * points_lost) - 3.1669))


def _stats(plies: Sequence[dict]) -> dict:
    """Moves, inaccuracies (unmarked moves that gave up INACCURACY_POINTS or more),
    mistakes, blunders, and over the moves the engine gave win chances for (None without
    any) the mean expected points lost and the accuracy (the mean of `move_accuracy`)."""
    judged = [ply["points_lost"] for ply in plies if ply.get("points_lost") is not None]
    return {"moves": len(plies),
            "inaccuracies": sum(not ply.get("mark") and (ply.get("points_lost") or 0) >= INACCURACY_POINTS
                                for ply in plies),
            "mistakes": sum(ply.get("mark") == "mistake" for ply in plies),
            "blunders": sum(ply.get("mark") == "blunder" for ply in plies),
            "points_lost_mean": round(sum(judged) / len(judged), 4) if judged else None,
            "accuracy": round(sum(map(move_accuracy, judged)) / len(judged), 1) if judged else None}


def seat_summary(report: dict) -> list[dict]:
    """The stats of each seat over one analysed game (`report`, as PREFIX.json holds
    it), with its player's name (`player_name`) and side."""
    rules = find_game(report["game"])
    return [{"player": player_name(report, seat), "side": rules.side_names[seat],
             **_stats([ply for ply in report["plies"] if ply["player"] == seat])}
            for seat in range(rules.num_players)]


def summarise(games: Sequence[Analysed], worst: int = 10) -> dict:
    """The summary of `games`: `games` and `plies` (counts); `players`: for each player
    (in the order they first appear), its stats (`moves`, `mistakes`, `blunders`,
    `points_lost_mean`) over all its moves (`all`) and in each phase; `phases`: the same
    over every player; `worst`: the `worst` moves that lost the most expected points
    (ties: the most centi-units, then the games' order and the plies'), each with its
    record, ply, player, side, phase, the move played and the engine's best, what it
    lost, its mark and `link` (the replay page at its ply, or None)."""
    by_player: dict[str, dict[str, list[dict]]] = {}
    by_phase: dict[str, list[dict]] = {name: [] for name in ("all", *PHASES)}
    candidates = []
    for order, game in enumerate(games):
        rules = find_game(game.report["game"])
        for ply in game.report["plies"]:
            name, when = player_name(game.report, ply["player"]), phase(rules, ply)
            mine = by_player.setdefault(name, {key: [] for key in ("all", *PHASES)})
            for key in ("all", when):
                mine[key].append(ply)
                by_phase[key].append(ply)
            if ply.get("points_lost"):
                candidates.append((-ply["points_lost"], -ply["loss"], order, ply["ply"], {
                    "record": game.record, "ply": ply["ply"], "player": name, "side": rules.side_names[ply["player"]],
                    "phase": when, "played": ply["played"], "best": ply["best"],
                    "points_lost": ply["points_lost"], "loss": ply["loss"], "mark": ply["mark"],
                    "link": None if game.link is None else f"{game.link}#{ply['ply']}"}))
    candidates.sort(key=lambda entry: entry[:4])
    return {"games": len(games), "plies": sum(len(game.report["plies"]) for game in games),
            "players": {name: {key: _stats(plies) for key, plies in phases.items()}
                        for name, phases in by_player.items()},
            "phases": {key: _stats(plies) for key, plies in by_phase.items()},
            "worst": [entry[-1] for entry in candidates[:worst]]}


def summary_text(summary: dict) -> str:
    """The summary as text: a table of players by phase, then the worst moves."""
    def row(label: str, stats: dict) -> str:
        mean = "-" if stats["points_lost_mean"] is None else f"{stats['points_lost_mean']:.3f}"
        accuracy = "-" if stats["accuracy"] is None else f"{stats['accuracy']:.1f}"
        return (f"{label:<28} {stats['moves']:>6} {stats['inaccuracies']:>12} {stats['mistakes']:>9}"
                f" {stats['blunders']:>9} {mean:>12} {accuracy:>9}")

    games = f"{summary['games']} game" + ("" if summary["games"] == 1 else "s")
    lines = [f"{games}, {summary['plies']} moves analysed", "",
             f"{'player / phase':<28} {'moves':>6} {'inaccuracies':>12} {'mistakes':>9} {'blunders':>9}"
             f" {'points lost':>12} {'accuracy':>9}"]
    for label, phases in [*summary["players"].items(), ("all players", summary["phases"])]:
        lines.append(row(label[:28], phases["all"]))
        lines.extend(row(f"  {name}", phases[name]) for name in PHASES if phases[name]["moves"])
    lines.append("(points lost: expected points given up per move, on average; accuracy: 0 to 100, see"
                 " docs/analysis.md)")
    if summary["worst"]:
        lines += ["", "worst moves:"]
        for rank, move in enumerate(summary["worst"], 1):
            lines.append(f"{rank:>3}. {move['points_lost']:.3f} lost, {move['record']} ply {move['ply']}:"
                         f" {move['player']} ({move['side']}, {move['phase']}) played {move['played']},"
                         f" best {move['best']}" + (f" ({move['mark']})" if move["mark"] else ""))
            if move["link"]:
                lines.append(f"     {move['link']}")
    return "\n".join(lines)
