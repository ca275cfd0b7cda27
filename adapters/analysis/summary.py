"""A summary over many analysed games: mistakes, blunders and points lost per player and
per game phase, and the worst moves of all.

A move's phase is that of the position it was played in (`Game.phase`: from what is
left on the board, the empty squares or the pieces, so the same position has the same
phase in every record; docs/analysis.md gives each game's bounds).

A player is named as its records name it (an arena record's bot, a CodinGame player);
a seat a record does not name counts for its side in parentheses, `(white)`. The same
name in several games (in any seat) is one player.
"""

from __future__ import annotations

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


def _stats(plies: Sequence[dict]) -> dict:
    """Moves, mistakes, blunders, and the mean expected points lost over the moves the
    engine gave win chances for (None without any)."""
    judged = [ply["points_lost"] for ply in plies if ply.get("points_lost") is not None]
    return {"moves": len(plies), "mistakes": sum(ply.get("mark") == "mistake" for ply in plies),
            "blunders": sum(ply.get("mark") == "blunder" for ply in plies),
            "points_lost_mean": round(sum(judged) / len(judged), 4) if judged else None}


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
        return f"{label:<28} {stats['moves']:>6} {stats['mistakes']:>9} {stats['blunders']:>9} {mean:>12}"

    games = f"{summary['games']} game" + ("" if summary["games"] == 1 else "s")
    lines = [f"{games}, {summary['plies']} moves analysed", "",
             f"{'player / phase':<28} {'moves':>6} {'mistakes':>9} {'blunders':>9} {'points lost':>12}"]
    for label, phases in [*summary["players"].items(), ("all players", summary["phases"])]:
        lines.append(row(label[:28], phases["all"]))
        lines.extend(row(f"  {name}", phases[name]) for name in PHASES if phases[name]["moves"])
    lines.append("(points lost: expected points given up per move, on average)")
    if summary["worst"]:
        lines += ["", "worst moves:"]
        for rank, move in enumerate(summary["worst"], 1):
            lines.append(f"{rank:>3}. {move['points_lost']:.3f} lost, {move['record']} ply {move['ply']}:"
                         f" {move['player']} ({move['side']}, {move['phase']}) played {move['played']},"
                         f" best {move['best']}" + (f" ({move['mark']})" if move["mark"] else ""))
            if move["link"]:
                lines.append(f"     {move['link']}")
    return "\n".join(lines)
