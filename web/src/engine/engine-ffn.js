/* engine-ffn.js - the feed-forward network (ffn) and the mixture of experts (moe): their options,
   checks, layouts and results, and the FFN part that encoderLayer shares. */
  /* global ACTIVATIONS, args, count, dim, elems, Engine, fail, Layout, MAX_ELEMS, oneOf, optionNames */
  /* exported addFfn, FFN_NAMES, FFN_PTRS, ffnOutFields, ffnSig, ffnWeightFields, given */

  const GATED = { swiglu: 1, geglu: 1 };

  function given(o, k) { return o[k] !== undefined && o[k] !== null ? 1 : 0; }

  function activationOf(o) {
    return o.activation === undefined ? 0 : oneOf(o.activation, 'activation', ACTIVATIONS);
  }

  /* Gated FFNs accept Llama-style names: Wg/bg = W1/b1, Wu/bu = W3/b3, Wd/bd = W2/b2. */
  const FFN_ALIAS = { Wg: 'W1', bg: 'b1', Wu: 'W3', bu: 'b3', Wd: 'W2', bd: 'b2' };
  const FFN_PLAIN = { W1: 'W1', b1: 'b1', W3: 'W3', b3: 'b3', W2: 'W2', b2: 'b2' };
  function ffnWeights(o) {
    if (o.Wg == null && o.bg == null && o.Wu == null && o.bu == null && o.Wd == null && o.bd == null)
      return FFN_PLAIN;   /* the common case */
    const alias = FFN_ALIAS, r = {};
    for (const k in alias) {
      if (o[k] != null && o[alias[k]] != null) fail('give ' + k + ' or ' + alias[k] + ', not both');
      r[alias[k]] = o[k] != null ? k : alias[k];
    }
    return r;
  }

  /* The FFN part of a call: checks that need no arrays, and its cache-key fragment. */
  function ffnSig(o, L, D, F) {
    const act = activationOf(o), gated = !!GATED[ACTIVATIONS[act]], n = ffnWeights(o);
    elems('hidden (L x dFF)', L, F);
    elems(n.W1 + ' (dModel x dFF)', D, F);
    if (!gated && (o[n.W3] != null || o[n.b3] != null))
      fail(n.W3 + '/' + n.b3 + ' are only used by gated activations (swiglu, geglu), not ' + ACTIVATIONS[act]);
    let key = n === FFN_PLAIN ? act * 8 + (o.b1 != null ? 4 : 0) + (o.b3 != null ? 2 : 0) + (o.b2 != null ? 1 : 0)
      : act * 8 + given(o, n.b1) * 4 + given(o, n.b3) * 2 + given(o, n.b2);
    if (n !== FFN_PLAIN) key += ':' + n.W1 + n.b1 + n.W3 + n.b3 + n.W2 + n.b2;
    return { act: act, gated: gated, n: n, key: key };
  }

  const FFN_PTRS = ['W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'hidden', 'up', 'activated', 'ffnOut'];

  /* FFN inputs and outputs onto a layout; names prefixed with `prefix` in the heap. */
  function addFfn(lay, o, L, D, F, f, prefix, at) {
    const n = f.n;
    lay.input(prefix + 'W1', n.W1, D * F, true);
    if (given(o, n.b1)) lay.input(prefix + 'b1', n.b1, F, false);
    if (f.gated) {
      lay.input(prefix + 'W3', n.W3, D * F, true);
      if (given(o, n.b3)) lay.input(prefix + 'b3', n.b3, F, false);
    }
    lay.input(prefix + 'W2', n.W2, F * D, true);
    if (given(o, n.b2)) lay.input(prefix + 'b2', n.b2, D, false);
    if (f.gated) lay.gate = { path: at, hidden: lay.outs.length };
    lay.output(prefix + 'hidden', L * F, at.concat('hidden'));
    if (f.gated) lay.output(prefix + 'up', L * F, at.concat('up'));
    lay.output(prefix + 'activated', L * F, at.concat('activated'));
    lay.output(prefix + 'ffnOut', L * D, at.concat('out'));
  }

  /* bl_ffn_desc's (and bl_block_desc's) FFN weight fields; bl_ffn_out's fields. */
  function ffnWeightFields(prefix) {
    return { w1: { p: prefix + 'W1' }, b1: { p: prefix + 'b1' }, w3: { p: prefix + 'W3' },
      b3: { p: prefix + 'b3' }, w2: { p: prefix + 'W2' }, b2: { p: prefix + 'b2' } };
  }
  function ffnOutFields(prefix) {
    return { hidden: { p: prefix + 'hidden' }, up: { p: prefix + 'up' },
      activated: { p: prefix + 'activated' }, out: { p: prefix + 'ffnOut' } };
  }

  /* Fresh FFN results as object literals (one shape each, cheaper than a store per path), in
     addFfn's output order; gated ones call the hidden layer the gate too. */
  function ffnResult(a) { return { hidden: a[0], activated: a[1], out: a[2] }; }
  function gatedResult(a) { return { hidden: a[0], up: a[1], activated: a[2], out: a[3], gate: a[0] }; }

  function ffnInvoke(m, p, err) { return m._bl_ffn_forward(p.desc, p.outs, err); }

  /* ffn's option names (beyond these, a name is refused as unknown); moe and encoderLayer take
     FFN_NAMES too. */
  const FFN_NAMES = ['activation', 'W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'Wg', 'bg', 'Wu', 'bu', 'Wd', 'bd'];
  const FFN_ARGS = optionNames(['L', 'dModel', 'dFF', 'x'].concat(FFN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, dFF: o.dFF, x: o.x, activation: o.activation, W1: o.W1, b1: o.b1,
      W3: o.W3, b3: o.b3, W2: o.W2, b2: o.b2, Wg: o.Wg, bg: o.bg, Wu: o.Wu, bu: o.bu, Wd: o.Wd, bd: o.bd };
  });

  Engine.prototype.ffn = function (o, into) {
    o = args(o, 'ffn', FFN_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), F = dim(o.dFF, 'dFF');
    elems('hidden (L x dFF)', L, F);
    elems('x (L x dModel)', L, D);
    const f = ffnSig(o, L, D, F);
    const layout = this._same('ffn', L, D, F, f.key) || this._layout('ffn', L, D, F, f.key, function () {
      const lay = new Layout(['x', 'desc', 'outs'].concat(FFN_PTRS),
        'ffn (L ' + L + ', dModel ' + D + ', dFF ' + F + ')');
      lay.input('x', 'x', L * D, true);
      addFfn(lay, o, L, D, F, f, '', []);
      lay.struct('desc', 'bl_ffn_desc', Object.assign({ L: L, d_model: D, d_ff: F,
        activation: f.act, x: { p: 'x' } }, ffnWeightFields('')));
      lay.struct('outs', 'bl_ffn_out', ffnOutFields(''));
      lay.make = f.gated ? gatedResult : ffnResult;
      return lay;
    });
    return this._run(layout, o, ffnInvoke, into, 'ffn');
  };

  /* ---- mixture of experts: expert weights stacked on a leading expert axis, named as ffn's ---- */
  const MAX_EXPERTS = 64;   /* BL_MOE_MAX_EXPERTS */
  const MOE_ARGS = optionNames(['L', 'dModel', 'dFF', 'nExperts', 'topK', 'x', 'Wr'].concat(FFN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, dFF: o.dFF, nExperts: o.nExperts, topK: o.topK, x: o.x, Wr: o.Wr,
      activation: o.activation, W1: o.W1, b1: o.b1, W3: o.W3, b3: o.b3, W2: o.W2, b2: o.b2, Wg: o.Wg, bg: o.bg,
      Wu: o.Wu, bu: o.bu, Wd: o.Wd, bd: o.bd };
  });

  function moeResult(a) {
    return { logits: a[0], probs: a[1], topIndex: a[2], topWeight: a[3], load: a[4], out: a[5] };
  }

  /* The workspace the layout holds is the one C asks for (the formula lives in both). */
  function moeInvoke(m, p, err, lay) {
    if (m._bl_moe_workspace_size(p.desc, p.outs) !== lay.work) fail('internal: moe workspace size disagrees with C');
    return m._bl_moe_forward(p.desc, p.outs, p.work, err);
  }

  Engine.prototype.moe = function (o, into) {
    o = args(o, 'moe', MOE_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), F = dim(o.dFF, 'dFF');
    const E = count(o.nExperts, 'nExperts', MAX_EXPERTS), K = count(o.topK, 'topK', E, 'nExperts');
    elems('x (L x dModel)', L, D);
    const f = ffnSig(o, L, D, F), n = f.n;
    elems(n.W1 + ' (nExperts x dModel x dFF)', E * D, F);
    /* bl_moe_workspace_size with logits given: gathered tokens, expert output, activated, up */
    const work = L * (2 * D + (f.gated ? 2 : 1) * F);
    if (work > MAX_ELEMS)
      fail('workspace (L x (2 dModel + ' + (f.gated ? '2 ' : '') + 'dFF) = ' + work + ') exceeds ' + MAX_ELEMS +
        ' values');
    const code = typeof f.key === 'number' ? (E * 65 + K) * 64 + f.key : E + ',' + K + ':' + f.key;
    const layout = this._same('moe', L, D, F, code) || this._layout('moe', L, D, F, code, function () {
      const lay = new Layout(['desc', 'outs', 'work', 'x', 'Wr', 'W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'logits',
        'probs', 'topIndex', 'topWeight', 'load', 'out'],
      'moe (L ' + L + ', dModel ' + D + ', dFF ' + F + ', nExperts ' + E + ', topK ' + K + ')');
      lay.input('x', 'x', L * D, true);
      lay.input('Wr', 'Wr', D * E, true);
      lay.input('W1', n.W1, E * D * F, true);
      if (given(o, n.b1)) lay.input('b1', n.b1, E * F, false);
      if (f.gated) {
        lay.input('W3', n.W3, E * D * F, true);
        if (given(o, n.b3)) lay.input('b3', n.b3, E * F, false);
      }
      lay.input('W2', n.W2, E * F * D, true);
      if (given(o, n.b2)) lay.input('b2', n.b2, E * D, false);
      lay.add('work', work * 4);
      lay.work = work;
      lay.output('logits', L * E, ['logits']);
      lay.output('probs', L * E, ['probs']);
      lay.output('topIndex', L * K, ['topIndex'], true);
      lay.output('topWeight', L * K, ['topWeight']);
      lay.output('load', E, ['load'], true);
      lay.output('out', L * D, ['out']);
      lay.struct('desc', 'bl_moe_desc', Object.assign({ L: L, d_model: D, d_ff: F, n_experts: E, top_k: K,
        activation: f.act, x: { p: 'x' }, wr: { p: 'Wr' } }, ffnWeightFields('')));
      lay.struct('outs', 'bl_moe_out', { logits: { p: 'logits' }, probs: { p: 'probs' },
        top_index: { p: 'topIndex' }, top_weight: { p: 'topWeight' }, load: { p: 'load' }, out: { p: 'out' } });
      lay.make = moeResult;
      return lay;
    });
    return this._run(layout, o, moeInvoke, into, 'moe');
  };
