/* model.js - state -> weights -> engine calls -> arrays. No DOM: views only draw what this returns.
   Weights follow the classic numpy order (x, W1, b1, W2, b2 from one seed), then the rest. */
(function (root, factory) {
  var ui = root.BlockLensUI = root.BlockLensUI || {};
  factory(ui);
  if (typeof module === 'object' && module.exports) module.exports = ui;
})(typeof window !== 'undefined' ? window : globalThis, function (ui) {
  'use strict';

  function scaled(a, s) {           // float32 a * s, a new array
    var o = new Float32Array(a.length);
    for (var i = 0; i < a.length; i++) o[i] = a[i] * s;
    return o;
  }

  // Every weight from one numpyRandom(seed) stream, in a fixed order:
  // x (L,d), W1 (d,dff), b1 (dff), W2 (dff,d), b2 (d)  <- exactly the numpy example
  // [gated: W3 (d,dff), b3 (dff)] then Wq, bq, Wk, bk, Wv, bv, Wo, bo (d,d) / (d).
  // The attention draws are divided by sqrt(d) (like nn.Linear's init), so q·k has the
  // variance d_k that the 1/sqrt(d_k) scaling is meant for; their biases are drawn and zeroed.
  function drawWeights(engine, seed, L, d, dff, gated) {
    var r = engine.numpyRandom(seed);
    var w = { x: r.randnF32(L * d) };
    w.W1 = r.randnF32(d * dff); w.b1 = r.randnF32(dff);
    w.W2 = r.randnF32(dff * d); w.b2 = r.randnF32(d);
    if (gated) { w.W3 = r.randnF32(d * dff); w.b3 = r.randnF32(dff); }
    var s = 1 / Math.sqrt(d);
    ['q', 'k', 'v', 'o'].forEach(function (n) {
      w['W' + n] = scaled(r.randnF32(d * d), s);
      r.randnF32(d);
      w['b' + n] = new Float32Array(d);
    });
    return w;
  }

  function ffnCall(engine, st, w, x) {
    var a = { L: st.L, dModel: st.d, dFF: st.dff, x: x, W1: w.W1, b1: w.b1, W2: w.W2, b2: w.b2,
      activation: st.act };
    if (st.gated) { a.W3 = w.W3; a.b3 = w.b3; }
    return engine.ffn(a);
  }

  function attnCall(engine, st, w, x) {
    return engine.attention({ L: st.L, dModel: st.d, nHeads: st.heads, x: x,
      Wq: w.Wq, bq: w.bq, Wk: w.Wk, bk: w.bk, Wv: w.Wv, bv: w.bv, Wo: w.Wo, bo: w.bo,
      causal: st.causal, scale: st.scale });
  }

  function countBelow(a, limit) {
    var n = 0;
    for (var i = 0; i < a.length; i++) if (a[i] < limit) n++;
    return n;
  }

  // |a - b| (L, d) and the rows where anything changed (exact float comparison, on purpose).
  function diff(a, b, L, d) {
    var out = new Float32Array(a.length), rows = [];
    for (var i = 0; i < L; i++) {
      var changed = false;
      for (var c = 0; c < d; c++) {
        var v = Math.abs(a[i * d + c] - b[i * d + c]);
        out[i * d + c] = v;
        if (v !== 0 || a[i * d + c] !== b[i * d + c]) changed = true;
      }
      if (changed) rows.push(i);
    }
    return { abs: out, rows: rows };
  }

  function paramSplit(engine, st) {
    var cfg = { vocab: 1, dModel: st.d, nLayers: 1, nHeads: st.heads, dFF: st.dff,
      gated: st.gated ? 1 : 0, attnBias: 1, ffnBias: 1 };
    var c = engine.paramCount(cfg);
    return { attention: c.attentionPerLayer, ffn: c.ffnPerLayer };
  }

  // One model per engine; it remembers the last inputs of each stage so that view-only
  // changes (selected token, language) cost nothing and token edits skip nothing needed.
  function create(engine) {
    var cache = {};
    function once(name, key, fn) {
      if (cache[name] && cache[name].key === key) return cache[name].value;
      var value = fn();
      cache[name] = { key: key, value: value };
      return value;
    }
    var presets = null;

    function compute(state) {
      var P = ui.params;
      var tokens = P.tokenize(state.tokens);
      var L = tokens.length;
      var st = { L: L, d: state.d, dff: state.dff, heads: state.heads, act: state.act,
        gated: P.isGated(state.act), causal: !!state.causal, scale: !!state.scale,
        seed: state.seed };
      var wKey = [st.seed, L, st.d, st.dff, st.gated].join('|');
      var w = once('weights', wKey, function () {
        return drawWeights(engine, st.seed, L, st.d, st.dff, st.gated);
      });
      var fKey = wKey + '|' + st.act;
      var ffn = once('ffn', fKey, function () {
        var f = ffnCall(engine, st, w, w.x);
        f.negBefore = countBelow(f.hidden, 0);
        f.negAfter = countBelow(f.activated, 0);
        return f;
      });
      var aKey = [wKey, st.heads, st.causal, st.scale].join('|');
      var attn = once('attn', aKey, function () { return attnCall(engine, st, w, w.x); });

      // Position-wise experiment: row `pert` of x set to `pval`, everything else unchanged.
      var p = Math.min(state.pert, L - 1);
      var pKey = [fKey, aKey, p, state.pval].join('|');
      var pert = once('pert', pKey, function () {
        var x2 = new Float32Array(w.x);
        x2.fill(state.pval, p * st.d, (p + 1) * st.d);
        var f2 = ffnCall(engine, st, w, x2), a2 = attnCall(engine, st, w, x2);
        return { index: p, value: state.pval, ffn: diff(f2.out, ffn.out, L, st.d),
          attn: diff(a2.out, attn.out, L, st.d) };
      });

      var split = once('split', [st.d, st.dff, st.heads, st.gated].join('|'), function () {
        return paramSplit(engine, st);
      });
      if (!presets) {
        presets = engine.presets.map(function (name) { return { name: name, count: engine.paramCount(name) }; });
      }

      return { tokens: tokens, L: L, d: st.d, dff: st.dff, heads: st.heads, dk: st.d / st.heads,
        act: st.act, gated: st.gated, causal: st.causal, scale: st.scale, seed: st.seed,
        sel: Math.min(state.sel, L - 1), weights: w, x: w.x, ffn: ffn, attn: attn, pert: pert,
        split: split, presets: presets };
    }
    return { compute: compute };
  }

  ui.model = { create: create, drawWeights: drawWeights };
});
