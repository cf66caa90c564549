// reference.js - plain-JS references (double precision, textbook loops) of the engine's calls,
// for the tests that check arbitrary shapes: ffn, attention, the three norms, encoderLayer.
// Row-major; a linear layer is y = x @ W + b with W stored (in, out). Inputs: anything indexable.
'use strict';

/* erf (Numerical Recipes' erfc, fractional error below 1.2e-7): close enough to compare with
   float32 results. */
function erf(x) {
  const z = Math.abs(x), t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 +
    t * 0.17087277)))))))));
  return x >= 0 ? 1 - r : r - 1;
}

const ACT = {
  relu: (v) => Math.max(v, 0),
  gelu: (v) => 0.5 * v * (1 + erf(v / Math.SQRT2)),
  gelu_tanh: (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v))),
  silu: (v) => v / (1 + Math.exp(-v)),
  identity: (v) => v
};
ACT.swiglu = ACT.silu;
ACT.geglu = ACT.gelu;

// x (L, n) @ W (n, m) + b (m) -> (L, m)
function linear(x, W, b, L, n, m) {
  const y = new Float64Array(L * m);
  for (let i = 0; i < L; i++)
    for (let j = 0; j < m; j++) {
      let s = b ? b[j] : 0;
      for (let k = 0; k < n; k++) s += x[i * n + k] * W[k * m + j];
      y[i * m + j] = s;
    }
  return y;
}

/* { hidden, activated, out } (gated: also up, gate), as engine.ffn. Weights by the engine's
   names (W1/b1, W3/b3, W2/b2). */
function ffn(o) {
  const { L, dModel: D, dFF: F } = o, act = o.activation || 'relu';
  const gated = act === 'swiglu' || act === 'geglu';
  const hidden = linear(o.x, o.W1, o.b1, L, D, F), activated = hidden.map(ACT[act]);
  const r = { hidden, activated };
  if (gated) {
    r.up = linear(o.x, o.W3, o.b3, L, D, F);
    for (let i = 0; i < activated.length; i++) activated[i] *= r.up[i];
    r.gate = hidden;
  }
  r.out = linear(activated, o.W2, o.b2, L, F, D);
  return r;
}

/* { q, k, v, scores, weights, context, concat, out }, as engine.attention. */
function attention(o) {
  const { L, dModel: D, nHeads: H } = o, dk = D / H;
  const q = linear(o.x, o.Wq, o.bq, L, D, D), k = linear(o.x, o.Wk, o.bk, L, D, D);
  const v = linear(o.x, o.Wv, o.bv, L, D, D);
  const scores = new Float64Array(H * L * L), weights = new Float64Array(H * L * L);
  const context = new Float64Array(H * L * dk), concat = new Float64Array(L * D);
  const scale = o.scale === false ? 1 : 1 / Math.sqrt(dk);
  for (let h = 0; h < H; h++)
    for (let i = 0; i < L; i++) {
      const row = h * L * L + i * L;
      let max = -Infinity;
      for (let j = 0; j < L; j++) {
        let s = 0;
        for (let c = 0; c < dk; c++) s += q[i * D + h * dk + c] * k[j * D + h * dk + c];
        scores[row + j] = s;
        const visible = !(o.causal && j > i) && !(o.keyMask && !o.keyMask[j]);
        if (visible) max = Math.max(max, s * scale);
      }
      let sum = 0;
      for (let j = 0; j < L; j++) {
        const visible = !(o.causal && j > i) && !(o.keyMask && !o.keyMask[j]);
        weights[row + j] = visible ? Math.exp(scores[row + j] * scale - max) : 0;
        sum += weights[row + j];
      }
      for (let j = 0; j < L; j++) weights[row + j] = sum > 0 ? weights[row + j] / sum : 0;
      for (let c = 0; c < dk; c++) {
        let s = 0;
        for (let j = 0; j < L; j++) s += weights[row + j] * v[j * D + h * dk + c];
        context[(h * L + i) * dk + c] = s;
        concat[i * D + h * dk + c] = s;
      }
    }
  return { q, k, v, scores, weights, context, concat, out: linear(concat, o.Wo, o.bo, L, D, D) };
}

/* kind 'layer' | 'rms' | 'batch': { out, mean, rstd } as engine.layerNorm / rmsNorm / batchNorm
   (statistics per token, or per feature for batch). */
function norm(kind, o) {
  const { L, d } = o, eps = o.eps === undefined ? 1e-5 : Math.fround(o.eps);
  const out = new Float64Array(L * d), nStat = kind === 'batch' ? d : L;
  const mean = new Float64Array(nStat), rstd = new Float64Array(nStat);
  const n = kind === 'batch' ? L : d;
  const at = (s, i) => (kind === 'batch' ? i * d + s : s * d + i);   // i-th value of statistic s
  for (let s = 0; s < nStat; s++) {
    let m = 0, ss = 0;
    if (kind !== 'rms') {
      for (let i = 0; i < n; i++) m += o.x[at(s, i)];
      m /= n;
    }
    for (let i = 0; i < n; i++) ss += (o.x[at(s, i)] - m) ** 2;
    const r = 1 / Math.sqrt(ss / n + eps);
    for (let i = 0; i < n; i++) {
      const f = kind === 'batch' ? s : i;
      let y = (o.x[at(s, i)] - m) * r;
      if (o.gamma) y *= o.gamma[f];
      if (o.beta && kind !== 'rms') y += o.beta[f];
      out[at(s, i)] = y;
    }
    mean[s] = m;
    rstd[s] = r;
  }
  return kind === 'rms' ? { out, rstd } : { out, mean, rstd };
}

function add(a, b) { return a.map((v, i) => v + b[i]); }

/* { attn, ffn, resid1, norm1, resid2, norm2, out }, as engine.encoderLayer. */
function encoderLayer(o) {
  const { L, dModel: D } = o, eps = o.eps === undefined ? 1e-5 : o.eps;
  const ln = (x, g, b) => norm('layer', { L, d: D, x, gamma: g, beta: b, eps }).out;
  const pick = (names) => Object.fromEntries(names.filter((k) => o[k] != null).map((k) => [k, o[k]]));
  const attnW = pick(['L', 'dModel', 'nHeads', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo', 'causal', 'scale', 'keyMask']);
  const ffnW = pick(['L', 'dModel', 'dFF', 'W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'activation']);
  let attn, f, resid1, norm1, resid2, norm2, out;
  if (o.norm === 'pre') {
    norm1 = ln(o.x, o.ln1Gamma, o.ln1Beta);
    attn = attention({ ...attnW, x: norm1 });
    resid1 = add(o.x, attn.out);
    norm2 = ln(resid1, o.ln2Gamma, o.ln2Beta);
    f = ffn({ ...ffnW, x: norm2 });
    resid2 = add(resid1, f.out);
    out = resid2;
  } else {
    attn = attention({ ...attnW, x: o.x });
    resid1 = add(o.x, attn.out);
    norm1 = ln(resid1, o.ln1Gamma, o.ln1Beta);
    f = ffn({ ...ffnW, x: norm1 });
    resid2 = add(norm1, f.out);
    norm2 = ln(resid2, o.ln2Gamma, o.ln2Beta);
    out = norm2;
  }
  return { attn, ffn: f, resid1, norm1, resid2, norm2, out };
}

/* |got - want| over matching arrays of a result (nested ones too), against atol + rtol |want|:
   null when all are within, else a description of the first miss. */
const TA = Object.getPrototypeOf(Int8Array.prototype);
const tagOf = Object.getOwnPropertyDescriptor(TA, Symbol.toStringTag).get;
const lengthOf = Object.getOwnPropertyDescriptor(TA, 'length').get;

function compare(got, want, atol, rtol, path = '') {
  for (const k of Object.keys(want)) {
    const w = want[k], g = got == null ? undefined : got[k];
    if (w instanceof Float64Array) {
      if (tagOf.call(g) !== 'Float32Array') return `${path}${k}: not a Float32Array`;
      const n = lengthOf.call(g);   // the real length, whatever a subclass says
      if (n !== w.length) return `${path}${k}: ${n} values, expected ${w.length}`;
      for (let i = 0; i < w.length; i++) {
        const diff = Math.abs(g[i] - w[i]);
        if (!(diff <= atol + rtol * Math.abs(w[i]))) return `${path}${k}[${i}]: got ${g[i]}, want ${w[i]} (diff ${diff})`;
      }
    } else if (w && typeof w === 'object') {
      const miss = compare(g, w, atol, rtol, `${path}${k}.`);
      if (miss) return miss;
    }
  }
  return null;
}

module.exports = { erf, ACT, linear, ffn, attention, norm, encoderLayer, compare };
