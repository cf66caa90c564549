/* stages/saturation.js - the numbers of the `saturation` figure: for d_k = 1, 2, 4 ... 1024 (and
   the page's own d_k when it is not a power of 2), the variance of q·k and the average largest
   softmax weight over L keys, with and without the 1/sqrt(d_k) scaling, all by the engine, on
   query and key rows of randn from one numpyRandom(seed) stream (seed from the page).
   Per d_k, samples of Q = 64 query rows and K = max(64, L) key rows (more samples for small
   d_k, so that each side has at least 4096 values):
     scores S = q @ k^T          the engine's matmul: bl.ffn with the identity activation,
                                 W1 = k^T; the variance is over every score (scaled: times s^2)
     softmax over L keys         in the first samples, the keys cut into sets of L, each with its
                                 own query rows; bl.attention on their scores: one head,
                                 d_model = L, x = [S rows; I_L], W_K = I, W_Q = I (unscaled) or
                                 s I (scaled, s = 1/sqrt(d_k), multiplied in by the engine), the
                                 scale flag off, and a key mask hiding the score rows, so that
                                 row i's weights are softmax(s S[i]) over its set's L keys; every
                                 sample's and set's rows in one call per scaling (a row's softmax
                                 reads only its own scores).
   Attention on rows of width d_k itself would cost (Q + K) d_k^2 per projection: at d_k = 1024
   about a hundred times more. Reads seed, L and d_model / heads only. */

import { NS_PER_DRAW, NS_PER_FLOP } from '../draws.js';

export const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const MAX_DK = 1024, Q = 64, SETS = 4;
const NS_PER_CALL = 4e4;   // rough cost of one engine call

// One d_k's sample sizes: query rows Q, key rows K, samples (each side >= 4096 values), and
// how many of them (peaks) feed the softmax, with `sets` key sets of L and `rows` queries each.
export function sampleSize(dk, L) {
  const K = Math.max(Q, L), samples = Math.max(1, Math.ceil(4096 / (Q * dk))), sets = Math.min(SETS, Math.floor(K / L));
  return { Q, K, samples, peaks: Math.min(samples, L <= 32 ? 4 : 1), sets, rows: Math.floor(Q / sets) };
}

// The d_k of the plot: the powers of 2, and the page's own d_k.
export function dkList(dk) {
  return DKS.includes(dk) || !(dk >= 1 && dk <= MAX_DK) ? DKS.slice() : DKS.concat([dk]).sort((a, b) => a - b);
}

function transpose(a, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let c = 0; c < cols; c++) out[c * rows + i] = a[i * cols + c];
  return out;
}

function scaledIdentity(n, s) {
  const I = new Float32Array(n * n);
  for (let i = 0; i < n; i++) I[i * n + i] = s;
  return I;
}

// Softmax weights of `rows` score rows over L keys, by the engine: (rows, L), scaled by s.
function softmax(engine, S, rows, L, s) {
  const N = rows + L, x = new Float32Array(N * L), Z = new Float32Array(L * L);
  x.set(S);
  x.set(scaledIdentity(L, 1), rows * L);
  const A = engine.attention({ L: N, dModel: L, nHeads: 1, x, Wq: scaledIdentity(L, s), Wk: scaledIdentity(L, 1),
    Wv: Z, Wo: Z, keyMask: new Uint8Array(N).fill(1, rows), scale: false });
  const w = new Float32Array(rows * L);
  for (let i = 0; i < rows; i++) w.set(A.weights.subarray(i * N + rows, i * N + N), i * L);
  return w;
}

// Mean over rows of each row's largest value: (rows, L).
function meanPeak(w, rows, L) {
  let sum = 0;
  for (let i = 0; i < rows; i++) {
    let m = 0;
    for (let j = 0; j < L; j++) m = Math.max(m, w[i * L + j]);
    sum += m;
  }
  return sum / rows;
}

// Sum and sum of squares of a's values, added into acc [sum, sq] (float64). A small function
// of its own: called once per sample, it is optimised within the first sweep, where the
// same loop inside point() ran unoptimised (a sweep in a fresh Worker took ~3x as long).
function moments(a, acc) {
  let s = 0, q = 0;
  for (let i = 0; i < a.length; i++) { const v = a[i]; s += v; q += v * v; }
  acc[0] += s; acc[1] += q;
}

// One point of the plot.
function point(engine, rng, dk, L) {
  const z = sampleSize(dk, L), s = Math.fround(1 / Math.sqrt(dk)), { K, sets, rows } = z;
  const per = sets * rows, parts = new Float32Array(z.peaks * per * L);   // every set's score rows, sample by sample
  const acc = new Float64Array(2), W2 = new Float32Array(K * dk);
  let n = 0;
  for (let b = 0; b < z.samples; b++) {
    const q = rng.randnF32(Q * dk), k = rng.randnF32(K * dk);
    const S = engine.ffn({ L: Q, dModel: dk, dFF: K, x: q, W1: transpose(k, K, dk), W2, activation: 'identity' })
      .hidden;
    moments(S, acc);
    n += S.length;
    if (b >= z.peaks) continue;
    // Key set g: keys [g L, (g + 1) L) and its own query rows [g rows, (g + 1) rows).
    for (let g = 0; g < sets; g++) {
      for (let i = 0; i < rows; i++) {
        const from = (g * rows + i) * K + g * L;
        parts.set(S.subarray(from, from + L), (b * per + g * rows + i) * L);
      }
    }
  }
  const m = z.peaks * per, varRaw = acc[1] / n - (acc[0] / n) * (acc[0] / n);
  return { dk, pairs: n, rows: m, varRaw, varScaled: varRaw * s * s,
    peakRaw: meanPeak(softmax(engine, parts, m, L, 1), m, L),
    peakScaled: meanPeak(softmax(engine, parts, m, L, s), m, L) };
}

export default {
  name: 'saturation',
  deps: [],
  key: (s) => ['saturation', s.seed, s.L, dkList(s.d / s.heads).join(',')].join('|'),
  steps(engine, s) {
    const L = s.L, list = dkList(s.d / s.heads), points = [];
    let rng = null;
    const steps = [{ cost: 1e4, run() { rng = engine.numpyRandom(s.seed); } }];
    list.forEach((dk, k) => {
      const z = sampleSize(dk, L), N = z.peaks * z.sets * z.rows + L;
      steps.push({ cost: z.samples * (NS_PER_CALL + (Q + z.K) * dk * NS_PER_DRAW + 2 * Q * z.K * dk * 2 * NS_PER_FLOP) +
        2 * (NS_PER_CALL + (4 * N * L * L + 2 * N * N * L) * 2 * NS_PER_FLOP), run() {
        points.push(point(engine, rng, dk, L));
        if (k === list.length - 1) return { L, seed: s.seed, points };
      } });
    });
    return steps;
  }
};
