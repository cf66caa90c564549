// render.test.js - tools/render.js: every figure renders to SVG from Node with no browser, the
// same state gives the same bytes, hostile token text stays text, bad arguments exit with a
// message, and the PNG (resvg) is exactly twice the SVG's size.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { render, parseState, svgToPng } = require('../../tools/render.js');

const CLI = path.join(__dirname, '..', '..', 'tools', 'render.js');
const VIEWS = ['pipeline', 'activation', 'rows', 'attention', 'positionwise', 'paramsplit'];

// A strict enough XML check for our own output: one root, every tag closed in order, only
// the five entities, no raw '<' or '&' in text.
function assertWellFormedSvg(svg, label) {
  assert.match(svg, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" /, label);
  const body = svg.replace(/^<\?xml[^>]*\?>\n/, '');
  const stack = [];
  const re = /<(\/?)([a-zA-Z]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/g;
  let m, pos = 0;
  while ((m = re.exec(body))) {
    assert.equal(m.index, pos, `${label}: unparsable markup at ${pos}: ${body.slice(pos, pos + 60)}`);
    pos = re.lastIndex;
    if (m[5] !== undefined) {
      assert.doesNotMatch(m[5], /&(?!(amp|lt|gt|quot|#39);)/, `${label}: bare & in text`);
      continue;
    }
    if (m[1]) assert.equal(stack.pop(), m[2], `${label}: </${m[2]}> closes the open tag`);
    else if (!m[4]) stack.push(m[2]);
  }
  assert.equal(pos, body.length, `${label}: parsed to the end`);
  assert.deepEqual(stack, [], `${label}: every tag closed`);
}

function texts(svg) {
  return Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]);
}

test('every_view_renders_a_well_formed_svg_with_its_labels', async () => {
  const { state } = parseState('lang=en');
  for (const view of VIEWS) {
    const fig = await render(view, state, { lang: 'en' });
    assertWellFormedSvg(fig.svg, view);
    assert.ok(fig.width === 760 && fig.height > 200, `${view}: ${fig.width} x ${fig.height}`);
    const t = texts(fig.svg);
    assert.ok(t.length >= 8, `${view}: ${t.length} text elements`);
    if (view !== 'pipeline' && view !== 'paramsplit') {
      for (const tok of '远方有颗苹果树') assert.ok(t.includes(tok), `${view}: token label ${tok}`);
    }
    assert.ok(t.some((s) => s.includes('BlockLens')), `${view}: credit line`);
  }
});

test('same_state_gives_the_same_svg_bytes', async () => {
  const { view, state } = parseState('view=attention&tokens=the cat sat&heads=2&causal=1&lang=zh&theme=dark');
  const a = await render(view, state), b = await render(view, state);
  assert.equal(a.svg, b.svg);
  assert.match(a.svg, /xml:lang="zh-CN"/);
  assert.match(a.svg, /fill="#171a21"/, 'dark background');
});

test('hostile_token_text_is_escaped_in_the_svg', async () => {
  const evil = '<script>alert(1)</script> a&b "q" \'s\' ]]> \u0001';
  const { state } = parseState('tokens=' + encodeURIComponent(evil) + '&lang=en');
  const fig = await render('attention', state);
  assertWellFormedSvg(fig.svg, 'hostile');
  assert.doesNotMatch(fig.svg, /<script/);
  assert.match(fig.svg, /&lt;script&gt;/);
  assert.match(fig.svg, /a&amp;b/);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(fig.svg, /\u0001/, 'control characters cannot appear in XML');
});

test('cli_writes_svg_and_a_png_twice_its_size', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-render-'));
  const svg = path.join(dir, 'f.svg'), png = path.join(dir, 'f.png');
  const r = spawnSync(process.execPath, [CLI, '--view', 'positionwise', '--state', 'tokens=one two three&pert=1',
    '--lang', 'en', '--out', svg, '--png', png], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const text = fs.readFileSync(svg, 'utf8');
  const w = +/width="(\d+)"/.exec(text)[1], h = +/height="(\d+)"/.exec(text)[1];
  const bytes = fs.readFileSync(png);
  assert.equal(bytes.toString('latin1', 1, 4), 'PNG');
  assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [2 * w, 2 * h]);
  assert.ok(svgToPng(text, 1).readUInt32BE(16) === w, 'zoom 1 keeps the size');
  fs.rmSync(dir, { recursive: true });
});

test('cli_rejects_bad_arguments_with_a_message', () => {
  const cases = [
    [['--view', 'nope', '--out', '/dev/null'], /view "nope" is not one of/],
    [['--view', 'attention', '--state', 'd=8&heads=3', '--out', '/dev/null'], /heads: d_model \(8\) must be divisible/],
    [['--view', 'attention', '--state', 'seed=abc', '--out', '/dev/null'], /seed: "abc" is not a whole number/],
    [['--view', 'attention', '--lang', 'fr', '--out', '/dev/null'], /--lang must be en or zh/],
    [['--bogus'], /unexpected "--bogus"/]
  ];
  for (const [args, msg] of cases) {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, msg);
  }
});
