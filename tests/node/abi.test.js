// abi.test.js - the wrapper's struct layout table (field name -> byte offset, the only place its
// descriptors and outputs get their offsets from) against the wasm module's own sizeof and
// offsetof of every field, and the load-time check that compares them.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

test('every field of the layout table sits where the wasm module puts it', async () => {
  const bl = await BlockLens.load();
  const c = bl._abiFromC(), table = bl._abiTable();
  assert.deepEqual(Object.keys(table).sort(), ['bl_attention_desc', 'bl_attention_out', 'bl_block_desc',
    'bl_block_out', 'bl_decoder_desc', 'bl_decoder_layer', 'bl_decoder_layer_out', 'bl_decoder_out',
    'bl_error', 'bl_ffn_desc', 'bl_ffn_out', 'bl_moe_desc', 'bl_moe_out', 'bl_rng']);
  for (const [s, fields] of Object.entries(table)) {
    assert.ok(Object.keys(fields).length > 2, `${s} lists its fields`);
    for (const [f, at] of Object.entries(fields)) assert.equal(c[s][f], at, `${s}.${f}`);
    assert.deepEqual(Object.keys(c[s]).sort(), Object.keys(fields).sort(), `${s}: the same fields`);
  }
  // wasm32: ints, floats and pointers are 4 bytes, the rng's double 8-aligned
  assert.equal(c.bl_ffn_desc.d_ff, 8);
  assert.equal(c.bl_rng.gauss, 2504);
  assert.equal(c.bl_block_out.ffn, c.bl_attention_out.sizeof);
  assert.equal(c.bl_moe_out.top_index, 8);   // int32_t pointers are 4 bytes too
  assert.equal(c.bl_decoder_desc.eps, 28);
  assert.equal(c.bl_decoder_layer.sizeof, 16 * 4);
  assert.doesNotThrow(() => bl._checkAbi(table));
});

test('a layout table that disagrees with C throws naming the struct, the field and both offsets', async () => {
  const bl = await BlockLens.load();
  const altered = (edit) => { const t = bl._abiTable(); edit(t); return t; };
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_ffn_desc.d_ff = 12; })),
    { message: 'BlockLens: wasm struct bl_ffn_desc.d_ff is at byte 8, the wrapper writes it at 12' });
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_block_desc.eps = 40; })),
    /bl_block_desc\.eps is at byte 36, the wrapper writes it at 40/);
  assert.throws(() => bl._checkAbi(altered((t) => { delete t.bl_attention_out.context; })),
    /wasm struct bl_attention_out has a field context \(at byte 20\) the wrapper does not know/);
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_ffn_out.gate = 16; })),
    /wasm struct bl_ffn_out has no field gate \(the wrapper writes it at byte 16\)/);
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_error.sizeof = 200; })),
    /wasm struct bl_error is 196 bytes, the wrapper's is 200/);
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_norm_desc = { sizeof: 8 }; })),
    /the wasm module has no struct bl_norm_desc/);
  assert.throws(() => bl._checkAbi(altered((t) => { delete t.bl_rng; })),
    /wasm struct bl_rng is not in the wrapper's layout table/);
});

test('an encoder layer, written through every bl_block_desc and bl_block_out field, equals its single calls', async () => {
  // every optional pointer and flag given, so a field at a wrong offset changes some output
  const bl = await BlockLens.load();
  const r = bl.numpyRandom(11), L = 3, D = 4, H = 2, F = 6, eps = 1e-3;
  const w = (n) => r.randnF32(n);
  const attn = { L, dModel: D, nHeads: H, x: w(L * D), Wq: w(D * D), bq: w(D), Wk: w(D * D), bk: w(D),
    Wv: w(D * D), bv: w(D), Wo: w(D * D), bo: w(D), causal: true, scale: false, keyMask: [1, 0, 1] };
  const ffn = { W1: w(D * F), b1: w(F), W3: w(D * F), b3: w(F), W2: w(F * D), b2: w(D), activation: 'swiglu' };
  const ln = { ln1Gamma: w(D), ln1Beta: w(D), ln2Gamma: w(D), ln2Beta: w(D) };
  const block = bl.encoderLayer({ ...attn, ...ffn, ...ln, dFF: F, eps });   // post-LN
  const a = bl.attention(attn);
  assert.deepEqual(block.attn, a);
  const resid1 = a.out.map((v, i) => v + attn.x[i]);
  assert.deepEqual(block.resid1, resid1);
  const norm1 = bl.layerNorm({ L, d: D, x: resid1, gamma: ln.ln1Gamma, beta: ln.ln1Beta, eps }).out;
  assert.deepEqual(block.norm1, norm1);
  const f = bl.ffn({ L, dModel: D, dFF: F, x: norm1, ...ffn });
  assert.deepEqual(block.ffn, f);
  const resid2 = f.out.map((v, i) => v + norm1[i]);
  assert.deepEqual(block.resid2, resid2);
  const norm2 = bl.layerNorm({ L, d: D, x: resid2, gamma: ln.ln2Gamma, beta: ln.ln2Beta, eps }).out;
  assert.deepEqual(block.norm2, norm2);
  assert.deepEqual(block.out, norm2);
});
