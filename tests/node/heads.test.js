// heads.test.js - the headroles stage (web/src/model/stages/heads.js): the line length of a poem,
// the mean weight per pattern against an even row, and, on the shipped poem model and the
// quatrain, the jobs tools/train/REPORT.md gives its heads (1.3 one line up, 1.4 the previous
// character, 2.4 <s>).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');

const SRC = path.join(root, 'web', 'src');
const { headRoles, lineLength } = require(path.join(SRC, 'model', 'stages', 'heads.js'));
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { createAssets } = require(path.join(SRC, 'model', 'assets.js'));

const toks = (text) => ['<s>', ...Array.from(text)];
const QUATRAIN = '床前明月光，疑是地上霜。举头望明月，低头思故乡。';

test('line_length_is_that_of_5_or_7_character_lines_closed_by_marks', () => {
  assert.equal(lineLength(toks(QUATRAIN)), 5);
  assert.equal(lineLength(toks('白日依山尽，黄河入')), 5);
  assert.equal(lineLength(toks('朝辞白帝彩云间，千里江陵一日还。')), 7);
  assert.equal(lineLength(toks('床前明月光')), 0, 'no line closed');
  assert.equal(lineLength(toks('床前明月，疑是地上霜。')), 0, 'lines of two lengths');
  assert.equal(lineLength(toks('远方有颗苹果树')), 0);
});

test('a_head_on_the_previous_token_is_named_with_its_weight_against_an_even_row', () => {
  const L = 6, H = 2, w = new Float32Array(H * L * L);
  for (let q = 0; q < L; q++) {
    w[q * L + Math.max(0, q - 1)] = 1;                                   // head 1: the previous token
    for (let k = 0; k <= q; k++) w[(L + q) * L + k] = 1 / (q + 1);       // head 2: even rows
  }
  const r = headRoles({ weights: w }, toks('床前明月光'), H, L);
  assert.equal(r.n, 0);
  assert.equal(r.heads[0].top, 'prev');
  assert.equal(r.heads[0].sharp, true);
  assert.equal(r.heads[0].patterns.prev.w, 1);
  assert.ok(Math.abs(r.heads[0].patterns.prev.u - (1 / 3 + 1 / 4 + 1 / 5 + 1 / 6) / 4) < 1e-12);
  assert.equal(r.heads[1].sharp, false, 'an even row stands out nowhere');
  for (const p of Object.values(r.heads[1].patterns)) assert.ok(Math.abs(p.lift - 1) < 1e-6);
  assert.equal(r.heads[0].patterns.up, undefined, 'no lines: no one-line-up pattern');
  assert.equal(r.heads[0].patterns.punct, undefined, 'no marks: no punctuation pattern');
});

test('on_the_quatrain_the_poem_models_heads_do_what_the_training_report_says', async () => {
  const bl = await BlockLens.load(), dir = path.join(root, 'web', 'models', 'poems');
  const assets = createAssets();
  assets.add('poems', { weights: new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))),
    config: JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')),
    vocab: JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8')) });
  const at = (layer) => model.create(bl, assets).compute(Object.assign(params.defaults(),
    { weights: 'poems', tokens: QUATRAIN, layer })).headroles;
  const b1 = at(1), b2 = at(2);
  assert.equal(b1.n, 5);
  const job = (h) => (h.sharp ? h.top : 'diffuse');
  assert.deepEqual([job(b1.heads[0]), job(b1.heads[2]), job(b1.heads[3])], ['diffuse', 'up', 'prev']);
  assert.deepEqual(b2.heads.map(job), ['diffuse', 'diffuse', 'diffuse', 'bos']);
  // Head 1.3 reads one line up at the column about to be written (-n), hardly its own (-(n+1)).
  const up = b1.heads[2].patterns;
  assert.ok(up.up.w > 0.25 && up.up.w < 0.35, `1.3 one line up: ${up.up.w}`);
  assert.ok(up.column.w < 0.05, `1.3 own column: ${up.column.w}`);
  assert.ok(b1.heads[3].patterns.prev.w > 0.2, `1.4 previous: ${b1.heads[3].patterns.prev.w}`);
  assert.ok(b2.heads[3].patterns.bos.w > 0.3, `2.4 <s>: ${b2.heads[3].patterns.bos.w}`);
  // Random weights have no jobs to name.
  assert.equal(model.create(bl).compute(params.defaults()).headroles, null);
});
