// export_words.test.js - a static picture says only what holds in it: the next-character
// figure's export carries no instruction to press a character, and the figures of the whole
// trained model (next, saturation, paramsplit) name the model, not one of its blocks.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { render, parseState } = require('../../tools/render.js');

const texts = (svg) => Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join(' ');

test('the_next_character_export_has_no_instruction_to_press', async () => {
  for (const lang of ['en', 'zh']) {
    const st = parseState('weights=poems&tokens=床前明月光', 'next');
    const words = texts((await render('next', st.state, { lang })).svg);
    assert.doesNotMatch(words, lang === 'en' ? /press/i : /点一个字/, lang);
    assert.match(words, lang === 'en' ? /most likely next characters/ : /最可能的/, lang);
  }
});

test('whole_model_figures_name_the_model_and_block_figures_their_block', async () => {
  const st = parseState('weights=poems&tokens=床前明月光&layer=2', 'next').state;
  for (const view of ['next', 'saturation', 'paramsplit']) {
    const words = texts((await render(view, st, { lang: 'en' })).svg);
    assert.match(words, /the trained Tang-poem model \(2 blocks\)/, view);
    assert.doesNotMatch(words, /block 2 of 2/, view);
  }
  assert.match(texts((await render('attention', st, { lang: 'en' })).svg), /block 2 of 2/);
});

// The bars are probabilities on one 0-100 % scale: a flat distribution (temperature 5) gives
// short bars, not a full bar for its top item.
test('next_character_bars_are_on_an_absolute_scale', async () => {
  const st = parseState('weights=poems&tokens=床前明月光&temp=5', 'next').state;
  const svg = (await render('next', st, { lang: 'en' })).svg;
  const rects = Array.from(svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="12"/g),
    (m) => ({ y: +m[2], w: +m[3] }));
  const labels = Array.from(svg.matchAll(/<text[^>]*>([\d.]+)%<\/text>/g), (m) => +m[1] / 100);
  assert.ok(labels.length >= 5, 'the items are labelled in percent');
  // Each row: the track, then its fill.
  const fills = rects.filter((_, i) => i % 2 === 1), track = rects[0].w;
  assert.equal(fills.length, labels.length);
  fills.forEach((f, i) => assert.ok(Math.abs(f.w / track - labels[i]) < 0.002, `bar ${i}: ${f.w / track} vs ${labels[i]}`));
  assert.ok(labels[0] < 0.2, 'a flat distribution: the top item is far from 100 %');
});
