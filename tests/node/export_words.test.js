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
