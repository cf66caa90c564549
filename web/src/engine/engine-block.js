/* engine-block.js - the norms (layerNorm, rmsNorm, batchNorm) and encoderLayer, the block that
   joins attention, the FFN and two norms in one C call. */
  /* global addAttention, addFfn, args, ATTN_DESC_PTRS, ATTN_NAMES, ATTN_OUT, attnInputFields, attnOutFields */
  /* global attnSig, cut, dim, elems, Engine, epsOf, fail, FFN_NAMES, FFN_PTRS, ffnOutFields, ffnSig */
  /* global ffnWeightFields, Layout, optionNames, show */

  /* The norms' and encoderLayer's option names (beyond these, a name is refused as unknown). */
  function readNorm(o) { return { L: o.L, d: o.d, x: o.x, gamma: o.gamma, beta: o.beta, eps: o.eps }; }
  const NORM_ARGS = optionNames(['L', 'd', 'x', 'gamma', 'beta', 'eps'], readNorm);
  const RMS_ARGS = optionNames(['L', 'd', 'x', 'gamma', 'eps'], function (o) {
    return { L: o.L, d: o.d, x: o.x, gamma: o.gamma, eps: o.eps, beta: o.beta };
  }, ['beta']);   /* beta: refused by name */

  /* kind: 'layer' | 'rms' | 'batch'. Statistics are per token, or per feature for batch. */
  Engine.prototype._norm = function (o, kind, into) {
    const fn = kind + 'Norm';
    o = args(o, fn, kind === 'rms' ? RMS_ARGS : NORM_ARGS);
    const L = dim(o.L, 'L'), d = dim(o.d, 'd'), eps = epsOf(o);
    elems('x (L x d)', L, d);
    if (kind === 'rms' && o.beta !== undefined) fail('beta is not used by rmsNorm');
    const code = (o.gamma != null ? 2 : 0) + (o.beta != null ? 1 : 0);
    const layout = this._same(kind, L, d, 0, code) || this._layout(kind, L, d, 0, code, function () {
      const lay = new Layout(['x', 'gamma', 'beta', 'out', 'mean', 'rstd'], fn + ' (L ' + L + ', d ' + d + ')');
      const nStat = kind === 'batch' ? d : L;
      lay.input('x', 'x', L * d, true);
      if (code & 2) lay.input('gamma', 'gamma', d, false);
      if (code & 1) lay.input('beta', 'beta', d, false);
      lay.output('out', L * d, ['out']);
      if (kind !== 'rms') lay.output('mean', nStat, ['mean']);
      lay.output('rstd', nStat, ['rstd']);
      lay.norm = { kind: kind, L: L, d: d };
      return lay;
    });
    return this._run(layout, o, normInvoke, into, fn, eps);
  };

  function normInvoke(m, p, err, lay, eps) {
    const kind = lay.norm.kind, L = lay.norm.L, d = lay.norm.d;
    if (kind === 'rms') return m._bl_rmsnorm_forward(p.out, p.rstd, p.x, p.gamma, L, d, eps, err);
    const f = kind === 'layer' ? m._bl_layernorm_forward : m._bl_batchnorm_forward;
    return f(p.out, p.mean, p.rstd, p.x, p.gamma, p.beta, L, d, eps, err);
  }
  Engine.prototype.layerNorm = function (o, into) { return this._norm(o, 'layer', into); };
  Engine.prototype.rmsNorm = function (o, into) { return this._norm(o, 'rms', into); };
  Engine.prototype.batchNorm = function (o, into) { return this._norm(o, 'batch', into); };

  function prefixed(prefix, names) { return names.map(function (k) { return prefix + k; }); }

  const BLOCK_ARGS = optionNames(['L', 'dModel', 'nHeads', 'dFF', 'x', 'norm', 'eps', 'ln1Gamma', 'ln1Beta',
    'ln2Gamma', 'ln2Beta'].concat(ATTN_NAMES, FFN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, nHeads: o.nHeads, dFF: o.dFF, x: o.x, norm: o.norm, eps: o.eps,
      ln1Gamma: o.ln1Gamma, ln1Beta: o.ln1Beta, ln2Gamma: o.ln2Gamma, ln2Beta: o.ln2Beta,
      Wq: o.Wq, bq: o.bq, Wk: o.Wk, bk: o.bk, Wv: o.Wv, bv: o.bv, Wo: o.Wo, bo: o.bo,
      causal: o.causal, scale: o.scale, keyMask: o.keyMask, activation: o.activation, W1: o.W1, b1: o.b1,
      W3: o.W3, b3: o.b3, W2: o.W2, b2: o.b2, Wg: o.Wg, bg: o.bg, Wu: o.Wu, bu: o.bu, Wd: o.Wd, bd: o.bd };
  });

  const LN_KEYS = ['ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta'];
  const BLOCK_OUT = ['resid1', 'norm1', 'resid2', 'norm2', 'out'];

  Engine.prototype.encoderLayer = function (o, into) {
    o = args(o, 'encoderLayer', BLOCK_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), H = dim(o.nHeads, 'nHeads'), F = dim(o.dFF, 'dFF');
    const norm = o.norm === undefined ? 'post' : o.norm, eps = epsOf(o);
    if (typeof norm !== 'string') fail('norm must be "post" or "pre", not ' + show(norm));
    if (norm !== 'post' && norm !== 'pre') fail('norm "' + cut(norm) + '" must be "post" or "pre"');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('hidden (L x dFF)', L, F);
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    const a = attnSig(o, L, D), f = ffnSig(o, L, D, F);
    /* the signature as one number where it can be (F, norm, attention and norm-input bits, the
       FFN's key), with eps and Llama-style names appended when they are not the defaults */
    const ln = (o.ln1Gamma != null ? 8 : 0) + (o.ln1Beta != null ? 4 : 0) + (o.ln2Gamma != null ? 2 : 0) +
      (o.ln2Beta != null ? 1 : 0);
    let code = (((F * 2 + (norm === 'pre' ? 1 : 0)) * 128 + a.key) * 16 + ln) * 64;
    code = typeof f.key === 'number' ? code + f.key : code + ':' + f.key;
    if (eps !== 1e-5) code = code + ':' + eps;
    const layout = this._same('block', L, D, H, code) || this._layout('block', L, D, H, code, function () {
      const lay = new Layout(['desc', 'outs'].concat(ATTN_DESC_PTRS, ATTN_OUT, LN_KEYS,
        prefixed('f_', FFN_PTRS), BLOCK_OUT),
      'encoderLayer (L ' + L + ', dModel ' + D + ', nHeads ' + H + ', dFF ' + F + ')');
      lay.input('x', 'x', L * D, true);
      addAttention(lay, o, L, D, H, a, ['attn']);
      addFfn(lay, o, L, D, F, f, 'f_', ['ffn']);
      LN_KEYS.forEach(function (k, i) { if (ln & (8 >> i)) lay.input(k, k, D, false); });
      BLOCK_OUT.forEach(function (k) { lay.output(k, L * D, [k]); });
      lay.struct('desc', 'bl_block_desc', Object.assign({ L: L, d_model: D, n_heads: H, d_ff: F,
        activation: f.act, pre_ln: norm === 'pre', causal: a.causal, no_scale: a.noScale,
        eps: { f: eps }, ln1_gamma: { p: 'ln1Gamma' }, ln1_beta: { p: 'ln1Beta' },
        ln2_gamma: { p: 'ln2Gamma' }, ln2_beta: { p: 'ln2Beta' } }, attnInputFields(),
        ffnWeightFields('f_')));
      lay.struct('outs', 'bl_block_out', { attn: { s: 'bl_attention_out', v: attnOutFields() },
        ffn: { s: 'bl_ffn_out', v: ffnOutFields('f_') }, resid1: { p: 'resid1' },
        norm1: { p: 'norm1' }, resid2: { p: 'resid2' }, norm2: { p: 'norm2' }, out: { p: 'out' } });
      return lay;
    });
    return this._run(layout, o, blockInvoke, into, 'encoderLayer');
  };

  function blockInvoke(m, p, err) { return m._bl_block_forward(p.desc, p.outs, 0, err); }
