/* stages/ffn.js - the FFN of the page's settings (ffn) and what the first figures say about it:
   the activation figure's × marks and ranges (zeros), and with the identity the check that its
   two layers are one matrix (collapse). Made with the numbers (in the Worker), not at each redraw. */
import { isGated } from '../params.js';
import { CHUNK, NS_PER_FLOP, ffnCall } from '../draws.js';

const NS_PER_MADD = 5;             // rough: one float64 multiply-add of the collapse check in JS
export const MAX_COLLAPSE = 4e6;   // d * d * d_ff above which the check is left out

function countBelow(a, limit) {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] < limit) n++;
  return n;
}

// Cells the activation sets to 0 by its definition: (L*dff) 0/1 marks and their count. ReLU:
// x <= 0. GELU (erf, tanh), SiLU, identity: x = 0 only. Gated, act(g) * up: g = 0 (SiLU and
// GELU are 0 there and nowhere else) or up = 0. Any other exact 0 of the output is float32
// rounding, not the function: GELU(x) below x = -13.146 (the engine gives 0 where |GELU| < 2^-126),
// a product of two tiny numbers. Those are counted apart (underflow) and never marked; with
// gate = act(g) (gated), gateUnderflow counts its own such zeros.
export function zeroedMarks(ffn, act, gate) {
  const h = ffn.hidden, a = ffn.activated, up = isGated(act) ? ffn.up : null, n = h.length, marks = new Uint8Array(n);
  let count = 0, underflow = 0, gateUnderflow = 0;
  for (let i = 0; i < n; i++) {
    if (act === 'relu' ? h[i] <= 0 : h[i] === 0 || (up !== null && up[i] === 0)) { marks[i] = 1; count++; }
    else if (a[i] === 0) underflow++;
    if (gate && gate[i] === 0 && h[i] !== 0) gateUnderflow++;
  }
  return { marks: marks, count: count, underflow: underflow, gateUnderflow: gateUnderflow };
}

// The finite range of x and y values, 0 included (the curve's axes cross at 0).
function valueRange(xs, ys) {
  let xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i], y = ys[i];
    if (x < xmin && x > -Infinity) xmin = x; else if (x > xmax && x < Infinity) xmax = x;
    if (y < ymin && y > -Infinity) ymin = y; else if (y > ymax && y < Infinity) ymax = y;
  }
  return { xmin, xmax, ymin, ymax };
}

// With the identity, W1·W2 is one (d x d) matrix M and b1·W2 + b2 one bias c: the largest
// relative gap between the FFN's output (L, d) and x · M + c, in float64. As steps: M's rows
// [i0, i1) (d·d_ff multiply-adds a row), then c and the gap. inputs() -> { w, x, out }, read
// when the first step runs.
function collapseSteps(inputs, L, d, f) {
  const steps = [], per = Math.max(1, Math.floor(CHUNK / (d * f)));
  let w, x, out, M;
  for (let i0 = 0; i0 < d; i0 += per) {
    const i1 = Math.min(d, i0 + per);
    steps.push({ cost: (i1 - i0) * d * f * NS_PER_MADD, run() {
      if (i0 === 0) { ({ w, x, out } = inputs()); M = new Float64Array(d * d); }
      const W1 = w.W1, W2 = w.W2;
      for (let i = i0; i < i1; i++) for (let k = 0; k < f; k++) {
        const a = W1[i * f + k], row = i * d, wk = k * d;
        for (let j = 0; j < d; j++) M[row + j] += a * W2[wk + j];
      }
    } });
  }
  steps.push({ cost: (d * f + L * d * d) * NS_PER_MADD, run() {
    const c = new Float64Array(d);
    let gap = 0;
    for (let j = 0; j < d; j++) {
      let v = w.b2[j];
      for (let k = 0; k < f; k++) v += w.b1[k] * w.W2[k * d + j];
      c[j] = v;
    }
    for (let r = 0; r < L; r++) for (let j = 0; j < d; j++) {
      let y = c[j];
      for (let i = 0; i < d; i++) y += x[r * d + i] * M[i * d + j];
      gap = Math.max(gap, Math.abs(y - out[r * d + j]) / Math.max(1, Math.abs(y)));
    }
    return { gap };
  } });
  return steps;
}

export const ffn = {
  name: 'ffn',
  deps: ['weights'],
  key: (s, keys) => keys.weights + '|' + s.act,
  steps(engine, s, get) {
    return [{ cost: 2 * s.L * s.d * s.dff * (s.gated ? 3 : 2) * NS_PER_FLOP, run: function () {
      const w = get('weights'), f = ffnCall(engine, s, w, w.xFfn || w.x);
      f.negBefore = countBelow(f.hidden, 0);
      f.negAfter = countBelow(f.activated, 0);
      return f;
    } }];
  }
};

// The activation figure's pass over every hidden value: its × marks and counts, and the
// range its curve spans. Made with the numbers (in the Worker): on the page it was 15-25 ms
// of each redraw at BERT widths.
export const zeros = {
  name: 'zeros',
  deps: ['ffn', 'glu'],
  key: (s, keys) => 'zeros|' + keys.ffn,
  steps(engine, s, get) {
    return [{ cost: 4 * s.L * s.dff, run: function () {
      const f = get('ffn');
      const marks = zeroedMarks(f, s.act, s.gated ? get('glu').gate : null);
      return Object.assign(marks, { range: valueRange(f.hidden, f.activated) });
    } }];
  }
};

// The pipeline figure's check (act = identity only): null with any other activation; { gap }
// with gap null when d * d * d_ff > MAX_COLLAPSE (it would cost too much). Other activations
// share one key, so a change between them computes nothing here.
export const collapse = {
  name: 'collapse',
  deps: ['weights', 'ffn'],
  key: (s, keys) => (s.act !== 'identity' ? 'none' : s.d * s.d * s.dff > MAX_COLLAPSE ? 'big' : 'collapse|' + keys.ffn),
  steps(engine, s, get) {
    if (s.act !== 'identity') return [{ cost: 0, run: () => null }];
    if (s.d * s.d * s.dff > MAX_COLLAPSE) return [{ cost: 0, run: () => ({ gap: null }) }];
    const inputs = () => { const w = get('weights'); return { w, x: w.xFfn || w.x, out: get('ffn').out }; };
    return collapseSteps(inputs, s.L, s.d, s.dff);
  }
};
