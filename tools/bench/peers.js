/* peers.js - the same three computations (GEMM + bias, FFN with exact GELU, multi-head
   self-attention) in each implementation the benchmark compares: the BlockLens engine
   (wasm heap, weights resident), TensorFlow.js with its wasm backend (XNNPACK, one thread),
   onnxruntime-web (wasm, one thread, models written by onnx.js) and plain JS loops.
   Each maker returns { run(): Promise<Float32Array> } computing `out` for fixed inputs. */
'use strict';
const { model, node, INT64 } = require('./onnx.js');

/* ---- plain JS: the floor ------------------------------------------------------------- */
/* out (M, N) = x (M, K) @ w (K, N) + b, i-k-j order so the inner loop is contiguous. */
function jsMatmul(x, w, b, M, K, N) {
  const out = new Float32Array(M * N);
  for (let i = 0; i < M; i++) {
    const o = i * N;
    if (b) for (let j = 0; j < N; j++) out[o + j] = b[j];
    for (let k = 0; k < K; k++) {
      const a = x[i * K + k], wk = k * N;
      for (let j = 0; j < N; j++) out[o + j] += a * w[wk + j];
    }
  }
  return out;
}

function erf(x) {   /* Numerical Recipes' erfc Chebyshev fit: relative error < 1.2e-7 */
  const t = 1 / (1 + 0.5 * Math.abs(x));
  const y = 1 - t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 +
    t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
    t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? y : -y;
}

const js = {
  gemm: (s, d) => ({ run: async () => jsMatmul(d.x, d.w, d.b, s.M, s.K, s.N) }),
  ffn: (s, d) => ({
    run: async () => {
      const h = jsMatmul(d.x, d.w1, d.b1, s.L, s.D, s.F);
      for (let i = 0; i < h.length; i++) h[i] = 0.5 * h[i] * (1 + erf(h[i] * Math.SQRT1_2));
      return jsMatmul(h, d.w2, d.b2, s.L, s.F, s.D);
    }
  }),
  attn: (s, d) => ({
    run: async () => {
      const { L, D, H } = s, dk = D / H, scale = 1 / Math.sqrt(dk);
      const q = jsMatmul(d.x, d.wq, d.bq, L, D, D), k = jsMatmul(d.x, d.wk, d.bk, L, D, D);
      const v = jsMatmul(d.x, d.wv, d.bv, L, D, D), concat = new Float32Array(L * D);
      const p = new Float64Array(L);
      for (let h = 0; h < H; h++)
        for (let i = 0; i < L; i++) {
          let m = -Infinity, sum = 0;
          for (let j = 0; j < L; j++) {
            let dot = 0;
            for (let c = 0; c < dk; c++) dot += q[i * D + h * dk + c] * k[j * D + h * dk + c];
            p[j] = dot * scale;
            if (p[j] > m) m = p[j];
          }
          for (let j = 0; j < L; j++) { p[j] = Math.exp(p[j] - m); sum += p[j]; }
          for (let j = 0; j < L; j++) {
            const wj = p[j] / sum;
            for (let c = 0; c < dk; c++) concat[i * D + h * dk + c] += wj * v[j * D + h * dk + c];
          }
        }
      return jsMatmul(concat, d.wo, d.bo, L, D, D);
    }
  })
};

/* ---- BlockLens on its own heap (weights resident, like the peers' initialisers) -------- */
function engineRaw(engine) {
  /* the Emscripten module: the bench reads the heap directly, by engine-heap.js's rules (addresses
     unsigned: the heap reaches 4 GiB) */
  const m = engine._m;
  function place(arrays) {
    const at = {};
    for (const [name, a] of Object.entries(arrays)) {
      const p = m._malloc(a.length * 4) >>> 0;
      if (!p) throw new Error('out of wasm memory');
      m.HEAPF32.set(a, p >>> 2);
      at[name] = p;
    }
    return at;
  }
  const buf = (n) => place({ t: new Float32Array(n) }).t;
  const words = (list) => {
    const p = m._malloc(list.length * 4) >>> 0;
    m.HEAP32.set(list, p >>> 2);
    return p;
  };
  const read = (p, n) => m.HEAPF32.slice(p >>> 2, (p >>> 2) + n);
  const check = (status) => { if (status !== 0) throw new Error('engine status ' + status); };
  return {
    gemm: (s, d) => {
      const a = place({ x: d.x, w: d.w, b: d.b }), out = buf(s.M * s.N);
      return { run: async () => { check(m._bl_linear_forward(out, a.x, a.w, a.b, s.M, s.K, s.N, 0)); return read(out, s.M * s.N); } };
    },
    ffn: (s, d) => {   /* hidden (optional) not requested; activated and out are required */
      const a = place({ x: d.x, w1: d.w1, b1: d.b1, w2: d.w2, b2: d.b2 });
      const act = buf(s.L * s.F), out = buf(s.L * s.D);
      const desc = words([s.L, s.D, s.F, 1 /* gelu */, a.x, a.w1, a.b1, 0, 0, a.w2, a.b2]);
      const outs = words([0, 0, act, out]);
      return { run: async () => { check(m._bl_ffn_forward(desc, outs, 0)); return read(out, s.L * s.D); } };
    },
    attn: (s, d) => {   /* only the required outputs: q, k, v, concat, out */
      const a = place({ x: d.x, wq: d.wq, bq: d.bq, wk: d.wk, bk: d.bk, wv: d.wv, bv: d.bv, wo: d.wo, bo: d.bo });
      const n = s.L * s.D, q = buf(n), k = buf(n), v = buf(n), concat = buf(n), out = buf(n), ws = buf(s.L);
      const desc = words([s.L, s.D, s.H, 0, 0, 0, a.x, a.wq, a.bq, a.wk, a.bk, a.wv, a.bv, a.wo, a.bo]);
      const outs = words([q, k, v, 0, 0, 0, concat, out]);
      return { run: async () => { check(m._bl_attention_forward(desc, outs, ws, 0)); return read(out, n); } };
    }
  };
}

/* ---- BlockLens through its public JS API (arguments checked and copied both ways) ------- */
/* reuse: pass the previous result as `into` (outputs copied into the caller's arrays instead
   of fresh ones; everything else the same). The API is synchronous, so run() is too: the
   bench awaits only the peers' promises, and a microtask per call is no part of the engine. */
function engineApi(engine, reuse) {
  return {
    ffn: (s, d) => {
      let prev;
      return { run: () => (prev = engine.ffn({ L: s.L, dModel: s.D, dFF: s.F, activation: 'gelu',
        x: d.x, W1: d.w1, b1: d.b1, W2: d.w2, b2: d.b2 }, reuse ? prev : undefined)).out };
    },
    attn: (s, d) => {
      let prev;
      return { run: () => (prev = engine.attention({ L: s.L, dModel: s.D, nHeads: s.H, x: d.x,
        Wq: d.wq, bq: d.bq, Wk: d.wk, bk: d.bk, Wv: d.wv, bv: d.bv, Wo: d.wo, bo: d.bo },
        reuse ? prev : undefined)).out };
    }
  };
}

/* ---- TensorFlow.js, wasm backend (XNNPACK), one thread --------------------------------- */
async function tfjs() {
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const gelu = (h) => tf.mul(tf.mul(h, 0.5), tf.add(1, tf.erf(tf.mul(h, Math.SQRT1_2))));
  const make = (build) => (s, d) => {
    const w = {};
    for (const [k, v] of Object.entries(d)) if (k !== 'x') w[k] = tf.tensor(v, s.dims[k]);
    return {
      run: async () => {
        const y = tf.tidy(() => build(tf.tensor(d.x, s.dims.x), w, s));
        const out = y.dataSync();
        y.dispose();
        return out;
      }
    };
  };
  return {
    name: `tfjs-backend-wasm ${require('@tensorflow/tfjs-backend-wasm/package.json').version}`,
    gemm: make((x, w) => tf.fused.matMul({ a: x, b: w.w, bias: w.b })),
    ffn: make((x, w) => tf.fused.matMul({ a: gelu(tf.fused.matMul({ a: x, b: w.w1, bias: w.b1 })), b: w.w2, bias: w.b2 })),
    attn: make((x, w, s) => {
      const { L, D, H } = s, dk = D / H;
      const heads = (t) => tf.transpose(tf.reshape(t, [L, H, dk]), [1, 0, 2]);
      const q = heads(tf.fused.matMul({ a: x, b: w.wq, bias: w.bq }));
      const k = heads(tf.fused.matMul({ a: x, b: w.wk, bias: w.bk }));
      const v = heads(tf.fused.matMul({ a: x, b: w.wv, bias: w.bv }));
      const p = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dk)));
      const ctx = tf.reshape(tf.transpose(tf.matMul(p, v), [1, 0, 2]), [L, D]);
      return tf.fused.matMul({ a: ctx, b: w.wo, bias: w.bo });
    }),
    /* causal attention alone (s: L, H, KVH, hd; d: coreInputs(s)): q, k, v copied in */
    core: (s, d) => {
      const f = tfCore(tf, s), mask = tf.tensor(coreMask(s.L), [s.L, s.L]);
      return { run: async () => {
        const y = tf.tidy(() => f(tf.tensor(d.q, [s.L, s.H * s.hd]), tf.tensor(d.k, [s.L, s.KVH * s.hd]), tf.tensor(d.v, [s.L, s.KVH * s.hd]), mask));
        const out = y.dataSync();
        y.dispose();
        return out;
      } };
    }
  };
}

/* The ONNX model of one case: its graph, with the weights as initialisers (x is the input). */
function ortModel(op, s, d) {
  const lin = (x, w, b, y) => [node('MatMul', [x, w], [y + '_mm']), node('Add', [y + '_mm', b], [y])];
  const graphs = {
    gemm: () => lin('x', 'w', 'b', 'out'),
    ffn: () => [...lin('x', 'w1', 'b1', 'h'),            /* exact GELU: ORT fuses this to Gelu */
      node('Mul', ['h', 'rsqrt2'], ['hs']), node('Erf', ['hs'], ['e']), node('Add', ['e', 'one'], ['e1']),
      node('Mul', ['h', 'e1'], ['he']), node('Mul', ['he', 'half'], ['g']), ...lin('g', 'w2', 'b2', 'out')],
    attn: (s) => {
      const heads = (t) => [node('Reshape', [t, 'shape_lhd'], [t + '_r']),
        node('Transpose', [t + '_r'], [t + '_h'], { perm: [1, 0, 2] })];
      return [...lin('x', 'wq', 'bq', 'q'), ...lin('x', 'wk', 'bk', 'k'), ...lin('x', 'wv', 'bv', 'v'),
        ...heads('q'), ...heads('k'), ...heads('v'),
        node('Transpose', ['k_h'], ['k_t'], { perm: [0, 2, 1] }),
        node('MatMul', ['q_h', 'k_t'], ['logits']), node('Mul', ['logits', 'scale'], ['scaled']),
        node('Softmax', ['scaled'], ['p'], { axis: -1 }), node('MatMul', ['p', 'v_h'], ['ctx_h']),
        node('Transpose', ['ctx_h'], ['ctx_t'], { perm: [1, 0, 2] }),
        node('Reshape', ['ctx_t', 'shape_ld'], ['ctx']), ...lin('ctx', 'wo', 'bo', 'out')];
    }
  };
  const inits = Object.entries(d).filter(([k]) => k !== 'x')
    .map(([k, v]) => ({ name: k, dims: s.dims[k], data: v }));
  if (op === 'ffn')
    inits.push({ name: 'rsqrt2', dims: [], data: [Math.SQRT1_2] }, { name: 'one', dims: [], data: [1] },
      { name: 'half', dims: [], data: [0.5] });
  if (op === 'attn') {
    const dk = s.D / s.H;
    inits.push({ name: 'scale', dims: [], data: [1 / Math.sqrt(dk)] },
      { name: 'shape_lhd', dims: [3], data: [s.L, s.H, dk], type: INT64 },
      { name: 'shape_ld', dims: [2], data: [s.L, s.D], type: INT64 });
  }
  return model({ nodes: graphs[op](s), initializers: inits,
    inputs: [{ name: 'x', dims: s.dims.x }], outputs: [{ name: 'out', dims: s.dims.out }] });
}

/* ---- causal attention alone (attention.js --peers): q (L, H hd), k, v (L, KVH hd) in, the
   heads' outputs (L, H hd) out, query head h using kv head h / (H / KVH), as llama.c's attend().
   The peers take each kv group's G = H / KVH query heads as one (G L, hd) matrix, so neither
   copies k or v per query head; the mask is added to the full L x L logits. The functions
   below up to ortCore are also sent to the page as source text (self-contained). */
function coreInputs(s) {   /* q, k, v ~ U(-1, 1) */
  let r = 12345;
  const rand = () => { r = (Math.imul(r, 1664525) + 1013904223) >>> 0; return r / 2 ** 32 * 2 - 1; };
  const fill = (n) => { const a = new Float32Array(n); for (let i = 0; i < n; i++) a[i] = rand(); return a; };
  return { q: fill(s.L * s.H * s.hd), k: fill(s.L * s.KVH * s.hd), v: fill(s.L * s.KVH * s.hd) };
}
function coreMask(L) {   /* (L, L): 0 where j <= i, a large negative above the diagonal */
  const m = new Float32Array(L * L);
  for (let i = 0; i < L; i++) for (let j = i + 1; j < L; j++) m[i * L + j] = -1e30;
  return m;
}
/* max |out - want| over 16 entries, want = causal softmax(q k^T / sqrt(hd)) v in double */
function coreErr(out, d, s) {
  const { L, H, KVH, hd } = s, Q = H * hd, KV = KVH * hd;
  let err = 0;
  for (let t = 0; t < 16; t++) {
    const i = (t * 37) % L, h = (t * 5) % H, e = (t * 11) % hd, g = Math.floor(h / (H / KVH)), p = [];
    let m = -Infinity, sum = 0, acc = 0;
    for (let j = 0; j <= i; j++) {
      let dot = 0;
      for (let c = 0; c < hd; c++) dot += d.q[i * Q + h * hd + c] * d.k[j * KV + g * hd + c];
      p.push(dot / Math.sqrt(hd));
      m = Math.max(m, p[j]);
    }
    for (let j = 0; j <= i; j++) sum += p[j] = Math.exp(p[j] - m);
    for (let j = 0; j <= i; j++) acc += p[j] / sum * d.v[j * KV + g * hd + e];
    err = Math.max(err, Math.abs(acc - out[i * Q + h * hd + e]));
  }
  return err;
}
/* tfjs ops: (q, k, v tensors of (L, H hd), (L, KVH hd), mask (L, L)) -> (L, H hd) */
function tfCore(tf, s) {
  const { L, H, KVH, hd } = s, G = H / KVH;
  return (q, k, v, mask) => {
    const qg = tf.reshape(tf.transpose(tf.reshape(q, [L, KVH, G, hd]), [1, 2, 0, 3]), [KVH, G * L, hd]);
    const kh = tf.transpose(tf.reshape(k, [L, KVH, hd]), [1, 0, 2]), vh = tf.transpose(tf.reshape(v, [L, KVH, hd]), [1, 0, 2]);
    const logits = tf.add(tf.reshape(tf.mul(tf.matMul(qg, kh, false, true), 1 / Math.sqrt(hd)), [KVH, G, L, L]), mask);
    const p = tf.reshape(tf.softmax(logits), [KVH, G * L, L]);
    return tf.reshape(tf.transpose(tf.reshape(tf.matMul(p, vh), [KVH, G, L, hd]), [2, 0, 1, 3]), [L, H * hd]);
  };
}
/* the same graph in ONNX (MatMul, Softmax, MatMul), q, k, v inputs, the mask an initialiser */
function ortCore(s) {
  const { L, H, KVH, hd } = s, G = H / KVH, shape = (name, data) => ({ name, dims: [data.length], data, type: INT64 });
  return model({ nodes: [
    node('Reshape', ['q', 's_q4'], ['q4']), node('Transpose', ['q4'], ['qt'], { perm: [1, 2, 0, 3] }),
    node('Reshape', ['qt', 's_qg'], ['qg']),
    node('Reshape', ['k', 's_kv3'], ['k3']), node('Transpose', ['k3'], ['kt'], { perm: [1, 2, 0] }),
    node('Reshape', ['v', 's_kv3'], ['v3']), node('Transpose', ['v3'], ['vh'], { perm: [1, 0, 2] }),
    node('MatMul', ['qg', 'kt'], ['logits']), node('Mul', ['logits', 'scale'], ['scaled']),
    node('Reshape', ['scaled', 's_l4'], ['l4']), node('Add', ['l4', 'mask'], ['masked']),
    node('Softmax', ['masked'], ['p4'], { axis: -1 }), node('Reshape', ['p4', 's_p3'], ['p']),
    node('MatMul', ['p', 'vh'], ['o3']), node('Reshape', ['o3', 's_o4'], ['o4']),
    node('Transpose', ['o4'], ['ot'], { perm: [2, 0, 1, 3] }), node('Reshape', ['ot', 's_out'], ['out'])],
  initializers: [{ name: 'scale', dims: [], data: [1 / Math.sqrt(hd)] }, { name: 'mask', dims: [L, L], data: coreMask(L) },
    shape('s_q4', [L, KVH, G, hd]), shape('s_qg', [KVH, G * L, hd]), shape('s_kv3', [L, KVH, hd]),
    shape('s_l4', [KVH, G, L, L]), shape('s_p3', [KVH, G * L, L]), shape('s_o4', [KVH, G, L, hd]),
    shape('s_out', [L, H * hd])],
  inputs: [{ name: 'q', dims: [L, H * hd] }, { name: 'k', dims: [L, KVH * hd] }, { name: 'v', dims: [L, KVH * hd] }],
  outputs: [{ name: 'out', dims: [L, H * hd] }] });
}

/* ---- onnxruntime-web, wasm execution provider, one thread ----------------------------- */
async function ort() {
  const rt = require('onnxruntime-web');
  rt.env.wasm.numThreads = 1;
  rt.env.wasm.proxy = false;
  rt.env.logLevel = 'error';
  const make = (op) => async (s, d) => {
    const bytes = ortModel(op, s, d);
    const session = await rt.InferenceSession.create(bytes, {
      executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    return {
      run: async () => {
        const r = await session.run({ x: new rt.Tensor('float32', d.x, s.dims.x) });
        return r.out.data;
      }
    };
  };
  return {
    name: `onnxruntime-web ${rt.env.versions.web || rt.env.versions.common}`,
    gemm: make('gemm'), ffn: make('ffn'), attn: make('attn'),
    core: async (s, d) => {
      const session = await rt.InferenceSession.create(ortCore(s), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      return { run: async () => (await session.run({ q: new rt.Tensor('float32', d.q, [s.L, s.H * s.hd]),
        k: new rt.Tensor('float32', d.k, [s.L, s.KVH * s.hd]), v: new rt.Tensor('float32', d.v, [s.L, s.KVH * s.hd]) })).out.data };
    }
  };
}

module.exports = { js, engineRaw, engineApi, tfjs, ort, ortModel, ortCore, tfCore, coreInputs, coreMask, coreErr };
