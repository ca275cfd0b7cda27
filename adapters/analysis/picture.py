"""The picture of an analysed game: the score of each move played over the game, for
its player, with the mistakes marked, and the expected points of the moves played."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from adapters.analysis.gamefile import Game
from adapters.analysis.outputs import writing
from adapters.view.engine import expected_points
from games import find_game
from protocol.info import Score

#: The picture draws scores up to this size (centi-units) to a linear scale, larger ones
#: to a logarithmic one.
LINEAR_CP = 1000



def score_heights(scores: Sequence[Score]) -> tuple[list[float], float]:
    """Where the picture draws each score, and the height of the row of proven wins
    (proven losses: its negative). An unproven score is drawn at its own value, never
    clipped (the axis is linear up to ±LINEAR_CP, logarithmic beyond); a proven result
    on its row, twice the largest unproven size (at least LINEAR_CP), so that it stands
    beyond every unproven score."""
    largest = max([abs(score.cp) for score in scores if score.cp is not None] + [LINEAR_CP])
    proven = 2.0 * largest
    return [float(score.cp) if score.mate is None else proven if score.mate > 0 else -proven
            for score in scores], proven


def _score_ticks(proven: float) -> tuple[list[float], list[str]]:
    """The score axis's ticks: 0, sizes well below the proven rows (500, then 1000, 3000,
    10000, 30000 and on, half a decade apart on the logarithmic part), and the two proven
    rows, named."""
    steps = [500] + [size * 10 ** power for power in range(3, 12) for size in (1, 3)]
    sizes = [step for step in steps if step < proven / 1.5]
    ticks = [-proven, *(-size for size in reversed(sizes)), 0, *sizes, proven]
    labels = ["proven loss", *(f"{-size:,}" for size in reversed(sizes)), "0", *(f"{size:,}" for size in sizes),
              "proven win"]
    return ticks, labels


def player_labels(game: Game) -> list[str]:
    """How the picture names each player: its side (the game's `side_names`) and,
    where the record names it, the player (`black: bot-a`)."""
    sides = find_game(game.name).side_names
    names = [*game.players, *[None] * len(sides)]
    return [f"{side}: {name}" if name else side for side, name in zip(sides, names)]


def plot(game: Game, plies: list[dict], prefix: Path) -> list[Path]:
    """PREFIX.png and PREFIX.svg: each player's score after each of its turns (from its
    own point of view, drawn by `score_heights`: proven results as stars on rows beyond
    every unproven score), mistakes and blunders circled; below it, where the engine
    gave win chances, the expected points (win + draw / 2) of each move played for its
    player. The players are named by `player_labels`. None without matplotlib (the
    `analyse` extra). Raises CannotWrite naming a file it cannot write."""
    try:
        import matplotlib
    except ImportError:
        print("engine-analyse: no picture: matplotlib is not installed (pip install 'engine[analyse]')",
              file=sys.stderr)
        return []

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    labels, sides = player_labels(game), find_game(game.name).side_names
    chances = any(ply.get("played_wdl") for ply in plies)
    figure, panels = plt.subplots(2 if chances else 1, 1, figsize=(10, 7.5 if chances else 5), sharex=True,
                                  squeeze=False, height_ratios=[3, 2] if chances else None)
    axes = panels[0][0]
    scores = [_score(ply["played_score"]) for ply in plies]
    heights, proven = score_heights(scores)
    proven_labelled = False
    for player, (label, side) in enumerate(zip(labels, sides)):
        mine = [(ply, score, height) for ply, score, height in zip(plies, scores, heights) if ply["player"] == player]
        line, = axes.plot([ply["ply"] for ply, _, _ in mine], [height for _, _, height in mine], marker=".",
                          linewidth=1.2, label=label)
        certain = [(ply["ply"], height) for ply, score, height in mine if score.mate is not None]
        if certain:
            axes.scatter(*zip(*certain), marker="*", s=130, color=line.get_color(), edgecolors="black",
                         linewidths=0.6, zorder=4, label=None if proven_labelled else "proven result")
            proven_labelled = True
        for style, colour in (("mistake", "orange"), ("blunder", "red")):
            marked = [(ply["ply"], height) for ply, _, height in mine if ply["mark"] == style]
            if marked:
                axes.scatter(*zip(*marked), s=90, facecolors="none", edgecolors=colour, linewidths=1.6,
                             label=f"{style}s of {side}", zorder=3)
        if chances:
            points = [(ply["ply"], expected_points(ply["played_wdl"])) for ply, _, _ in mine if ply.get("played_wdl")]
            if points:
                panels[1][0].plot(*zip(*points), marker=".", linewidth=1.2, color=line.get_color(), label=label)
    axes.set_yscale("symlog", linthresh=LINEAR_CP, linscale=1.5)
    top = proven * 1.35
    axes.set_ylim(-top, top)
    for sign in (1, -1):  # the proven rows' bands start between them and the largest unproven size
        axes.axhspan(sign * proven / 1.4, sign * top, color="#f1f1f1", zorder=0)
    axes.set_yticks(*_score_ticks(proven))
    axes.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_ylabel(f"score of the move played, for its player\n(centi-units; linear to ±{LINEAR_CP:,})")
    axes.set_title(f"{game.name}: {len(plies)} plies analysed")
    axes.legend(fontsize="small", ncol=2)
    if chances:
        below = panels[1][0]
        below.axhline(0.5, color="grey", linewidth=0.8)
        below.set_ylim(0, 1)
        below.set_ylabel("expected points of the move\nplayed (win + draw / 2)")
        below.legend(fontsize="small", ncol=len(labels))
    panels[-1][0].set_xlabel("ply")
    figure.tight_layout()
    written = []
    try:
        for suffix in (".png", ".svg"):
            path = prefix.with_suffix(suffix)
            with writing(path):
                figure.savefig(path, dpi=110)
            written.append(path)
    finally:
        plt.close(figure)
    return written

def _score(text: str) -> Score:
    kind, value = text.split()
    return Score(**{kind: int(value)})

