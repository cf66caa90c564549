/* train/data.js - the Train view's numbers, no DOM (the page, the Worker and Node tests share it):
   a text file checked and split into training and held-out lines, the unigram baseline, the
   settings checked into a GPT-2 config, the probe text, seeded sampling and the time left. */

// Input limits: a pasted or dropped text up to 4 MB (the character vocabulary and a step's batch
// are what cost; the text itself is read once per batch draw).
export const TEXT_MAX_BYTES = 4 * 1024 * 1024;
const TEXT_MIN_CHARS = 20;

// One declarative list of the settings (key, kind, default, range): the form, the checks and the
// Worker's message all read it. Defaults: the shipped poem model's sizes (README).
export const SETTINGS = [
  { key: 'd', kind: 'int', def: 64, min: 4, max: 512 },
  { key: 'layers', kind: 'int', def: 2, min: 1, max: 8 },
  { key: 'heads', kind: 'int', def: 4, min: 1, max: 16 },
  { key: 'ctx', kind: 'int', def: 64, min: 4, max: 256 },
  { key: 'batch', kind: 'int', def: 8, min: 1, max: 64 },
  { key: 'lr', kind: 'float', def: 0.003, min: 1e-5, max: 1 },
  { key: 'steps', kind: 'int', def: 2000, min: 1, max: 100000 },
  { key: 'every', kind: 'int', def: 50, min: 1, max: 10000 },
  { key: 'seed', kind: 'int', def: 1, min: 0, max: 4294967295 },
  // bl.trainer's coverage: the vocabulary's characters cover this share of the training text's
  // (the rarest others read as <unk>); 1 keeps every character.
  { key: 'coverage', kind: 'float', def: 1, min: 0.9, max: 1 }
];
export const defaults = () => Object.fromEntries(SETTINGS.map((p) => [p.key, p.def]));

// Raw field values (strings or numbers) -> { values, errors: [{ key, code, vars }] }; a bad field
// keeps its default in values, so the caller never trains on it (it checks errors first).
export function checkSettings(raw) {
  const values = defaults(), errors = [];
  for (const p of SETTINGS) {
    const s = raw && raw[p.key] !== undefined ? String(raw[p.key]).trim() : String(p.def);
    if (!s) { errors.push({ key: p.key, code: 'empty', vars: {} }); continue; }
    const v = Number(s);
    if (!Number.isFinite(v)) { errors.push({ key: p.key, code: 'number', vars: { value: s } }); continue; }
    if (p.kind === 'int' && !Number.isInteger(v)) errors.push({ key: p.key, code: 'int', vars: { value: s } });
    else if (v < p.min || v > p.max) {
      errors.push({ key: p.key, code: 'range', vars: { value: s, min: p.min, max: p.max } });
    }
    else values[p.key] = v;
  }
  const bad = new Set(errors.map((e) => e.key));
  if (!bad.has('d') && !bad.has('heads') && values.d % values.heads) {
    errors.push({ key: 'heads', code: 'divisible', vars: { d: values.d, heads: values.heads } });
  }
  return { values, errors };
}

// The GPT-2 config (Hugging Face keys) of checked settings: d_ff = 4 d, ReLU (its zeros are
// what the view counts), as the shipped poem model.
export const configOf = (v) => ({ n_embd: v.d, n_layer: v.layers, n_head: v.heads, n_positions: v.ctx,
  n_inner: 4 * v.d, activation_function: 'relu' });

// Bytes of a file (or a pasted string) -> { text } or { error: { code, vars } }: empty, too large,
// binary (a NUL, invalid UTF-8, or more than 1 % control characters) or too short to learn from.
export function readText(input) {
  let text;
  if (typeof input === 'string') {
    if (input.length > TEXT_MAX_BYTES) {
      return { error: { code: 'textHuge', vars: { size: mb(input.length), max: mb(TEXT_MAX_BYTES) } } };
    }
    text = input;
  } else {
    const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
    if (!bytes.length) return { error: { code: 'textEmpty', vars: {} } };
    if (bytes.length > TEXT_MAX_BYTES) {
      return { error: { code: 'textHuge', vars: { size: mb(bytes.length), max: mb(TEXT_MAX_BYTES) } } };
    }
    if (bytes.includes(0)) return { error: { code: 'textBinary', vars: {} } };
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch (e) {
      return { error: { code: 'textBinary', vars: {} } };
    }
  }
  text = normalize(text);
  if (!text) return { error: { code: 'textEmpty', vars: {} } };
  let control = 0;
  for (const ch of text) { const c = ch.charCodeAt(0); if ((c < 32 && c !== 10 && c !== 9) || c === 0x7f) control++; }
  if (control > text.length / 100) return { error: { code: 'textBinary', vars: {} } };
  const n = Array.from(text.replace(/\n/g, '')).length;
  if (n < TEXT_MIN_CHARS) return { error: { code: 'textShort', vars: { n, min: TEXT_MIN_CHARS } } };
  return { text };
}
const mb = (n) => (n / 1048576).toFixed(1) + ' MB';

// A BOM and CR dropped, trailing spaces of each line and empty lines removed: one line, one document.
export function normalize(text) {
  return String(text).replace(/^\ufeff/, '').replace(/\r\n?/g, '\n').split('\n')
    .map((l) => l.replace(/\s+$/, '')).filter((l) => l.length).join('\n');
}

// text -> { train, heldout } (both texts of whole lines): the last tenth of the lines held out
// (never all of them); a text of fewer than 10 lines is cut at 90 % of its characters.
export function split(text) {
  const lines = text.split('\n');
  if (lines.length >= 10) {
    const k = Math.max(1, Math.round(lines.length / 10));
    return { train: lines.slice(0, -k).join('\n'), heldout: lines.slice(-k).join('\n') };
  }
  const chars = Array.from(text), cut = Math.round(chars.length * 0.9);
  return { train: chars.slice(0, cut).join(''), heldout: chars.slice(cut).join('').replace(/^\n+/, '') };
}

// At most `max` characters of whole lines from the start of a text (the held-out evaluation's
// sample: the loss of a forward pass over all 300 held-out poems would cost a dozen steps).
export function firstLines(text, max) {
  const lines = text.split('\n'), out = [];
  let n = 0;
  for (const l of lines) {
    const k = Array.from(l).length;
    if (out.length && n + k > max) break;
    out.push(out.length ? l : Array.from(l).slice(0, max).join(''));
    n += k + 1;
  }
  return out.join('\n');
}

// The unigram baseline, as tools/train/train.py unigram_loss: the cross-entropy (nats per
// character) of the held-out characters under the training characters' frequencies. Each line
// is a document whose targets are its characters (train.py's targets after <s>). A held-out
// character the training text lacks is the model's <unk>: train.py's vocabulary covers its
// held-out set, a pasted text's need not, so it counts as seen once (not 1e-12, which would make
// one rare character dominate the baseline). cut: each line's first `cut` characters only (the
// trainer's rows: <s> and n_positions characters). -> { loss, vocab (distinct training characters), unseen }
export function unigramLoss(train, heldout, cut) {
  const counts = new Map(), rows = (text) => text.split('\n').map((l) => Array.from(l).slice(0, cut || Infinity));
  let total = 0;
  for (const row of rows(train)) for (const ch of row) { counts.set(ch, (counts.get(ch) || 0) + 1); total++; }
  let sum = 0, n = 0, unseen = 0;
  for (const row of rows(heldout)) {
    for (const ch of row) {
      let c = counts.get(ch);
      if (!c) { c = 1; unseen++; }
      sum -= Math.log(c / total);
      n++;
    }
  }
  return { loss: n ? sum / n : NaN, vocab: counts.size, unseen };
}

// The probe whose attention is shown: the shipped sample's own (Li Bai's quatrain for the
// poems), else the first held-out line; at most ctx - 1 characters (<s> comes first).
export function probeText(preferred, heldout, ctx) {
  const src = preferred || heldout.split('\n')[0] || '';
  return Array.from(src).slice(0, Math.max(1, Math.min(ctx - 1, 32))).join('');
}

// A seeded uniform stream in [0, 1) (mulberry32): the model's samples repeat for a seed and step.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One id drawn from logits[off .. off + n) at temperature T, with u uniform in [0, 1); `skip`: ids
// never drawn (<s>, <unk>).
export function sampleId(logits, off, n, T, u, skip) {
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (!(skip && skip.includes(i)) && logits[off + i] > max) max = logits[off + i];
  const p = new Float64Array(n);
  let z = 0;
  for (let i = 0; i < n; i++) {
    p[i] = skip && skip.includes(i) ? 0 : Math.exp((logits[off + i] - max) / T);
    z += p[i];
  }
  let acc = 0, last = 0;
  for (let i = 0; i < n; i++) {
    if (!p[i]) continue;
    last = i;
    acc += p[i] / z;
    if (u < acc) return i;
  }
  return last;
}

// Share of exact zeros in a layer's activated FFN values (ReLU's outputs).
export function zeroShare(a) {
  let z = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === 0) z++;
  return a.length ? z / a.length : 0;
}

// Seconds left at the mean speed of the steps so far; null before one step is timed.
export function timeLeft(done, total, msSoFar) {
  if (!(done > 0) || !(msSoFar > 0)) return null;
  return Math.max(0, (total - done) * msSoFar / done / 1000);
}

// "1:05" / "1:02:05" from seconds.
export function clock(sec) {
  const s = Math.round(sec), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const two = (x) => String(x).padStart(2, '0');
  return h ? h + ':' + two(m) + ':' + two(r) : m + ':' + two(r);
}

// Snapshots kept for the time slider: at most `max`, thinned evenly (every other one dropped,
// the first and the latest kept) when a new one would pass it.
export function keepSnapshot(list, snap, max) {
  list.push(snap);
  if (list.length <= max) return list;
  const kept = list.filter((s, i) => i % 2 === 0 || i === list.length - 1);
  list.length = 0;
  kept.forEach((s) => list.push(s));
  return list;
}

// Parameters of a GPT-2 config with a V-character vocabulary (tied unembedding): embeddings,
// per layer attention (c_attn, c_proj with biases), FFN (c_fc, c_proj), two LayerNorms, ln_f.
export function paramCount(cfg, V) {
  const d = cfg.n_embd, f = cfg.n_inner || 4 * d;
  const layer = (3 * d * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d) + 4 * d;
  return V * d + cfg.n_positions * d + cfg.n_layer * layer + 2 * d;
}
