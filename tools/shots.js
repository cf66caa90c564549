#!/usr/bin/env node
/* tools/shots.js - a screenshot of every figure of the page on opened model folders, to look at
   as a reader would: each fixture folder (tests/fixtures/models/<name>) opened from file://
   through the page's file input, each figure's section shot as an element, in English and
   Chinese at 1280 px, plus dark mode for the first folder and 390 px for the second.
   Usage: node tools/shots.js [outDir (default /tmp/shots)] [--models llama,qwen3,gpt2]
          [--text "..."] [--only attention,next] [--heads 14] [--layers 30] [--long-pieces]
   --heads N adds a synthetic Llama folder of N query heads (2 key/value heads), en and zh at 1280 and 390 px;
   --layers N gives it N layers (default 2; SmolLM2-135M has 30), with 14 heads if --heads is not given;
   --long-pieces gives its tokenizer 64 tokens of whole words, as a real vocabulary has.
   Writes <outDir>/<model>-<lang>-<width>[-dark]/<nn>-<view>[-<piece>].png and prints each folder. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch, PAGE } = require('./screenshot.js');

const MODELS = path.join(__dirname, '..', 'tests', 'fixtures', 'models');
// The fixtures' tokenizer has 64 characters (a-z, A-Z, 0-9, '.', ','): a text that repeats, so
// the induction heads have something to read; GPT-2's fixture has 16 positions.
const PIECE = 1500;
const TEXTS = { gpt2: 'theCat,theCat.', other: 'Once.upon.a.time,once.upon.a.time.' };

// The runs: every model in both languages at 1280 px; the first also dark, the second at 390 px.
function runsFor(models) {
  const out = [];
  models.forEach((m, i) => {
    for (const lang of ['en', 'zh']) out.push({ model: m, lang, width: 1280, scheme: 'light' });
    if (i === 0) out.push({ model: m, lang: 'en', width: 1280, scheme: 'dark' }, { model: m, lang: 'zh', width: 1280, scheme: 'dark' });
    if (i === 1 || models.length === 1) out.push({ model: m, lang: 'en', width: 390, scheme: 'light' });
  });
  return out;
}

// A Llama folder with many heads (Qwen2.5-0.5B has 14 query heads over 2 key/value heads), NL
// layers of d_model 4 H (head_dim 4), deterministic weights, the fixtures' 64-character tokenizer:
// to see the head picker, the job table and the per-layer lists at that count. -> the folder
// (under the OS temp dir). opts.longPieces: 64 more tokens, words of 12 to 22 characters after a
// space (" internationalization"), as a real BPE vocabulary has (SmolLM2's 49,152): never typed,
// but the model predicts them (figure 11's list, the lens).
const WORDS = ['internationalization', 'responsibilities', 'understanding', 'Communication', 'transformers',
  'approximately', 'neighbourhood', 'representation'];
function manyHeadsFolder(H, NL = 2, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-heads-')), hd = 4, D = H * hd, KV = 2, F = 2 * D;
  const V = opts.longPieces ? 128 : 64;
  const shapes = [['model.embed_tokens.weight', [V, D]], ['lm_head.weight', [V, D]], ['model.norm.weight', [D]]];
  for (let l = 0; l < NL; l++) {
    const p = 'model.layers.' + l + '.';
    shapes.push([p + 'input_layernorm.weight', [D]], [p + 'post_attention_layernorm.weight', [D]],
      [p + 'self_attn.q_proj.weight', [H * hd, D]], [p + 'self_attn.k_proj.weight', [KV * hd, D]],
      [p + 'self_attn.v_proj.weight', [KV * hd, D]], [p + 'self_attn.o_proj.weight', [D, H * hd]],
      [p + 'mlp.gate_proj.weight', [F, D]], [p + 'mlp.up_proj.weight', [F, D]], [p + 'mlp.down_proj.weight', [D, F]]);
  }
  const header = {}, parts = [];
  let off = 0, seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; };
  for (const [name, shape] of shapes) {
    const n = shape.reduce((a, b) => a * b, 1), a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = shape.length === 1 ? 1 : rand() * (name.includes('_proj') && /[qk]_proj/.test(name) ? 2 : 0.6);
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + 4 * n] };
    parts.push(Buffer.from(a.buffer));
    off += 4 * n;
  }
  let json = JSON.stringify(header);
  while (json.length % 8) json += ' ';
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(path.join(dir, 'model.safetensors'), Buffer.concat([len, Buffer.from(json), ...parts]));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ architectures: ['LlamaForCausalLM'], model_type: 'llama',
    hidden_size: D, intermediate_size: F, num_attention_heads: H, num_key_value_heads: KV, head_dim: hd,
    num_hidden_layers: NL, max_position_embeddings: 128, rms_norm_eps: 1e-6, rope_theta: 10000, vocab_size: V,
    tie_word_embeddings: false, hidden_act: 'silu' }));
  const tok = JSON.parse(fs.readFileSync(path.join(MODELS, 'llama', 'tokenizer.json'), 'utf8'));
  for (let i = 64; i < V; i++) tok.model.vocab[' ' + WORDS[i % WORDS.length] + (i >= 72 ? i : '')] = i;
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tok));
  return dir;
}

async function shoot(browser, outDir, run, opts) {
  const ctx = await browser.newContext({ viewport: { width: run.width, height: 900 }, colorScheme: run.scheme,
    deviceScaleFactor: 1 });
  const page = await ctx.newPage(), errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.goto(PAGE + '#lang=' + run.lang + (run.scheme === 'dark' ? '&theme=dark' : ''));
    await page.waitForSelector('body[data-status=ready], body[data-status=error]', { timeout: 30000 });
    await page.setInputFiles('#open-dir-input', run.dir || path.join(MODELS, run.model));
    await page.waitForFunction(() => document.body.dataset.open && document.body.dataset.open !== 'opening', null,
      { timeout: 60000 });
    if (await page.evaluate(() => document.body.dataset.open) !== 'opened') {
      throw new Error(run.model + ': the page did not open the folder: ' + await page.textContent('#open-err'));
    }
    await page.fill('#ctl-tokens', opts.text || (run.model === 'gpt2' ? TEXTS.gpt2 : TEXTS.other));
    await page.waitForTimeout(400);
    await page.waitForSelector('body[data-status=ready], body[data-status=error]', { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('#fig-next').dataset.trained === 'model', null,
      { timeout: 30000 });
    await page.waitForTimeout(300);
    const dir = path.join(outDir, [run.model, run.lang, run.width].join('-') + (run.scheme === 'dark' ? '-dark' : ''));
    fs.mkdirSync(dir, { recursive: true });
    const views = await page.$$eval('main section[id^="s-"]', (ss) => ss.map((s) => s.id.slice(2)));
    let n = 0;
    for (const v of views) {
      n++;
      if (opts.only && !opts.only.includes(v)) continue;
      // The section's box on the whole page (a full-page shot keeps the sticky bar at the top),
      // in pieces of at most 1500 px, tall enough to read at 390 px.
      const box = await page.$eval('#s-' + v, (e) => {
        const r = e.getBoundingClientRect();
        return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
      });
      // (equal pieces: no last sliver of 40 px)
      const parts = Math.ceil(box.height / PIECE), each = Math.ceil(box.height / parts);
      const base = path.join(dir, String(n).padStart(2, '0') + '-' + v);
      for (let i = 0; i < parts; i++) {
        const y = box.y + i * each, clip = { x: box.x, y, width: box.width, height: Math.min(each, box.y + box.height - y) };
        await page.screenshot({ path: base + (parts > 1 ? '-' + (i + 1) : '') + '.png', clip, fullPage: true });
      }
    }
    if (errors.length) console.error(run.model + ' ' + run.lang + ': ' + errors.join('; '));
    return dir;
  } finally {
    await ctx.close();
  }
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : undefined; };
  const models = (opt('--models') || 'llama,qwen3,gpt2').split(','), text = opt('--text'), only = opt('--only');
  const long = args.includes('--long-pieces');
  if (long) args.splice(args.indexOf('--long-pieces'), 1);
  const layers = opt('--layers'), heads = opt('--heads') || (layers !== undefined || long ? '14' : undefined);
  if (heads !== undefined && !(Number(heads) >= 5 && Number(heads) <= 32)) throw new Error('--heads: 5 to 32, not ' + heads);
  if (layers !== undefined && !(Number.isInteger(Number(layers)) && Number(layers) >= 1 && Number(layers) <= 64)) {
    throw new Error('--layers: 1 to 64, not ' + layers);
  }
  for (const m of models) {
    if (!fs.existsSync(path.join(MODELS, m, 'config.json'))) throw new Error('--models: no fixture folder "' + m + '"');
  }
  const outDir = path.resolve(args[0] || '/tmp/shots');
  const b = await launch();
  try {
    const runs = runsFor(models);
    // --heads N (--layers N): a synthetic Llama folder, in English and Chinese, 1280 and 390 px.
    const many = heads ? manyHeadsFolder(Number(heads), layers ? Number(layers) : 2, { longPieces: long }) : null;
    if (many) {
      const model = 'llama' + heads + 'heads' + (layers ? layers + 'layers' : '');
      runs.push({ model, dir: many, lang: 'en', width: 1280, scheme: 'light' }, { model, dir: many, lang: 'zh', width: 1280, scheme: 'light' },
        { model, dir: many, lang: 'en', width: 390, scheme: 'light' }, { model, dir: many, lang: 'zh', width: 390, scheme: 'light' });
    }
    try {
      for (const run of runs) console.log(await shoot(b.browser, outDir, run, { text, only: only && only.split(',') }));
    } finally {
      if (many) fs.rmSync(many, { recursive: true, force: true });
    }
  } finally {
    await b.close();
  }
}

if (require.main === module) main().catch((e) => { console.error(e.message || e); process.exit(1); });
module.exports = { runsFor, manyHeadsFolder };
