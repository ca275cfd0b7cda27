// Runs a replay page's script outside a browser (stub DOM): draws every step and
// reports pieces, marks, texts and graph per step, and the text after the buttons and keys;
// with a fragment (#7), the page is opened at that address and `atLoad` is its first text.
// node replay_check.js PAGE.html [#FRAGMENT]
const fs = require('fs');
const page = fs.readFileSync(process.argv[2], 'utf8');
const data = page.match(/<script id="record" type="application\/json">([\s\S]*?)<\/script>/)[1];
const script = page.match(/<script>([\s\S]*?)<\/script>/)[1];
const elements = {};
function element(id) {
  if (!elements[id]) {
    elements[id] = {id: id, textContent: id === 'record' ? data : '', innerHTML: '', listeners: {},
                    addEventListener(type, f) { this.listeners[type] = f; }};
  }
  return elements[id];
}
const document = {getElementById: element, keys: null, addEventListener(type, f) { this.keys = f; }};
const window = {};
const location = process.argv[3] === undefined ? undefined : {hash: process.argv[3]};
new Function('window', 'document', 'setInterval', 'clearInterval', 'location', script)(
  window, document, () => 1, () => {}, location);
const replay = window.replay;
const atLoad = element('info').textContent;
const steps = [];
for (let k = 0; k < replay.data.frames.length; k++) {
  replay.show(k);
  const svg = element('board').innerHTML;
  const graph = element('graph').innerHTML;
  steps.push({pieces: (svg.match(/class="piece"/g) || []).length, marks: (svg.match(/class="mark"/g) || []).length,
              best: (svg.match(/class="best"/g) || []).length,
              svg: svg.startsWith('<svg') && svg.endsWith('</svg>'), info: element('info').textContent,
              engine: element('engine').textContent,
              graphLines: (graph.match(/class="score"/g) || []).length, graphNow: (graph.match(/class="now"/g) || []).length,
              graph: graph});
}
element('first').listeners.click();
const atFirst = element('info').textContent;
document.keys({key: 'ArrowRight', preventDefault() {}});
const afterRight = element('info').textContent;
document.keys({key: 'End', preventDefault() {}});
console.log(JSON.stringify({steps, atLoad, atFirst, afterRight, atEnd: element('info').textContent,
                            title: element('title').textContent, result: element('result').textContent}));
