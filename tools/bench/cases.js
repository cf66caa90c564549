/* cases.js - the shapes of issue 5 (flop counts, tensor dims) and their inputs, shared by the
   Node benchmark (run.js) and the Chromium one (chromium.js). Every function here is also
   sent to the page as source text (toString), so it must not close over anything. */
'use strict';

function gemmCase(M, K, N) {
  return { op: 'gemm', label: `GEMM (M,K,N) = (${M},${K},${N})`, shape: [M, K, N], M, K, N,
    flops: 2 * M * K * N, dims: { x: [M, K], w: [K, N], b: [N], out: [M, N] } };
}
function ffnCase(L, D, F) {
  return { op: 'ffn', label: `FFN GELU (L,d_model,d_ff) = (${L},${D},${F})`, shape: [L, D, F], L, D, F,
    flops: 4 * L * D * F, dims: { x: [L, D], w1: [D, F], b1: [F], w2: [F, D], b2: [D], out: [L, D] } };
}
function attnCase(L, D, H) {
  const dims = { x: [L, D], out: [L, D] };
  for (const n of ['q', 'k', 'v', 'o']) { dims['w' + n] = [D, D]; dims['b' + n] = [D]; }
  return { op: 'attn', label: `Attention (L,d_model,heads) = (${L},${D},${H})`, shape: [L, D, H], L, D, H,
    flops: 8 * L * D * D + 4 * L * L * D, dims };
}
const SMALL = [ffnCase(7, 8, 32), attnCase(7, 8, 2)];
const LARGE = [gemmCase(128, 768, 3072), gemmCase(512, 768, 3072), ffnCase(128, 768, 3072),
  ffnCase(512, 768, 3072), attnCase(128, 768, 12), attnCase(512, 768, 12)];

/* Inputs: x ~ U(-1, 1), weights ~ U(-1, 1) * sqrt(3 / fan_in) (unit variance outputs). */
function inputs(c, seed) {
  let s = seed >>> 0;
  const rand = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 * 2 - 1; };
  const d = {};
  for (const [name, dims] of Object.entries(c.dims)) {
    if (name === 'out') continue;
    const n = dims.reduce((a, b) => a * b, 1), scale = dims.length === 2 && name !== 'x' ? Math.sqrt(3 / dims[0]) : 1;
    d[name] = new Float32Array(n);
    for (let i = 0; i < n; i++) d[name][i] = rand() * scale;
  }
  return d;
}

module.exports = { gemmCase, ffnCase, attnCase, SMALL, LARGE, inputs };
