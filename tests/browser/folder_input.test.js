/* folder_input.test.js - in Chromium, a model folder picked with <input type=file webkitdirectory>
   (a FileList whose names carry the folder's prefix) or its files picked one by one loads with
   bl.loadModel(input.files), reporting progress, and gives the logits of the bytes form. */
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { setup, WEB } = require('./helpers.js');

const POEMS = path.join(WEB, 'models', 'poems');
let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

/* A page with the engine and two pickers: a folder, and files. */
async function pickerPage() {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setContent('<input type="file" id="dir" webkitdirectory><input type="file" id="some" multiple>');
  await page.addScriptTag({ path: path.join(WEB, 'dist', 'blocklens.js') });
  await page.addScriptTag({ path: path.join(WEB, 'dist', 'blocklens-tokenizers.js') });   // the folder has tokenizer.json
  return { page, errors };
}

/* In the page: the picker's FileList loaded (with progress), and the bytes form of the same files. */
function loadPicked() {
  return async (pickerId) => {
    const bl = await BlockLens.load(), files = document.getElementById(pickerId).files, events = [];
    const m = await bl.loadModel(files, { onProgress: (e) => events.push(e) });
    const byName = {};
    for (const f of files) byName[f.name] = new Uint8Array(await f.arrayBuffer());
    const text = (n) => new TextDecoder().decode(byName[n]);
    const ref = bl.loadModel({ weights: byName['model.safetensors'], config: JSON.parse(text('config.json')),
      vocab: JSON.parse(text('vocab.json')) });
    const ids = m.encode('床前明月光'), a = m.forward(ids).logits, b = ref.forward(ids).logits;
    let same = a.length === b.length;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) same = false;
    m.free();
    ref.free();
    return { names: Array.from(files, (f) => f.webkitRelativePath || f.name).sort(), same, n: a.length, events,
      ids: Array.from(ids) };
  };
}

test('a_folder_picked_with_webkitdirectory_loads_from_its_FileList_with_progress', async () => {
  const { page, errors } = await pickerPage();
  await page.setInputFiles('#dir', POEMS);
  const r = await page.evaluate(loadPicked(), 'dir');
  // (the poem folder also ships the texts the page's neurons and Train views read: not the model's)
  assert.deepEqual(r.names, ['poems/config.json', 'poems/heldout.txt', 'poems/model.safetensors',
    'poems/tokenizer.json', 'poems/train.txt', 'poems/vocab.json']);
  assert.ok(r.same && r.n === 6 * 3436, 'the logits of the bytes form, bit for bit');
  assert.deepEqual(r.events.map((e) => e.phase), ['headers', 'weights', 'done']);
  assert.ok(r.events.every((e) => e.bytesTotal === 650480));
  assert.equal(r.events.at(-1).bytesRead, 650480);
  assert.deepEqual(errors, []);
  await page.close();
});

test('files_picked_one_by_one_and_an_array_of_File_load_the_same_model', async () => {
  const { page, errors } = await pickerPage();
  await page.setInputFiles('#some', ['config.json', 'model.safetensors', 'vocab.json'].map((n) => path.join(POEMS, n)));
  const r = await page.evaluate(loadPicked(), 'some');
  assert.deepEqual(r.names, ['config.json', 'model.safetensors', 'vocab.json']);
  assert.ok(r.same);
  const arr = await page.evaluate(async () => {
    const bl = await BlockLens.load(), files = Array.from(document.getElementById('some').files);
    const m = await bl.loadModel(files);
    const out = { vocabSize: m.vocabSize, top: m.decode([m.encode('春').at(-1)]) };
    m.free();
    // a folder without config.json: a named rejection, and the engine loads again after it
    const err = await bl.loadModel(files.filter((f) => f.name !== 'config.json')).catch((e) => e.message);
    const again = await bl.loadModel(files);
    again.free();
    return { ...out, err };
  });
  assert.deepEqual(arr, { vocabSize: 3436, top: '春',
    err: 'BlockLens: the folder has no config.json (it has "model.safetensors", "vocab.json")' });
  assert.deepEqual(errors, []);
  await page.close();
});
