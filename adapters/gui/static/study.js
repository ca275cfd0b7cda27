// The study panel: named studies, each of chapters, kept by engine-gui in the user's
// data folder (adapters/gui/studies.py). The page (app.js) holds the study open
// (state.study: {id, name, chapters: [{key, name, game, start, tree, headers, players}]})
// and which chapter is the game shown (state.chapter, a chapter's key): whatever is
// done to the game shown is done to that chapter. A study with changes is saved a
// moment after the last one (SAVE_DELAY_MS), or at once by Save study; one save is on
// its way at a time, so that a new study gets one id.
(function (root) {
  "use strict";
  var SEQ = "study", SAVE_DELAY_MS = 800;

  // Save `text` as a file `name` through the browser.
  function download(text, name, type) {
    var url = URL.createObjectURL(new Blob([text], {type: type}));
    var anchor = document.createElement("a");
    anchor.href = url;
    anchor.download = name;
    document.body.appendChild(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }

  // A file name of `name`: the characters a file system may refuse replaced.
  function fileName(name, extension) {
    return (name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "_").slice(0, 100) || "study") + extension;
  }

  // The most moves a tree from a link may hold (the records' bound).
  var MAX_NODES = 100000;

  // A tree as a link carries it: its JSON without the fields a node leaves empty, as
  // UTF-8 in base64url.
  function packTree(tree) {
    var text = JSON.stringify(tree, function (key, value) {
      if ((key === "children" || key === "glyphs" || key === "shapes") && Array.isArray(value) && !value.length) return undefined;
      if (key === "comment" && !value) return undefined;
      return value;
    });
    var bytes = new TextEncoder().encode(text), binary = "";
    for (var i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // The tree of `packTree`'s text, each node's fields filled in; throws an Error saying
  // what is wrong where the text is no tree (a link cut short or made up). The moves
  // are the rules' to check, as each position is shown.
  function unpackTree(text) {
    var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = Uint8Array.from(binary, function (c) { return c.charCodeAt(0); });
    var tree = JSON.parse(new TextDecoder("utf-8", {fatal: true}).decode(bytes)), count = 0;
    if (!tree || typeof tree !== "object") throw new Error("no tree");
    tree.move = null;
    var stack = [tree];
    while (stack.length) {
      var node = stack.pop();
      node.children = node.children || [];
      node.glyphs = node.glyphs || [];
      node.shapes = node.shapes || [];
      node.comment = node.comment || "";
      if (!Array.isArray(node.children) || !Array.isArray(node.glyphs) || !Array.isArray(node.shapes) ||
          typeof node.comment !== "string" || !node.shapes.every(isShape)) throw new Error("a node is no move with its notes");
      node.children.forEach(function (next) {
        if (!next || typeof next !== "object" || typeof next.move !== "string" || !next.move) throw new Error("a node has no move");
        if (++count > MAX_NODES) throw new Error("more than " + MAX_NODES + " moves");
        stack.push(next);
      });
    }
    return tree;
  }

  function isShape(shape) {
    return shape && Array.isArray(shape.cells) && (shape.cells.length === 1 || shape.cells.length === 2) &&
      shape.cells.every(function (cell) { return typeof cell === "string"; }) && typeof shape.colour === "string";
  }

  var counter = 0;
  function newKey() { counter += 1; return "c" + Date.now().toString(36) + counter; }

  // The panel, given the page's `page`: {state, $, say, request(message) -> sent?,
  // release(control), showChapter(chapter), chapterOfShown(), save()}.
  function panel(page) {
    // inFlight: the text of the save on its way (false: none).
    var S = page.state, $ = page.$, timer = null, inFlight = false, pending = false;
    S.studies = S.studies || [];

    function request(action, extra) {
      var message = {op: "study", seq: SEQ, action: action};
      Object.keys(extra || {}).forEach(function (key) { message[key] = extra[key]; });
      if (!page.request(message)) page.say("not connected to engine-gui", true);
    }

    // What a save sends of the open study.
    function payload() {
      return {id: S.study.id, name: S.study.name, chapters: S.study.chapters.map(function (chapter) {
        return {name: chapter.name, game: chapter.game, start: chapter.start, tree: chapter.tree,
                headers: chapter.headers || {}};
      })};
    }

    // Something changed in the page: where the open study is not as last saved, it is
    // saved SAVE_DELAY_MS after the last change.
    function changed() {
      if (!S.study) return;
      if (JSON.stringify(payload()) === S.study.saved) return;
      S.study.dirty = true;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(function () { timer = null; saveNow(); }, SAVE_DELAY_MS);
      render();
    }

    function saveNow() {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      if (!S.study || !S.study.dirty) return;
      if (inFlight) { pending = true; return; }
      var sent = payload();
      inFlight = JSON.stringify(sent);
      S.study.dirty = false;
      request("save", sent);
      render();
    }

    function received(msg) {
      if (msg.type === "studies") {
        S.studies = msg.studies;
      } else if (msg.type === "study_saved") {
        if (S.study && (S.study.id === null || S.study.id === msg.id)) {
          S.study.id = msg.id;
          S.study.saved = inFlight;
        }
        inFlight = false;
        if (pending) { pending = false; saveNow(); }
        page.save();
      } else if (msg.type === "study") {
        S.study = {id: msg.id, name: msg.name, dirty: false, chapters: msg.chapters.map(function (chapter) {
          chapter.key = newKey();
          return chapter;
        })};
        S.study.saved = JSON.stringify(payload());
        page.say("opened the study " + msg.name + ", " + msg.chapters.length + " chapter" +
                 (msg.chapters.length === 1 ? "" : "s"));
        page.showChapter(S.study.chapters[0]);
      } else if (msg.type === "export") {
        download(msg.text, fileName(msg.name, ".sgf"), "application/x-go-sgf");
        page.say("the study saved as " + fileName(msg.name, ".sgf"));
      } else if (msg.type === "error") {
        if (inFlight) { inFlight = false; pending = false; if (S.study) S.study.dirty = true; }
        page.say(msg.text, true);
      }
      render();
    }

    function chapterShown() {
      if (!S.study || S.chapter === null) return null;
      return S.study.chapters.filter(function (chapter) { return chapter.key === S.chapter; })[0] || null;
    }

    function render() {
      var list = $("study-list"), chosen = list.value;
      list.innerHTML = "";
      S.studies.forEach(function (study) {
        var option = document.createElement("option");
        option.value = study.id;
        option.textContent = study.name + " (" + study.chapters.length + ")";
        list.appendChild(option);
      });
      list.value = S.study && S.study.id ? S.study.id : chosen;
      if (list.selectedIndex < 0 && list.options.length) list.selectedIndex = 0;
      $("study-open").disabled = !S.studies.length;
      var open = !!S.study;
      $("study-title").textContent = open ? "\u2014 " + S.study.name + (S.study.dirty || inFlight ? " (saving\u2026)" : "") : "";
      ["study-close", "study-rename", "study-delete", "chapter-add", "chapter-rename", "chapter-delete", "study-save",
       "study-export"].forEach(function (id) { $(id).disabled = !open; });
      $("study-delete").disabled = !open || !S.study.id;
      var shown = chapterShown();
      $("chapter-rename").disabled = $("chapter-delete").disabled = !shown;
      $("chapters").innerHTML = open ? S.study.chapters.map(function (chapter, index) {
        return "<li><button class=\"chapter\" data-key=\"" + chapter.key + "\" aria-current=\"" +
          (chapter.key === S.chapter) + "\" title=\"" + window.Board.escape(chapter.game) + "\">" + (index + 1) + ". " +
          window.Board.escape(chapter.name) + "</button></li>";
      }).join("") : "";
    }

    function name(id, fallback) {
      var text = $(id).value.trim();
      return text || fallback;
    }

    // A new chapter: the game shown where it is no chapter yet, else a new game of it.
    function addChapter() {
      var shown = chapterShown(), chapter = page.chapterOfShown();
      chapter.name = name("chapter-name", "Chapter " + (S.study.chapters.length + 1));
      if (shown) { chapter.start = null; chapter.tree = {move: null, children: []}; chapter.headers = {}; chapter.players = []; }
      chapter.key = newKey();
      S.study.chapters.push(chapter);
      $("chapter-name").value = "";
      page.showChapter(chapter);
      changed();
    }

    function wire(id, handler) {
      $(id).addEventListener("click", function () { page.release($(id)); handler(); });
    }

    wire("study-open", function () {
      if (!$("study-list").value) return;
      saveNow();
      request("open", {id: $("study-list").value});
    });
    wire("study-close", function () {
      saveNow();
      S.study = null;
      S.chapter = null;
      page.save();
      render();
    });
    wire("study-new", function () {
      saveNow();
      var chapter = page.chapterOfShown();
      chapter.name = name("chapter-name", "Chapter 1");
      chapter.key = newKey();
      S.study = {id: null, name: name("study-name", "Study " + (S.studies.length + 1)), dirty: true, saved: null,
                 chapters: [chapter]};
      S.chapter = chapter.key;
      $("study-name").value = $("chapter-name").value = "";
      saveNow();
      page.save();
    });
    wire("study-rename", function () {
      var text = $("study-name").value.trim();
      if (!text) return page.say("type the study's new name first", true);
      S.study.name = text;
      $("study-name").value = "";
      changed();
      saveNow();
    });
    wire("study-delete", function () {
      if (!window.confirm("Delete the study " + S.study.name + " and its " + S.study.chapters.length + " chapters?")) return;
      request("delete", {id: S.study.id});
      S.study = null;
      S.chapter = null;
      page.save();
    });
    wire("chapter-add", addChapter);
    wire("chapter-rename", function () {
      var text = $("chapter-name").value.trim();
      if (!text) return page.say("type the chapter's new name first", true);
      chapterShown().name = text;
      $("chapter-name").value = "";
      changed();
      render();
    });
    wire("chapter-delete", function () {
      var shown = chapterShown();
      if (S.study.chapters.length === 1) return page.say("a study keeps at least one chapter: delete the study", true);
      if (!window.confirm("Delete the chapter " + shown.name + "?")) return;
      var index = S.study.chapters.indexOf(shown);
      S.study.chapters.splice(index, 1);
      page.showChapter(S.study.chapters[Math.max(0, index - 1)]);
      changed();
    });
    wire("study-save", saveNow);
    wire("study-export", function () {
      if (!S.study.id) return page.say("the study is not saved yet", true);
      saveNow();
      request("export", {id: S.study.id});
    });
    $("study-import").addEventListener("change", function () {
      var file = $("study-import").files[0];
      page.release($("study-import"));
      if (!file) return;
      saveNow();
      file.text().then(function (text) { request("import", {text: text, name: file.name}); });
      $("study-import").value = "";
    });
    $("chapters").addEventListener("click", function (event) {
      var target = event.target.closest("[data-key]");
      if (!target || target.getAttribute("data-key") === S.chapter) return;
      page.release(target);
      var chapter = S.study.chapters.filter(function (item) { return item.key === target.getAttribute("data-key"); })[0];
      if (chapter) page.showChapter(chapter);
    });
    $("study-panel").addEventListener("toggle", function () {
      if ($("study-panel").open) request("list");
    });

    return {seq: SEQ, received: received, changed: changed, render: render, chapterShown: chapterShown,
            connected: function () { request("list"); }};
  }

  root.Study = {panel: panel, download: download, packTree: packTree, unpackTree: unpackTree};
})(window);
