// Board drawing shared by the web GUI and the arena's replay page: pure functions from a
// board view (adapters/view/board.py) to SVG text, so that they can be checked outside a
// browser. Every cell carries data-cell="<name>", by which a page finds the cell clicked.
(function (root) {
  "use strict";
  var CELL = 48, SVG = '<svg xmlns="http://www.w3.org/2000/svg"';
  // How long a move's animation runs (marks.animate), in seconds.
  var ANIMATION_S = 0.22;
  // The colours of the user's shapes (`records`' four, lichess's brushes).
  var SHAPE_COLOURS = {green: "#15781b", red: "#882020", blue: "#003088", yellow: "#e68f00"};

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  function cellsByName(view) {
    var byName = {};
    view.cells.forEach(function (cell) { byName[cell[0]] = cell; });
    return byName;
  }

  // The SVG of `view`, with `marks` (optional): last (the cells of the move that led
  // here), best (the engine's best move), targets (cells a click may go to), selected
  // (cells clicked so far), arrows ([{from, to, label, rank}]: moves drawn with their
  // scores; from === to draws a ring), shapes ([{cells, colour}]: the user's own arrows,
  // two cells, and circles, one, in SHAPE_COLOURS), flipped (the board turned half a
  // turn, as seen from the other side), animate (the changes of the move that led here,
  // Logic.moveChanges's, drawn as they happen: each piece moved slides from its old cell,
  // a piece flipped turns over, one appeared grows, one removed fades where it stood or
  // slides off as it fades, a cell blocked darkens; null or absent: none) and
  // animateSince (the seconds the animation has already run: a board drawn anew while
  // it runs carries it on). The animation is SVG's own (SMIL), which a page's
  // Content-Security-Policy without inline styles allows, and lasts ANIMATION_S.
  function renderBoard(view, marks) {
    marks = marks || {};
    var w = view.width * CELL, h = view.height * CELL, out = [];
    var byName = cellsByName(view), anim = marks.animate || null;
    var begin = ' begin="' + (marks.animateSince > 0 ? -marks.animateSince.toFixed(3) : 0) + 's" dur="' +
      ANIMATION_S + 's"';
    // The cells whose pieces are animated, drawn over every cell (a piece sliding passes
    // over cells drawn after its own), and the cells blocked by the move.
    var animated = {}, newlyBlocked = {};
    if (anim) {
      (anim.moved || []).forEach(function (move) { animated[move.to] = {move: move}; });
      (anim.flipped || []).forEach(function (flip) { animated[flip.cell] = {flip: flip}; });
      (anim.appeared || []).forEach(function (piece) { animated[piece.cell] = {appeared: true}; });
      (anim.blocked || []).forEach(function (name) { newlyBlocked[name] = true; });
    }
    // Where a point of the view (in cells) is drawn.
    function px(v) { return marks.flipped ? w - v * CELL : v * CELL; }
    function py(v) { return marks.flipped ? h - v * CELL : v * CELL; }
    // A piece of player `piece` on cell `name`, drawn at (x, y); `inner`: the circle's
    // animations.
    function pieceMarkup(name, x, y, piece, inner) {
      var colour = view.colours[piece], text = '<circle class="piece" data-cell="' + esc(name) + '" data-player="' +
        piece + '" cx="' + x + '" cy="' + y + '" r="' + CELL * 0.38 + '" fill="' + colour[0] + '" stroke="' +
        colour[1] + '" stroke-width="2"' + (inner ? ">" + inner + "</circle>" : "/>");
      if (view.letters) {
        text += '<text class="letter" data-cell="' + esc(name) + '" x="' + x + '" y="' + (y + 6) +
          '" font-size="17" text-anchor="middle" fill="#fff">' + esc(view.letters[piece]) + "</text>";
      }
      return text;
    }
    // A scale animated through `values` about the point (x, y).
    function scaled(x, y, values) {
      var sum = ' attributeName="transform" additive="sum"' + begin + ' fill="freeze"/>';
      return '<animateTransform type="translate" values="' + x + " " + y + '"' + sum +
        '<animateTransform type="scale" values="' + values + '"' + sum +
        '<animateTransform type="translate" values="' + -x + " " + -y + '"' + sum;
    }
    out.push(SVG + ' class="board" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + " " + h + '">');
    view.cells.forEach(function (cell) {
      var name = cell[0], x = px(cell[1]), y = py(cell[2]), piece = cell[3], blocked = cell[4];
      var col = Math.floor(cell[1]), row = Math.floor(cell[2]);
      if (view.shape === "hex") {
        out.push('<circle class="cell" data-cell="' + esc(name) + '" cx="' + x + '" cy="' + y + '" r="' +
                 CELL * 0.47 + '" fill="#c8a165" stroke="#7a5a2e" stroke-width="1"><title>' + esc(name) +
                 "</title></circle>");
      } else {
        var open = view.felt || ((row + col) % 2 ? "#f0d9b5" : "#b58863"), fill = blocked ? "#555" : open;
        out.push('<rect class="cell" data-cell="' + esc(name) + '" x="' + (x - CELL / 2) + '" y="' +
                 (y - CELL / 2) + '" width="' + CELL + '" height="' + CELL + '" fill="' + fill +
                 '" stroke="#333" stroke-width="0.5">' +
                 (blocked && newlyBlocked[name] ? '<animate attributeName="fill" values="' + open + ";" + fill +
                  '"' + begin + "/>" : "") + "<title>" + esc(name) + "</title></rect>");
      }
      if (piece >= 0 && !animated[name]) out.push(pieceMarkup(name, x, y, piece));
    });
    if (anim) {
      // The pieces removed: each fades where it stood (or as it leaves by its dx, dy).
      (anim.removed || []).forEach(function (gone) {
        var cell = byName[gone.cell], colour = view.colours[gone.piece];
        if (!cell || !colour) return;
        var x = px(cell[1]), y = py(cell[2]), dx = px(cell[1] + (gone.dx || 0)) - x;
        var dy = py(cell[2] + (gone.dy || 0)) - y;
        out.push('<g class="removed" data-from="' + esc(gone.cell) + '" opacity="0" pointer-events="none">' +
                 '<animate attributeName="opacity" values="1;0"' + begin + "/>" +
                 (dx || dy ? '<animateTransform attributeName="transform" type="translate" values="0 0;' + dx +
                  " " + dy + '"' + begin + ' fill="freeze"/>' : "") +
                 '<circle class="ghost" cx="' + x + '" cy="' + y + '" r="' + CELL * 0.38 + '" fill="' + colour[0] +
                 '" stroke="' + colour[1] + '" stroke-width="2"/></g>');
      });
      view.cells.forEach(function (cell) {
        var name = cell[0], x = px(cell[1]), y = py(cell[2]), piece = cell[3], how = animated[name];
        if (!(piece >= 0) || !how) return;
        if (how.move) {
          var from = byName[how.move.from] || cell;
          out.push('<g class="moved" data-from="' + esc(how.move.from) + '" data-to="' + esc(name) + '">' +
                   '<animateTransform attributeName="transform" type="translate" values="' + (px(from[1]) - x) +
                   " " + (py(from[2]) - y) + ';0 0" calcMode="spline" keyTimes="0;1" keySplines="0.3 0 0.2 1"' +
                   begin + ' fill="freeze"/>' + pieceMarkup(name, x, y, piece) + "</g>");
        } else if (how.flip) {
          // Turned over about its upright axis, its colour changing halfway.
          var was = view.colours[how.flip.from] || view.colours[piece], turn = function (attribute, k) {
            return '<animate attributeName="' + attribute + '" values="' + was[k] + ";" + view.colours[piece][k] +
              '" keyTimes="0;0.5" calcMode="discrete"' + begin + "/>";
          };
          out.push('<g class="flipped" data-cell-flipped="' + esc(name) + '">' + scaled(x, y, "1 1;0 1;1 1") +
                   pieceMarkup(name, x, y, piece, turn("fill", 0) + turn("stroke", 1)) + "</g>");
        } else {
          out.push('<g class="appeared" data-cell-appeared="' + esc(name) + '">' + scaled(x, y, "0 0;1 1") +
                   pieceMarkup(name, x, y, piece) + "</g>");
        }
      });
    }
    view.labels.forEach(function (label) {
      out.push('<text class="label" x="' + px(label[1]) + '" y="' + (py(label[2]) + 5) +
               '" font-size="13" text-anchor="middle">' + esc(label[0]) + "</text>");
    });
    function ring(names, cls, colour, inset, dash) {
      (names || []).forEach(function (name) {
        var cell = byName[name];
        if (!cell) return;
        var x = px(cell[1]), y = py(cell[2]);
        out.push('<rect class="' + cls + '" data-cell="' + esc(name) + '" x="' + (x - CELL / 2 + inset) + '" y="' +
                 (y - CELL / 2 + inset) + '" width="' + (CELL - 2 * inset) + '" height="' + (CELL - 2 * inset) +
                 '" fill="none" stroke="' + colour + '" stroke-width="3"' +
                 (dash ? ' stroke-dasharray="5,3"' : "") + ' pointer-events="none"/>');
      });
    }
    ring(marks.last, "mark", "#e91e63", 2, false);
    ring(marks.best, "best", "#1e88e5", 6, true);
    ring(marks.selected, "selected", "#fdd835", 3, false);
    (marks.targets || []).forEach(function (name) {
      var cell = byName[name];
      if (!cell) return;
      out.push('<circle class="target" data-cell="' + esc(name) + '" cx="' + px(cell[1]) + '" cy="' +
               py(cell[2]) + '" r="' + CELL * 0.13 + '" fill="#43a047" fill-opacity="0.8" pointer-events="none"/>');
    });
    var spots = labelSpots((marks.arrows || []).filter(function (arrow) {
      return byName[arrow.from] && byName[arrow.to] && arrow.label;
    }).map(function (arrow) {
      var b = byName[arrow.to];
      return {arrow: arrow, x: px(b[1]), y: py(b[2])};
    }), w, h);
    function arrowColour(arrow) { return arrow.rank === 1 ? "#1565c0" : "#6a1b9a"; }
    // An arrow from cell `a` to cell `b` in `colour`, or a ring on `b` where they are one
    // cell; `size`: the ring's radius in cells, the head's length, the line's width and
    // the head's half width in pixels.
    function arrowOrRing(a, b, colour, size) {
      var x1 = px(a[1]), y1 = py(a[2]), x2 = px(b[1]), y2 = py(b[2]);
      if (a === b) {
        return '<circle cx="' + x2 + '" cy="' + y2 + '" r="' + CELL * size.ring + '" fill="none" stroke="' + colour +
          '" stroke-width="4"/>';
      }
      var dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy) || 1, ux = dx / len, uy = dy / len;
      var hx = x2 - ux * size.head, hy = y2 - uy * size.head;
      return '<line x1="' + x1 + '" y1="' + y1 + '" x2="' + hx + '" y2="' + hy + '" stroke="' + colour +
        '" stroke-width="' + size.width + '" stroke-linecap="round"/>' +
        '<polygon points="' + x2 + "," + y2 + " " + (hx - uy * size.wing) + "," + (hy + ux * size.wing) + " " +
        (hx + uy * size.wing) + "," + (hy - ux * size.wing) + '" fill="' + colour + '"/>';
    }
    (marks.arrows || []).forEach(function (arrow) {
      var a = byName[arrow.from], b = byName[arrow.to];
      if (!a || !b) return;
      var colour = arrowColour(arrow), opacity = arrow.rank === 1 ? 0.85 : 0.55;
      out.push('<g class="pv-mark" data-rank="' + arrow.rank + '" pointer-events="none" opacity="' + opacity + '">');
      out.push(arrowOrRing(a, b, colour, {ring: 0.3, head: 12, width: 6, wing: 9}));
      out.push("</g>");
    });
    (marks.shapes || []).forEach(function (shape) {
      var a = byName[shape.cells[0]], b = byName[shape.cells[shape.cells.length - 1]];
      var colour = SHAPE_COLOURS[shape.colour] || SHAPE_COLOURS.green;
      if (!a || !b) return;
      out.push('<g class="shape" data-colour="' + esc(shape.colour) + '" data-cells="' + esc(shape.cells.join(" ")) +
               '" pointer-events="none" opacity="0.8">');
      out.push(arrowOrRing(a, b, colour, {ring: 0.42, head: 14, width: 8, wing: 11}));
      out.push("</g>");
    });
    // The labels over every arrow, so that none hides one, the best line's on top.
    Array.from(spots.entries()).reverse().forEach(function (entry) {
      var arrow = entry[0], spot = entry[1];
      out.push('<text class="pv-label" data-rank="' + arrow.rank + '" x="' + spot.x + '" y="' + spot.y +
               '" font-size="' + LABEL_SIZE + '" fill="#fff" stroke="' + arrowColour(arrow) +
               '" stroke-width="3" paint-order="stroke" pointer-events="none">' + esc(arrow.label) + "</text>");
    });
    out.push("</svg>");
    return out.join("");
  }

  // Where each arrow's label is written ({arrow, x, y}: its head's point), as a Map from
  // the arrow to the {x, y} of its text's start and baseline: by the head, wholly inside
  // the board (`w` by `h`), and clear of the labels placed before it, the best line's
  // first: the first of the places around the head that is clear, else the one that
  // overlaps the others least. A label's extent is reckoned from its characters.
  var LABEL_SIZE = 12;
  function labelSpots(heads, w, h) {
    var placed = [], spots = new Map(), gap = CELL * 0.1;
    heads.slice().sort(function (a, b) { return a.arrow.rank - b.arrow.rank; }).forEach(function (head) {
      var width = String(head.arrow.label).length * LABEL_SIZE * 0.62 + 3, height = LABEL_SIZE + 3;
      var above = head.y - CELL * 0.22, below = head.y + CELL * 0.22 + height, right = head.x + gap;
      var left = head.x - gap - width, middle = head.x - width / 2;
      var tries = [[right, above], [left, above], [right, below], [left, below], [middle, head.y - CELL * 0.45],
                   [middle, head.y + CELL * 0.45 + height]].map(function (spot) {
        // Inside the board: the text's box is from its baseline up.
        var x = Math.max(1, Math.min(w - width - 1, spot[0])), y = Math.max(height, Math.min(h - 3, spot[1]));
        var box = {x: x - 1, y: y - height + 2, width: width + 2, height: height + 2}, overlap = 0;
        placed.forEach(function (other) { overlap += overlapArea(box, other); });
        return {x: x, y: y, box: box, overlap: overlap};
      });
      var best = tries.reduce(function (a, b) { return b.overlap < a.overlap ? b : a; });
      placed.push(best.box);
      spots.set(head.arrow, {x: +best.x.toFixed(1), y: +best.y.toFixed(1)});
    });
    return spots;
  }

  function overlapArea(a, b) {
    var x = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
    var y = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
    return x > 0 && y > 0 ? x * y : 0;
  }

  // Where the graph draws scores, as the analysis picture does: an unproven score at its
  // value, on a scale linear to +-1000 and logarithmic beyond; a proven result on a row of
  // its own, twice the largest unproven size (at least 1000), beyond every unproven score.
  function scoreScale(plies) {
    var largest = 1000;
    plies.forEach(function (ply) {
      var parts = ply ? ply.score.split(" ") : [];
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

  // The score graph of a game's analysis: `plies[k]` is the engine's view of the move that
  // step k shows (null for the start and for unanalysed steps; see replay.engine_view),
  // drawn per player, proven results as squares on their rows, mistakes and blunders
  // ringed, step `index` marked, each player's colour named in a legend (`names`, one a
  // player). Each player's line takes the colour of its pieces (`pieces`, the view's
  // [fill, stroke] a player), a light one drawn grey so that it shows on the page.
  // With `firstSide`, a game of two is drawn as one line, every score from the first
  // player's view (the second's turned round), its legend saying so.
  // Each step's column carries data-step="k" for clicks.
  function renderGraph(plies, index, names, width, pieces, firstSide) {
    var players = names.length, legend = names;
    if (firstSide && players === 2) {
      plies = plies.map(function (ply) {
        return ply && {score: ply.player === 1 ? turned(ply.score) : ply.score, player: 0, mark: ply.mark};
      });
      legend = ["score for " + names[0]];
    }
    var analysed = plies.filter(function (ply) { return ply; });
    if (!analysed.length) return "";
    var height = 160, left = 40, colours = lineColours(pieces, players);
    var scale = scoreScale(analysed), steps = plies.length;
    var x = function (k) { return left + (width - left - 10) * k / Math.max(1, steps - 1); };
    var y = function (h) { return 10 + (height - 20) * (scale.top - h) / (2 * scale.top); };
    var out = [SVG + ' class="graph" width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " +
               height + '">'];
    var column = (width - left - 10) / Math.max(1, steps - 1);
    for (var k = 0; k < steps; k++) {
      out.push('<rect class="step" data-step="' + k + '" x="' + (x(k) - column / 2) + '" y="0" width="' + column +
               '" height="' + height + '" fill="transparent"/>');
    }
    [scale.boundary, -scale.boundary].forEach(function (h) {
      out.push('<line x1="' + left + '" y1="' + y(h) + '" x2="' + width + '" y2="' + y(h) +
               '" stroke="#ccc" stroke-dasharray="2,3" pointer-events="none"/>');
    });
    out.push('<line x1="' + left + '" y1="' + y(0) + '" x2="' + width + '" y2="' + y(0) +
             '" stroke="#999" pointer-events="none"/>');
    out.push('<text x="2" y="' + (y(0) + 4) + '" font-size="11">0</text>');
    out.push('<text x="2" y="' + (y(scale.proven) + 4) + '" font-size="11">won</text>');
    out.push('<text x="2" y="' + (y(-scale.proven) + 4) + '" font-size="11">lost</text>');
    var key = left + 8;
    legend.forEach(function (name, seat) {
      out.push('<line x1="' + key + '" y1="6" x2="' + (key + 14) + '" y2="6" stroke="' + colours[seat] +
               '" stroke-width="2" pointer-events="none"/>');
      out.push('<text class="legend" x="' + (key + 18) + '" y="10" font-size="11" pointer-events="none">' +
               esc(name) + "</text>");
      key += 30 + 7 * String(name).length;
    });
    for (var seat = 0; seat < players; seat++) {
      var points = [];
      plies.forEach(function (ply, k) {
        if (ply && ply.player === seat) points.push(x(k) + "," + y(scale.height(ply.score)));
      });
      if (points.length) {
        out.push('<polyline class="score" points="' + points.join(" ") + '" fill="none" stroke="' +
                 colours[seat] + '" stroke-width="1.5" pointer-events="none"/>');
      }
    }
    plies.forEach(function (ply, k) {
      if (!ply) return;
      if (ply.score.split(" ")[0] === "mate") {
        out.push('<rect class="proven" x="' + (x(k) - 4) + '" y="' + (y(scale.height(ply.score)) - 4) +
                 '" width="8" height="8" fill="' + colours[ply.player] + '" pointer-events="none"/>');
      }
      if (ply.mark) {
        out.push('<circle class="' + ply.mark + '" cx="' + x(k) + '" cy="' + y(scale.height(ply.score)) +
                 '" r="5" fill="none" stroke="' + (ply.mark === "blunder" ? "#d32f2f" : "#fb8c00") +
                 '" stroke-width="2" pointer-events="none"/>');
      }
    });
    out.push('<line class="now" x1="' + x(index) + '" y1="5" x2="' + x(index) + '" y2="' + (height - 5) +
             '" stroke="#555" stroke-dasharray="3,3" pointer-events="none"/>');
    out.push("</svg>");
    return out.join("");
  }

  // A score as a report writes it ("cp -136", "mate 3"), from the other player's view.
  function turned(score) {
    var parts = score.split(" ");
    return parts[0] + " " + -parseInt(parts[1], 10);
  }

  // A visible line colour for each player's pieces: their fill, or grey where it is
  // light; a palette where no pieces are given.
  function lineColours(pieces, players) {
    var palette = ["#1565c0", "#e65100", "#2e7d32"], out = [];
    for (var seat = 0; seat < players; seat++) {
      var fill = pieces && pieces[seat] ? pieces[seat][0] : null;
      out.push(fill === null ? palette[seat % 3] : lightness(fill) > 0.75 ? "#9e9e9e" : fill);
    }
    return out;
  }

  // The lightness (0 to 1) of a colour written #rgb or #rrggbb.
  function lightness(colour) {
    var hex = colour.replace("#", "");
    if (hex.length === 3) hex = hex.replace(/./g, "$&$&");
    var r = parseInt(hex.substr(0, 2), 16), g = parseInt(hex.substr(2, 2), 16), b = parseInt(hex.substr(4, 2), 16);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  }

  root.Board = {CELL: CELL, ANIMATION_S: ANIMATION_S, renderBoard: renderBoard, renderGraph: renderGraph, escape: esc};
})(typeof window !== "undefined" ? window : globalThis);
