#!/usr/bin/env node
/* tools/bench/modelwide-opts.js - the model-wide stages before / after the engine options of issue
   21's second pass (the lens's next-token ranks inside forward's lens, logits: 'last' in the
   ablation and patching reruns): the same stages' steps (web/src/model/stages/) run from two
   checkouts, each with its own engine (web/dist/blocklens.js), in alternating rounds in one
   process, on the poem model (everything in full) and on a SmolLM2-135M-shaped BF16 checkpoint
   written here (tools/bench/llama.js's checkpoint: random weights, 30 layers, d 576, 9 / 3 heads,
   d_ff 1536, vocab 49152) at 64 tokens. Wall and CPU time (process.cpuUsage: user + system, both
   threads of nothing else: the engine is single-threaded) per stage. At SmolLM2 shape the two
   sweeps are sampled: a few steps at the first, middle and last layer, the full sweep's time
   their per-layer mean times the steps of each layer, interpolated linearly between the sampled
   layers. A benchmark: it asserts only that both sides give the same ranks and sweep numbers.

   usage:  bash tools/build && node tools/bench/modelwide-opts.js [--before /work/main] [--rounds 2]
                                                                   [--skip-big] [--out FILE]
     --before  the checkout to compare against (its web/dist built; default /work/main)
     --out     also write the report as Markdown */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { checkpoint, SHAPE } = require('./llama.js');

const argv = process.argv.slice(2);
const opt = (name, fallback) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : fallback; };
const AFTER = path.join(__dirname, '..', '..'), BEFORE = path.resolve(opt('--before', '/work/main'));
const ROUNDS = Number(opt('--rounds', 2)), OUT = opt('--out', null), SKIP_BIG = argv.includes('--skip-big');
const log = (m) => process.stderr.write(m + '\n');

// One side: its engine and its stages.
function side(root, name) {
  const st = (f) => require(path.join(root, 'web', 'src', 'model', 'stages', f + '.js'));
  return { name, root, BlockLens: require(path.join(root, 'web', 'dist', 'blocklens.js')), wide: st('wide').default,
    lens: st('lens').default, ablsweep: st('ablation').ablsweep, patching: st('patching').default };
}

// Time fn: { wall ms, cpu ms, value }.
function timed(fn) {
  const c0 = process.cpuUsage(), t0 = performance.now(), value = fn();
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000, value };
}

// Runs every step of stage st on spec s (got: the stages before it); pick (optional): the step
// indices to run (a sample), else all. -> { wall, cpu, value, steps, total, first (the first
// step's { wall, cpu }) }
function runStage(bl, st, s, got, model, pick) {
  const get = (n) => got[n], steps = st.steps(bl, s, get, { model: () => model });
  const which = pick ? pick(steps.length) : steps.map((_, i) => i);
  let value, first = null;
  const t = timed(() => {
    for (const i of which) {
      const one = timed(() => steps[i].run());
      if (!first) first = one;
      value = one.value;
    }
    return value;
  });
  return Object.assign(t, { steps: which.length, total: steps.length, first });
}

const POEM = '床前明月光，疑是地上霜。举头望明月，低头思故乡。';
const CORRUPT = '床前明日光，疑是地上霜。举头望明月，低头思故乡。';

// The spec the stages read for model m (weights 'model': ids given) and its corrupted text.
function specOf(m, ids, xids) {
  return { weights: 'model', ids: Array.from(ids), L: ids.length, layers: m.nLayers, heads: m.nHeads, d: m.dModel,
    dff: m.dFF, sweep: 'on', abltok: -1, corrupt: 'x', corruptIds: Array.from(xids),
    corruptTokens: Array.from(xids, String) };
}

const fmt = (t) => `${(t.wall / 1000).toFixed(2)} s (CPU ${(t.cpu / 1000).toFixed(2)} s)`;
const ratio = (a, b) => (b * 1000 < a ? '> 1000' : (a / b).toFixed(2));

async function main() {
  const sides = [side(BEFORE, 'before'), side(AFTER, 'after')];
  for (const sd of sides) sd.bl = await sd.BlockLens.load();
  const report = ['# The model-wide stages before / after the engine options (issue 21)', '',
    `Written by \`node tools/bench/modelwide-opts.js --rounds ${ROUNDS}\` on ${new Date().toISOString()}: Node ` +
    `${process.version}, before = ${BEFORE} (${sides[0].bl.fma ? 'FMA' : sides[0].bl.simd ? 'SIMD' : 'scalar'}), ` +
    `after = this checkout (${sides[1].bl.fma ? 'FMA' : sides[1].bl.simd ? 'SIMD' : 'scalar'}); ` +
    `${os.cpus().length} x ${os.cpus()[0].model}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(', ')} ` +
    '(a shared host: read the paired ratios, and CPU beside wall). Rounds alternate before / after; the table ' +
    'gives each side\'s best round by wall time (wall, and CPU = user + system of this process).', ''];

  // ---- the poem model: every stage in full ----
  const poemDir = path.join(AFTER, 'web', 'models', 'poems');
  const cases = [{ name: 'poem model (2 layers, d 64, vocab 3436)', load: (bl) => bl.loadModel(poemDir), full: true,
    ids: (m) => m.encode(POEM), xids: (m) => m.encode(CORRUPT) }];
  if (!SKIP_BIG) {
    const V = SHAPE.V, config = { model_type: 'llama', hidden_size: SHAPE.D, intermediate_size: SHAPE.F,
      num_hidden_layers: SHAPE.NL, num_attention_heads: SHAPE.H, num_key_value_heads: SHAPE.KVH, vocab_size: V,
      max_position_embeddings: 8192, rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true };
    const bytes = checkpoint('BF16'), vocab = Array.from({ length: V }, (_, i) => 't' + i);
    const ids = Array.from({ length: 64 }, (_, i) => (i * 7919 + 11) % V);
    const xids = ids.map((v, i) => (i === 20 ? (v + 1) % V : v));
    cases.push({ name: 'SmolLM2-135M shape, BF16, L 64', load: (bl) => bl.loadModel({ weights: bytes, config, vocab }),
      full: false, ids: () => ids, xids: () => xids });
  }
  for (const c of cases) {
    log('== ' + c.name);
    const models = await Promise.all(sides.map((sd) => c.load(sd.bl)));
    const m0 = models[0], NL = m0.nLayers, H = m0.nHeads, s = specOf(m0, c.ids(m0), c.xids(m0));
    // Sampled sweeps (SmolLM2): ablation steps are (layer, head 0..H-1, ffn) in layer order; patching
    // steps are the first run, then (layer, position) for every position. Sampled: layers 0, mid,
    // last; two head steps and the FFN step of each / the last two positions (reruns: after the
    // changed token).
    const layersAt = [0, NL >> 1, NL - 1], L = s.L;
    const ablPick = c.full ? null : () => layersAt.flatMap((l) => [l * (H + 1), l * (H + 1) + 1, l * (H + 1) + H]);
    const patPick = c.full ? null : () => [0, ...layersAt.flatMap((l) => [1 + l * L + L - 2, 1 + l * L + L - 1])];
    const rows = { wide: [[], []], lens: [[], []], wideLens: [[], []], abl: [[], []], pat: [[], []] };
    const values = [{}, {}];
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < 2; k++) {
        const sd = sides[k], m = models[k], got = {};
        const w = runStage(sd.bl, sd.wide, s, got, m);
        got.wide = w.value;
        const ln = runStage(sd.bl, sd.lens, s, got, m);
        got.lens = ln.value;
        const ab = runStage(sd.bl, sd.ablsweep, s, got, m, ablPick);
        const pa = runStage(sd.bl, sd.patching, s, got, m, patPick);
        rows.wide[k].push(w); rows.lens[k].push(ln); rows.abl[k].push(ab); rows.pat[k].push(pa);
        rows.wideLens[k].push({ wall: w.wall + ln.wall, cpu: w.cpu + ln.cpu });
        values[k] = { lens: ln.value, abl: ab.value, pat: pa.value };
        log(`  round ${r + 1} ${sd.name}: wide ${fmt(w)}, lens ${fmt(ln)}, ablation ${fmt(ab)} (${ab.steps} of ` +
          `${ab.total} steps), patching ${fmt(pa)} (${pa.steps} of ${pa.total})`);
      }
    }
    // the same numbers both ways (ranks exactly; sweeps: the last row is bit for bit the same)
    const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const checks = { 'lens ranks': same(values[0].lens.rank, values[1].lens.rank),
      'lens probs (within 1e-6)': values[0].lens.prob.every((v, i) => (Number.isNaN(v) && Number.isNaN(values[1].lens.prob[i])) ||
        Math.abs(v - values[1].lens.prob[i]) <= 1e-6),
      'ablation drops': same(values[0].abl.drop, values[1].abl.drop) && same(values[0].abl.ffnDrop, values[1].abl.ffnDrop),
      'patched logits': same(values[0].pat.patched, values[1].pat.patched) };
    const med = (list) => list.slice().sort((a, b) => a.wall - b.wall)[0];   // the best round
    report.push(`## ${c.name}`, '', '| stage | before | after | before / after (wall) | (CPU) |', '|---|---:|---:|---:|---:|');
    for (const [key, label] of [['wide', 'wide (forward, every layer kept, lens 5)'], ['lens', 'lens (next-token ranks)'],
      ['wideLens', 'wide + lens']]) {
      const a = med(rows[key][0]), b = med(rows[key][1]);
      report.push(`| ${label} | ${fmt(a)} | ${fmt(b)} | ${ratio(a.wall, b.wall)} | ${ratio(a.cpu, b.cpu)} |`);
    }
    // A whole sweep from the sample: the layers sampled at 0, mid and last, so the sampled steps'
    // mean is about the sweep's (a step's cost falls linearly from layer 0 to the last); ablation:
    // NL x (H + 1) steps; patching: its first run, then NL x (L - 20) reruns (the rows before the
    // changed token 20 are the corrupted run's own: no rerun).
    for (const [key, label, reruns] of [['abl', 'ablation sweep', NL * (H + 1)], ['pat', 'patching sweep', NL * (L - 20)]]) {
      const a = med(rows[key][0]), b = med(rows[key][1]), n = rows[key][0][0].steps;
      const label2 = c.full ? label + ` (all ${n} steps)` : label + ` (${n} sampled steps: layers ${layersAt.join(', ')})`;
      report.push(`| ${label2} | ${fmt(a)} | ${fmt(b)} | ${ratio(a.wall, b.wall)} | ${ratio(a.cpu, b.cpu)} |`);
      if (!c.full) {
        const whole = (t) => {
          const f = key === 'pat' ? t.first : { wall: 0, cpu: 0 }, k = key === 'pat' ? n - 1 : n;
          return { wall: f.wall + (t.wall - f.wall) / k * reruns, cpu: f.cpu + (t.cpu - f.cpu) / k * reruns };
        };
        const ea = whole(a), eb = whole(b);
        report.push(`| ${label}, whole (estimate: ${reruns} reruns x the sampled mean${key === 'pat' ? ' + the first run' : ''}) | ` +
          `${fmt(ea)} | ${fmt(eb)} | ${ratio(ea.wall, eb.wall)} | ${ratio(ea.cpu, eb.cpu)} |`);
      }
    }
    report.push('', 'Same numbers both ways: ' + Object.entries(checks).map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`).join(', ') +
      '.', '');
    models.forEach((m) => m.free());
  }
  const text = report.join('\n');
  console.log(text);
  if (OUT) fs.writeFileSync(OUT, text + '\n');
}

main().catch((e) => { console.error(e); process.exit(1); });
