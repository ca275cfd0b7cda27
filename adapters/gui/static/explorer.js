// The opening explorer panel: the expert games' moves from the position shown, how
// often each was played, the first side's results after it, and the opening book's
// value (adapters/gui/explorer.py answers). It asks while it is open, for each new
// position shown, and shows the answer of the position shown alone; a click on a move
// plays it.
(function (root) {
  "use strict";
  var SEQ = "explore";

  // The panel, given the page's `page`: {state, $, request(message) -> sent?, play(move)}.
  function panel(page) {
    var S = page.state, $ = page.$, asked = null, shown = null;

    function open() { return $("explorer-panel").open; }

    // The position shown changed (or the panel opened): ask for its moves.
    function position(p) {
      if (!p || !open()) return;
      var key = p.game + " " + p.board_text;
      if (key === asked) return;
      asked = key;
      page.request({op: "explore", seq: SEQ, game: p.game, board: p.board_text});
    }

    function received(msg) {
      var p = S.position;
      if (msg.type === "error") { $("explorer-note").textContent = msg.text; return; }
      if (!p || msg.game !== p.game || msg.board !== p.board_text) return;  // of a position no longer shown
      shown = msg;
      render();
    }

    function percent(part) { return (100 * part).toFixed(part > 0 && part < 0.1 ? 1 : 0) + "%"; }

    // A book value (the side to move's, centi-units) from the first side's view.
    function firstSideValue(value) {
      var signed = S.position.to_move === 0 ? value : -value;
      return (signed > 0 ? "+" : "") + (signed / 100).toFixed(1);
    }

    function render() {
      var msg = shown, p = S.position, escape = root.Board.escape;
      if (!msg || !p || msg.board !== p.board_text) { $("explorer-moves").innerHTML = ""; return; }
      var first = p.sides[0];
      $("explorer-note").textContent = msg.note || (Logic().counted(msg.games, "expert game", "expert games") +
        " reached this position" + (msg.ended ? ", " + msg.ended + " of them end here" : "") +
        (msg.ply !== null ? " (ply " + msg.ply + ")" : ""));
      var rows = ["<tr><th>move</th><th>games</th><th title=\"the share of the games that played it\">%</th>" +
                  "<th title=\"" + first + "'s score in those games, a draw a half\">" + escape(first) + " scored</th>" +
                  "<th title=\"" + first + "'s average final disc margin\">margin</th>" +
                  "<th title=\"the opening book's value of the move, from " + first + "'s view\">book</th></tr>"];
      var played = {};
      msg.moves.forEach(function (move) {
        played[move.move] = true;
        rows.push("<tr class=\"explored\" data-move=\"" + escape(move.move) + "\"><td><button class=\"move\">" +
                  escape(move.move) + "</button></td><td>" + move.games + "</td><td>" + percent(move.share) +
                  "</td><td>" + percent(move.black_score) + "</td><td>" +
                  (move.black_average > 0 ? "+" : "") + move.black_average.toFixed(1) + "</td><td>" +
                  (move.book === null || move.book === undefined ? "" : firstSideValue(move.book)) + "</td></tr>");
      });
      // The book's moves that no expert game played.
      (msg.book || []).forEach(function (entry) {
        if (played[entry.move]) return;
        rows.push("<tr class=\"explored book-only\" data-move=\"" + escape(entry.move) + "\"><td><button class=\"move\">" +
                  escape(entry.move) + "</button></td><td></td><td></td><td></td><td></td><td>" +
                  firstSideValue(entry.value) + "</td></tr>");
      });
      $("explorer-moves").innerHTML = msg.moves.length || (msg.book || []).length ? rows.join("") : "";
    }

    function Logic() { return root.Logic; }

    $("explorer-panel").addEventListener("toggle", function () {
      asked = null;
      if (open()) position(S.position);
    });
    $("explorer-moves").addEventListener("click", function (event) {
      var row = event.target.closest("tr[data-move]");
      if (row) page.play(row.getAttribute("data-move"));
    });

    return {seq: SEQ, position: position, received: received, render: render};
  }

  root.Explorer = {panel: panel};
})(window);
