"""A self-contained HTML page that replays one arena game record.

The positions are worked out here, with the game's own rules, from the record's start
position, moves and events; the page embeds them as JSON and draws each with inline SVG
(no external file, font or script). Buttons and the keys Left, Right, Home, End and
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

from adapters.analysis.analyse import expected_points
from adapters.codingame import turn_format
from games import find_game


def frames(record: dict) -> list[dict]:
    """Every position of the game, with the step that led to it: board rows (the board
    text's rows, top line first), the move, the seat that played it, its time, a note."""
    fmt = turn_format(record["game"])
    game = fmt.GAME
    state = game.parse_board(record["start"].split())
    events: dict[int, list[dict]] = {}
    for event in record.get("events", []):
        events.setdefault(event["at"], []).append(event)
    seats = record["seats"]
    sides = find_game(record["game"]).side_names

    def frame(move: dict | None, note: str = "") -> dict:
        return {
            "rows": game.format_board(state).split()[0].split("/"),
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
    for frame, ply in zip(steps[1:], plies):
        frame["engine"] = {"best": ply["best"], "top": [[line["move"], line["score"]] for line in ply["top"]],
                           "played": ply["played"], "score": ply["played_score"], "loss": ply["loss"],
                           "lost": ply.get("points_lost"), "mark": ply["mark"], "player": ply["player"],
                           "points": _round(expected_points(ply.get("played_wdl")))}
    return steps


def _round(points: float | None) -> float | None:
    return None if points is None else round(points, 3)


def replay_data(record: dict, analysis: dict | None = None) -> dict:
    """What the page embeds: the game, how to draw its board, the seats (the bots) and
    their sides (the game's `side_names`), the frames (with `analysis`, an
    `engine-analyse` report of the game, the engine's view of each move) and the result. Raises ValueError for
    a game the page cannot draw, or an analysis of another game."""
    fmt = turn_format(record["game"])
    style = fmt.BOARD_STYLE
    if style is None:
        raise ValueError(f"the replay page cannot draw a {record['game']} board")
    names = fmt.GAME.player_names
    sides = find_game(record["game"]).side_names
    scores = record["result"]["scores"]
    winner = record["result"]["winner"]
    outcome = ("draw" if winner is None and len(set(scores)) == 1 else
               f"{record['seats'][winner]} ({sides[winner]}) wins" if winner is not None else
               "ranks " + ", ".join(f"{name} {rank}" for name, rank in
                                    zip(record["seats"], record["result"]["ranks"])))
    return {
        "game": record["game"],
        "style": {"pieces": dict(zip(names, style.colours, strict=True)),
                  "row1Top": style.row1_top, "felt": style.felt, "lettered": style.lettered},
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
    values = {"TITLE": title, "DATA": data, "SCRIPT": SCRIPT}
    return re.sub(r"__(TITLE|DATA|SCRIPT)__", lambda match: values[match.group(1)], _PAGE)


#: The page's script: `renderBoard(data, frame)` returns the SVG text of a position (pure,
#: so that it can be checked outside a browser); the rest binds buttons and keys.
SCRIPT = r"""
(function () {
  "use strict";
  var CELL = 48, PAD = 24, SVG = '<svg xmlns="http://www.w3.org/2000/svg"';

  function squareOf(style, name) {
    var file = name.charCodeAt(0) - 97, rank = parseInt(name.substring(1), 10);
    if (!(file >= 0 && file < 8 && rank >= 1 && rank <= 8)) return null;
    return {col: file, row: style.row1Top ? rank - 1 : 8 - rank};
  }

  function marked(style, move) {
    if (!move || move === "pass") return [];
    var names = move.length === 4 ? [move.substring(0, 2), move.substring(2)] : [move];
    return names.map(function (n) { return squareOf(style, n); }).filter(Boolean);
  }

  function renderBoard(data, frame) {
    var style = data.style, size = 8 * CELL + 2 * PAD, out = [];
    out.push(SVG + ' width="' + size + '" height="' + size +
             '" viewBox="0 0 ' + size + ' ' + size + '">');
    var marks = marked(style, frame.move);
    for (var r = 0; r < 8; r++) {
      var label = style.row1Top ? r + 1 : 8 - r;
      out.push('<text x="8" y="' + (PAD + r * CELL + CELL / 2 + 5) + '" font-size="13">' + label + '</text>');
      for (var c = 0; c < 8; c++) {
        var x = PAD + c * CELL, y = PAD + r * CELL, ch = frame.rows[r].charAt(c);
        var fill = style.felt || ((r + c) % 2 ? "#b58863" : "#f0d9b5");
        if (ch === "#") fill = "#555";
        out.push('<rect class="cell" x="' + x + '" y="' + y + '" width="' + CELL + '" height="' +
                 CELL + '" fill="' + fill + '" stroke="#333" stroke-width="0.5"/>');
        var piece = style.pieces.hasOwnProperty(ch) ? style.pieces[ch] : null;
        if (piece) {
          out.push('<circle class="piece" cx="' + (x + CELL / 2) + '" cy="' + (y + CELL / 2) +
                   '" r="' + (CELL * 0.38) + '" fill="' + piece[0] + '" stroke="' + piece[1] +
                   '" stroke-width="2"/>');
          if (style.lettered) {
            out.push('<text x="' + (x + CELL / 2 - 5) + '" y="' + (y + CELL / 2 + 6) +
                     '" font-size="17" fill="#fff">' + ch + '</text>');
          }
        }
      }
    }
    for (var m = 0; m < marks.length; m++) {
      out.push('<rect class="mark" x="' + (PAD + marks[m].col * CELL + 2) + '" y="' +
               (PAD + marks[m].row * CELL + 2) + '" width="' + (CELL - 4) + '" height="' +
               (CELL - 4) + '" fill="none" stroke="#e91e63" stroke-width="3"/>');
    }
    var best = frame.engine ? marked(style, frame.engine.best) : [];
    for (var b = 0; b < best.length; b++) {
      out.push('<rect class="best" x="' + (PAD + best[b].col * CELL + 6) + '" y="' +
               (PAD + best[b].row * CELL + 6) + '" width="' + (CELL - 12) + '" height="' +
               (CELL - 12) + '" fill="none" stroke="#1e88e5" stroke-width="3" stroke-dasharray="5,3"/>');
    }
    for (var f = 0; f < 8; f++) {
      out.push('<text x="' + (PAD + f * CELL + CELL / 2 - 4) + '" y="' + (size - 6) +
               '" font-size="13">' + String.fromCharCode(97 + f) + '</text>');
    }
    out.push("</svg>");
    return out.join("");
  }

  // Where the graph draws scores, as the analysis picture does: an unproven score at its
  // value, on a scale linear to +-1000 and logarithmic beyond; a proven result on a row of
  // its own, twice the largest unproven size (at least 1000), beyond every unproven score.
  function scoreScale(frames) {
    var largest = 1000;
    frames.forEach(function (frame) {
      var parts = frame.engine ? frame.engine.score.split(" ") : [];
      if (parts[0] === "cp") largest = Math.max(largest, Math.abs(parseInt(parts[1], 10)));
    });
    var proven = 2 * largest;
    function warp(v) {
      var size = Math.abs(v), warped = size <= 1000 ? size / 1000 : 1 + Math.log10(size / 1000);
      return v < 0 ? -warped : warped;
    }
    return {proven: warp(proven), top: warp(proven * 1.3), boundary: warp(proven / 1.4),
            height: function (score) {
              var parts = score.split(" "), value = parseInt(parts[1], 10);
              return parts[0] === "mate" ? (value > 0 ? warp(proven) : -warp(proven)) : warp(value);
            }};
  }

  // The score of each move played, for its player, at the step that shows it; proven
  // results as filled squares on their rows; the step shown.
  function renderGraph(data, index) {
    var plies = data.frames.filter(function (frame) { return frame.engine; });
    if (!plies.length) return "";
    var width = 8 * CELL + 2 * PAD, height = 160, left = 40, colours = ["#1565c0", "#e65100", "#2e7d32"];
    var scale = scoreScale(data.frames);
    var x = function (k) { return left + (width - left - 10) * k / Math.max(1, data.frames.length - 1); };
    var y = function (h) { return 10 + (height - 20) * (scale.top - h) / (2 * scale.top); };
    var out = [SVG + ' width="' + width + '" height="' + height + '">'];
    [scale.boundary, -scale.boundary].forEach(function (h) {
      out.push('<line x1="' + left + '" y1="' + y(h) + '" x2="' + width + '" y2="' + y(h) +
               '" stroke="#ccc" stroke-dasharray="2,3"/>');
    });
    out.push('<line x1="' + left + '" y1="' + y(0) + '" x2="' + width + '" y2="' + y(0) + '" stroke="#999"/>');
    out.push('<text x="2" y="' + (y(0) + 4) + '" font-size="11">0</text>');
    out.push('<text x="2" y="' + (y(scale.proven) + 4) + '" font-size="11">won</text>');
    out.push('<text x="2" y="' + (y(-scale.proven) + 4) + '" font-size="11">lost</text>');
    for (var seat = 0; seat < data.seats.length; seat++) {
      var points = [];
      data.frames.forEach(function (frame, k) {
        if (frame.engine && frame.engine.player === seat) points.push(x(k) + "," + y(scale.height(frame.engine.score)));
      });
      if (points.length) {
        out.push('<polyline class="score" points="' + points.join(" ") + '" fill="none" stroke="' +
                 colours[seat % 3] + '" stroke-width="1.5"/>');
      }
    }
    data.frames.forEach(function (frame, k) {
      var e = frame.engine;
      if (!e) return;
      if (e.score.split(" ")[0] === "mate") {
        out.push('<rect class="proven" x="' + (x(k) - 4) + '" y="' + (y(scale.height(e.score)) - 4) +
                 '" width="8" height="8" fill="' + colours[e.player % 3] + '"/>');
      }
      if (e.mark) {
        out.push('<circle class="' + e.mark + '" cx="' + x(k) + '" cy="' + y(scale.height(e.score)) +
                 '" r="5" fill="none" stroke="' + (e.mark === "blunder" ? "#d32f2f" : "#fb8c00") +
                 '" stroke-width="2"/>');
      }
    });
    out.push('<line class="now" x1="' + x(index) + '" y1="5" x2="' + x(index) + '" y2="' + (height - 5) +
             '" stroke="#555" stroke-dasharray="3,3"/>');
    out.push("</svg>");
    return out.join("");
  }

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
    var index = 0, timer = null;
    document.getElementById("title").textContent = data.game + " \u2014 " + data.seats.join(" vs ") +
      (data.seed === null || data.seed === undefined ? "" : " (seed " + data.seed + ")");
    document.getElementById("result").textContent = data.result;
    var graph = document.getElementById("graph"), engine = document.getElementById("engine");
    function show(k) {
      index = Math.max(0, Math.min(data.frames.length - 1, k));
      board.innerHTML = renderBoard(data, data.frames[index]);
      info.textContent = describe(data, index);
      graph.innerHTML = renderGraph(data, index);
      engine.textContent = describeEngine(data, data.frames[index]);
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
    return {show: show, data: data, renderBoard: renderBoard, renderGraph: renderGraph};
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
