// The page: what it shows, and the requests it sends to its tab's engine session over a
// WebSocket (adapters/gui/tab.py says what each does). The page holds the game (its
// start and every move known, `line`, and the ply shown), so that a lost connection
// reconnects and shows the same position. Drawing is board.js's, logic logic.js's.
(function () {
  "use strict";
  var Board = window.Board, Logic = window.Logic;
  var $ = function (id) { return document.getElementById(id); };
  var saved = {};
  try { saved = JSON.parse(sessionStorage.getItem("engine-gui") || "{}"); } catch (e) { saved = {}; }

  var S = {
    games: {}, game: saved.game || null, start: saved.start || null, line: saved.line || [], ply: saved.ply || 0,
    mode: saved.mode || "play", seat: saved.seat || 0, turns: {}, position: null, selection: [], targets: [],
    analysing: false, lines: {}, search: null, preview: null, thinking: false, record: saved.record || null,
    plies: [], gameSeq: null, seq: 0, socket: null, retry: 0, trial: null, flipped: !!saved.flipped,
    tree: saved.tree || null, kept: saved.kept || {}, pressed: null, summary: null,
    study: saved.study || null, chapter: saved.chapter || null,
  };
  if (!S.tree) S.tree = newTree(S.line);

  // Keep the page's state for a reload, the chapter shown taking the game shown, and
  // let the study panel save the study where it changed.
  function save() {
    var chapter = studies.chapterShown();
    if (chapter) {
      chapter.game = S.game; chapter.start = S.start; chapter.tree = S.tree;
      chapter.headers = (S.record && S.record.headers) || {};
      chapter.players = S.record ? S.record.players : [];
    }
    try {
      // The other games' whole-game analyses stay in this page only, as the shown one's does.
      var kept = {};
      Object.keys(S.kept).forEach(function (name) {
        var game = S.kept[name];
        kept[name] = {start: game.start, line: game.line, ply: game.ply, record: game.record, tree: game.tree,
                      chapter: game.chapter};
      });
      sessionStorage.setItem("engine-gui", JSON.stringify({game: S.game, start: S.start, line: S.line, ply: S.ply,
                                                           mode: S.mode, seat: S.seat, record: S.record,
                                                           flipped: S.flipped, tree: S.tree, kept: kept,
                                                           study: S.study, chapter: S.chapter}));
    } catch (e) { /* private windows may refuse storage */ }
    studies.changed();
  }

  function moves() { return S.line.slice(0, S.ply); }

  // ---- the game's tree of lines -------------------------------------------------------
  // Every line the user has played in the game shown, as a tree of {move, children}
  // (S.tree, its root's move null): a move that leaves the line shown starts a branch
  // beside it instead of dropping it. The first child is the main line's. S.line is the
  // line shown, from the start to the end of its branch.

  function newTree(line) {
    var root = {move: null, children: []};
    graft(root, line);
    return root;
  }

  function child(node, move) {
    for (var i = 0; i < node.children.length; i++) if (node.children[i].move === move) return node.children[i];
    return null;
  }

  // Add `line` to the tree under `root` where it is not there (a branch after the others).
  function graft(root, line) {
    var node = root;
    line.forEach(function (move) {
      var next = child(node, move);
      if (!next) { next = {move: move, children: []}; node.children.push(next); }
      node = next;
    });
  }

  // The node after the first `count` moves of `line`, or null.
  function nodeAt(line, count) {
    var node = S.tree;
    for (var i = 0; i < count && node; i++) node = child(node, line[i]);
    return node;
  }

  // Start a new game tree with `line` alone (a new game, a loaded one, a board set, a
  // game played against the engine): the chapter shown, where one was, stays as it was.
  function setLine(line) {
    S.line = line;
    S.tree = newTree(line);
    S.chapter = null;
  }

  // Show game `name`: the game shown is put aside (S.kept, by game: its start, tree, ply,
  // record and whole-game analysis), and `name`'s is brought back where it was put
  // aside, else a new game of it starts. Nothing is dropped, so nothing is asked.
  function switchGame(name) {
    if (name === S.game) return;
    if (S.thinking) { stop(); S.thinking = false; }
    if (S.gameSeq !== null) { stop(); endGameAnalysis(); }
    if (S.game) S.kept[S.game] = {start: S.start, line: S.line, ply: S.ply, record: S.record, tree: S.tree,
                                  plies: S.plies, chapter: S.chapter};
    var kept = S.kept[name] || {start: null, line: [], ply: 0, record: null, tree: null};
    // The game put aside is the chapter it was, where the study still has it.
    S.chapter = kept.chapter || null;
    var chapter = studies.chapterShown();
    if (!chapter || chapter.game !== name) S.chapter = null;
    if (chapter && S.chapter) kept = {start: chapter.start, line: mainLine(chapter.tree), ply: kept.ply, tree: chapter.tree,
                                      record: {players: chapter.players || [], stopped: null, headers: chapter.headers}};
    delete S.kept[name];
    S.game = name;
    S.start = kept.start;
    S.line = kept.line;
    S.tree = kept.tree || newTree(kept.line);
    S.ply = kept.ply;
    S.record = kept.record;
    S.plies = kept.plies || [];
    S.turns = {};
    S.selection = [];
  }

  // The main line of `tree`: its first children, from the root on.
  function mainLine(tree) {
    var line = [];
    for (var node = tree; node.children.length; node = node.children[0]) line.push(node.children[0].move);
    return line;
  }

  // A chapter as the game shown is now, for a new chapter of the study (study.js).
  function chapterOfShown() {
    return {game: S.game, start: S.start, tree: S.tree, headers: (S.record && S.record.headers) || {},
            players: S.record ? S.record.players : []};
  }

  // Show a chapter of the study open: the game shown is put aside as the game
  // switched from is, and what is done to the game shown is done to the chapter.
  function showChapter(chapter) {
    switchGame(chapter.game);
    S.chapter = chapter.key;
    S.start = chapter.start || null;
    S.tree = chapter.tree;
    S.line = mainLine(chapter.tree);
    S.ply = 0;
    S.record = {players: chapter.players || [], stopped: null, headers: chapter.headers || {}};
    S.plies = [];
    S.turns = {};
    $("game").value = S.game;
    fillSeats();
    show();
  }

  // Show `line` (a line in the tree, or a new branch that it becomes) at `ply`, on to
  // the end of its branch's main continuation. The whole-game analysis keeps the plies
  // the new line shares with the line it analysed.
  function follow(line, ply) {
    graft(S.tree, line);
    var node = nodeAt(line, line.length), full = line.slice();
    while (node && node.children.length) { node = node.children[0]; full.push(node.move); }
    var same = 0;
    while (same < full.length && same < S.line.length && full[same] === S.line[same]) same++;
    if (S.plies.length > same + 1) S.plies = S.plies.slice(0, same + 1);
    S.line = full;
    S.ply = ply;
  }

  // Make the line shown the main line: at each of its branchings, its move goes first.
  function promote() {
    var node = S.tree;
    S.line.forEach(function (move) {
      var next = child(node, move);
      node.children.splice(node.children.indexOf(next), 1);
      node.children.unshift(next);
      node = next;
    });
    say("this line is now the main line");
    save();
    render();
  }

  // Delete the move shown (the one that led to the position) and every line after it,
  // once the user says so; the position before it is shown, on its main continuation.
  function deleteHere() {
    if (S.ply === 0) return;
    var parent = nodeAt(S.line, S.ply - 1), node = child(parent, S.line[S.ply - 1]);
    var count = 0, walk = function (n) { count += 1; n.children.forEach(walk); };
    walk(node);
    if (!window.confirm("Delete " + shownMove(S.line[S.ply - 1]) + " and the " + Logic.counted(count - 1, "move", "moves") +
                        " of the lines after it?")) return;
    parent.children.splice(parent.children.indexOf(node), 1);
    follow(moves().slice(0, S.ply - 1), S.ply - 1);  // keeps the analysis of the plies before it
    show();
  }

  // A link to the page (`link`) opens it on the game, start, moves and ply it names, in
  // place of the game the tab kept; the address then drops them again, so that a reload
  // keeps what the user did since.
  function followLink() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (!params.get("game")) return;
    switchGame(params.get("game"));
    S.start = params.get("start") || null;
    setLine((params.get("moves") || "").split(" ").filter(Boolean));
    if (params.get("tree")) {
      try {
        S.tree = window.Study.unpackTree(params.get("tree"));
        graft(S.tree, S.line);
      } catch (error) {
        say("the link's tree is broken (" + error.message + "): only the line it shows is here", true);
      }
    }
    var ply = parseInt(params.get("ply"), 10);
    S.ply = isNaN(ply) ? S.line.length : Math.max(0, Math.min(S.line.length, ply));
    S.mode = ["play", "analyse", "replay"].indexOf(params.get("mode")) >= 0 ? params.get("mode") : "replay";
    S.record = null;
    S.plies = [];
    history.replaceState(null, "", location.pathname + location.search);
  }

  function link() {
    var params = new URLSearchParams();
    params.set("game", S.game);
    if (S.start) params.set("start", S.start);
    params.set("moves", S.line.join(" "));
    params.set("ply", String(S.ply));
    params.set("mode", S.mode === "play" ? "analyse" : S.mode);
    // The whole tree, where it holds more than the line shown (variations, notes).
    var tree = window.Study.packTree(S.tree);
    if (tree !== window.Study.packTree(newTree(S.line))) params.set("tree", tree);
    return location.origin + location.pathname + "#" + params.toString();
  }

  // The game as `engine-analyse` and the page's own paste read it: `setgame`, the board
  // text it starts from (`board ...`) where it is not the game's start, then its moves.
  function moveList() {
    return "setgame " + S.game + "\n" + (S.start ? "board " + S.start + "\n" : "") + S.line.join(" ") + "\n";
  }

  function copy(text, what) {
    if (!navigator.clipboard) return say("this page may not use the clipboard here (it needs https or localhost)", true);
    navigator.clipboard.writeText(text).then(function () { say(what + " copied"); },
                                             function () { say("the browser refused the clipboard", true); });
  }

  // ---- the connection ---------------------------------------------------------------

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + location.pathname.replace(/[^/]*$/, "") + "ws");
    S.socket = socket;
    setConnection("connecting\u2026");
    socket.onopen = function () { S.retry = 0; setConnection(""); studies.connected(); };
    socket.onmessage = function (event) { receive(JSON.parse(event.data)); };
    socket.onclose = function () {
      if (S.socket !== socket) return;
      S.socket = null;
      S.thinking = false;
      var wait = Math.min(5000, 500 * Math.pow(2, S.retry++));
      setConnection("connection lost: reconnecting in " + (wait / 1000) + " s");
      setTimeout(connect, wait);
    };
  }

  function setConnection(text) {
    $("connection").textContent = text;
    document.body.classList.toggle("offline", text !== "");
  }

  function send(op, extra) {
    var request = {op: op, seq: ++S.seq, game: S.game, start: S.start, moves: moves()};
    Object.keys(extra || {}).forEach(function (key) { request[key] = extra[key]; });
    if (S.socket && S.socket.readyState === WebSocket.OPEN) S.socket.send(JSON.stringify(request));
    return request.seq;
  }

  // Send a request of the panels' own (studies, explorer) as it is; false where the
  // connection is down.
  function sendRequest(message) {
    if (!S.socket || S.socket.readyState !== WebSocket.OPEN) return false;
    S.socket.send(JSON.stringify(message));
    return true;
  }

  function stop() {
    if (S.socket && S.socket.readyState === WebSocket.OPEN) S.socket.send(JSON.stringify({op: "stop"}));
  }

  // ---- what the engine answers ------------------------------------------------------

  // The seq of the answers to Save SGF, apart from the requests' own.
  var EXPORT_SEQ = "export";

  // An SGF record written: saved by the browser as GAME.sgf.
  function exported(msg) {
    window.Study.download(msg.text, S.game + ".sgf", "application/x-go-sgf");
    say("the game saved as " + S.game + ".sgf");
  }

  function receive(msg) {
    if (msg.type === "hello") return hello(msg);
    if (msg.seq === studies.seq) return studies.received(msg);
    if (msg.seq === explorer.seq) return explorer.received(msg);
    if (msg.seq === EXPORT_SEQ) return msg.type === "export" ? exported(msg) : say(msg.text, true);
    if (msg.type === "error") {
      S.thinking = false;
      if (msg.seq === S.gameSeq) endGameAnalysis();
      if (S.trial && msg.seq === S.trial.seq) return refused(msg);
      if (msg.seq === S.seq && (!S.position || S.position.game !== S.game)) {
        // No board of this game to show (a saved game the engine now refuses, say):
        // back to the game's start rather than an empty page.
        S.start = null; setLine([]); S.ply = 0; S.turns = {}; S.plies = [];
        say(msg.text + " \u2014 back to the start of the game", true);
        show();
        return;
      }
      if (msg.seq === S.seq) S.analysing = false;  // what was asked for does not run
      say(msg.text, true);
      render();
      return;
    }
    if (msg.type === "record") return loaded(msg);
    if (msg.seq === S.gameSeq) return gameAnalysis(msg);
    if (msg.type === "position") learnTurn(msg);
    if (msg.seq !== S.seq) return;  // an answer to what is no longer shown
    if (msg.type === "position") {
      if (S.trial && msg.seq === S.trial.seq) accepted();
      return positioned(msg);
    }
    if (msg.type === "bestmove") {
      S.thinking = false;
      setLine(moves().concat([msg.move]));
      S.ply = S.line.length;
      save();
      return;
    }
    if (msg.type === "lines") {
      // A whole set of lines, all of one completed depth: it replaces the last one.
      S.lines = {};
      // A line's steadied score (the mean of its last two iterations: a score swings
      // with the depth's parity) is the one shown everywhere, where it has one.
      msg.lines.forEach(function (line) {
        if (line.steady !== null && line.steady !== undefined) line.cp = line.steady;
        S.lines[line.multipv] = line;
      });
      S.search = msg.lines[0] || null;
      return renderAnalysis();
    }
  }

  // The analysis of the whole game: its progress, its end.
  function gameAnalysis(msg) {
    if (msg.type === "progress") {
      $("progress").hidden = false;
      $("progress").max = msg.total;
      $("progress").value = msg.done;
      say("analysing ply " + (msg.done + 1) + " of " + msg.total + "\u2026");
    } else if (msg.type === "game_analysis") {
      endGameAnalysis();
      S.plies = [null].concat(msg.plies);
      S.summary = {plies: S.plies.length, seats: msg.summary || []};
      say("analysed " + Logic.counted(msg.total, "ply", "plies") + ": click the graph to go to a ply");
      show();
    } else if (msg.type === "stopped") {
      endGameAnalysis();
      say("the analysis of the game was stopped");
      show();
    }
  }

  function endGameAnalysis() {
    S.gameSeq = null;
    $("progress").hidden = true;
    $("analyse-game").textContent = "Analyse the game";
  }

  function hello(msg) {
    var select = $("game");
    select.innerHTML = "";
    msg.games.forEach(function (game) {
      S.games[game.name] = game;
      var option = document.createElement("option");
      option.value = option.textContent = game.name;
      select.appendChild(option);
    });
    if (!S.games[S.game]) { S.game = msg.games[0].name; S.start = null; setLine([]); S.ply = 0; }
    select.value = S.game;
    fillSeats();
    setMode(S.mode);
  }

  // Who is to move after the first plies of the line shown, from any position answered
  // on its way, an answer overtaken by a click included: Undo in play goes back to the
  // human's turn, which it can only find where the turns are known.
  function learnTurn(msg) {
    if (msg.game !== S.game || msg.start !== S.start || msg.moves.length > S.line.length) return;
    for (var i = 0; i < msg.moves.length; i++) if (msg.moves[i] !== S.line[i]) return;
    S.turns[msg.moves.length] = msg.to_move;
  }

  // A position answered. A move half clicked stays selected where the answer shows the
  // same board (the answer to a mode switched or an analysis started meanwhile): the
  // cells clicked are still the start of the same legal moves.
  function positioned(msg) {
    var same = S.position !== null && S.position.game === msg.game && S.position.board_text === msg.board_text;
    S.position = msg;
    if (msg.result !== null) S.thinking = false;  // a finished game: no engine move comes
    if (!same) S.selection = [];
    S.targets = Logic.targets(msg.legal, S.selection);
    $("board-text").value = msg.board_text;
    $("edit-side").value = msg.board_text.split(" ")[1];
    render();
    explorer.position(msg);
    if (S.mode === "play" && !S.thinking && msg.result === null && msg.to_move !== S.seat) enginePlays();
  }

  function loaded(msg) {
    switchGame(msg.game);
    S.start = msg.start;
    setLine(msg.moves);
    if (msg.tree) S.tree = msg.tree;  // an SGF record's, its variations and notes in it
    S.ply = 0;
    S.plies = [];
    S.turns = {};
    S.record = {players: msg.players, stopped: msg.stopped, headers: msg.headers || {}};
    $("game").value = S.game;
    fillSeats();
    say("loaded a game of " + msg.game + ", " + Logic.counted(msg.moves.length, "ply", "plies") +
        (msg.stopped ? " (" + msg.stopped + ")" : ""));
    save();
    show();
  }

  // ---- requests -------------------------------------------------------------------------

  function show() {
    S.lines = {};
    S.search = null;
    if (S.mode === "analyse" && S.analysing) send("analyse", {multipv: clampInput("multipv", 1, 16)});
    else send("show");
    save();
  }

  function enginePlays() {
    S.thinking = true;
    var ponder = $("ponder").checked;
    send("play", {movetime: clampInput("movetime", 10, 600000), ponder: ponder, human: S.seat});
    render();
  }

  function clampInput(id, low, high) {
    var value = parseInt($(id).value, 10);
    value = isNaN(value) ? low : Math.max(low, Math.min(high, value));
    $(id).value = value;
    return value;
  }

  function goTo(ply) {
    if (S.gameSeq !== null) return say("the game is being analysed: stop that first", true);
    ply = Math.max(0, Math.min(S.line.length, ply));
    if (ply === S.ply && S.position) return;
    if (S.thinking) { stop(); S.thinking = false; }
    S.ply = ply;
    say("");
    show();
  }

  // Step into an engine line: play its first `count` moves from the position shown (a
  // branch where they leave the line shown).
  function playLine(pv, count) {
    follow(moves().concat(pv.slice(0, count)), S.ply + count);
    S.preview = null;
    say("");
    show();
  }

  // Play `move` in the position shown. In play, a move after Undo replaces the undone
  // moves, as in any game; elsewhere a move that leaves the line shown starts a branch.
  function playMove(move) {
    say("");
    if (S.mode === "play") {
      if (S.line[S.ply] === move) S.ply += 1;
      else { setLine(moves().concat([move])); S.ply = S.line.length; }
      save();
      return enginePlays();
    }
    follow(moves().concat([move]), S.ply + 1);
    show();
  }

  // ---- input ----------------------------------------------------------------------------

  function clicked(cell) {
    if (!S.position) return;
    if ($("edit-mode").checked) return editCell(cell);
    if (S.mode === "play" && (S.thinking || S.position.to_move !== S.seat)) {
      return say("wait for the engine's move", true);
    }
    var outcome = Logic.click(S.position.legal, S.selection, cell);
    if (outcome.refused) {
      say(Logic.refusalText(cell, S.selection, S.position.view.shape), true);
      S.selection = [];
      S.targets = Logic.targets(S.position.legal, []);
      return render();
    }
    if (outcome.move !== null) return playMove(outcome.move);
    S.selection = outcome.selection;
    S.targets = outcome.targets;
    say("");
    render();
  }

  function editCell(cell) {
    var cells = S.position.view.cells, index = -1;
    for (var i = 0; i < cells.length; i++) if (cells[i][0] === cell) index = i;
    if (index < 0) return;
    setBoard(Logic.cycleCell(S.position.board_text, index, S.games[S.game].cycle));
  }

  // A board text is tried before it replaces the game: the engine's refusal leaves the
  // game, its moves and its analysis as they were.
  function setBoard(text) {
    S.trial = {previous: {start: S.start, line: S.line, tree: S.tree, ply: S.ply, turns: S.turns, plies: S.plies,
                          chapter: S.chapter}};
    S.start = text.trim();
    setLine([]);
    S.ply = 0;
    S.turns = {};
    S.plies = [];
    S.lines = {};
    S.search = null;
    S.trial.seq = send("show");
  }

  function accepted() {
    S.trial = null;
    say("");
    save();
    if (S.mode === "analyse" && S.analysing) show();
  }

  function refused(msg) {
    var previous = S.trial.previous;
    S.trial = null;
    S.start = previous.start; S.line = previous.line; S.tree = previous.tree; S.ply = previous.ply;
    S.chapter = previous.chapter;
    S.turns = previous.turns;
    S.plies = previous.plies;
    show();
    say(msg.text + " \u2014 the position is unchanged", true);
    if (S.position) $("board-text").value = S.position.board_text;
  }

  function setMode(mode) {
    if (S.thinking) { stop(); S.thinking = false; }
    if (mode !== "analyse" && S.analysing) { S.analysing = false; stop(); }
    S.mode = mode;
    document.querySelectorAll("button.mode").forEach(function (button) {
      button.classList.toggle("active", button.getAttribute("data-mode") === mode);
    });
    ["play", "analyse", "replay"].forEach(function (name) { $("panel-" + name).hidden = name !== mode; });
    show();
    render();
  }

  function toggleAnalysis() {
    if (S.mode !== "analyse") { S.analysing = true; setMode("analyse"); return; }
    S.analysing = !S.analysing;
    if (S.analysing) show(); else { stop(); S.search = null; }
    render();
  }

  function fillSeats() {
    var game = S.games[S.game], seat = $("seat"), side = $("edit-side");
    if (!game) return;
    seat.innerHTML = "";
    side.innerHTML = "";
    game.sides.forEach(function (name, index) {
      var option = document.createElement("option");
      option.value = index;
      option.textContent = name;
      seat.appendChild(option);
      var choice = document.createElement("option");
      choice.value = game.names[index];
      choice.textContent = name;
      side.appendChild(choice);
    });
    if (S.seat >= game.sides.length) S.seat = 0;
    seat.value = S.seat;
  }

  // ---- drawing ---------------------------------------------------------------------------

  function say(text, isError) {
    var box = $("message");
    box.textContent = text;
    box.className = isError ? "error" : "";
  }

  // The board's arrows in analysis: each line's first move with its score; while the
  // pointer is on a line (S.preview, its rank), that line's first PREVIEW_MOVES moves,
  // numbered, the side to move's in the best line's colour, the replies in the others'.
  function arrows() {
    if (S.mode !== "analyse" || !S.position) return [];
    var shown = S.preview !== null ? S.lines[S.preview] : null;
    if (shown) {
      return (shown.arrows || []).slice(0, PREVIEW_MOVES).map(function (arrow, index) {
        return arrow.length ? {from: arrow[0], to: arrow[1], rank: index % 2 ? 2 : 1, label: String(index + 1)} : null;
      }).filter(Boolean).reverse();
    }
    var ends = {};
    S.position.legal.forEach(function (entry) { ends[entry.move] = entry.arrow; });
    return Object.keys(S.lines).map(function (rank) {
      var info = S.lines[rank], arrow = info.pv.length ? ends[info.pv[0]] : null;
      if (!arrow || !arrow.length) return null;
      return {from: arrow[0], to: arrow[1], rank: info.multipv,
              label: Logic.scoreText(Logic.shownScore(info, S.position.to_move, players()), players())};
    }).filter(Boolean).sort(function (a, b) { return b.rank - a.rank; });
  }

  function render() {
    var p = S.position;
    if (!p) return;
    var step = S.plies[S.ply];
    drawBoard();
    var width = Math.max(320, $("left").clientWidth || 480);
    $("graph").innerHTML = S.plies.length ? Board.renderGraph(S.plies.concat(
      new Array(Math.max(0, S.line.length + 1 - S.plies.length)).fill(null)), S.ply,
      seatNames(), width, p.view.colours, true) : "";
    document.body.classList.toggle("graphed", S.plies.length > 0);
    $("save-graph").hidden = !S.plies.length;
    renderSummary();
    $("ply").textContent = "ply " + S.ply + " / " + S.line.length + (isMainLine() ? "" : " (a branch)");
    var sides = p.sides, status;
    if (p.result !== null) status = "game over: " + p.result;
    else if (S.mode === "play" && S.thinking) status = "the engine (" + sides[p.to_move] + ") is thinking\u2026";
    else status = sides[p.to_move] + " to move" + (S.mode === "play" && p.to_move === S.seat ? " (you)" : "");
    var counts = [Logic.material(p.view, sides), Logic.fieldWords(p.fields, sides, S.games[S.game].names)]
      .filter(Boolean);
    if (counts.length) status += " \u2014 " + counts.join(" \u00b7 ");
    $("status").textContent = status;
    $("pass").hidden = !p.legal.some(function (entry) { return entry.move === "pass"; });
    $("undo").disabled = S.ply === 0;
    $("redo").disabled = S.ply >= S.line.length;
    $("analyse-toggle").textContent = S.analysing ? "Stop analysis" : "Start analysis";
    if (S.mode !== "analyse") $("evalbar").hidden = true;
    renderEval(p);
    renderMoves();
    renderLines();
    renderPly(step);
    studies.render();
    explorer.render();
  }

  // The board of the position shown, with every mark of the mode: the last move, the
  // selection, the targets (none while the engine thinks), the analysis's arrows, the
  // replay's best move.
  // A position new to the board is animated from the one drawn before it where it is a
  // ply on from it (the move played) or a ply back (the move taken back, run backwards),
  // with "Animate" ticked. The board drawn anew while the animation runs (the
  // analysis's lines come, say) carries it on, and the same position drawn again does
  // not play it again.
  function drawBoard() {
    var p = S.position, now = window.performance.now();
    if (!samePosition(drawn.position, p)) {
      drawn = {position: p, animate: $("animate").checked ? stepChanges(drawn.position, p) : null, since: now};
    }
    var since = (now - drawn.since) / 1000;
    if (since >= Board.ANIMATION_S) drawn.animate = null;
    $("board").innerHTML = Board.renderBoard(p.view, {
      last: p.last, selected: S.selection, targets: S.mode === "play" && S.thinking ? [] : S.targets,
      arrows: arrows(), shapes: shownNode().shapes || [], flipped: S.flipped,
      best: S.mode === "replay" && S.plies[S.ply + 1] ? bestCells(S.plies[S.ply + 1].best) : [],
      animate: drawn.animate, animateSince: drawn.animate ? since : 0});
  }

  // The position last drawn, the changes of the move that led to it (or null) and when
  // their animation began.
  var drawn = {position: null, animate: null, since: 0};

  function samePosition(a, b) {
    return !!a && a.game === b.game && a.start === b.start && a.moves.join(" ") === b.moves.join(" ");
  }

  // What to animate from position `a` to position `b` (positions the engine answered):
  // the changes of the one move between them, where `b` is a ply on from `a` or a ply
  // back in the same game; else null.
  function stepChanges(a, b) {
    if (!a || a.game !== b.game || a.start !== b.start) return null;
    var short = a.moves.length < b.moves.length ? a.moves : b.moves, long = short === a.moves ? b.moves : a.moves;
    if (long.length !== short.length + 1) return null;
    for (var i = 0; i < short.length; i++) if (short[i] !== long[i]) return null;
    return Logic.moveChanges(a.view, b.view);
  }

  // The moves of the game, a button each (its ply in data-ply), numbered by rounds of
  // the players' turns, the one that led to the position shown marked current, and the
  // whole-game analysis's marks beside the moves it found wanting.
  function renderMoves() {
    var seats = players(), out = [];
    S.line.forEach(function (move, index) {
      var ply = index + 1, analysis = S.plies[ply], mark = analysis && analysis.mark;
      if (index % seats === 0) out.push("<li class=\"round\">" + (index / seats + 1) + ".</li>");
      var parent = nodeAt(S.line, index), others = parent ? parent.children.filter(function (node) {
        return node.move !== move; }) : [];
      out.push("<li><button class=\"move\" data-ply=\"" + ply + "\" aria-current=\"" + (ply === S.ply) +
               "\" title=\"ply " + ply + (mark ? ": " + mark : "") + "\" data-move=\"" + Board.escape(move) + "\">" +
               Board.escape(shownMove(move)) + glyphText(nodeAt(S.line, ply)) +
               (mark ? "<span class=\"" + mark + "\">" + (MARKS[mark] || "") + "</span>" : "") +
               "</button></li>");
      // The other moves played at this ply: each starts a branch, shown by a click.
      if (others.length) {
        out.push("<li class=\"branches\">(" + others.map(function (node) {
          return "<button class=\"branch\" data-branch=\"" + ply + "\" data-move=\"" + Board.escape(node.move) +
            "\">" + Board.escape(shownMove(node.move)) + "</button>"; }).join(" ") + ")</li>");
      }
    });
    $("moves").innerHTML = out.join("");
    renderNotes();
    var main = isMainLine();
    $("branch-row").hidden = S.mode === "play" || (main && !hasBranches());
    $("promote").disabled = main;
    $("delete-here").disabled = S.ply === 0;
    var current = $("moves").querySelector("[aria-current=true]");
    if (current && current.scrollIntoView) current.scrollIntoView({block: "nearest"});
  }

  var MARKS = {mistake: "?", blunder: "??"}, PREVIEW_MOVES = 8;
  // The longest link copied: browsers take addresses of about 2 MB.
  var MAX_LINK = 1000000;
  // The glyphs of a move (`records`: chess's NAGs 1-6), as the move list writes them.
  var GLYPHS = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!"};

  function glyphText(node) {
    if (!node || !node.glyphs || !node.glyphs.length) return "";
    return "<span class=\"glyph\">" + node.glyphs.map(function (glyph) { return GLYPHS[glyph] || ""; }).join("") +
      "</span>" + (node.comment ? "<span class=\"noted\" title=\"commented\">\u2026</span>" : "");
  }

  // Each player's summary of the whole-game analysis, while the analysis shown is the
  // whole of the one it summarises (a branch keeps only part of it).
  function renderSummary() {
    var summary = S.summary, table = $("game-summary");
    table.hidden = !summary || S.plies.length !== summary.plies;
    if (table.hidden) return;
    var rows = ["<tr><th>player</th><th title=\"0 to 100, from the win chances each move gave up\">accuracy</th>" +
                "<th title=\"inaccuracies\">?!</th><th title=\"mistakes\">?</th><th title=\"blunders\">??</th>" +
                "<th title=\"expected points given up per move, on average\">average loss</th></tr>"];
    summary.seats.forEach(function (seat) {
      var who = seat.player === "(" + seat.side + ")" ? seat.side : seat.player + " (" + seat.side + ")";
      rows.push("<tr data-side=\"" + Board.escape(seat.side) + "\"><td>" + Board.escape(who) + "</td><td>" +
                (seat.accuracy === null ? "-" : seat.accuracy.toFixed(1)) + "</td><td>" + seat.inaccuracies +
                "</td><td>" + seat.mistakes + "</td><td>" + seat.blunders + "</td><td>" +
                (seat.points_lost_mean === null ? "-" : seat.points_lost_mean.toFixed(3)) + "</td></tr>");
    });
    table.innerHTML = rows.join("");
  }

  // The node of the tree the position shown is at (the root before the first move).
  function shownNode() {
    return nodeAt(S.line, S.ply) || S.tree;
  }

  // The notes of the move shown (not in play): its glyph and its comment, kept in the
  // game's tree, with the game, and saved in its SGF record.
  function renderNotes() {
    var node = S.ply > 0 ? nodeAt(S.line, S.ply) : null;
    $("notes").hidden = !node || S.mode === "play";
    if (!node) return;
    document.querySelectorAll("#notes button.glyph").forEach(function (button) {
      var glyph = parseInt(button.getAttribute("data-glyph"), 10);
      button.setAttribute("aria-pressed", String((node.glyphs || []).indexOf(glyph) >= 0));
    });
    if (document.activeElement !== $("comment")) $("comment").value = node.comment || "";
  }

  // Whether the line shown is the main line (the first move at every branching).
  function isMainLine() {
    var node = S.tree;
    for (var i = 0; i < S.line.length; i++) {
      if (!node.children.length || node.children[0].move !== S.line[i]) return false;
      node = node.children[0];
    }
    return true;
  }

  function hasBranches() {
    var walk = function (node) { return node.children.length > 1 || node.children.some(walk); };
    return walk(S.tree);
  }

  // A move of the game shown as the page writes it (`Logic.moveText`).
  function shownMove(move) { return S.position ? Logic.moveText(move, S.position.view.shape) : move; }

  // How many players the game shown has.
  function players() { return S.games[S.game] ? S.games[S.game].sides.length : 2; }

  function flip() {
    S.flipped = !S.flipped;
    save();
    render();
  }

  function bestCells(move) {
    var entry = S.position.legal.filter(function (e) { return e.move === move; })[0];
    return entry && entry.paths.length ? entry.paths[0] : [];
  }

  function renderEval(p) {
    var rows = ["<tr><th>total</th><td colspan=\"" + p.sides.length + "\">" + p.eval.total + "</td></tr>",
                "<tr><th>term</th>" + p.sides.map(function (s) { return "<th>" + Board.escape(s) + "</th>"; }).join("") +
                "</tr>"];
    p.eval.terms.forEach(function (term) {
      rows.push("<tr><td>" + Board.escape(term[0]) + "</td>" + term[1].map(function (v) {
        return "<td>" + v + "</td>"; }).join("") + "</tr>");
    });
    $("eval").innerHTML = rows.join("");
  }

  // New lines, or the pointer on another line: the analysis's panel and the board's
  // arrows.
  function renderAnalysis() {
    if (S.mode !== "analyse") return;
    renderLines();
    drawBoard();
  }

  // The analysis's lines, bars and search figures (in the analysis mode). Every score
  // reads from one side's view (Logic.shownScore), which the table's caption names. The
  // table's rows and moves are updated in place, not drawn anew: a press on a move of a
  // line is still on that move when the next set of lines comes, and its click plays it.
  function renderLines() {
    if (S.mode !== "analyse") return;
    var p = S.position, seats = players(), ranks = Object.keys(S.lines).sort(function (a, b) { return a - b; });
    var body = $("lines").tBodies[0];
    while (body.rows.length > ranks.length) body.deleteRow(-1);
    ranks.forEach(function (rank, i) {
      var info = S.lines[rank], shown = Logic.shownScore(info, p.to_move, seats), row = body.rows[i];
      if (!row) {
        row = body.insertRow(-1);
        row.className = "pv";
        for (var k = 0; k < 5; k++) row.insertCell(-1);
      }
      row.setAttribute("data-rank", rank);
      setText(row.cells[0], rank);
      setText(row.cells[1], Logic.scoreText(shown, seats));
      setText(row.cells[2], info.depth === null || info.depth === undefined ? "" : info.depth);
      setText(row.cells[3], shown.wdl ? shown.wdl.map(function (v) { return (v / 10).toFixed(1); }).join(" / ") +
              " %" : "");
      var moves = row.cells[4];  // a span a move, each followed by a space
      while (moves.children.length > info.pv.length) {
        moves.removeChild(moves.lastChild);
        moves.removeChild(moves.lastChild);
      }
      info.pv.forEach(function (move, index) {
        var span = moves.children[index];
        if (!span) {
          span = moves.appendChild(document.createElement("span"));
          moves.appendChild(document.createTextNode(" "));
        }
        span.className = "pv-move";
        span.setAttribute("data-rank", rank);
        span.setAttribute("data-index", index);
        setText(span, shownMove(move));
      });
    });
    $("chances").textContent = Logic.chancesHeading(seats);
    var side = p.sides[Logic.scoreSide(p.to_move, seats)];
    $("lines-view").textContent = seats === 3 ? "scores and places for " + side + ", to move" :
      "scores and chances for " + side;
    paintBars(S.lines[1] || S.lines[ranks[0]]);
    var s = S.search;
    $("search").textContent = s ? "depth " + s.depth + (s.seldepth ? "/" + s.seldepth : "") + " \u00b7 " +
      (s.nodes || 0).toLocaleString() + " nodes \u00b7 " + (s.nps || 0).toLocaleString() + " nodes/s \u00b7 " +
      (s.time / 1000).toFixed(1) + " s" : (S.analysing ? "searching\u2026" : "");
  }

  function setText(element, text) {
    text = String(text);
    if (element.textContent !== text) element.textContent = text;
  }

  // The eval bars of the best line `best` (the upright one beside the board, and the
  // panel's in a narrow window): each player's share (Logic.barShares) in the colour of
  // its pieces, whoever is to move, the first side's at the bottom (at the left; at the
  // top on a flipped board), and in words. Without a line, the upright bar is hidden and
  // the panel's is shared evenly.
  function paintBars(best) {
    var p = S.position, seats = players(), colours = p.view.colours, shares, text = "", title = "";
    var inGame = Logic.inGame(p.fields, S.games[S.game].names);
    if (best) {
      shares = Logic.barShares(best, p.to_move, inGame);
      text = seats === 3 ? p.sides.map(function (side, seat) {
        return side + " " + Math.round(100 * shares[seat]) + "%"; }).join(" \u00b7 ") :
        Logic.scoreText(Logic.shownScore(best, p.to_move, seats), seats) + " for " + p.sides[0];
      title = seats === 3 ? "the chances of finishing first: " + text : text;
    } else {
      shares = inGame.map(function () { return 1 / inGame.length; });
    }
    [$("evalbar"), $("scoreparts")].forEach(function (bar) {
      while (bar.children.length > seats) bar.removeChild(bar.lastChild);
      shares.forEach(function (part, seat) {
        var segment = bar.children[seat] || bar.appendChild(document.createElement("div"));
        segment.className = "share";
        segment.setAttribute("data-seat", seat);
        segment.style.flexBasis = (100 * part).toFixed(1) + "%";
        segment.style.background = colours[seat][0];
      });
    });
    $("evalbar").hidden = !best;
    $("evalbar").classList.toggle("flipped", S.flipped);
    $("evalbar").title = $("scorebar").title = title;
    $("scoretext").textContent = text;
  }

  // Each seat's side, after the record's name of its player where it has one.
  function seatNames() {
    var players = S.record ? S.record.players : [];
    return S.games[S.game].sides.map(function (side, i) {
      return players[i] ? players[i] + " (" + side + ")" : side; });
  }

  function renderPly(step) {
    $("players").textContent = S.record && S.record.players.length ? seatNames().join(" vs ") : "";
    var e = S.plies[S.ply + 1], seats = players();
    var scored = function (score) { return Logic.reportedScoreText(score, seats, e.player); };
    $("ply-analysis").textContent = e ? "before " + shownMove(e.played) + ": best " + shownMove(e.best) + ", top " +
      e.top.map(function (line) { return shownMove(line[0]) + " (" + scored(line[1]) + ")"; }).join(", ") +
      "; " + shownMove(e.played) + " scored " + scored(e.score) + (e.mark ? " \u2014 " + e.mark : "") +
      " (scores for " + S.games[S.game].sides[Logic.scoreSide(e.player, seats)] + ")" : "";
  }

  // ---- wiring -------------------------------------------------------------------------------

  $("board").addEventListener("click", function (event) {
    var target = event.target.closest("[data-cell]");
    if (target) clicked(target.getAttribute("data-cell"));
  });
  // The user's own shapes, drawn with the right button: pressed and released on one cell
  // a circle, on two an arrow; green, or red with Shift, blue with Alt, yellow with both.
  // The same shape drawn again takes it off; another colour replaces it.
  var drawing = null;
  $("board").addEventListener("contextmenu", function (event) { event.preventDefault(); });
  $("board").addEventListener("pointerdown", function (event) {
    var target = event.target.closest("[data-cell]");
    if (event.button !== 2 || !target) return;
    event.preventDefault();
    drawing = target.getAttribute("data-cell");
  });
  $("board").addEventListener("pointerup", function (event) {
    var target = event.target.closest("[data-cell]"), from = drawing;
    drawing = null;
    if (event.button !== 2 || !target || from === null || !S.position) return;
    var to = target.getAttribute("data-cell"), cells = from === to ? [from] : [from, to];
    var colour = event.shiftKey && event.altKey ? "yellow" : event.shiftKey ? "red" : event.altKey ? "blue" : "green";
    var node = shownNode(), shapes = node.shapes || [], key = cells.join(" ");
    var found = shapes.filter(function (shape) { return shape.cells.join(" ") === key; })[0];
    node.shapes = shapes.filter(function (shape) { return shape !== found; });
    if (!found || found.colour !== colour) node.shapes.push({cells: cells, colour: colour});
    save();
    drawBoard();
  });
  // A click on a move of an engine line plays the line up to it, as the line was when
  // the move was pressed (a new set of lines may have come before the release). The
  // move pressed keeps the pointer until the release, so that the click is its even
  // where new lines have moved it from under the pointer.
  function pressedLine(target) {
    var info = target ? S.lines[target.getAttribute("data-rank")] : null;
    return info ? {target: target, pv: info.pv, count: parseInt(target.getAttribute("data-index"), 10) + 1} : null;
  }
  $("lines").addEventListener("pointerdown", function (event) {
    S.pressed = pressedLine(event.target.closest("[data-index]"));
    if (S.pressed && S.pressed.target.setPointerCapture) S.pressed.target.setPointerCapture(event.pointerId);
  });
  $("lines").addEventListener("click", function (event) {
    var target = event.target.closest("[data-index]");
    var line = S.pressed && S.pressed.target === target ? S.pressed : pressedLine(target);
    S.pressed = null;
    if (line) playLine(line.pv, line.count);
  });
  $("lines").addEventListener("mouseover", function (event) {
    var row = event.target.closest("tr[data-rank]"), rank = row ? parseInt(row.getAttribute("data-rank"), 10) : null;
    if (rank !== S.preview) { S.preview = rank; renderAnalysis(); }
  });
  $("lines").addEventListener("mouseleave", function () {
    if (S.preview !== null) { S.preview = null; renderAnalysis(); }
  });
  $("moves").addEventListener("click", function (event) {
    var branch = event.target.closest("[data-branch]");
    if (branch) {
      release(branch);
      if (S.gameSeq !== null) return say("the game is being analysed: stop that first", true);
      var ply = parseInt(branch.getAttribute("data-branch"), 10);
      follow(S.line.slice(0, ply - 1).concat([branch.getAttribute("data-move")]), ply);
      return show();
    }
    var target = event.target.closest("[data-ply]");
    if (!target) return;
    release(target);
    goTo(parseInt(target.getAttribute("data-ply"), 10));
  });
  $("promote").addEventListener("click", function () { release($("promote")); promote(); });
  $("delete-here").addEventListener("click", function () { release($("delete-here")); deleteHere(); });
  $("flip").addEventListener("click", function () { release($("flip")); flip(); });
  // Whether moves are animated: the user's choice, kept in this browser, else yes
  // unless the system asks for reduced motion.
  var ANIMATE_KEY = "engine-gui-animate", animateChoice = null;
  try { animateChoice = localStorage.getItem(ANIMATE_KEY); } catch (e) { animateChoice = null; }
  $("animate").checked = animateChoice !== null ? animateChoice === "on" :
    !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  $("animate").addEventListener("change", function () {
    release($("animate"));
    try { localStorage.setItem(ANIMATE_KEY, $("animate").checked ? "on" : "off"); } catch (e) { /* refused */ }
    if (!$("animate").checked && drawn.animate) { drawn.animate = null; drawBoard(); }
  });
  $("graph").addEventListener("click", function (event) {
    var target = event.target.closest("[data-step]");
    if (target) goTo(parseInt(target.getAttribute("data-step"), 10));
  });
  document.querySelectorAll("button.mode").forEach(function (button) {
    button.addEventListener("click", function () {
      if (button.getAttribute("data-mode") === "analyse") S.analysing = true;
      setMode(button.getAttribute("data-mode"));
    });
  });
  $("game").addEventListener("change", function () {
    release($("game"));
    var name = $("game").value, kept = S.kept[name];
    switchGame(name);
    say(kept && kept.line.length ? "the " + name + " game as it was left: " +
        Logic.counted(kept.line.length, "ply", "plies") : "");
    fillSeats();
    show();
  });
  $("seat").addEventListener("change", function () {
    release($("seat"));
    S.seat = parseInt($("seat").value, 10);
    show();
  });
  $("new-game").addEventListener("click", function () {
    if (S.thinking) { stop(); S.thinking = false; }
    say("");
    S.start = null; setLine([]); S.ply = 0; S.turns = {}; S.plies = []; S.record = null;
    if (S.mode !== "play") setMode("play"); else show();
  });
  $("from-here").addEventListener("click", function () {
    if (!S.position || S.position.result !== null) return;
    S.seat = S.position.to_move;
    $("seat").value = S.seat;
    setLine(moves());
    setMode("play");
  });
  $("undo").addEventListener("click", function () {
    goTo(S.mode === "play" ? Logic.undoPly(S.turns, S.ply, S.seat) : S.ply - 1);
  });
  $("redo").addEventListener("click", function () {
    goTo(S.mode === "play" ? Logic.redoPly(S.turns, S.ply, S.line.length, S.seat) : S.ply + 1);
  });
  $("pass").addEventListener("click", function () { playMove("pass"); });
  $("first").addEventListener("click", function () { goTo(0); });
  $("prev").addEventListener("click", function () { goTo(S.ply - 1); });
  $("next").addEventListener("click", function () { goTo(S.ply + 1); });
  $("last").addEventListener("click", function () { goTo(S.line.length); });
  $("analyse-toggle").addEventListener("click", toggleAnalysis);
  $("multipv").addEventListener("change", function () { if (S.analysing) show(); });
  $("set-board").addEventListener("click", function () { setBoard($("board-text").value); });
  $("edit-side").addEventListener("change", function () {
    release($("edit-side"));
    if (S.position) setBoard(Logic.withSide(S.position.board_text, $("edit-side").value));
  });
  $("copy-position").addEventListener("click", function () {
    release($("copy-position"));
    if (S.position) copy(S.position.board_text, "the position's board text");
  });
  $("copy-moves").addEventListener("click", function () { release($("copy-moves")); copy(moveList(), "the move list"); });
  $("copy-link").addEventListener("click", function () {
    release($("copy-link"));
    var text = link();
    if (text.length > MAX_LINK) return say("the tree is too big for a link (" + text.length + " characters): save it as SGF", true);
    copy(text, /[#&]tree=/.test(text) ? "a link to this ply, with every variation and note" : "a link to this ply");
  });
  // A glyph clicked marks the move shown with it alone, or takes it off again.
  document.querySelectorAll("#notes button.glyph").forEach(function (button) {
    button.addEventListener("click", function () {
      release(button);
      var node = S.ply > 0 ? nodeAt(S.line, S.ply) : null;
      if (!node) return;
      var glyph = parseInt(button.getAttribute("data-glyph"), 10);
      node.glyphs = (node.glyphs || []).indexOf(glyph) >= 0 ? [] : [glyph];
      save();
      render();
    });
  });
  $("comment").addEventListener("input", function () {
    var node = S.ply > 0 ? nodeAt(S.line, S.ply) : null;
    if (!node) return;
    node.comment = $("comment").value;
    save();
  });
  $("comment").addEventListener("change", function () { render(); });
  // The whole tree, as an SGF record the server writes (answered beside any search).
  $("save-sgf").addEventListener("click", function () {
    release($("save-sgf"));
    if (!S.socket || S.socket.readyState !== WebSocket.OPEN) return say("not connected to engine-gui", true);
    S.socket.send(JSON.stringify({op: "export", seq: EXPORT_SEQ, game: S.game, start: S.start, tree: S.tree,
                                  headers: (S.record && S.record.headers) || {}}));
  });
  // The score graph as a PNG image, drawn from its SVG at twice its size on a white
  // ground, saved as GAME-analysis.png.
  $("save-graph").addEventListener("click", function () {
    release($("save-graph"));
    var svg = $("graph").querySelector("svg");
    if (!svg) return;
    var width = svg.width.baseVal.value, height = svg.height.baseVal.value, image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = 2 * width;
      canvas.height = 2 * height;
      var context = canvas.getContext("2d");
      context.fillStyle = "#fff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      var a = document.createElement("a");
      a.download = S.game + "-analysis.png";
      a.href = canvas.toDataURL("image/png");
      document.body.appendChild(a);
      a.click();
      a.remove();
      say("the graph is saved as " + a.download);
    };
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(svg));
  });
  $("load-text").addEventListener("click", function () {
    release($("load-text"));
    var text = $("record-text").value.trim();
    if (!text) return say("paste a record or a move list first", true);
    // A bare move list is one of the game shown, from its start (JSON, an SGF or GGF
    // record and a move list with its setgame name their game).
    if (!/^[{[(]/.test(text) && !/^\s*setgame\s/m.test(text)) text = "setgame " + S.game + "\n" + text;
    if (S.socket) S.socket.send(JSON.stringify({op: "load", seq: ++S.seq, name: "the pasted text", text: text}));
  });
  $("record-file").addEventListener("change", function () {
    var file = $("record-file").files[0];
    release($("record-file"));
    if (!file) return;
    file.text().then(function (text) {
      if (S.socket) S.socket.send(JSON.stringify({op: "load", seq: ++S.seq, name: file.name, text: text}));
    });
  });
  $("analyse-game").addEventListener("click", function () {
    if (S.gameSeq !== null) return stop();
    S.plies = [];
    S.gameSeq = ++S.seq;
    var request = {op: "analyse_game", seq: S.gameSeq, game: S.game, start: S.start, moves: S.line,
                   movetime: clampInput("replay-movetime", 10, 600000), top: 3};
    if (S.socket) S.socket.send(JSON.stringify(request));
    $("analyse-game").textContent = "Stop";
    render();
  });
  // ---- keys ---------------------------------------------------------------------------------
  // The board's keys reach it whatever was clicked: a control that a click focused (a
  // list, a box, a button) gives them up, and a list does not take them for its choice
  // (a clicked and closed list would switch games on the Right arrow). A control reached
  // by the keyboard (Tab) keeps its own keys, as on any page: a list its arrows, Home,
  // End and letters, a button or a box Space; Esc, or Tab, leaves it. Fields typed in keep
  // their keys.
  var byKeyboard = false;  // whether the focus came by the keyboard, not by a click
  var NOT_TYPED = /^(checkbox|radio|button|submit|reset|file|color)$/;
  document.addEventListener("pointerdown", function () { byKeyboard = false; }, true);

  // Whether the element focused, `target`, keeps `key` from the board.
  function keepsKey(target, key) {
    var tag = target.tagName;
    if (tag === "TEXTAREA" || (tag === "INPUT" && !NOT_TYPED.test(target.type))) return true;
    if (!byKeyboard) return false;
    return tag === "SELECT" || (key === " " && /^(BUTTON|INPUT|SUMMARY|A)$/.test(tag));
  }

  // Leave a control once it has done its work, unless the keyboard brought the user to it.
  function release(control) {
    if (!byKeyboard) control.blur();
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key === "Tab") { byKeyboard = true; return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;  // the browser's own keys
    if (event.key === "Escape" && target !== document.body && !event.defaultPrevented) { target.blur(); return; }
    var keys = {ArrowLeft: function () { $("undo").click(); }, ArrowRight: function () { $("redo").click(); },
                Home: function () { goTo(0); }, End: function () { goTo(S.line.length); }, " ": toggleAnalysis,
                f: flip};
    if (!keys[event.key] || keepsKey(target, event.key)) return;
    event.preventDefault();
    if (target !== document.body) target.blur();
    keys[event.key]();
  });

  var studies = window.Study.panel({
    state: S, $: $, say: say, release: function (control) { release(control); }, save: save,
    showChapter: showChapter, chapterOfShown: chapterOfShown,
    request: sendRequest});
  var explorer = window.Explorer.panel({
    state: S, $: $, request: sendRequest,
    play: function (move) {
      if (!S.position) return;
      if (S.mode === "play" && (S.thinking || S.position.to_move !== S.seat)) return say("wait for the engine's move", true);
      playMove(move);
    }});
  window.gui = {state: S, link: link};
  followLink();
  connect();
})();
