"""A self-contained HTML page that replays one arena game record.

The positions are worked out here, with the game's own rules, from the record's start
position, moves and events; the page embeds them as JSON and draws each with inline SVG
(no external file, font or script), with the board drawing it shares with the web GUI
(adapters/view/board.js). Buttons and the keys Left, Right, Home, End and
Space step through the game; each step shows the move, who played it (the bot and its
side: its colour, the game's `side_names`) and how long it took.
`page.html#20` opens at step 20.

With an `engine-analyse` report of the game, the page also shows the analysis of the
move each step shows: on the board, the engine's best move in the position before it
(blue, beside the move played); in the text, the engine's top moves there, the move's
score and expected points and what it gave up; under the board, each player's score
over the game (drawn as the analysis picture draws it, proven results on rows of their
own) with mistakes and blunders marked and the step shown.
"""

from __future__ import annotations

import html
import json
import re

from adapters.codingame import turn_format
from adapters.view.board import SCRIPT_FILE
from adapters.view.engine import engine_view
from games import find_game


def frames(record: dict) -> list[dict]:
    """Every position of the game, with the step that led to it: its board view
    (adapters.view.board), the cells that show the move, the move, the seat that played it,
    its time, a note."""
    fmt = turn_format(record["game"])
    game = fmt.GAME
    state = game.parse_board(record["start"].split())
    events: dict[int, list[dict]] = {}
    for event in record.get("events", []):
        events.setdefault(event["at"], []).append(event)
    seats = record["seats"]
    sides = find_game(record["game"]).side_names

    style = fmt.BOARD_STYLE

    def frame(move: dict | None, note: str = "") -> dict:
        return {
            "view": style.view(game.format_board(state).split()[0].split("/"), game.player_names),
            "last": [] if move is None or move.get("auto") else style.marks(move["move"]),
            "move": None if move is None else move["move"],
            "player": None if move is None else move["player"],
            "ms": None if move is None else move.get("ms"),
            "auto": bool(move and move.get("auto")),
            "note": note,
        }

    def describe(event: dict) -> str:
        who = f"{seats[event['player']]} ({sides[event['player']]})"
        return {"eliminated": f"{who} has no move and is out",
                "timeout": f"{who} did not answer in time",
                "crashed": f"{who} stopped answering",
                "invalid": f"{who} played an invalid action: {event.get('output')!r}"}.get(
                    event["event"], f"{who}: {event['event']}")

    result = [frame(None)]
    moves = record["moves"]
    for index in range(len(moves) + 1):
        for event in events.get(index, []):
            if event["event"] in ("timeout", "crashed", "invalid") and fmt.PLAYERS == 3:
                state = fmt.leave(state, event["player"])  # type: ignore[attr-defined]
            if result[-1]["note"]:
                result[-1]["note"] += "; "
            result[-1]["note"] += describe(event)
        if index == len(moves):
            break
        move = moves[index]
        state = state.play(game.parse_move(state, move["move"]))
        result.append(frame(move, "forced pass" if move.get("auto") else
                            "opening move" if move.get("opening") else ""))
    return result


def with_analysis(record: dict, steps: list[dict], analysis: dict) -> list[dict]:
    """`steps` (the frames) with, in each step after the start, the engine's view of the
    move that step shows (`engine`): the best move and top lines in the position before
    it, the move's score, its expected points (win + draw / 2, from the report's win
    chances; None without them), the expected points it gave up (`lost`, None without
    them), its loss in centi-units and its mark. Raises ValueError for a report of
    another game."""
    plies = analysis.get("plies", [])
    if analysis.get("game") != record["game"] or [ply["played"] for ply in plies] != [
            move["move"] for move in record["moves"]]:
        raise ValueError("the analysis is not of this game: its moves differ from the record's")
    style = turn_format(record["game"]).BOARD_STYLE
    for frame, ply in zip(steps[1:], plies):
        frame["engine"] = engine_view(ply)
        frame["best"] = style.marks(ply["best"]) if ply["best"] else []
    return steps


def replay_data(record: dict, analysis: dict | None = None) -> dict:
    """What the page embeds: the game, the seats (the bots) and their sides (the game's
    `side_names`), the frames (with `analysis`, an `engine-analyse` report of the game,
    the engine's view of each move) and the result. Raises ValueError for an analysis
    of another game."""
    sides = find_game(record["game"]).side_names
    scores = record["result"]["scores"]
    winner = record["result"]["winner"]
    outcome = ("draw" if winner is None and len(set(scores)) == 1 else
               f"{record['seats'][winner]} ({sides[winner]}) wins" if winner is not None else
               "ranks " + ", ".join(f"{name} {rank}" for name, rank in
                                    zip(record["seats"], record["result"]["ranks"])))
    return {
        "game": record["game"],
        "index": record.get("index"),
        "seed": record.get("seed"),
        "seats": record["seats"],
        "sides": list(sides),
        "frames": frames(record) if analysis is None else with_analysis(record, frames(record), analysis),
        "result": f"{outcome}: {record.get('reason', '')}; scores {scores}",
    }


def replay_page(record: dict, analysis: dict | None = None) -> str:
    """The HTML page for a game record (and its analysis, if given)."""
    # No `<` in the embedded JSON: nothing in it can end the script element.
    data = json.dumps(replay_data(record, analysis), separators=(",", ":")).replace("<", "\\u003c")
    title = html.escape(f"{record['game']} game {record.get('index', '')}: "
                        + " vs ".join(record["seats"]))
    values = {"TITLE": title, "DATA": data, "SCRIPT": BOARD_SCRIPT + SCRIPT}
    return re.sub(r"__(TITLE|DATA|SCRIPT)__", lambda match: values[match.group(1)], _PAGE)


#: The board drawing the page shares with the web GUI (adapters/view/board.js).
BOARD_SCRIPT = SCRIPT_FILE.read_text(encoding="utf-8")
#: The page's script, after the board drawing: it binds buttons and keys, and shows each
#: step.
SCRIPT = r"""
(function () {
  "use strict";
  var Board = window.Board;

  // Who played a seat's moves: the bot, and its side in words.
  function player(data, seat) {
    return data.seats[seat] + " (" + data.sides[seat] + ")";
  }

  // The engine's view of the move the frame shows: the position before it, and the move.
  function describeEngine(data, frame) {
    var e = frame.engine;
    if (!e) return "";
    var top = e.top.map(function (line) { return line[0] + " (" + line[1] + ")"; }).join(", ");
    var cost = e.lost !== null && e.lost !== undefined ?
      (e.lost || e.loss ? ", giving up " + e.lost.toFixed(2) + " expected points (" + e.loss + " centi-units)" : "") :
      (e.loss ? ", losing " + e.loss + " centi-units" : "");
    return "engine, before " + e.played + ": best " + e.best + "; top " + top + "; " + e.played + " by " +
           player(data, e.player) + " scored " + e.score +
           (e.points === null || e.points === undefined ? "" : " (expected points " + e.points.toFixed(2) + ")") +
           cost + (e.mark ? " \u2014 " + e.mark : "");
  }

  function describe(data, index) {
    var frame = data.frames[index], text;
    if (frame.move === null) {
      text = "start position";
    } else {
      text = player(data, frame.player) + " " + (frame.auto ? "passes (forced)" : "plays " + frame.move) +
             (frame.ms === null || frame.ms === undefined ? "" : " in " + frame.ms.toFixed(1) + " ms");
    }
    if (frame.note) text += " \u2014 " + frame.note;
    return "step " + index + " / " + (data.frames.length - 1) + ": " + text;
  }

  function start(document) {
    var data = JSON.parse(document.getElementById("record").textContent);
    var board = document.getElementById("board"), info = document.getElementById("info");
    var plies = data.frames.map(function (frame) { return frame.engine || null; });
    var index = 0, timer = null;
    document.getElementById("title").textContent = data.game + " \u2014 " + data.seats.join(" vs ") +
      (data.seed === null || data.seed === undefined ? "" : " (seed " + data.seed + ")");
    document.getElementById("result").textContent = data.result;
    var graph = document.getElementById("graph"), engine = document.getElementById("engine");
    function show(k) {
      index = Math.max(0, Math.min(data.frames.length - 1, k));
      var frame = data.frames[index];
      board.innerHTML = Board.renderBoard(frame.view, {last: frame.last, best: frame.best});
      info.textContent = describe(data, index);
      graph.innerHTML = Board.renderGraph(plies, index, data.seats, frame.view.width * Board.CELL,
                                          frame.view.colours);
      engine.textContent = describeEngine(data, frame);
    }
    function play() {
      if (timer !== null) { clearInterval(timer); timer = null; return; }
      timer = setInterval(function () {
        if (index >= data.frames.length - 1) { clearInterval(timer); timer = null; } else { show(index + 1); }
      }, 700);
    }
    var actions = {first: function () { show(0); }, prev: function () { show(index - 1); },
                   next: function () { show(index + 1); }, last: function () { show(data.frames.length - 1); },
                   play: play};
    Object.keys(actions).forEach(function (id) {
      document.getElementById(id).addEventListener("click", actions[id]);
    });
    document.addEventListener("keydown", function (event) {
      var keys = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", " ": "play"};
      if (keys[event.key]) { event.preventDefault(); actions[keys[event.key]](); }
    });
    var hash = typeof location !== "undefined" ? parseInt(location.hash.substring(1), 10) : NaN;
    show(isNaN(hash) ? 0 : hash);
    return {show: show, data: data};
  }

  if (typeof window !== "undefined") window.replay = start(document);
})();
"""


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
<style>
body { font-family: sans-serif; margin: 1.5em; background: #fafafa; color: #222; }
#controls button { font-size: 1.1em; min-width: 3em; margin-right: 0.3em; }
#info { margin: 0.6em 0; min-height: 1.4em; }
#engine { margin: 0.3em 0 0.6em; min-height: 1.4em; color: #1e4f8a; }
#result { margin-top: 0.6em; font-weight: bold; }
</style>
</head>
<body>
<h1 id="title">__TITLE__</h1>
<div id="controls">
<button id="first" title="Home">|&lt;</button><button id="prev" title="Left">&lt;</button><button id="play" title="Space">play</button><button id="next" title="Right">&gt;</button><button id="last" title="End">&gt;|</button>
</div>
<div id="info"></div>
<div id="engine"></div>
<div id="board"></div>
<div id="graph"></div>
<div id="result"></div>
<script id="record" type="application/json">__DATA__</script>
<script>__SCRIPT__</script>
</body>
</html>
"""
