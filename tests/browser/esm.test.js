// esm.test.js - `import { load } from 'blocklens'` in a reader's code, bundled for the browser by
// esbuild (the package's "import" condition, its "browser" field for the Node-only requires),
// runs in Chromium as a module script and computes; a bundle for Node (CommonJS) runs in Node.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const esbuild = require('esbuild');
const { setup } = require('./helpers.js');

const ROOT = path.join(__dirname, '..', '..');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

// The reader's code, in a folder whose node_modules/blocklens is this checkout.
const ENTRY = `import { load, version } from 'blocklens';
import BlockLens from 'blocklens';
load().then((e) => {
  const r = e.ffn({ L: 1, dModel: 1, dFF: 1, x: new Float32Array([2]), W1: new Float32Array([-1]),
    b1: new Float32Array([0]), W2: new Float32Array([1]), b2: new Float32Array([0.5]) });
  globalThis.__result = { version, same: BlockLens.load === load, out: Array.from(r.out),
    bert: e.paramCount('bert-base').total };
  if (typeof process === 'object') console.log(JSON.stringify(globalThis.__result));
}, (err) => { globalThis.__result = { error: String(err) }; });
`;
let dir;
function reader() {
  if (dir) return dir;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-esm-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'blocklens'), 'dir');
  fs.writeFileSync(path.join(dir, 'entry.mjs'), ENTRY);
  return dir;
}
test.after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

async function bundle(platform, format) {
  const r = await esbuild.build({ entryPoints: [path.join(reader(), 'entry.mjs')], bundle: true, platform, format,
    write: false, logLevel: 'silent' });
  return r.outputFiles[0].text;
}

test('esm_import_bundled_for_the_browser_runs_in_chromium', async () => {
  const code = await bundle('browser', 'esm');
  assert.doesNotMatch(code, /require\("(fs|path)"\)/, 'the Node-only requires are left out for the browser');
  const env = await setup();
  try {
    const page = await (await env.browser.newContext()).newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.setContent('<!doctype html><title>reader</title>');
    await page.addScriptTag({ content: code, type: 'module' });
    await page.waitForFunction(() => globalThis.__result, null, { timeout: 20000 });
    const got = await page.evaluate(() => globalThis.__result);
    assert.deepEqual(got, { version: VERSION, same: true, out: [0.5], bert: 109482240 });
    assert.deepEqual(errors, []);
  } finally {
    await env.close();
  }
});

test('esm_import_bundled_for_node_as_commonjs_runs', async () => {
  const file = path.join(reader(), 'out.cjs');
  fs.writeFileSync(file, await bundle('node', 'cjs'));
  const got = JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim());
  assert.deepEqual(got, { version: VERSION, same: true, out: [0.5], bert: 109482240 });
});
