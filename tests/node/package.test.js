// package.test.js - the README's Node section as an installed user meets it: `npm pack` of the
// checkout, `npm install --offline` of that tarball into a fresh project, then every ```js block
// of "Using the engine from Node" run in that project (require('blocklens') finds the installed
// copy, not the checkout). A console.log line commented `// X` must print a line ending in X.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { root } = require('./helpers.js');

// The ```js blocks of the README's API section, in order.
function apiBlocks() {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Using the engine from Node');
  assert.ok(start >= 0, 'README has a "Using the engine from Node" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return Array.from(section.matchAll(/```js\n([\s\S]*?)```/g), (m) => m[1]);
}

// The printed values the README's comments promise: [{ line, want }] per console.log ... // X.
function promised(code) {
  return code.split('\n').flatMap((line) => {
    const m = line.match(/console\.log\(.*\);?\s*\}?\s*\/\/\s*(.+?)\s*$/);
    return m ? [{ line: line.trim(), want: m[1] }] : [];
  });
}

// tools/test's scalar pass preloads a file by a path relative to the checkout: not in the project.
const ENV = Object.assign({}, process.env);
delete ENV.NODE_OPTIONS;

let project;
// A fresh project with the packed tarball installed: its folder.
function install() {
  if (project) return project;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-package-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, env: ENV,
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tgz = path.join(dir, JSON.parse(out)[0].filename);
  project = path.join(dir, 'reader');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), '{ "name": "reader", "version": "1.0.0", "private": true }\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tgz],
    { cwd: project, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return project;
}
test.after(() => { if (project) fs.rmSync(path.dirname(project), { recursive: true, force: true }); });

// Runs code in the project (or a subfolder of it); returns what it printed.
function run(code, { esm = false, cwd = install() } = {}) {
  const file = path.join(cwd, esm ? 'example.mjs' : 'example.js');
  fs.writeFileSync(file, code);
  const r = spawnSync(process.execPath, [file], { cwd, env: ENV, encoding: 'utf8' });
  assert.equal(r.status, 0, `the example failed in the installed project:\n${r.stderr.slice(-1200)}`);
  return r.stdout;
}

function assertPromises(code, stdout) {
  const lines = stdout.split('\n');
  for (const p of promised(code))
    assert.ok(lines.some((l) => l.endsWith(p.want)), `"${p.line}" prints a line ending in "${p.want}":\n${stdout}`);
}

test('the_package_installs_from_its_tarball_with_the_poem_model', () => {
  const dir = path.join(install(), 'node_modules', 'blocklens');
  assert.ok(fs.existsSync(path.join(dir, 'web', 'dist', 'blocklens.js')), 'the engine is installed');
  for (const f of ['config.json', 'model.safetensors', 'vocab.json'])
    assert.ok(fs.existsSync(path.join(dir, 'web', 'models', 'poems', f)), `web/models/poems/${f} is in the package`);
});

test('every_js_example_of_the_README_api_section_runs_in_an_installed_project', () => {
  const blocks = apiBlocks();
  const first = blocks[0];
  assert.match(first, /require\('blocklens'\)/, 'the first example requires the package by its name');
  assert.ok(first.trimEnd().endsWith('});'), 'the first example ends with the load() callback\'s "});"');
  const esm = blocks.filter((b) => /^import /m.test(b));
  const more = blocks.slice(1).filter((b) => !esm.includes(b));
  assert.ok(esm.length >= 1 && more.length >= 2, `an ES-module example and the continuing ones (${blocks.length} blocks)`);

  // The examples after the first continue inside its callback ("continuing the example above").
  const probe = `
  console.log('PROBE ' + JSON.stringify({
    moe: { index: moe.topIndex.constructor.name + ' ' + moe.topIndex.length,
      weight: moe.topWeight.constructor.name + ' ' + moe.topWeight.length,
      rowSums: Array.from({ length: 7 }, (_, t) => moe.topWeight[2 * t] + moe.topWeight[2 * t + 1]),
      first: Array.from({ length: 7 }, (_, t) => moe.probs[8 * t + moe.topIndex[2 * t]] >= moe.probs[8 * t + moe.topIndex[2 * t + 1]]),
      probs: moe.probs.length, load: Array.from(moe.load).reduce((a, b) => a + b, 0), out: moe.out.length },
    ids: Array.from(ids), logits: out.logits.length, weights: out.layers[1].attention.weights.length,
    kept: Object.keys(out.layers[1]).sort() }));
  try { m.forward(ids); } catch (e) { console.log('AFTER FREE ' + e.message); }
`;
  const body = first.trimEnd().slice(0, -3) + more.join('\n') + probe + '});\n';
  const stdout = run(body);
  assertPromises(first + more.join('\n'), stdout);
  assert.match(stdout, /negative before ReLU: 100\n/);
  assert.match(stdout, /BERT-base parameters: 109482240\n/);
  const got = JSON.parse(stdout.split('\n').find((l) => l.startsWith('PROBE ')).slice(6));
  assert.equal(got.moe.index, 'Int32Array 14');
  assert.equal(got.moe.weight, 'Float32Array 14');
  for (const s of got.moe.rowSums) assert.ok(Math.abs(s - 1) < 1e-6, `each token's two weights sum to 1 (${s})`);
  assert.ok(got.moe.first.every(Boolean), 'the larger probability first');
  assert.deepEqual([got.moe.probs, got.moe.load, got.moe.out], [56, 14, 56]);
  assert.equal(got.ids.length, 6, '<s> and five characters');
  assert.equal(got.ids[0], 0, '<s> is id 0');
  assert.equal(got.logits, 6 * 3436);
  assert.equal(got.weights, 4 * 6 * 6);
  assert.ok(got.kept.includes('attention') && got.kept.includes('ffn'), got.kept.join(', '));
  assert.match(stdout, /AFTER FREE BlockLens: .*freed/, 'free() gives the heap back: the model refuses to run');

  for (const code of esm) assertPromises(code, run(code, { esm: true }));
});

test('the_poem_model_is_found_from_any_working_directory', () => {
  const deep = path.join(install(), 'src', 'deeper');
  fs.mkdirSync(deep, { recursive: true });
  const stdout = run(`
const fs = require('fs'), path = require('path');
const dir = path.dirname(require.resolve('blocklens/web/models/poems/config.json'));
const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
console.log(JSON.stringify({ inPackage: dir.includes('node_modules'), n: config.n_embd,
  bytes: fs.statSync(path.join(dir, 'model.safetensors')).size }));
`, { cwd: deep });
  const got = JSON.parse(stdout.trim());
  assert.ok(got.inPackage, 'the installed copy, not the checkout');
  assert.equal(got.n, 64);
  assert.ok(got.bytes > 600000, `model.safetensors has its weights (${got.bytes} bytes)`);
});
