/* engine-attention.js - multi-head attention: its options, checks, layout and result, and the
   attention part that encoderLayer shares. */
  /* global args, dim, elems, Engine, fail, flag, given, Layout, optionNames */
  /* exported addAttention, ATTN_DESC_PTRS, ATTN_NAMES, ATTN_OUT, attnInputFields, attnOutFields, attnSig */

  /* attention's option names (beyond these, a name is refused as unknown); encoderLayer takes
     ATTN_NAMES too. */
  const ATTN_NAMES = ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo', 'causal', 'scale', 'keyMask'];
  const ATTN_ARGS = optionNames(['L', 'dModel', 'nHeads', 'x'].concat(ATTN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, nHeads: o.nHeads, x: o.x, Wq: o.Wq, bq: o.bq, Wk: o.Wk, bk: o.bk,
      Wv: o.Wv, bv: o.bv, Wo: o.Wo, bo: o.bo, causal: o.causal, scale: o.scale, keyMask: o.keyMask };
  });

  const ATTN_W = ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];
  const ATTN_OUT = ['q', 'k', 'v', 'scores', 'weights', 'context', 'concat', 'attnOut'];

  /* The attention part of a call: checks that need no arrays, and its cache-key fragment. */
  function attnSig(o, L, D) {
    elems('Wq (dModel x dModel)', D, D);
    const causal = flag(o.causal, 'causal', false), noScale = !flag(o.scale, 'scale', true);
    /* named loads, not given(o, k): this runs on every call */
    const mask = o.keyMask != null ? 1 : 0;
    const key = (causal ? 64 : 0) + (noScale ? 32 : 0) + mask * 16 + (o.bq != null ? 8 : 0) +
      (o.bk != null ? 4 : 0) + (o.bv != null ? 2 : 0) + (o.bo != null ? 1 : 0);
    return { causal: causal, noScale: noScale, mask: mask, key: key };
  }

  function addAttention(lay, o, L, D, H, a, at) {
    ATTN_W.forEach(function (k) {
      const w = k[0] === 'W';
      if (w || given(o, k)) lay.input(k, k, w ? D * D : D, w);
    });
    if (a.mask) lay.input('keyMask', 'keyMask', L, true, 'm');
    const n = { q: L * D, k: L * D, v: L * D, scores: H * L * L, weights: H * L * L, context: L * D,
      concat: L * D, attnOut: L * D };
    ATTN_OUT.forEach(function (k) { lay.output(k, n[k], at.concat(k === 'attnOut' ? 'out' : k)); });
  }

  /* A fresh attention result as an object literal, in addAttention's output order. */
  function attnResult(a) {
    return { q: a[0], k: a[1], v: a[2], scores: a[3], weights: a[4], context: a[5], concat: a[6], out: a[7] };
  }

  /* bl_attention_out's fields; bl_attention_desc's (and bl_block_desc's) mask, input and
     weight fields. */
  function attnOutFields() {
    return { q: { p: 'q' }, k: { p: 'k' }, v: { p: 'v' }, scores: { p: 'scores' },
      weights: { p: 'weights' }, context: { p: 'context' }, concat: { p: 'concat' }, out: { p: 'attnOut' } };
  }
  function attnInputFields() {
    return { key_mask: { p: 'keyMask' }, x: { p: 'x' }, wq: { p: 'Wq' }, bq: { p: 'bq' },
      wk: { p: 'Wk' }, bk: { p: 'bk' }, wv: { p: 'Wv' }, bv: { p: 'bv' }, wo: { p: 'Wo' }, bo: { p: 'bo' } };
  }
  const ATTN_DESC_PTRS = ['keyMask', 'x', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];

  function attnInvoke(m, p, err) { return m._bl_attention_forward(p.desc, p.outs, 0, err); }

  Engine.prototype.attention = function (o, into) {
    o = args(o, 'attention', ATTN_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), H = dim(o.nHeads, 'nHeads');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    const a = attnSig(o, L, D);
    const layout = this._same('attn', L, D, H, a.key) || this._layout('attn', L, D, H, a.key, function () {
      const lay = new Layout(['desc', 'outs'].concat(ATTN_DESC_PTRS, ATTN_OUT),
        'attention (L ' + L + ', dModel ' + D + ', nHeads ' + H + ')');
      lay.input('x', 'x', L * D, true);
      addAttention(lay, o, L, D, H, a, []);
      lay.struct('desc', 'bl_attention_desc', Object.assign({ L: L, d_model: D, n_heads: H,
        causal: a.causal, no_scale: a.noScale }, attnInputFields()));
      lay.struct('outs', 'bl_attention_out', attnOutFields());
      lay.make = attnResult;
      return lay;
    });
    return this._run(layout, o, attnInvoke, into, 'attention');
  };
