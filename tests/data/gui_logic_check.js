// Runs the web GUI's pure logic (adapters/gui/static/logic.js) outside a browser, for
// tests/adapters/test_gui_logic.py. Reads on stdin
//   {legal: {NAME: [{move, paths}]}, clicks: [{legal: NAME, cells: [cell, ...]}], calls: [[FUNCTION, [args]]]}
// clicks each list of cells in turn through Logic.click, from an empty selection, each
// click from the selection the one before left; calls each Logic function with its
// arguments; prints {clicks: [[outcome of each click, ...], ...], calls: [result, ...]}.
// node gui_logic_check.js LOGIC.js < INPUT.json
const fs = require('fs');
const page = {};
new Function('window', fs.readFileSync(process.argv[2], 'utf8'))(page);
const Logic = page.Logic;
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const clicks = (input.clicks || []).map(function (sequence) {
  let selection = [];
  return sequence.cells.map(function (cell) {
    const outcome = Logic.click(input.legal[sequence.legal], selection, cell);
    selection = outcome.selection;
    return outcome;
  });
});
const calls = (input.calls || []).map(function (call) { return Logic[call[0]].apply(null, call[1]); });
console.log(JSON.stringify({clicks: clicks, calls: calls}));
