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

  // In a game of three, a score of RANK_VALUE a rank or more (half of it proves one) is a
  // proven place: the ranks between the side to move and the best of the others
  // (search/multiplayer.py's WIN_VALUE and proven_rank_gap).
  var RANK_VALUE = 100000, PLACES = {1: "1st", 0: "shared 1st", "-1": "2nd", "-2": "3rd"};

  // A score for people: pawns with a sign (`+1.25`), or a proven result ("win in 5",
  // "loss in 2 (-6)" with a final margin; in a game of `players` three, "proven 2nd").
  function scoreText(info, players) {
    if (players === 3 && info.cp !== null && info.cp !== undefined && Math.abs(info.cp) >= RANK_VALUE / 2) {
      var gap = Math.round(info.cp / RANK_VALUE);
      return "proven " + (PLACES[gap] || (gap > 0 ? "1st" : "3rd"));
    }
    if (info.mate !== null && info.mate !== undefined) {
      var text = info.mate > 0 ? "win in " + info.mate : "loss in " + (-info.mate);
      return info.margin !== null && info.margin !== undefined ? text + " (" + (info.margin > 0 ? "+" : "") +
        info.margin + ")" : text;
    }
    if (info.cp === null || info.cp === undefined) return "";
    return (info.cp > 0 ? "+" : "") + (info.cp / 100).toFixed(2);
  }

  // A score as a report of the whole-game analysis writes it ("cp -136", "mate 3", from
  // the view of `seat`, the player whose move it scores), in the form `scoreText` gives
  // the live analysis ("-1.36", "win in 3"), from the screen's view (`shownScore`), for
  // a game of `players`.
  function reportedScoreText(score, players, seat) {
    var parts = String(score).split(" "), value = parseInt(parts[1], 10);
    if (isNaN(value)) return String(score);
    return scoreText(shownScore(parts[0] === "mate" ? {mate: value} : {cp: value}, seat, players), players);
  }

  // A score that the engine gives from the view of `seat` (the side to move, or the
  // player of a move analysed), as every score on a screen reads: in a game of two,
  // from the first side's (as lichess gives White's), turned round where `seat` is the
  // second side; in a game of three, where the engine scores the side to move alone,
  // from that side's.
  function shownScore(info, seat, players) {
    return players !== 3 && seat === 1 ? otherSide(info) : info;
  }

  // The side whose view the scores of a position with `toMove` to move are from
  // (`shownScore`).
  function scoreSide(toMove, players) {
    return players === 3 ? toMove : 0;
  }

  // What the engine's three chances (`wdl`) are in a game of `players`: a win, a draw and
  // a loss for two; first, second and third place for three.
  function chancesHeading(players) {
    return players === 3 ? "1st / 2nd / 3rd" : "win / draw / loss";
  }

  // A line's score from the other side's view in a game of two: the score, the proven
  // result, the final margin and the chances turned round.
  function otherSide(info) {
    var negate = function (v) { return v === null || v === undefined ? v : -v; };
    return {cp: negate(info.cp), mate: negate(info.mate), margin: negate(info.margin),
            wdl: info.wdl ? [info.wdl[2], info.wdl[1], info.wdl[0]] : info.wdl};
  }

  // The side to move's expected share of the points, 0 to 1: from the engine's win / draw
  // / loss chances where it gives them, else from the score.
  function share(info) {
    if (info.wdl) return (info.wdl[0] + info.wdl[1] / 2) / 1000;
    if (info.mate !== null && info.mate !== undefined) return info.mate > 0 ? 1 : 0;
    if (info.cp === null || info.cp === undefined) return 0.5;
    return 0.5 + 0.5 * Math.tanh(info.cp / 600);
  }

  // What the eval bar shows of the best line `info` (the engine's view: `toMove`'s), one
  // share a seat, adding up to 1. In a game of two, each side's expected share of the
  // points. In a game of three, each player's chance of finishing first: the engine's
  // for the side to move (its first-place chance, else `share`), none for a player out
  // (`inGame[seat]` false), the rest shared evenly by the other players still in (the
  // engine scores the side to move alone).
  function barShares(info, toMove, inGame) {
    if (inGame.length !== 3) {
      var first = share(shownScore(info, toMove, inGame.length));
      return [first, 1 - first];
    }
    var own = info.wdl ? info.wdl[0] / 1000 : share(info), others = 0;
    inGame.forEach(function (alive, seat) { if (alive && seat !== toMove) others += 1; });
    return inGame.map(function (alive, seat) {
      return seat === toMove ? (others ? own : 1) : alive && others ? (1 - own) / others : 0;
    });
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

  // The pieces each player has on the board of `view`, in words ("discs: black 12,
  // white 9"); "" where no player has more than one (the counts would say nothing).
  function material(view, sides) {
    var counts = sides.map(function () { return 0; });
    view.cells.forEach(function (cell) { if (cell[3] >= 0) counts[cell[3]] += 1; });
    if (Math.max.apply(null, counts) <= 1) return "";
    return view.pieces + ": " + sides.map(function (side, i) { return side + " " + counts[i]; }).join(", ");
  }

  // The board text's fields ("alive=rg", "turn=12") by name.
  function fieldMap(fields) {
    var map = {};
    fields.split(" ").filter(Boolean).forEach(function (field) {
      var at = field.indexOf("=");
      map[at < 0 ? field : field.substring(0, at)] = at < 0 ? "" : field.substring(at + 1);
    });
    return map;
  }

  // Whether each player (`names`, the board text's letters) is still in the game, from
  // the board text's fields (`alive=rg`: red and green; all where it is not given).
  function inGame(fields, names) {
    var alive = fieldMap(fields).alive;
    return names.map(function (name) { return alive === undefined || alive.indexOf(name) >= 0; });
  }

  // The board text's fields after the side to move ("alive=rg out=b", "turn=12",
  // "ply=30"), in words: the players out of the game (`names`, the board text's letters
  // of `sides`), in the order they went out where the board says it ("out: blue, then
  // red"), the turn or ply counted; a field the page does not know is shown as it is.
  // Counts that the pieces on the board show (the marbles pushed off, say) are left out.
  function fieldWords(fields, sides, names) {
    var words = [], map = fieldMap(fields), alive = inGame(fields, names);
    var order = (map.out || "").split("").map(function (name) { return names.indexOf(name); })
      .filter(function (seat) { return seat >= 0; });
    alive.forEach(function (isIn, seat) { if (!isIn && order.indexOf(seat) < 0) order.push(seat); });
    if (order.length) words.push("out: " + order.map(function (seat) { return sides[seat]; }).join(", then "));
    Object.keys(map).forEach(function (key) {
      if (key === "turn" || key === "ply") words.push(key + " " + map[key]);
      else if (key !== "alive" && key !== "out" && !/^score\d$/.test(key)) words.push(key + "=" + map[key]);
    });
    return words.join(" \u00b7 ");
  }

  // `count` things in words: "1 ply", "3 plies".
  function counted(count, one, many) {
    return count + " " + (count === 1 ? one : many);
  }

  // Why a click on `cell` after the cells of `selection` was refused, on a board of
  // `shape` (the hexagonal board's lines are clicked in an order the words give).
  function refusalText(cell, selection, shape) {
    var text = cell + " is not a legal move here";
    if (shape !== "hex" || !selection.length) return text;
    if (selection.length === 1) {
      return text + ": after " + selection[0] + ", click the cell it moves to, or the other end of its line";
    }
    return text + ": after the ends of a line, click the cell that the first marble clicked, " + selection[0] +
      ", moves to (the cell ahead of the front marble for a line moving along itself)";
  }

  // A move for people, on a board of `shape`: on the hexagonal board, the
  // protocol's token x1,y1,x2,y2,d as its end marbles and an arrow for the direction
  // ("2,3\u20133,5 \u2199" for 2,3,3,5,4; one marble once: "4,7 \u2196"); else the token.
  var DIRECTIONS = ["\u2192", "\u2197", "\u2196", "\u2190", "\u2199", "\u2198"];
  function moveText(token, shape) {
    var parts = /^(\d+),(\d+),(\d+),(\d+),([0-5])$/.exec(token);
    if (shape !== "hex" || !parts) return token;
    var first = parts[1] + "," + parts[2], second = parts[3] + "," + parts[4];
    return (first === second ? first : first + "\u2013" + second) + " " + DIRECTIONS[parseInt(parts[5], 10)];
  }

  // A board text with `side` to move.
  function withSide(boardText, side) {
    var parts = boardText.split(" ");
    parts[1] = side;
    return parts.join(" ");
  }

  // ---- what a move changes on the board, for the board to animate ---------------------

  function pieceAt(cell) { return typeof cell[3] === "number" && cell[3] >= 0 ? cell[3] : -1; }

  // Where a point of a view (in cells) is looked up: rounded, as the hexagonal board's
  // rows are irrational.
  function spot(x, y) { return Math.round(x * 1000) + "," + Math.round(y * 1000); }

  // What changed on the board from view `before` to view `after` (board.py's views of two
  // positions of one game, a ply apart: forward, or back), as board.js's `marks.animate`
  // draws it; null where the views are of different boards (another game, another size)
  // or nothing on the board changed:
  //   moved     [{from, to, piece}]: a piece that left cell `from` for cell `to` (in
  //             the board's order of the cells they left)
  //   flipped   [{cell, from, to}]: a piece that changed owner in place (a disc turned)
  //   appeared  [{cell, piece}]: a piece that came from nowhere (a disc placed)
  //   removed   [{cell, piece, dx, dy}]: a piece gone (taken, pushed off the board),
  //             leaving its cell by (dx, dy) cells (0, 0: where it stands)
  //   blocked   [cell]: the cells that became blocked
  // The cells that lost a player's piece are paired with those that gained one of the
  // same player, the displacement most pairs share first (every marble of a push
  // move takes one step; elsewhere one piece moves). On the hexagonal board a piece's
  // way over pieces of its own player, a step at a time, is those pieces moving a step
  // each (a line moving along itself, a line pushed), and a piece lost where a moved
  // one arrived, with pieces of its player up to the board's edge in that step's
  // direction, is that line pushed, the last one off the board. The rest: a cell that
  // lost one player's piece and gained another's flipped; a gain alone appeared; a loss
  // alone was removed where it stood.
  function moveChanges(before, after) {
    if (!before || !after || !before.cells || !after.cells || before.shape !== after.shape ||
        before.width !== after.width || before.height !== after.height ||
        before.cells.length !== after.cells.length) return null;
    var cells = before.cells, losses = [], gains = [], blocked = [], bySpot = {};
    for (var i = 0; i < cells.length; i++) {
      var a = cells[i], b = after.cells[i];
      if (a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2]) return null;
      bySpot[spot(a[1], a[2])] = i;
      var was = pieceAt(a), now = pieceAt(b);
      if (was !== now) {
        if (was >= 0) losses.push({at: i, piece: was, used: false});
        if (now >= 0) gains.push({at: i, piece: now, used: false});
      }
      if (b[4] && !a[4]) blocked.push(a[0]);
    }
    // Every loss and gain of one player that could pair, grouped by their displacement.
    var groups = {};
    losses.forEach(function (loss) {
      gains.forEach(function (gain) {
        if (gain.piece !== loss.piece) return;
        var dx = cells[gain.at][1] - cells[loss.at][1], dy = cells[gain.at][2] - cells[loss.at][2];
        var key = spot(dx, dy);
        (groups[key] = groups[key] || {dx: dx, dy: dy, pairs: []}).pairs.push([loss, gain]);
      });
    });
    var order = Object.keys(groups).sort(function (p, q) {
      var g = groups[p], h = groups[q];
      return h.pairs.length - g.pairs.length || Math.hypot(g.dx, g.dy) - Math.hypot(h.dx, h.dy) ||
        (p < q ? -1 : p > q ? 1 : 0);
    });
    var moved = [], removed = [], hex = before.shape === "hex";
    // The index of the cell at `i`'s place moved by (dx, dy) times `k`, or undefined.
    function along(i, dx, dy, k) { return bySpot[spot(cells[i][1] + k * dx, cells[i][2] + k * dy)]; }
    // Whether cell `i` holds `piece` before and after alike.
    function kept(i, piece) {
      return i !== undefined && pieceAt(cells[i]) === piece && pieceAt(after.cells[i]) === piece;
    }
    order.forEach(function (key) {
      var group = groups[key], steps = hex ? Math.round(Math.hypot(group.dx, group.dy)) : 1;
      group.pairs.forEach(function (pair) {
        var loss = pair[0], gain = pair[1];
        if (loss.used || gain.used) return;
        loss.used = gain.used = true;
        // On the hexagonal board, a way of unit steps over pieces of its own player.
        var route = [loss.at], sx = group.dx / steps, sy = group.dy / steps;
        if (steps > 1 && Math.abs(Math.hypot(sx, sy) - 1) < 1e-3) {
          for (var k = 1; k < steps; k++) {
            var on = along(loss.at, sx, sy, k);
            if (!kept(on, loss.piece)) { route = [loss.at]; break; }
            route.push(on);
          }
        }
        route.push(gain.at);
        for (var j = 1; j < route.length; j++) {
          var a = cells[route[j - 1]], b = cells[route[j]];
          moved.push({at: route[j - 1], from: a[0], to: b[0], piece: loss.piece, dx: b[1] - a[1], dy: b[2] - a[2]});
        }
      });
    });
    // A line pushed off the hexagonal board: every move one step the same way.
    var step = hex && moved.length && moved.every(function (move) {
      return spot(move.dx, move.dy) === spot(moved[0].dx, moved[0].dy) &&
        Math.abs(Math.hypot(move.dx, move.dy) - 1) < 1e-3;
    }) ? moved[0] : null;
    if (step) {
      var arrived = {};
      moved.forEach(function (move) { arrived[move.to] = true; });
      losses.forEach(function (loss) {
        if (loss.used || !arrived[cells[loss.at][0]]) return;
        var line = [loss.at], next = along(loss.at, step.dx, step.dy, 1);
        while (kept(next, loss.piece)) { line.push(next); next = along(next, step.dx, step.dy, 1); }
        if (next !== undefined) return;  // not up to the edge: taken where it stood
        loss.used = true;
        for (var k = 1; k < line.length; k++) {
          moved.push({at: line[k - 1], from: cells[line[k - 1]][0], to: cells[line[k]][0], piece: loss.piece,
                      dx: step.dx, dy: step.dy});
        }
        removed.push({cell: cells[line[line.length - 1]][0], piece: loss.piece, dx: step.dx, dy: step.dy});
      });
    }
    var flipped = [], appeared = [], lost = {};
    losses.forEach(function (loss) { if (!loss.used) lost[loss.at] = loss; });
    gains.forEach(function (gain) {
      if (gain.used) return;
      var loss = lost[gain.at];
      if (loss) {
        loss.used = true;
        flipped.push({cell: cells[gain.at][0], from: loss.piece, to: gain.piece});
      } else {
        appeared.push({cell: cells[gain.at][0], piece: gain.piece});
      }
    });
    losses.forEach(function (loss) {
      if (!loss.used) removed.push({cell: cells[loss.at][0], piece: loss.piece, dx: 0, dy: 0});
    });
    if (!moved.length && !flipped.length && !appeared.length && !removed.length && !blocked.length) return null;
    moved.sort(function (a, b) { return a.at - b.at; });
    return {moved: moved.map(function (move) { return {from: move.from, to: move.to, piece: move.piece}; }),
            flipped: flipped, appeared: appeared, removed: removed, blocked: blocked};
  }

  root.Logic = {click: click, targets: targets, undoPly: undoPly, redoPly: redoPly, scoreText: scoreText,
                reportedScoreText: reportedScoreText, shownScore: shownScore, scoreSide: scoreSide,
                chancesHeading: chancesHeading, share: share, barShares: barShares, material: material,
                fieldWords: fieldWords, inGame: inGame, counted: counted, refusalText: refusalText,
                otherSide: otherSide, moveText: moveText, cycleCell: cycleCell, withSide: withSide,
                moveChanges: moveChanges};
})(typeof window !== "undefined" ? window : globalThis);
