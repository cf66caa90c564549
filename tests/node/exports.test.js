// exports.test.js - the package as a reader installs it: `npm pack` of the checkout unpacked into
// a temporary node_modules, then `import { load } from 'blocklens'` (ESM named exports) and
// `require('blocklens')` (CommonJS), from Node 20 and Node 22, give the same working engine;
// every file package.json points at is in the package.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { root } = require('./helpers.js');

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const NODE22 = path.join(root, '.cache', 'node22', 'node_modules', '.bin', 'node');
// This process's Node, and Node 22 when tools/bootstrap --tests installed it.
const NODES = [process.execPath].concat(fs.existsSync(NODE22) && fs.realpathSync(NODE22) !== fs.realpathSync(process.execPath) ? [NODE22] : []);

// One packed and unpacked copy for the whole file: { dir, files }.
let packed;
function install() {
  if (packed) return packed;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-exports-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'] });
  const info = JSON.parse(out)[0];
  const into = path.join(dir, 'node_modules', 'blocklens');
  fs.mkdirSync(into, { recursive: true });
  // An npm tarball holds package/...; a package with no dependencies installs as exactly that.
  execFileSync('tar', ['-xzf', path.join(dir, info.filename), '-C', into, '--strip-components=1']);
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "reader", "private": true }\n');
  packed = { dir, files: info.files.map((f) => f.path) };
  return packed;
}
test.after(() => { if (packed) fs.rmSync(packed.dir, { recursive: true, force: true }); });

// Runs a script in the reader's folder; returns what it printed as JSON.
function run(node, args, code) {
  const env = Object.assign({}, process.env);
  delete env.NODE_OPTIONS;   // tools/test's scalar pass preloads a file by a path relative to the checkout
  const r = spawnSync(node, args.concat(['-e', code]), { cwd: install().dir, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `${path.basename(node)} ${args.join(' ')}: ${r.stderr.slice(-600)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// Every path an exports map (or main / types) names.
function targets(map) {
  if (typeof map === 'string') return [map];
  return Object.values(map).flatMap(targets);
}

test('package_holds_every_file_its_exports_main_and_types_name', () => {
  const { files } = install();
  const named = new Set(targets(pkg.exports).concat(pkg.main, pkg.types).map((p) => path.posix.normalize(p)));
  for (const p of named) {
    // A subpath pattern ("./web/models/poems/*") names the files under its folder: at least one.
    const hit = p.includes('*') ? files.some((f) => f.startsWith(p.slice(0, p.indexOf('*')))) : files.includes(p);
    assert.ok(hit, `${p} is in the package (${files.join(', ')})`);
  }
  assert.ok(pkg.exports['.'].import && pkg.exports['.'].require && pkg.exports['.'].types, 'import, require and types conditions');
  assert.equal(Object.keys(pkg.exports['.'])[0], 'types', 'types comes first (TypeScript reads the first match)');
});

test('import_gives_named_exports_load_version_workerSource', () => {
  for (const node of NODES) {
    const got = run(node, ['--input-type=module'], `
      import * as ns from 'blocklens';
      import { load, version, workerSource } from 'blocklens';
      import blocklens from 'blocklens';
      const engine = await load();
      console.log(JSON.stringify({ keys: Object.keys(ns).sort(), version, node: process.version,
        sameDefault: blocklens.load === load && blocklens.version === version,
        worker: typeof workerSource() === 'string' && workerSource().includes('BlockLens'),
        bert: engine.paramCount('bert-base').total }));`);
    assert.deepEqual(got.keys, ['default', 'load', 'version', 'workerSource'], got.node);
    assert.equal(got.version, pkg.version, got.node);
    assert.ok(got.sameDefault && got.worker, got.node);
    assert.equal(got.bert, 109482240, got.node);
  }
});

test('require_gives_the_same_api_and_engine_as_import', () => {
  for (const node of NODES) {
    const got = run(node, [], `
      const bl = require('blocklens');
      import('blocklens').then(async (ns) => {
        const [a, b] = await Promise.all([bl.load(), ns.load()]);
        console.log(JSON.stringify({ keys: Object.keys(bl).sort(), node: process.version,
          sameLoad: ns.load === bl.load, sameEngine: a === b,
          version: require('blocklens/package.json').version,
          ffn: Array.from(a.ffn({ L: 1, dModel: 1, dFF: 1, x: new Float32Array([2]), W1: new Float32Array([-1]),
            b1: new Float32Array([0]), W2: new Float32Array([1]), b2: new Float32Array([0.5]) }).out) }));
      });`);
    assert.deepEqual(got.keys, ['load', 'version', 'workerSource'], got.node);
    assert.ok(got.sameLoad && got.sameEngine, `${got.node}: one engine whichever way it is loaded`);
    assert.equal(got.version, pkg.version);
    assert.deepEqual(got.ffn, [0.5], `${got.node}: relu(2 * -1) * 1 + 0.5`);
  }
});

test('named_exports_are_exactly_the_commonjs_api', () => {
  // blocklens.mjs lists the names by hand: a name added to the engine's API must be added there.
  const cjs = Object.keys(require(root)).sort();
  const got = run(process.execPath, ['--input-type=module'],
    `import * as ns from 'blocklens'; console.log(JSON.stringify(Object.keys(ns).filter((k) => k !== 'default').sort()));`);
  assert.deepEqual(got, cjs);
  // The types (one file for both conditions) declare the reader's API; workerSource is the
  // page's own (the text of a Blob Worker) and is not declared there.
  const dts = fs.readFileSync(path.join(root, pkg.types), 'utf8');
  for (const name of ['load', 'version']) assert.match(dts, new RegExp(`export (function|const) ${name}\\b`), `${pkg.types} declares ${name}`);
});

test('the_engine_script_stays_reachable_and_sources_stay_private', () => {
  const got = run(process.execPath, [], `
    let inner = null;
    try { require('blocklens/web/src/engine/engine.js'); } catch (e) { inner = e.code; }
    console.log(JSON.stringify({ deep: typeof require('blocklens/web/dist/blocklens.js').load, inner }));`);
  assert.equal(got.deep, 'function', 'the classic script by its path');
  assert.equal(got.inner, 'ERR_PACKAGE_PATH_NOT_EXPORTED');
});
