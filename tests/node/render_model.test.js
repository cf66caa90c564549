// render_model.test.js - tools/render.js --model DIR: a figure of a Hugging Face model folder drawn
// headless on that model, as the page's "Open a model folder…" draws it (the fixtures'
// tokenizer.json, tests/fixtures/models/).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { render, parseState } = require('../../tools/render.js');

const MODELS = path.join(__dirname, '..', 'fixtures', 'models');

test('render_with_model_draws_a_llama_folders_attention_at_the_chosen_layer', async () => {
  const job = parseState('tokens=draQ,r&layer=2', 'attention');
  const fig = await render(job.view, job.state, { lang: 'en', model: path.join(MODELS, 'llama') });
  assert.match(fig.svg, /draQ,r \(L = 6\) · llama, layer 2 of 2 · d_model 16 · d_ff 24 · heads 4 · SwiGLU/);
  assert.match(fig.svg, /4 query heads share 2 key\/value heads/);
  assert.doesNotMatch(fig.svg, /Tang-poem/);
});

test('render_with_model_draws_the_next_tokens_of_a_gpt2_folder_in_the_references_order', async () => {
  const ref = require(path.join(MODELS, 'gpt2', 'reference.json'));
  const { textOf, CHARS } = require('../../tools/tokenizer/fixtures.js');
  const job = parseState('tokens=' + encodeURIComponent(textOf(ref.ids)), 'next');
  const fig = await render(job.view, job.state, { lang: 'en', model: path.join(MODELS, 'gpt2') });
  const V = ref.shapes.logits[1], last = ref.expected.logits.slice(-V);
  const top = Array.from(last.keys()).sort((a, b) => last[b] - last[a] || a - b).slice(0, 3).map((i) => CHARS[i]);
  const shown = top.map((c) => fig.svg.indexOf('>' + c + '</text>'));
  assert.ok(shown.every((i) => i > 0) && shown[0] < shown[1] && shown[1] < shown[2], top.join(' ') + ': ' + shown);
  assert.match(fig.svg, /The next token, from the model you opened/);
});

// The position-wise experiment reruns the chosen layer alone (forward's start / stop / set):
// the FFN changes only the perturbed row, the causal attention that row and every later one.
for (const [name, layer] of [['llama', 1], ['qwen3', 2], ['gpt2', 2]]) {
  test('render_with_model_runs_the_position_wise_experiment_on_a_' + name + '_layer', async () => {
    const job = parseState('tokens=the cat sat&pert=3&layer=' + layer, 'positionwise');
    const fig = await render(job.view, job.state, { lang: 'en', model: path.join(MODELS, name) });
    const L = Number(/\(L = (\d+)\)/.exec(fig.svg)[1]);
    assert.match(fig.svg, new RegExp('layer ' + layer + ' of 2'));
    assert.match(fig.svg, new RegExp('the FFN output changed in 1 of ' + L + ' rows, the attention output in ' +
      (L - 3) + ' of ' + L + ' rows'));
  });
}

// Figure 4's flow writes b_O only where o_proj has a bias: GPT-2's c_proj does, the Llama family's
// o_proj does not (Qwen2 included: its biases are on q, k and v); the page's own weights have one.
for (const [name, bias] of [['gpt2', true], ['llama', false], ['mistral', false], ['qwen2', false], ['qwen3', false]]) {
  test('render_with_model_' + (bias ? 'writes' : 'leaves_out') + '_b_O_in_the_attention_flow_of_' + name, async () => {
    const job = parseState('tokens=the cat&layer=1', 'attention');
    const fig = await render(job.view, job.state, { lang: 'en', model: path.join(MODELS, name) });
    assert.match(fig.svg, />· W_O( \+ b_O)?</);
    assert.equal(/>· W_O \+ b_O</.test(fig.svg), bias);
  });
}
test('render_without_a_model_writes_b_O_in_the_attention_flow', async () => {
  const job = parseState('tokens=the cat', 'attention');
  const fig = await render(job.view, job.state, { lang: 'zh' });
  assert.match(fig.svg, />· W_O \+ b_O</);
});

// Figure 11's export with a real vocabulary's whole-word pieces (tools/shots.js's synthetic folder):
// each is drawn from the left edge of a column wide enough for it, before its bar, not centred on
// a 36 px column (where it ran off the picture's left edge and under the bar).
test('render_with_model_draws_whole_word_next_tokens_within_their_column', async () => {
  const fs = require('node:fs');
  const dir = require('../../tools/shots.js').manyHeadsFolder(14, 2, { longPieces: true });
  try {
    const job = parseState('tokens=Once.upon.a.time', 'next');
    const fig = await render(job.view, job.state, { lang: 'en', model: dir, width: 390 });
    const words = Array.from(fig.svg.matchAll(/<text([^>]*)>(␣[^<]*)<\/text>/g), (m) => ({ attrs: m[1], text: m[2],
      x: Number(/ x="([\d.-]+)"/.exec(m[1])[1]) }));
    const bar = Math.min(...Array.from(fig.svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="[\d.]+" height="12"/g), (m) => Number(m[1])));
    assert.ok(words.length >= 1, 'a whole-word piece among the top 10');
    for (const w of words) {
      assert.doesNotMatch(w.attrs, /text-anchor="middle"/, w.text);
      assert.ok(w.x >= 0 && bar - w.x > 36, `${w.text}: x ${w.x}, the bars from ${bar} (one character has 36 px)`);
    }
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
