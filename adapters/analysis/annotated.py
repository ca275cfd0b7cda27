"""The annotated record of an analysed game (`PREFIX.sgf` beside `PREFIX.json`), as
lichess's annotated export: every move played with the analysis as its comment (its
score, the engine's best move and score where it differs, the points lost), a mistake
marked `?` and a blunder `??`, and at each of them the engine's best line, from the
move it preferred, as a variation whose first move says what the move played lost.
The players' names are the record's headers; the root's comment says what the analysis
searched to. Written with `records.sgf` (docs/records.md)."""

from __future__ import annotations

from pathlib import Path

from adapters.analysis.gamefile import LEAVE, Game
from adapters.analysis.outputs import writing
from adapters.codingame import turn_format
from games import find_game
from games.files import atomic_file
from games.base import GameError
from records.sgf import write_sgf
from records.tree import GLYPH_NUMBERS, Node, Record, player_header

#: The glyph of each mark of the analysis.
MARK_GLYPHS = {"mistake": GLYPH_NUMBERS["?"], "blunder": GLYPH_NUMBERS["??"]}
#: The most moves of the engine's line a variation shows.
LINE_MOVES = 12


def annotated_record(game: Game, limit: dict, plies: list[dict]) -> Record:
    """The record of `game` with its analysis `plies` (`analyse_ply`'s, in order) as
    comments, glyphs and variations; `limit` is what each position was searched to."""
    rules = find_game(game.name)
    headers = {player_header(game.name, seat): name for seat, name in enumerate(game.players) if name}
    headers["AN"] = "engine-analyse"
    record = Record(game.name, headers, dict(game.params), game.board)
    searched = ", ".join(f"{name} {value}" for name, value in limit.items() if value is not None)
    record.root.comment = f"Analysed by the engine ({searched} a position)." + (
        f" The record stops early: {game.stopped}." if game.stopped else "")
    analyses = iter(plies)
    node = record.root
    for token in game.line():
        if token == LEAVE:
            node = node.add(LEAVE, -1)
            continue
        ply = next(analyses)
        parent, node = node, node.add(token, -1)
        node.comment = _comment(ply)
        glyph = MARK_GLYPHS.get(ply["mark"] or "")
        if glyph is not None:
            node.glyphs.append(glyph)
        if ply["best"] != token and glyph is not None:
            _add_line(parent, rules, ply)
    record.follow(getattr(turn_format(game.name), "leave", None))  # only a game of three has one
    return record


def _comment(ply: dict) -> str:
    words = [f"{ply['played_score']}"]
    if ply["best"] != ply["played"]:
        words.append(f"best {ply['best']} {ply['best_score']}")
    if ply["points_lost"]:
        words.append(f"{ply['points_lost']:.2f} points lost")
    if ply["mark"]:
        words.append(ply["mark"])
    return "; ".join(words) + f" (depth {ply['depth']})"


def _add_line(parent: Node, rules, ply: dict) -> None:
    """The engine's best line from `parent`'s position as a variation, as far as its
    moves are legal there (a line reported by the engine always is)."""
    line = next((entry["pv"] for entry in ply["top"] if entry["move"] == ply["best"]), [ply["best"]])
    position = rules.parse_board(ply["board"].split())
    node = parent
    for number, token in enumerate(line[:LINE_MOVES]):
        try:
            after = position.play(rules.parse_move(position, token))
        except GameError:
            break
        node = node.add(token, -1)
        if number == 0:
            node.comment = f"the engine's line: {ply['best_score']}, where {ply['played']} is {ply['played_score']}"
        position = after


def write_annotated(path: Path, game: Game, limit: dict, plies: list[dict]) -> None:
    """Write the annotated SGF record of `game` to `path`, whole or not at all; raises
    CannotWrite naming it."""
    text = write_sgf([annotated_record(game, limit, plies)])
    with writing(path), atomic_file(path, "w", encoding="utf-8") as out:
        out.write(text)
