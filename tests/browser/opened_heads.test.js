/* opened_heads.test.js - an opened fixture model's attention figure, from file://: the table of
   head jobs (stage headroles) appears, a row per head, and its numbers are those headJobs
   (web/src/model/stages/heads.js) gives on the layer's attention weights as the engine computes
   them in Node; in Chinese too. */
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { setup, open, settle, FILE_URL } = require('./helpers.js');
const { textOf } = require('../../tools/tokenizer/fixtures.js');
const BlockLens = require('../../web/dist/blocklens.js');
const { headJobs } = require('../../web/src/model/stages/heads.js');

const MODELS = path.join(__dirname, '..', 'fixtures', 'models');
// The references' ids twice over (the fixtures' tokenizer: one character per id, no BOS), so
// the second half has earlier occurrences for the induction pattern.
const IDS = [3, 17, 0, 42, 63, 17, 3, 17, 0, 42, 63, 17];
let env, bl;
test.before(async () => { env = await setup(); bl = await BlockLens.load(); });
test.after(async () => { await env.close(); });

// The layer's weights (H, L, L) from the engine in Node, and what headJobs says of them.
async function reference(name, layer) {
  const m = await bl.loadModel(path.join(MODELS, name));
  try {
    const w = m.forward(Int32Array.from(IDS), { layers: [layer - 1] }).layers[layer - 1].attention.weights;
    return headJobs(w, IDS, w.length / IDS.length ** 2, IDS.length);
  } finally { m.free(); }
}

async function openFolder(page, name) {
  await page.setInputFiles('#open-dir-input', path.join(MODELS, name));
  await page.waitForFunction(() => document.body.dataset.open === 'opened', null, { timeout: 30000 });
  await page.fill('#ctl-tokens', textOf(IDS));
  await settle(page);
  await page.waitForFunction(() => document.querySelector('#fig-next').dataset.trained === 'model', null, { timeout: 30000 });
}

// The job table's rows as the reader sees them: [head, job, prev, sink, self, induction, entropy].
const jobRows = (page) => page.$$eval('#fig-attention table.presets tbody tr', (trs) =>
  trs.map((tr) => Array.from(tr.children, (c) => c.textContent)));
const pct = (v) => Math.round(100 * v) + '%';

for (const [name, layer, heads] of [['llama', 1, 4], ['llama', 2, 4], ['gpt2', 1, 2]]) {
  test(`an_opened_${name}_folder_shows_a_job_per_head_of_layer_${layer}_as_head_jobs_measures_them`, async () => {
    const o = await open(env.browser, FILE_URL, 'lang=en');
    await openFolder(o.page, name);
    if (layer !== 1) {
      await o.page.fill('#ctl-layer', String(layer));
      await settle(o.page);
    }
    const ref = await reference(name, layer), rows = await jobRows(o.page);
    assert.equal(ref.heads.length, heads);
    assert.equal(rows.length, heads, 'a row per head');
    assert.ok(ref.repeats > 0, 'the repeated text has induction queries');
    const data = await o.page.$eval('#fig-attention', (f) => Object.assign({}, f.dataset));
    assert.equal(data.roles, ref.heads.map((h) => (h.sharp ? h.top : h.focused ? 'focused' : 'diffuse')).join(' '));
    const shown = data.entropy.split(' ').map(Number);
    ref.heads.forEach((h, i) => {
      // (the figure's data carries 4 decimals: 5e-5 of rounding, 1e-6 for float32 sums in another order)
      assert.ok(Math.abs(shown[i] - h.entropy) <= 5e-5 + 1e-6, `head ${i + 1} entropy ${shown[i]} vs ${h.entropy}`);
      const [head, job, prev, sink, self, ind, ent] = rows[i];
      assert.equal(head, 'Head ' + (i + 1));
      assert.deepEqual([prev, sink, self, ind], ['prev', 'sink', 'self', 'induction'].map((p) => pct(h.patterns[p].w)));
      assert.equal(ent, h.entropy.toFixed(2));
      const jobName = { prev: 'previous token', sink: 'first token \\(sink\\)', self: 'itself', induction: 'induction' }[h.top];
      const x = (Math.floor(10 * h.patterns[h.top].lift) / 10).toFixed(1);
      assert.match(job, h.sharp ? new RegExp('^' + jobName + x + '\u00a0× an even row$')
        : new RegExp('^' + (h.focused ? 'sharp, on other keys' : 'spread out') + 'most: ' + jobName + ', ' + x + '\u00a0×$'));
    });
    assert.match(await o.page.textContent('#fig-attention'), new RegExp(`The ${heads} heads of layer ${layer}: mean weight`));
    assert.match(await o.page.textContent('#fig-attention'), /Induction: .* measured at the \d+ tokens that occurred before/);
    assert.deepEqual(o.log.errors, []);
    await o.close();
  });
}

test('the_job_table_is_in_chinese_on_the_chinese_page_and_a_text_without_repeats_says_so', async () => {
  const o = await open(env.browser, FILE_URL, 'lang=zh');
  await openFolder(o.page, 'qwen3');
  assert.match(await o.page.textContent('#fig-attention'), /第 1 层的 4 个头：每类键上的平均权重/);
  assert.equal((await jobRows(o.page))[0][0], '第 1 头');
  await o.page.fill('#ctl-tokens', textOf([3, 17, 0, 42]));
  await settle(o.page);
  assert.match(await o.page.textContent('#fig-attention'), /所以不检查“归纳”/);
  assert.ok((await jobRows(o.page)).every((r) => r[5] === '\u2014'), 'no induction column values without repeats');
  assert.deepEqual(o.log.errors, []);
  await o.close();
});
