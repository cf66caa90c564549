/* opened_store.test.js - on a served page, a model folder opened through the file input is kept in
   the origin's private file system (OPFS): a reload reopens it from there (the same next-token
   list, no file chooser, the ask hidden), Forget deletes it and the next reload asks again. A
   sharded folder (qwen2) keeps its index and both shards, and only what the loader reads; a file
   over several 8 MB writes is copied byte for byte; a folder changed in place is copied again;
   other kept models are named, with Forget those. A quota estimate too small, a write failing
   midway or a copy cancelled shows why in the line; the model stays open with its figures. From
   file:// nothing is tried. */
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { setup, open, ready, FILE_URL } = require('./helpers.js');
const { textOf } = require('../../tools/tokenizer/fixtures.js');

const MODELS = path.join(__dirname, '..', 'fixtures', 'models');
let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

// The reference's next-token top 10: its last row of logits, ties to the lower id.
function referenceTop(name) {
  const r = JSON.parse(fs.readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
  const V = r.shapes.logits[1], last = r.expected.logits.slice(-V);
  return { ids: r.ids, top: Array.from(last.keys()).sort((a, b) => last[b] - last[a] || a - b).slice(0, 10) };
}

// The fixture folder's files (reference.json and hooks.json are the tests', not the model's) with
// their sizes.
const TEST_FILES = ['reference.json', 'hooks.json'];
const folderFiles = (name) => Object.fromEntries(fs.readdirSync(path.join(MODELS, name)).filter((f) => !TEST_FILES.includes(f))
  .map((f) => [f, fs.statSync(path.join(MODELS, name, f)).size]));

// What OPFS holds, read by the page itself: { folder: { file: size } }.
const opfs = (page) => page.evaluate(async () => {
  const out = {}, top = await navigator.storage.getDirectory();
  let root;
  try { root = await top.getDirectoryHandle('blocklens-models'); } catch (e) { return out; }
  for await (const [dn, dir] of root.entries()) {
    out[dn] = {};
    for await (const [fn, h] of dir.entries()) out[dn][fn] = (await h.getFile()).size;
  }
  return out;
});

async function opened(page) {
  await page.waitForFunction(() => document.body.dataset.open && document.body.dataset.open !== 'opening', null,
    { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.body.dataset.open), 'opened');
  await page.waitForTimeout(400);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('#fig-next').dataset.trained === 'model', null, { timeout: 30000 });
}
const nextIds = (page) => page.$eval('#fig-next', (f) => f.dataset.ids || '');
const keptState = (page, want) => page.waitForFunction((w) => document.body.dataset.kept === w, want, { timeout: 30000 });

async function openFolder(page, name, text) {
  await page.setInputFiles('#open-dir-input', path.isAbsolute(name) ? name : path.join(MODELS, name));
  await opened(page);
  if (text !== undefined) {
    await page.fill('#ctl-tokens', text);
    await page.waitForTimeout(400);
    await ready(page);
  }
}

for (const name of ['llama', 'qwen2']) {
  test('a_served_' + name + '_folder_is_kept_reopens_after_a_reload_without_asking_and_forget_asks_again', async () => {
    const o = await open(env.browser, env.url, 'lang=en');
    const ref = referenceTop(name);
    await openFolder(o.page, name, textOf(ref.ids));
    assert.equal(await nextIds(o.page), ref.top.join(' '));
    await keptState(o.page, 'kept');
    const bytes = Object.values(folderFiles(name)).reduce((a, b) => a + b, 0);
    assert.match(await o.page.textContent('.open-kept-text'), new RegExp('^Kept in this browser \\(' +
      (bytes / 1e3).toFixed(1) + ' kB\\): a reload opens ' + name + ' from here'));
    // Every file the model needs, at its size, and the marker written last.
    const held = await opfs(o.page), folders = Object.keys(held);
    assert.equal(folders.length, 1);
    const copy = Object.assign({}, held[folders[0]]), marker = copy['blocklens-kept.json'];
    delete copy['blocklens-kept.json'];
    assert.deepEqual(copy, folderFiles(name));
    assert.ok(marker > 0);
    if (name === 'qwen2') assert.ok('model-00002-of-00002.safetensors' in copy, 'both shards are kept');

    // A reload: the same model, the same next tokens, from the browser's copy, no chooser.
    let chooser = 0;
    o.page.on('filechooser', () => { chooser++; });
    await o.page.reload();
    await ready(o.page);
    await opened(o.page);
    assert.equal(await o.page.evaluate(() => document.body.dataset.openedFrom), 'store');
    assert.match(await o.page.textContent('#open-info'), new RegExp('^' + name + ': '));
    assert.equal(await o.page.$eval('#ctl-weights', (s) => s.value), 'model');
    assert.equal(await nextIds(o.page), ref.top.join(' '));
    assert.ok(await o.page.isHidden('#open-ask'));
    assert.match(await o.page.textContent('.open-kept-text'), /^Kept in this browser/);
    assert.equal(chooser, 0);

    // Forget: the copy is gone; the next reload asks for the folder by name, on random weights.
    await o.page.click('.open-forget');
    await keptState(o.page, 'forgotten');
    assert.deepEqual(await opfs(o.page), {});
    assert.equal(await nextIds(o.page), ref.top.join(' '), 'the open model stays');
    await o.page.reload();
    await ready(o.page);
    await o.page.waitForFunction(() => !document.getElementById('open-ask').hidden, null, { timeout: 10000 });
    assert.match(await o.page.textContent('#open-ask'), new RegExp('\u201c' + name + '\u201d'));
    assert.equal(await o.page.$eval('#ctl-weights', (s) => s.value), 'random');
    assert.notEqual(await o.page.evaluate(() => document.body.dataset.open), 'opening');
    assert.equal(chooser, 0);
    assert.deepEqual(o.log.errors, []);
    await o.close();
  });
}

// A failure of the store is said in its line; the model opened stays, with its figures.
async function keptFails(initScript, state, message, during) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(initScript);
  const page = await context.newPage(), errors = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.type() + ': ' + m.text()); });
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  await page.goto(env.url + '#lang=en');
  await ready(page);
  const o = { page, log: { errors }, close: () => context.close() };
  const ref = referenceTop('llama');
  await openFolder(o.page, 'llama', textOf(ref.ids));
  if (during) await during(o.page);
  await keptState(o.page, state);
  assert.match(await o.page.textContent('.open-kept-text'), message);
  assert.equal(await o.page.$eval('#open-kept', (p) => getComputedStyle(p).display), 'flex', 'the line is shown');
  assert.ok(await o.page.isHidden('.open-forget'));
  assert.ok(await o.page.isHidden('#open-err'));
  assert.equal(await nextIds(o.page), ref.top.join(' '));
  assert.deepEqual(await opfs(o.page), {}, 'nothing half written is left');
  // The model still computes: layer 2 is drawn from it.
  await o.page.fill('#ctl-layer', '2');
  await o.page.waitForTimeout(400);
  await ready(o.page);
  assert.match(await o.page.textContent('#weights-note'), /layer 2 of 2/);
  // And the reload asks, since nothing was kept.
  await o.page.reload();
  await ready(o.page);
  await o.page.waitForFunction(() => !document.getElementById('open-ask').hidden, null, { timeout: 10000 });
  assert.deepEqual(o.log.errors, []);
  await o.close();
}

test('a_quota_estimate_too_small_says_so_and_the_model_stays_open', () => keptFails(() => {
  navigator.storage.estimate = async () => ({ quota: 20000, usage: 15000 });
}, 'quota', /^Not kept in this browser: llama needs [\d.]+ kB and the browser\u2019s storage has 5\.0 kB free\. The model stays open/));

test('a_write_failing_midway_says_so_removes_the_copy_and_the_model_stays_open', () => keptFails(() => {
  const write = FileSystemWritableFileStream.prototype.write;
  let n = 0;
  FileSystemWritableFileStream.prototype.write = function (chunk) {
    if (++n === 3) return Promise.reject(new DOMException('the disk went away', 'InvalidStateError'));
    return write.call(this, chunk);
  };
}, 'failed', /^Could not keep llama in this browser \(the disk went away\)\. The model stays open/));

// Each write waits 1.5 s: time to press Cancel while the line shows the copy's progress.
test('cancelling_the_copy_removes_it_and_the_model_stays_open', () => keptFails(() => {
  const write = FileSystemWritableFileStream.prototype.write;
  FileSystemWritableFileStream.prototype.write = function (chunk) {
    return new Promise((r) => setTimeout(r, 1500)).then(() => write.call(this, chunk));
  };
}, 'cancelled', /^Not kept in this browser \(cancelled\)\. The model stays open/, async (page) => {
  await keptState(page, 'saving');
  assert.match(await page.textContent('.open-kept-text'), /^Keeping llama in this browser, .*: [\d.]+ kB of [\d.]+ kB/);
  await page.click('.open-keep-cancel');
}));

// From file:// the page has no usable OPFS (Chromium's getDirectory rejects there): nothing is
// tried, nothing is logged, and the line stays hidden.
test('a_file_url_page_keeps_nothing_and_says_nothing', async () => {
  const o = await open(env.browser, FILE_URL, 'lang=en');
  await openFolder(o.page, 'llama', textOf(referenceTop('llama').ids));
  await o.page.waitForTimeout(500);
  assert.equal(await o.page.evaluate(() => document.body.dataset.kept), undefined);
  assert.ok(await o.page.isHidden('#open-kept'));
  assert.deepEqual(o.log.errors, []);
  await o.close();
});

// A GPT-2-shaped folder of about 25 MB (2 layers of d_model 512, weights from one xorshift run over
// the whole file, so no two 8 MB writes hold the same bytes; the fixtures' 64-character tokenizer).
function bigFolder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-store-')), D = 512, NL = 2, V = 64, P = 64;
  const shapes = [['wte.weight', [V, D]], ['wpe.weight', [P, D]]];
  for (let l = 0; l < NL; l++) {
    const h = 'h.' + l + '.';
    shapes.push([h + 'ln_1.weight', [D]], [h + 'ln_1.bias', [D]], [h + 'attn.c_attn.weight', [D, 3 * D]],
      [h + 'attn.c_attn.bias', [3 * D]], [h + 'attn.c_proj.weight', [D, D]], [h + 'attn.c_proj.bias', [D]],
      [h + 'ln_2.weight', [D]], [h + 'ln_2.bias', [D]], [h + 'mlp.c_fc.weight', [D, 4 * D]], [h + 'mlp.c_fc.bias', [4 * D]],
      [h + 'mlp.c_proj.weight', [4 * D, D]], [h + 'mlp.c_proj.bias', [D]]);
  }
  shapes.push(['ln_f.weight', [D]], ['ln_f.bias', [D]]);
  const header = {};
  let off = 0;
  for (const [n, sh] of shapes) {
    const bytes = sh.reduce((a, b) => a * b, 1) * 4;
    header[n] = { dtype: 'F32', shape: sh, data_offsets: [off, off + bytes] };
    off += bytes;
  }
  let json = JSON.stringify(header);
  while (json.length % 8) json += ' ';
  const len = Buffer.alloc(8), w = new Float32Array(off / 4);
  len.writeBigUInt64LE(BigInt(json.length));
  let x = 2463534242;
  for (let i = 0; i < w.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    w[i] = (x / 4294967296 - 0.5) * 0.04;
  }
  fs.writeFileSync(path.join(dir, 'model.safetensors'), Buffer.concat([len, Buffer.from(json), Buffer.from(w.buffer)]));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', n_embd: D, n_layer: NL, n_head: 8,
    n_positions: P, vocab_size: V }));
  fs.copyFileSync(path.join(MODELS, 'gpt2', 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  return dir;
}

test('a_folder_of_several_8_mb_writes_is_copied_byte_for_byte_and_reopens_to_the_same_next_tokens', async () => {
  const dir = bigFolder();
  try {
    const o = await open(env.browser, env.url, 'lang=en&tokens=' + encodeURIComponent('draQ,r'));
    await openFolder(o.page, dir);
    await keptState(o.page, 'kept');
    const before = await nextIds(o.page);
    assert.match(before, /^(\d+ ){9}\d+$/);
    const sha = (f) => crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex');
    const copied = await o.page.evaluate(async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('blocklens-models'), out = {};
      for await (const [, d] of root.entries()) {
        for await (const [fn, h] of d.entries()) {
          const hash = await crypto.subtle.digest('SHA-256', await (await h.getFile()).arrayBuffer());
          out[fn] = Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, '0')).join('');
        }
      }
      return out;
    });
    assert.ok(fs.statSync(path.join(dir, 'model.safetensors')).size > 3 * (8 << 20));
    for (const f of ['config.json', 'tokenizer.json', 'model.safetensors']) assert.equal(copied[f], sha(f), f);
    await o.page.reload();
    await ready(o.page);
    await opened(o.page);
    assert.equal(await o.page.evaluate(() => document.body.dataset.openedFrom), 'store');
    assert.equal(await nextIds(o.page), before);
    await o.page.click('.open-forget');
    await keptState(o.page, 'forgotten');
    assert.deepEqual(o.log.errors, []);
    await o.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Each model opened here is kept in a folder of its own: the line under the open one names the
// others (and a copy a closed tab left unfinished, no marker), and Forget those removes them only.
test('other_kept_models_and_an_unfinished_copy_are_named_and_forget_those_keeps_the_open_one', async () => {
  const o = await open(env.browser, env.url, 'lang=en');
  await o.page.evaluate(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('blocklens-models', { create: true });
    const w = await (await (await root.getDirectoryHandle('m-00000000-left', { create: true }))
      .getFileHandle('config.json', { create: true })).createWritable();
    await w.write('x'.repeat(1500));
    await w.close();
  });
  await openFolder(o.page, 'llama');
  await keptState(o.page, 'kept');
  await o.page.waitForFunction(() => !document.getElementById('open-kept-others').hidden);
  assert.equal(await o.page.textContent('.open-kept-others-text'), 'Also kept in this browser: a copy left unfinished (1.5 kB).');
  await o.page.evaluate(() => { document.body.dataset.kept = ''; });
  await openFolder(o.page, 'gpt2');
  await keptState(o.page, 'kept');
  const llama = Object.values(folderFiles('llama')).reduce((a, b) => a + b, 0) + 1500;
  await o.page.waitForFunction(() => /llama/.test(document.querySelector('.open-kept-others-text').textContent));
  const text = await o.page.textContent('.open-kept-others-text');
  assert.match(text, /^Also kept in this browser: (llama, a copy left unfinished|a copy left unfinished, llama) \(([\d.]+) kB\)\.$/);
  // The marker's bytes are the files'; the size said counts the marker-less copy's file too.
  assert.equal(text.match(/\(([\d.]+) kB\)/)[1], (llama / 1e3).toFixed(1));
  await o.page.click('.open-forget-others');
  await o.page.waitForFunction(() => document.getElementById('open-kept-others').hidden);
  const held = await opfs(o.page);
  assert.equal(Object.keys(held).length, 1);
  assert.deepEqual(Object.keys(Object.values(held)[0]).sort(), ['blocklens-kept.json', 'config.json', 'model.safetensors', 'tokenizer.json']);
  assert.match(await o.page.textContent('.open-kept-text'), /^Kept in this browser .* gpt2 from here/);
  await o.page.click('.open-forget');
  await keptState(o.page, 'forgotten');
  assert.deepEqual(await opfs(o.page), {});
  assert.deepEqual(o.log.errors, []);
  await o.close();
});

// A folder changed in place (same name, same sizes, newer files: lm_head negated) is copied again:
// the reload shows the changed model's next tokens, the reference's lowest 10 logits.

const keptSha = (page, name) => page.evaluate(async (n) => {
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('blocklens-models');
  for await (const [, d] of root.entries()) {
    const hash = await crypto.subtle.digest('SHA-256', await (await (await d.getFileHandle(n)).getFile()).arrayBuffer());
    return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, '0')).join('');
  }
  return null;
}, name);
test('a_folder_changed_in_place_is_kept_again_and_reopens_as_changed', async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-store-')), 'llama');
  try {
    fs.cpSync(path.join(MODELS, 'llama'), dir, { recursive: true });
    for (const f of TEST_FILES) fs.rmSync(path.join(dir, f), { force: true });
    const o = await open(env.browser, env.url, 'lang=en');
    const ref = referenceTop('llama');
    await openFolder(o.page, dir, textOf(ref.ids));
    await keptState(o.page, 'kept');
    assert.equal(await nextIds(o.page), ref.top.join(' '));
    const file = path.join(dir, 'model.safetensors'), buf = fs.readFileSync(file), n = Number(buf.readBigUInt64LE(0));
    const [a, b] = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'))['lm_head.weight'].data_offsets;
    for (let i = 8 + n + a; i < 8 + n + b; i += 4) buf.writeFloatLE(-buf.readFloatLE(i), i);
    fs.writeFileSync(file, buf);
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    await o.page.evaluate(() => { document.body.dataset.kept = ''; document.body.dataset.open = ''; });
    await openFolder(o.page, dir);
    await keptState(o.page, 'kept');
    const r = JSON.parse(fs.readFileSync(path.join(MODELS, 'llama', 'reference.json'), 'utf8'));
    const V = r.shapes.logits[1], last = r.expected.logits.slice(-V);
    const low = Array.from(last.keys()).sort((x, y) => last[x] - last[y] || x - y).slice(0, 10).join(' ');
    // (Not the figure before the reload: dom/redraw.js leaves a figure alone when a folder of the
    // same name opens again with the same settings.) The copy is the changed file's bytes.
    assert.equal(await keptSha(o.page, 'model.safetensors'), crypto.createHash('sha256').update(buf).digest('hex'));
    await o.page.reload();
    await ready(o.page);
    await opened(o.page);
    assert.equal(await o.page.evaluate(() => document.body.dataset.openedFrom), 'store');
    assert.equal(await nextIds(o.page), low);
    assert.deepEqual(o.log.errors, []);
    await o.close();
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});

// Only what the loader reads is kept: the index's shards, not a consolidated copy beside them, nor
// other formats' weights or files it does not read.
test('a_sharded_folder_with_extra_files_keeps_only_config_index_shards_and_tokenizer', async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-store-')), 'qwen2');
  try {
    fs.cpSync(path.join(MODELS, 'qwen2'), dir, { recursive: true });
    for (const f of TEST_FILES) fs.rmSync(path.join(dir, f), { force: true });
    fs.copyFileSync(path.join(dir, 'model-00001-of-00002.safetensors'), path.join(dir, 'consolidated.safetensors'));
    fs.writeFileSync(path.join(dir, 'pytorch_model.bin'), Buffer.alloc(3000));
    fs.writeFileSync(path.join(dir, 'generation_config.json'), '{}');
    const o = await open(env.browser, env.url, 'lang=en');
    const ref = referenceTop('qwen2');
    await openFolder(o.page, dir, textOf(ref.ids));
    await keptState(o.page, 'kept');
    assert.equal(await nextIds(o.page), ref.top.join(' '));
    const held = Object.values(await opfs(o.page))[0];
    assert.deepEqual(Object.keys(held).sort(), ['blocklens-kept.json', 'config.json', 'model-00001-of-00002.safetensors',
      'model-00002-of-00002.safetensors', 'model.safetensors.index.json', 'tokenizer.json']);
    assert.deepEqual(o.log.errors, []);
    await o.close();
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});

// A copy is taken only whole: without its marker (a tab closed midway) or with a file cut short,
// the reload asks for the folder instead of opening it.
test('a_copy_without_its_marker_or_with_a_file_cut_short_is_not_opened', async () => {
  const o = await open(env.browser, env.url, 'lang=en');
  for (const harm of ['marker', 'short']) {
    await o.page.evaluate(() => { document.body.dataset.kept = ''; document.body.dataset.open = ''; });
    await openFolder(o.page, 'llama');
    await keptState(o.page, 'kept');
    await o.page.evaluate(async (how) => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('blocklens-models');
      for await (const [, d] of root.entries()) {
        if (how === 'marker') await d.removeEntry('blocklens-kept.json');
        else {
          const w = await (await d.getFileHandle('model.safetensors')).createWritable({ keepExistingData: true });
          await w.truncate(1000);
          await w.close();
        }
      }
    }, harm);
    await o.page.reload();
    await ready(o.page);
    await o.page.waitForFunction(() => !document.getElementById('open-ask').hidden, null, { timeout: 10000 });
    assert.equal(await o.page.$eval('#ctl-weights', (s) => s.value), 'random', harm);
    assert.notEqual(await o.page.evaluate(() => document.body.dataset.open), 'opened', harm);
  }
  assert.deepEqual(o.log.errors, []);
  await o.close();
});
