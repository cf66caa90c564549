/* opened_model.test.js - from file://, a fixture model folder opened through the page's file input
   ("Open a model folder…"): the Worker loads it, every figure that applies is drawn from its
   layer, the others say why, the next-token list is the float64 reference's top 10, and a folder
   the engine refuses leaves the last good model and its figures as they were, with the message. */
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { setup, open, ready, FILE_URL } = require('./helpers.js');
const { textOf } = require('../../tools/tokenizer/fixtures.js');
const ck = require('../node/checkpoint.js');

const MODELS = path.join(__dirname, '..', 'fixtures', 'models');
const APPLIES = ['pipeline', 'activation', 'rows', 'attention', 'positionwise', 'norms', 'block', 'paramsplit', 'next',
  'ablation', 'neurons'];
// FFN neurons' torch reference on the fixtures' ids (tools/gen_neuron_ref.py)
const NEURONS = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'hooks', 'neurons.json'), 'utf8'));
const NOT = ['saturation', 'moe'];
let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

// The reference's next-token top 10: its last row of logits, ties to the lower id.
function referenceTop(name) {
  const r = JSON.parse(fs.readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
  const V = r.shapes.logits[1], last = r.expected.logits.slice(-V);
  return { ids: r.ids, top: Array.from(last.keys()).sort((a, b) => last[b] - last[a] || a - b).slice(0, 10) };
}

// Every tensor's element count in the folder's one safetensors file (GPT-2's attn.bias mask
// buffers are not parameters).
function tensorTotal(name) {
  const buf = fs.readFileSync(path.join(MODELS, name, 'model.safetensors')), n = Number(buf.readBigUInt64LE(0));
  const head = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  return Object.keys(head).filter((k) => k !== '__metadata__' && !/\.attn\.(masked_)?bias$/.test(k))
    .reduce((t, k) => t + head[k].shape.reduce((a, b) => a * b, 1), 0);
}

async function openFolder(page, name, text) {
  await page.setInputFiles('#open-dir-input', path.resolve(MODELS, name));
  await page.waitForFunction(() => document.body.dataset.open && document.body.dataset.open !== 'opening', null,
    { timeout: 30000 });
  if (text !== undefined) await page.fill('#ctl-tokens', text);
  await page.waitForTimeout(400);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('#fig-next').dataset.trained === 'model', null, { timeout: 30000 });
}

const figures = (page) => page.$$eval('#figures .figure', (figs) => Object.fromEntries(figs.map((f) => [f.id.slice(4), {
  applies: f.dataset.applies, ids: f.dataset.ids || '', total: f.dataset.total || '', drawn: f.querySelectorAll('canvas, svg, table, button').length,
  text: f.textContent }])));

for (const [name, layers] of [['llama', 2], ['gpt2', 2]]) {
  test('a_' + name + '_folder_opened_from_file_url_draws_every_applicable_figure_and_the_reference_top_10',
    async () => {
      const o = await open(env.browser, FILE_URL, 'lang=en');
      const ref = referenceTop(name);
      await openFolder(o.page, name, textOf(ref.ids));
      assert.equal(await o.page.evaluate(() => document.body.dataset.open), 'opened');
      assert.match(await o.page.textContent('#open-info'), new RegExp('^' + name + ': .*' + layers + ' layers'));
      const figs = await figures(o.page);
      for (const v of APPLIES) {
        assert.equal(figs[v].applies, 'yes', v);
        assert.ok(figs[v].drawn > 0, v + ' is drawn');
      }
      for (const v of NOT) {
        assert.equal(figs[v].applies, 'no', v);
        assert.match(figs[v].text, /(Does not apply|Not drawn for an opened model)/, v);
      }
      assert.equal(figs.next.ids, ref.top.join(' '));
      // Figure 16: the last layer's most active neuron and what it promotes, as torch has them; no
      // held-out search for a folder.
      const nref = NEURONS.models.find((x) => x.name === name), last = nref.layers.length - 1;
      const top = nref.layers[last].top[0], c = nref.neurons.find((x) => x.layer === last && x.neuron === top);
      const nd = await o.page.$eval('#fig-neurons', (f) => Object.assign({}, f.dataset));
      assert.deepEqual(nref.ids, ref.ids, 'the same ids');
      assert.deepEqual([nd.trained, nd.neuron, nd.promote, nd.suppress, nd.search],
        ['model', (last + 1) + '.' + (top + 1), c.promote.join(' '), c.suppress.join(' '), 'na']);
      assert.equal(figs.paramsplit.total, String(tensorTotal(name)));
      // The layer picker goes over the model's layers (1-based): layer 2 is drawn too.
      await o.page.fill('#ctl-layer', '2');
      await o.page.waitForTimeout(400);
      await ready(o.page);
      assert.match(await o.page.textContent('#weights-note'), /layer 2 of 2/);
      assert.deepEqual(o.log.errors, []);
      // Nothing leaves the machine: every request is for the page's own files (or a Blob).
      assert.deepEqual(o.log.requests.filter((u) => !/^(file|blob|data):/.test(u)), []);
      await o.close();
    });
}

test('a_folder_without_config_json_is_refused_and_the_last_model_and_figures_stay', async () => {
  const o = await open(env.browser, FILE_URL, 'lang=en');
  const ref = referenceTop('llama');
  await openFolder(o.page, 'llama', textOf(ref.ids));
  const before = await figures(o.page), info = await o.page.textContent('#open-info');
  await o.page.setInputFiles('#open-files-input', ['model.safetensors', 'tokenizer.json'].map((f) => path.join(MODELS, 'qwen3', f)));
  await o.page.waitForFunction(() => document.body.dataset.open === 'failed', null, { timeout: 30000 });
  assert.match(await o.page.textContent('#open-err'), /the folder has no config\.json/);
  assert.equal(await o.page.textContent('#open-info'), info);
  const after = await figures(o.page);
  assert.equal(after.next.ids, before.next.ids);
  // The engine still works: another model opens after the refusal.
  await openFolder(o.page, 'gpt2');
  assert.match(await o.page.textContent('#open-info'), /^gpt2: /);
  assert.ok(await o.page.isHidden('#open-err'));
  assert.deepEqual(o.log.errors, []);
  await o.close();
});

// A folder opens with the text's last token selected (figure 3): the first reads only itself under the
// causal mask and, from a tokenizer that adds one (the poem model's <s>, Llama's, Mistral's), is the BOS.
for (const [name, text, L, last] of [['llama', 'theCat', 6, 't'], [path.join(__dirname, '..', '..', 'web', 'models', 'poems'), '床前明月光', 6, '光']]) {
  test('a_folder_opens_on_the_texts_last_token_' + (L === text.length ? 'with_no_bos' : 'not_its_bos') + '_in_figure_3', async () => {
    const o = await open(env.browser, FILE_URL, 'lang=en');
    await o.page.fill('#ctl-tokens', text);
    await o.page.waitForTimeout(400);
    await ready(o.page);
    await openFolder(o.page, name);
    assert.equal(await o.page.$eval('#fig-rows', (f) => f.dataset.selected), String(L - 1));
    assert.match(await o.page.textContent('#fig-rows'), new RegExp('Selected token: "' + last + '" \\(row ' + (L - 1) + '\\)'));
    assert.deepEqual(o.log.errors, []);
    await o.close();
  });
}

test('a_link_to_a_model_view_asks_for_its_folder_by_name_and_shows_that_view_once_opened', async () => {
  const a = await open(env.browser, FILE_URL, 'lang=en');
  await openFolder(a.page, 'llama', textOf(referenceTop('llama').ids));
  await a.page.fill('#ctl-layer', '2');
  await a.page.waitForTimeout(400);
  await ready(a.page);
  const hash = (await a.page.evaluate(() => location.hash)).slice(1);
  assert.match(hash, /weights=model&model=llama&/);
  await a.close();
  // From file:// nothing is kept across pages: the link's page asks for the folder, drawn on random weights meanwhile.
  const b = await open(env.browser, FILE_URL, hash);
  assert.match(await b.page.textContent('#open-ask'), /\u201cllama\u201d/);
  assert.equal(await b.page.evaluate(() => document.body.dataset.status), 'ready');
  assert.equal(await b.page.$eval('#ctl-weights', (s) => s.value), 'random');
  await openFolder(b.page, 'llama');
  assert.ok(await b.page.isHidden('#open-ask'));
  assert.match(await b.page.textContent('#weights-note'), /layer 2 of 2, on the real residual stream of your 6 tokens/);
  assert.equal(await b.page.$eval('#ctl-tokens', (t) => t.value), 'draQ,r');
  assert.deepEqual(b.log.errors, []);
  await b.close();
});

test('an_unsupported_model_type_and_a_folder_without_tokenizer_show_the_engine_message_and_keep_the_model', async () => {
  const o = await open(env.browser, FILE_URL, 'lang=en');
  await openFolder(o.page, 'gpt2', textOf(referenceTop('gpt2').ids));
  const before = await figures(o.page), dir = path.join(MODELS, 'llama');
  const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const weights = file('model.safetensors', fs.readFileSync(path.join(dir, 'model.safetensors')));
  const cases = [
    [[file('config.json', Buffer.from(JSON.stringify(Object.assign({}, cfg, { model_type: 'bert' })))), weights,
      file('tokenizer.json', fs.readFileSync(path.join(dir, 'tokenizer.json')))],
    /model_type "bert" .* is not one BlockLens reads \(gpt2, llama, mistral, qwen2, qwen3\)/],
    [[file('config.json', fs.readFileSync(path.join(dir, 'config.json'))), weights], /the folder has no tokenizer/]
  ];
  for (const [files, message] of cases) {
    await o.page.setInputFiles('#open-files-input', files);
    await o.page.waitForFunction(() => document.body.dataset.open === 'failed', null, { timeout: 30000 });
    assert.match(await o.page.textContent('#open-err'), message);
    assert.match(await o.page.textContent('#open-info'), /^gpt2: /);
    assert.equal((await figures(o.page)).next.ids, before.next.ids);
    await o.page.evaluate(() => { document.body.dataset.open = ''; });
  }
  assert.deepEqual(o.log.errors, []);
  await o.close();
});

// A GPT-2-shaped folder of about 200 MB (4 layers of d_model 1024, random weights, the fixtures'
// 64-character tokenizer): its weights are read in several 32 MB pieces, time enough to cancel.
function bigFolder() {
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'blocklens-big-')), D = 1024, NL = 4, V = 64, P = 64;
  const shapes = [['wte.weight', [V, D]], ['wpe.weight', [P, D]]];
  for (let l = 0; l < NL; l++) {
    const h = 'h.' + l + '.';
    shapes.push([h + 'ln_1.weight', [D]], [h + 'ln_1.bias', [D]], [h + 'attn.c_attn.weight', [D, 3 * D]],
      [h + 'attn.c_attn.bias', [3 * D]], [h + 'attn.c_proj.weight', [D, D]], [h + 'attn.c_proj.bias', [D]],
      [h + 'ln_2.weight', [D]], [h + 'ln_2.bias', [D]], [h + 'mlp.c_fc.weight', [D, 4 * D]], [h + 'mlp.c_fc.bias', [4 * D]],
      [h + 'mlp.c_proj.weight', [4 * D, D]], [h + 'mlp.c_proj.bias', [D]]);
  }
  shapes.push(['ln_f.weight', [D]], ['ln_f.bias', [D]]);
  // one pattern of 2^20 floats repeated through the data, cut into the tensors (checkpoint.js writes them)
  const count = shapes.reduce((t, [, s]) => t + s.reduce((a, b) => a * b, 1), 0), data = new Float32Array(count);
  for (let i = 0; i < Math.min(count, 1 << 20); i++) data[i] = ((i * 2654435761) % 1000) / 50000 - 0.01;
  for (let at = 1 << 20; at < count; at += 1 << 20) data.copyWithin(at, 0, Math.min(1 << 20, count - at));
  const tensors = {};
  let off = 0;
  for (const [n, s] of shapes) {
    const bytes = s.reduce((a, b) => a * b, 1) * 4;
    tensors[n] = ['F32', s, new Uint8Array(data.buffer, off, bytes)];
    off += bytes;
  }
  const file = ck.safetensors(tensors, { metadata: null });
  fs.writeFileSync(path.join(dir, 'model.safetensors'), file);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', n_embd: D, n_layer: NL, n_head: 16,
    n_positions: P, vocab_size: V }));
  fs.copyFileSync(path.join(MODELS, 'gpt2', 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  return { dir, bytes: file.length };
}

test('opening_shows_its_progress_and_cancel_keeps_the_last_model', async () => {
  const big = bigFolder();
  try {
    const o = await open(env.browser, FILE_URL, 'lang=en');
    await openFolder(o.page, 'llama', textOf(referenceTop('llama').ids));
    const before = await figures(o.page);
    await o.page.setInputFiles('#open-dir-input', big.dir);
    await o.page.waitForFunction(() => /reading weights, [\d.]+ MB of [\d.]+ MB/.test(document.getElementById('open-line').textContent),
      null, { timeout: 60000, polling: 10 });
    assert.match(await o.page.textContent('#open-line'), new RegExp('of ' + (big.bytes / 1e6).toFixed(1) + ' MB'));
    await o.page.click('.open-cancel');
    await o.page.waitForFunction(() => document.body.dataset.open === 'failed', null, { timeout: 60000 });
    assert.match(await o.page.textContent('#open-err'), /cancelled; the figures keep the last model/);
    assert.match(await o.page.textContent('#open-info'), /^llama: /);
    assert.equal((await figures(o.page)).next.ids, before.next.ids);
    assert.deepEqual(o.log.errors, []);
    await o.close();
  } finally {
    fs.rmSync(big.dir, { recursive: true, force: true });
  }
});

test('a_served_page_opens_a_folder_in_its_own_worker_without_requests_elsewhere', async () => {
  const served = await setup({ server: true });
  try {
    const o = await open(served.browser, served.url, 'lang=en');
    await o.page.waitForFunction(() => document.body.dataset.compute === 'worker', null, { timeout: 20000 });
    const ref = referenceTop('qwen3');
    await openFolder(o.page, 'qwen3', textOf(ref.ids));
    assert.match(await o.page.textContent('#open-info'), /^qwen3: Qwen3ForCausalLM, .* BF16, 2 layers/);
    assert.equal((await figures(o.page)).next.ids, ref.top.join(' '));
    assert.deepEqual(o.log.requests.filter((u) => !u.startsWith(served.url) && !/^(blob|data):/.test(u)), []);
    assert.deepEqual(o.log.errors, []);
    await o.close();
  } finally {
    await served.close();
  }
});

test('choosing_your_model_with_none_open_asks_for_the_folder_and_then_draws_it', async () => {
  const o = await open(env.browser, FILE_URL, 'lang=en');
  const chooser = o.page.waitForEvent('filechooser', { timeout: 10000 });
  await o.page.selectOption('#ctl-weights', 'model');
  await (await chooser).setFiles(path.join(MODELS, 'mistral'));
  await o.page.waitForFunction(() => document.body.dataset.open === 'opened', null, { timeout: 30000 });
  await o.page.waitForTimeout(400);
  await ready(o.page);
  assert.match(await o.page.textContent('#open-info'), /^mistral: MistralForCausalLM, 6,480 parameters, F32, 2 layers/);
  assert.equal(await o.page.evaluate(() => document.body.dataset.errors), '');
  assert.deepEqual(o.log.errors, []);
  await o.close();
});

// A folder opened again under the same name is another model (its serial keys its stages):
// every figure is drawn from it, not left as the first folder's drawing.
test('a_second_folder_with_the_same_name_redraws_every_figure_from_the_new_model', async () => {
  const os = require('os');
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bl-same-')), 'llama');
  fs.mkdirSync(dir);
  for (const f of fs.readdirSync(path.join(MODELS, 'qwen3'))) fs.copyFileSync(path.join(MODELS, 'qwen3', f), path.join(dir, f));
  const o = await open(env.browser, FILE_URL, 'lang=en');
  const ref = referenceTop('qwen3');
  await openFolder(o.page, 'llama', textOf(ref.ids));
  const first = await figures(o.page);
  await openFolder(o.page, dir);
  await o.page.waitForFunction((t) => document.querySelector('#fig-next').dataset.ids !== t, first.next.ids,
    { timeout: 30000 });
  const figs = await figures(o.page);
  assert.equal(figs.next.ids, ref.top.join(' '));
  assert.equal(figs.paramsplit.total, String(tensorTotal('qwen3')));
  for (const v of APPLIES) assert.notEqual(figs[v].text, first[v].text, v + ' is redrawn');
  assert.deepEqual(o.log.errors, []);
  await o.close();
  fs.rmSync(path.dirname(dir), { recursive: true });
});
