// The page's logic that is not drawing or wiring, as pure functions (checked by
// tests/data/gui_logic_check.js under node): entering a move by clicks, the history's
// steps, and how scores read.
(function (root) {
  "use strict";

  function startsWith(path, prefix) {
    if (prefix.length > path.length) return false;
    for (var i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
    return true;
  }

  function sameCells(a, b) {
    return a.length === b.length && startsWith(a, b);
  }

  // The cells that extend `selection` towards a legal move ([{move, paths}]).
  function targets(legal, selection) {
    var found = {};
    legal.forEach(function (entry) {
      entry.paths.forEach(function (path) {
        if (path.length > selection.length && startsWith(path, selection)) found[path[selection.length]] = true;
      });
    });
    return Object.keys(found).sort();
  }

  function extending(legal, selection) {
    return legal.some(function (entry) {
      return entry.paths.some(function (path) { return path.length >= selection.length && startsWith(path, selection); });
    });
  }

  function completed(legal, selection) {
    for (var i = 0; i < legal.length; i++) {
      for (var j = 0; j < legal[i].paths.length; j++) {
        if (sameCells(legal[i].paths[j], selection)) return legal[i].move;
      }
    }
    return null;
  }

  // A click on `cell` with `selection` clicked before: {move} when it completes a legal
  // move, {selection, targets} while it is on the way to one (a click that leads nowhere
  // from the selection starts a new one where it can), {refused: true} when no legal move
  // is clicked so.
  function click(legal, selection, cell) {
    var tries = selection.length ? [selection.concat([cell]), [cell]] : [[cell]];
    for (var i = 0; i < tries.length; i++) {
      var move = completed(legal, tries[i]);
      if (move !== null) return {move: move, selection: [], targets: []};
      if (extending(legal, tries[i])) return {move: null, selection: tries[i], targets: targets(legal, tries[i])};
    }
    return {move: null, refused: true, selection: [], targets: []};
  }

  // The ply that Undo goes back to in play: the latest before `ply` at which the human
  // (`seat`) was to move (`turns[k]`: the player to move after k moves, where known);
  // one ply back where it is not known.
  function undoPly(turns, ply, seat) {
    for (var k = ply - 1; k >= 0; k--) {
      if (turns[k] === undefined) return ply - 1;
      if (turns[k] === seat) return k;
    }
    return 0;
  }

  // ... and the ply that Redo goes forward to: the next at which the human is to move.
  function redoPly(turns, ply, length, seat) {
    for (var k = ply + 1; k <= length; k++) {
      if (turns[k] === undefined || turns[k] === seat) return k;
    }
    return length;
  }

  // A score for people: pawns with a sign (`+1.25`), or a proven result.
  function scoreText(info) {
    if (info.mate !== null && info.mate !== undefined) {
      var text = info.mate > 0 ? "win in " + info.mate : "loss in " + (-info.mate);
      return info.margin !== null && info.margin !== undefined ? text + " (" + (info.margin > 0 ? "+" : "") +
        info.margin + ")" : text;
    }
    if (info.cp === null || info.cp === undefined) return "";
    return (info.cp > 0 ? "+" : "") + (info.cp / 100).toFixed(2);
  }

  // The side to move's expected share of the points, 0 to 1: from the engine's win / draw
  // / loss chances where it gives them, else from the score.
  function share(info) {
    if (info.wdl) return (info.wdl[0] + info.wdl[1] / 2) / 1000;
    if (info.mate !== null && info.mate !== undefined) return info.mate > 0 ? 1 : 0;
    if (info.cp === null || info.cp === undefined) return 0.5;
    return 0.5 + 0.5 * Math.tanh(info.cp / 600);
  }

  // A board text with the piece at cell `index` (the cells in the board text's order)
  // replaced by the next of `cycle` (the empty cell, then each player's piece).
  function cycleCell(boardText, index, cycle) {
    var parts = boardText.split(" "), rows = parts[0].split("/"), k = index;
    for (var r = 0; r < rows.length; r++) {
      if (k < rows[r].length) {
        var now = cycle.indexOf(rows[r].charAt(k)), next = cycle[(now + 1) % cycle.length];
        rows[r] = rows[r].substring(0, k) + next + rows[r].substring(k + 1);
        parts[0] = rows.join("/");
        return parts.join(" ");
      }
      k -= rows[r].length;
    }
    return boardText;
  }

  // A board text with `side` to move.
  function withSide(boardText, side) {
    var parts = boardText.split(" ");
    parts[1] = side;
    return parts.join(" ");
  }

  root.Logic = {click: click, targets: targets, undoPly: undoPly, redoPly: redoPly, scoreText: scoreText,
                share: share, cycleCell: cycleCell, withSide: withSide};
})(typeof window !== "undefined" ? window : globalThis);
