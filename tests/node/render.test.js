// render.test.js - tools/render.js: every figure renders to SVG from Node with no browser, the
// same state gives the same bytes, hostile token text stays text, bad arguments exit with a
// message, the PNG (resvg) is exactly twice the SVG's size, and its text is drawn in the faces
// and at the widths the recorder laid it out with (so nothing runs into its neighbour).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { render, parseState, svgToPng } = require('../../tools/render.js');

const CLI = path.join(__dirname, '..', '..', 'tools', 'render.js');
const { VIEWS } = require(path.join(__dirname, '..', '..', 'web', 'src', 'figures', 'index.js'));
const NO_TOKEN_LABELS = ['pipeline', 'paramsplit', 'saturation', 'next', 'heads', 'ablation'];   // shapes, counts, d_k sweeps, predictions; heads runs on the poem's text

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

const TRAINED_ONLY = ['next', 'heads', 'lens', 'ablation', 'neurons'];

test('every_view_renders_a_well_formed_svg_with_its_labels', async () => {
  const { state } = parseState('lang=en');
  // The next character, the model view, the logit lens, the ablation and the neurons need the trained model (random weights
  // predict nothing, and have one block): render.js reads it from web/models/poems/.
  const trained = parseState('lang=en&weights=poems&tokens=床前明月光').state;
  // Activation patching too, with a corrupted text of the same length (its tokens label columns).
  const patched = parseState('lang=en&weights=poems&tokens=远方有颗苹果树&corrupt=远方有颗苹果花').state;
  for (const view of VIEWS) {
    const st = TRAINED_ONLY.includes(view) ? trained : view === 'patching' ? patched : state;
    const fig = await render(view, st, { lang: 'en' });
    assertWellFormedSvg(fig.svg, view);
    assert.ok(fig.width === 760 && fig.height > 200, `${view}: ${fig.width} x ${fig.height}`);
    const t = texts(fig.svg);
    assert.ok(t.length >= 8, `${view}: ${t.length} text elements`);
    if (view === 'lens' || view === 'neurons') {
      for (const tok of '床前明月光') assert.ok(t.includes(tok), `${view}: token label ${tok}`);
    } else if (!NO_TOKEN_LABELS.includes(view)) {
      // (patching labels the changed position with both texts' tokens)
      const toks = view === 'patching' ? [...'远方有颗苹果', '树\u2192花'] : [...'远方有颗苹果树'];
      for (const tok of toks) assert.ok(t.includes(tok), `${view}: token label ${tok}`);
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

// ---- the PNG's fonts (resvg) against the recorder's width table ----------------------------
// Debian's fonts are what the PNG names; without them resvg uses the system's and these checks
// have nothing to compare. Each check failed before the fix (fonts and widths of issue 14).
const fonts = require('../../tools/render.js').pngFonts();
// tools/bootstrap installs the three faces; without them these checks fail rather than skip.
test('the_png_faces_are_installed', () => {
  assert.equal(fonts.faces.length, 3, 'Debian fonts-liberation, fonts-noto-cjk and fonts-dejavu-core (tools/bootstrap installs them)');
});
const NO_FONTS = fonts.faces.length === 3 ? false : 'fonts missing: see the_png_faces_are_installed';
const { resvgFor } = require('../../tools/render.js');
const recorder = () => require('../../web/src/draw/recorder.js');

// Ink box of one SVG snippet (user units), drawn by the PNG path.
function ink(head, body) {
  return resvgFor(head + body + '</svg>', 1).getBBox();
}

test('png_draws_each_character_as_wide_as_the_recorder_measures_it', { skip: NO_FONTS }, () => {
  const { textWidth } = recorder();
  const head = '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="200">';
  // The characters the figures write beyond ASCII, and some ASCII, regular and bold.
  const chars = Array.from('\u00d7\u2212\u00b7\u221a\u2026\u2192\u2191\u0394\u25cf\u2014\u00f7\u00b2\u201c\u201d\u2018\u2019\u1d40\u2080\u2081\u2082\u2083\u2299Wbx1(');
  let worst = 0, where = '';
  for (const bold of [false, true]) {
    for (const ch of chars) {
      // The face a browser takes it from: the first in the font-family list that has it.
      const face = fonts.faces.find((f) => f.charset.has(ch.codePointAt(0)));
      assert.ok(face, `a face has ${ch}`);
      const text = (s) => `<text x="100" y="150" font-size="100" font-family="${face.family}"${bold ? ' font-weight="600"' : ''}>${s}</text>`;
      // Advance = ink of "I?I" less ink of "II": the I's side bearings cancel.
      const advance = ink(head, text('I' + ch + 'I')).width - ink(head, text('II')).width;
      const want = textWidth(ch, (bold ? '600 ' : '') + '100px sans-serif');
      const diff = Math.abs(advance - want);
      if (diff > worst) { worst = diff; where = `${ch} ${bold ? 'bold' : 'regular'} in ${face.family}: ${advance.toFixed(1)} drawn, ${want.toFixed(1)} measured`; }
    }
  }
  assert.ok(worst <= 1.5, `max difference ${worst.toFixed(2)} / 100 px (${where})`);
});

// Every <text> of the activation and pipeline figures, drawn alone by the PNG path, stays
// inside the box the recorder's widths gave it (the heading "Before: hidden = x · W₁ + b₁"
// used to come out in DejaVu Sans, 10 % wider, running into its "7 × 32" label).
test('png_texts_stay_inside_the_widths_the_layout_gave_them', { skip: NO_FONTS }, async () => {
  const { textWidth } = recorder();
  let checked = 0, worst = -Infinity, where = '';
  for (const [view, lang] of [['activation', 'en'], ['pipeline', 'en'], ['activation', 'zh'], ['pipeline', 'zh']]) {
    const { state } = parseState('lang=' + lang);
    const svg = (await render(view, state, { lang })).svg;
    const head = /^[\s\S]*?<svg[^>]*>/.exec(svg)[0];
    const seen = new Set();
    for (const [el, attrs, body] of svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)) {
      // Rotated labels aside; plain ASCII in the regular face (axis numbers) is Liberation
      // Sans alone, measured by the test above.
      if (/transform=/.test(attrs) || seen.has(el) || !/[^\x20-\x7e]|font-weight/.test(el)) continue;
      seen.add(el);
      const at = (n) => (new RegExp(' ' + n + '="([^"]*)"').exec(attrs) || [])[1];
      const text = body.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
      const w = textWidth(text, (at('font-weight') ? '600 ' : '') + at('font-size') + 'px sans-serif');
      const anchor = at('text-anchor') || 'start';
      const left = +at('x') - (anchor === 'middle' ? w / 2 : anchor === 'end' ? w : 0);
      const box = ink(head, el);
      if (!box) continue;   // nothing visible
      const over = Math.max(left - box.x, box.x + box.width - (left + w));
      if (over > worst) { worst = over; where = `${view} ${lang}: "${text}" ink ${box.x.toFixed(1)}..${(box.x + box.width).toFixed(1)}, laid out ${left.toFixed(1)}..${(left + w).toFixed(1)}`; }
      checked++;
    }
  }
  assert.ok(checked > 40, `${checked} texts checked`);
  assert.ok(worst <= 1, `worst overhang ${worst.toFixed(2)} px: ${where}`);
});

test('png_heading_with_subscripts_stays_clear_of_its_shape_label', { skip: NO_FONTS }, async () => {
  const { state } = parseState('lang=en');
  const svg = (await render('activation', state, { lang: 'en' })).svg;
  const head = /^[\s\S]*?<svg[^>]*>/.exec(svg)[0];
  const els = svg.match(/<text\b[^>]*>[^<]*<\/text>/g);
  const i = els.findIndex((e) => e.includes('W\u2081 + b\u2081'));
  assert.ok(i >= 0, 'the heading with subscripts is in the SVG');
  const heading = ink(head, els[i]), label = ink(head, els[i + 1]);
  assert.match(els[i + 1], />\d+ \u00d7 \d+</, 'the shape label follows it');
  const gap = label.x - (heading.x + heading.width);
  assert.ok(gap >= 4, `gap between the heading and its shape label: ${gap.toFixed(1)} px`);
});

test('png_of_tokens_mixing_scripts_and_markup_renders', { skip: NO_FONTS }, async () => {
  const tokens = 'a&b <i> 苹果 W\u2081 "q" x\u1d40 \u2299 \ud83d\ude00';
  const { state } = parseState('tokens=' + encodeURIComponent(tokens) + '&lang=en');
  for (const view of ['attention', 'positionwise']) {
    const fig = await render(view, state, { lang: 'en' });
    const png = svgToPng(fig.svg, 1);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [fig.width, fig.height], view);
  }
});
