'use strict';
/* tools/bench/emcc.js - what kernels.js and attention.js share: their option parsing, Node 20's
   restart with relaxed SIMD, and build(): the engine's sources with one of them replaced by a
   bench C file that #includes it, compiled with the wasm build's flags (-O3 -msimd128
   -mrelaxed-simd -DBL_FMA, then tools/relax.js) into build/bench/, cached by a hash of the
   flags and the sources (so an edit of any source, or another checkout, rebuilds). */
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync, spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..', '..');
const RELAXED = '--experimental-wasm-relaxed-simd';

/* argv -> { args, opt(name, dflt): the value after name, has(name), runs (--runs, default 7) } */
function options(argv = process.argv.slice(2)) {
  const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
  return { args: argv, opt, has: (name) => argv.includes(name), runs: Number(opt('--runs', 7)) };
}

/* Node 20 validates relaxed SIMD only behind a flag: rerun `script` with it and exit with its
   status (returns only when relaxed SIMD validates) */
function relaxedRestart(script, argv = process.argv.slice(2)) {
  /* a function (v128) -> v128 whose body is f32x4.relaxed_madd */
  if (WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13,
    1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 133, 2, 11]))) return;
  if (process.execArgv.includes(RELAXED)) throw new Error('relaxed SIMD does not validate');
  const r = spawnSync(process.execPath, [RELAXED, ...process.execArgv, script, ...argv], { stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
}

/* Compiles the sources of checkout `tree` (CMakeLists.txt's BL_SOURCES) with `replaced`
   (e.g. 'src/matmul.c') swapped for tools/bench/`bench` (which #includes it through -D`define`),
   extra `flags`, for Node or (web) the browser. `hashed`: further files of the tree whose
   contents the build depends on (headers). Returns { js, wasm, hash } (paths). */
function build({ tree = root, flags = '', bench, replaced, define, hashed = [], prefix, exportName, exports, web = false }) {
  const cmake = fs.readFileSync(path.join(tree, 'CMakeLists.txt'), 'utf8');
  const sources = cmake.match(/set\(BL_SOURCES([^)]*)\)/)[1].trim().split(/\s+/).map((s) => path.join(tree, s));
  const swapped = path.join(tree, replaced);
  const files = [...sources.filter((f) => f !== swapped), path.join(__dirname, bench)];
  const hash = crypto.createHash('sha1').update(flags + (web ? 'web' : '') +
    [...files, swapped, ...hashed.map((h) => path.join(tree, h))].map((f) => fs.readFileSync(f)).join('')).digest('hex').slice(0, 10);
  const dir = path.join(root, 'build', 'bench'), js = path.join(dir, `${prefix}-${hash}${web ? '-web' : ''}.js`);
  const wasm = js.replace(/\.js$/, '.wasm');
  if (!fs.existsSync(js) || !fs.existsSync(wasm)) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('emcc', ['-O3', '-msimd128', '-mrelaxed-simd', '-DBL_FMA', ...flags.split(/\s+/).filter(Boolean),
      '-I', path.join(tree, 'include'), '-I', path.join(tree, 'src'), `-D${define}="${swapped}"`,
      ...files, '-o', js,
      '-sMODULARIZE=1', `-sEXPORT_NAME=${exportName(hash)}`, '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4294967296',
      `-sENVIRONMENT=${web ? 'web' : 'node'}`, '-sFILESYSTEM=0', `-sEXPORTED_FUNCTIONS=${exports.join(',')}`],
    { env: { ...process.env, NODE_PATH: '/usr/share/nodejs' }, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(root, 'tools', 'relax.js'), wasm, wasm], { stdio: 'ignore' });
  }
  return { js, wasm, hash };
}

const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };

module.exports = { options, relaxedRestart, build, median, root };
