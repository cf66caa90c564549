// hooks_api.test.js - model.forward's hooks (patch, start, ablate, set, stop, logits: 'last') and logit
// lens through the JS API on the fixture folders (GPT-2, Llama, Qwen3) and the shipped poem model:
// identities that hold bit for bit (also for a structuredClone'd result, as a Worker posts it), the
// lens (top k, the next token's rank) against the forward's logits and a softmax and rank computed
// here, and every refusal, after which the model still gives the same logits.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');

const MODELS = {
  gpt2: path.join(root, 'tests', 'fixtures', 'models', 'gpt2'),
  llama: path.join(root, 'tests', 'fixtures', 'models', 'llama'),
  qwen3: path.join(root, 'tests', 'fixtures', 'models', 'qwen3'),
  poems: path.join(root, 'web', 'models', 'poems')
};
const L = 7;
let bl;
const loaded = {};
test.before(async () => {
  bl = await BlockLens.load();
  for (const [name, dir] of Object.entries(MODELS)) loaded[name] = await bl.loadModel(dir);
});
test.after(() => { for (const m of Object.values(loaded)) m.free(); });

function idsOf(m, seed) {
  return Int32Array.from({ length: L }, (_, i) => (i * 7 + seed * 5 + 3) % m.vocabSize);
}
/* the same float32 bits (NaN-safe, -0 told from 0) */
function sameBits(a, b) {
  assert.equal(a.length, b.length);
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length), y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
/* a copy of x with a NaN at 5 (a copied result that went wrong) */
function nanX(x) { const y = x.slice(); y[5] = NaN; return y; }
function argmax(row) {
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  return best;
}

for (const name of Object.keys(MODELS)) {
  test(name + ': patch_with_its_own_cache_is_bit_identical', () => {
    const m = loaded[name], ids = idsOf(m, 0), full = m.forward(ids);
    for (let l = 0; l < m.nLayers; l++)
      for (const position of [0, L - 1]) {
        const r = m.forward(ids, { patch: [{ layer: l, position, from: full }] });
        assert.ok(sameBits(r.logits, full.logits), 'layer ' + l + ' position ' + position);
        assert.ok(sameBits(r.layers[l].x, full.layers[l].x));
      }
  });

  test(name + ': start_and_patch_equal_a_full_run_with_that_patch', () => {
    const m = loaded[name], ids = idsOf(m, 0), full = m.forward(ids), other = m.forward(idsOf(m, 1));
    const l = m.nLayers - 1, patch = [{ layer: l, position: 3, from: other }];
    const a = m.forward(ids, { patch });
    const b = m.forward(ids, { start: { layer: l, from: full }, patch });
    assert.ok(!sameBits(a.logits, full.logits), 'the patch changes the logits');
    assert.ok(sameBits(a.logits, b.logits));
    assert.ok(sameBits(a.layers[l].resid2, b.layers[l].resid2));
    for (let j = 0; j < l; j++) assert.equal(b.layers[j], null, 'layer ' + j + ' was not run');
    // the patched row is the other run's, the rest this run's
    const D = m.dModel, x = a.layers[l].x;
    assert.ok(sameBits(x.subarray(3 * D, 4 * D), other.layers[l].x.subarray(3 * D, 4 * D)));
    assert.ok(sameBits(x.subarray(0, 3 * D), full.layers[l].x.subarray(0, 3 * D)));
  });

  test(name + ': empty_ablate_changes_nothing', () => {
    const m = loaded[name], ids = idsOf(m, 0), full = m.forward(ids);
    assert.ok(sameBits(m.forward(ids, { ablate: [] }).logits, full.logits));
    assert.ok(sameBits(m.forward(ids, { ablate: [], patch: [], set: [] }).logits, full.logits));
  });

  test(name + ': every_head_ablated_equals_attn_out_set_to_the_o_proj_bias', () => {
    const m = loaded[name], ids = idsOf(m, 0), D = m.dModel, l = 0;
    const heads = Array.from({ length: m.nHeads }, (_, h) => [l, h]);
    const bo = m.layerWeights(l).bo || new Float32Array(D), tiled = new Float32Array(L * D);
    for (let i = 0; i < L; i++) tiled.set(bo, i * D);
    const a = m.forward(ids, { ablate: heads });
    const b = m.forward(ids, { set: [{ layer: l, site: 'attn_out', values: tiled }] });
    assert.ok(sameBits(a.logits, b.logits));
    assert.ok(sameBits(a.layers[l].attention.out, tiled));
    assert.ok(!sameBits(a.logits, m.forward(ids).logits), 'the ablation changes the logits');
    assert.ok(a.layers[l].attention.concat.every((v) => v === 0));
  });

  test(name + ': ffn_ablated_makes_resid2_equal_resid1', () => {
    const m = loaded[name], ids = idsOf(m, 0), r = m.forward(ids, { ablate: [[1, 'ffn']] });
    assert.ok(r.layers[1].resid2.every((v, i) => v === r.layers[1].resid1[i]));
    assert.ok(r.layers[1].ffn.out.every((v) => v === 0));
  });

  test(name + ': set_one_position_changes_only_that_row_and_later', () => {
    const m = loaded[name], ids = idsOf(m, 0), D = m.dModel, full = m.forward(ids);
    const values = new Float32Array(D).fill(0.5);
    const r = m.forward(ids, { set: [{ layer: 1, site: 'resid_in', position: 4, values }] });
    assert.ok(sameBits(r.layers[1].x.subarray(4 * D, 5 * D), values));
    const V = m.vocabSize;
    assert.ok(sameBits(r.logits.subarray(0, 4 * V), full.logits.subarray(0, 4 * V)), 'causal: rows before 4 kept');
    assert.ok(!sameBits(r.logits.subarray(4 * V, 5 * V), full.logits.subarray(4 * V, 5 * V)));
  });

  test(name + ': lens_top1_of_the_last_entry_is_the_logits_argmax', () => {
    const m = loaded[name], ids = idsOf(m, 0), V = m.vocabSize, k = 4, r = m.forward(ids, { lens: k });
    assert.equal(r.lens.length, m.nLayers + 1);
    const last = r.lens[m.nLayers];
    let maxd = 0;
    for (let i = 0; i < L; i++) {
      const row = r.logits.subarray(i * V, (i + 1) * V);
      assert.equal(last.ids[i * k], argmax(row), 'row ' + i);
      let mx = -Infinity, sum = 0;
      for (const v of row) mx = Math.max(mx, v);
      for (const v of row) sum += Math.exp(v - mx);
      let psum = 0;
      for (let j = 0; j < k; j++) {
        const want = Math.exp(row[last.ids[i * k + j]] - mx) / sum;
        maxd = Math.max(maxd, Math.abs(last.probs[i * k + j] - want));
        psum += last.probs[i * k + j];
        if (j) assert.ok(last.probs[i * k + j] <= last.probs[i * k + j - 1]);
      }
      assert.ok(psum <= 1 + 1e-6);
    }
    assert.ok(maxd <= 1e-6, 'lens probs vs softmax(logits): max diff ' + maxd);
    for (const e of r.lens) { assert.equal(e.ids.length, L * k); assert.equal(e.probs.length, L * k); }
    // entry 0 is the embeddings' lens: not the last one's
    assert.ok(!sameBits(new Float32Array(r.lens[0].ids.buffer, r.lens[0].ids.byteOffset, L * k),
      new Float32Array(last.ids.buffer, last.ids.byteOffset, L * k)) || m.nLayers === 0);
  });

  test(name + ': a_structured_clone_of_a_result_patches_and_starts_as_the_result_does', () => {
    // (what a Worker's postMessage delivers: no WeakMap identity, the same shapes)
    const m = loaded[name], ids = idsOf(m, 0), full = m.forward(ids), other = m.forward(idsOf(m, 1));
    const copy = structuredClone(other), self = structuredClone(full), l = m.nLayers - 1;
    for (let j = 0; j < m.nLayers; j++) {
      const own = m.forward(ids, { patch: [{ layer: j, position: 2, from: other }] });
      const cloned = m.forward(ids, { patch: [{ layer: j, position: 2, from: copy }] });
      assert.ok(!sameBits(own.logits, full.logits), 'layer ' + j + ': the patch changes the logits');
      assert.ok(sameBits(cloned.logits, own.logits), 'layer ' + j + ': the copy patches bit for bit as the result');
      assert.ok(sameBits(m.forward(ids, { patch: [{ layer: j, position: L - 1, from: self }] }).logits, full.logits),
        'layer ' + j + ': a self-patch from a copy changes nothing');
    }
    const started = m.forward(ids, { start: { layer: l, from: self } });
    assert.ok(sameBits(started.logits, full.logits), 'start from a copy of its own run');
  });

  test(name + ': logits_last_is_the_full_logits_last_row_bit_for_bit', () => {
    const m = loaded[name], ids = idsOf(m, 0), V = m.vocabSize, full = m.forward(ids);
    const cases = [[{}, full], [{ ablate: [[0, 0]] }, null], [{ start: { layer: m.nLayers - 1, from: full } }, full],
      [{ patch: [{ layer: 0, position: 3, from: m.forward(idsOf(m, 1)) }] }, null]];
    for (const [opts, ref] of cases) {
      const want = (ref || m.forward(ids, opts)).logits.subarray((L - 1) * V, L * V);
      const got = m.forward(ids, Object.assign({ logits: 'last' }, opts)).logits;
      assert.equal(got.length, V);
      assert.ok(sameBits(got, want), JSON.stringify(Object.keys(opts)) + ': the last row bit for bit');
    }
    assert.ok(sameBits(m.forward(ids, { logits: 'all' }).logits, full.logits));
    assert.equal(m.forward(ids, { logits: 'last', stop: 1 }).logits, null);
  });

  test(name + ': lens_rank_and_prob_of_the_next_token_equal_a_count_over_the_logits', () => {
    // the last entry's logits are the forward's (bit for bit): rank = 1 + the ids above the next
    // token (larger logit, or equal and lower), prob its double softmax, both computed here
    const m = loaded[name], ids = idsOf(m, 3), V = m.vocabSize, k = 3, r = m.forward(ids, { lens: k });
    const last = r.lens[m.nLayers];
    let ones = 0;
    for (let i = 0; i + 1 < L; i++) {
      const row = r.logits.subarray(i * V, (i + 1) * V), t = ids[i + 1];
      let rank = 1, mx = -Infinity, sum = 0;
      for (let j = 0; j < V; j++) { if (row[j] > row[t] || (row[j] === row[t] && j < t)) rank++; mx = Math.max(mx, row[j]); }
      for (const v of row) sum += Math.exp(v - mx);
      assert.equal(last.rank[i], rank, 'row ' + i);
      assert.ok(Math.abs(last.prob[i] - Math.exp(row[t] - mx) / sum) <= 1e-7, 'row ' + i + ' prob');
      assert.equal(last.rank[i] === 1, last.ids[i * k] === t);
      ones += rank === 1;
    }
    assert.equal(last.rank[L - 1], 0);
    assert.ok(Number.isNaN(last.prob[L - 1]));
    for (const e of r.lens) { assert.equal(e.rank.length, L); assert.equal(e.prob.length, L); }
    // every entry's ranks against the engine's own lens over the whole vocabulary (another path)
    const all = m.forward(ids, { lens: V }).lens;
    for (let p = 0; p <= m.nLayers; p++)
      for (let i = 0; i + 1 < L; i++)
        assert.equal(r.lens[p].rank[i], all[p].ids.subarray(i * V, (i + 1) * V).indexOf(ids[i + 1]) + 1, p + ' ' + i);
    // a greedy text (each next token the top of the row before: causal, so later tokens change nothing
    // there): every rank of the last entry is 1, its id the lens's top
    const greedy = Int32Array.from(ids);
    for (let i = 0; i + 1 < L; i++) greedy[i + 1] = argmax(m.forward(greedy).logits.subarray(i * V, (i + 1) * V));
    const g = m.forward(greedy, { lens: k }).lens[m.nLayers];
    for (let i = 0; i + 1 < L; i++) {
      assert.equal(g.rank[i], 1, 'greedy row ' + i);
      assert.equal(g.ids[i * k], greedy[i + 1]);
    }
    console.log(name + ': next-token ranks exact over ' + V + ' ids (' + ones + ' of ' + (L - 1) + ' the top; greedy: all 1)');
  });

  test(name + ': stop_runs_the_first_blocks_only', () => {
    const m = loaded[name], ids = idsOf(m, 0), full = m.forward(ids), r = m.forward(ids, { stop: 1, lens: 2 });
    assert.equal(r.logits, null);
    assert.equal(r.hidden, null);
    assert.ok(sameBits(r.layers[0].resid2, full.layers[0].resid2));
    for (let l = 1; l < m.nLayers; l++) { assert.equal(r.layers[l], null); assert.equal(r.lens[l + 1], null); }
    assert.ok(r.lens[1] !== null);
    // the lens after block 0 is the same with or without stop
    const all = m.forward(ids, { lens: 2 });
    assert.deepEqual(Array.from(r.lens[1].ids), Array.from(all.lens[1].ids));
  });

  test(name + ': refusals_name_the_option_and_leave_the_model_usable', () => {
    const m = loaded[name], ids = idsOf(m, 0), full = m.forward(ids), NL = m.nLayers, H = m.nHeads, D = m.dModel;
    const other = name === 'gpt2' ? loaded.llama : loaded.gpt2;
    const bad = [
      [{ ablate: [[0, 0], [0, H + 3]] }, 'forward: ablate[1][1] (' + (H + 3) + ') must be a head in [0, ' + H + ')'],
      [{ ablate: [[NL, 0]] }, 'forward: ablate[0][0] (' + NL + ') must be a layer that runs, in [0, ' + NL + ')'],
      [{ ablate: [[0]] }, 'forward: ablate[0] must be [layer, head] or [layer, \'ffn\']'],
      [{ ablate: 3 }, 'forward: ablate must be an array, not 3'],
      [{ patch: [{ layer: 1, position: 0, from: m.forward(ids, { layers: [0] }) }] }, 'forward: patch[0].from did not keep layer 1'],
      [{ patch: [{ layer: 0, position: L, from: full }] }, 'forward: patch[0].position (' + L + ') must be a position in [0, ' + L + ')'],
      [{ patch: [{ layer: 0, position: 0, from: m.forward(ids.subarray(0, 3)) }] }, 'this forward needs ' + L * D],
      [{ patch: [{ layer: 0, position: 0, from: null }] }, 'patch[0].from must be a result of this model\'s forward'],
      [{ patch: [{ layer: 0, position: 0, from: { layers: 3 } }] }, 'forward: patch[0].from.layers must be an array'],
      [{ patch: [{ layer: 0, position: 0, from: { layers: full.layers.concat([null]) } }] },
        'forward: patch[0].from.layers has ' + (NL + 1) + ' entries, this model has ' + NL + ' layers'],
      [{ patch: [{ layer: 0, position: 0, from: { layers: full.layers.map((r, l) => (l ? r : { x: nanX(r.x) })) } }] },
        'forward: patch[0].from.layers[0].x[5] is NaN, not finite'],
      [{ start: { layer: 0, from: other.forward(idsOf(other, 0)) } },
        'forward: start.from must be a result of this model\'s forward, not another model\'s'],
      [{ logits: 'first' }, 'forward: logits must be \'all\' (every row, the default) or \'last\''],
      [{ start: { layer: NL, from: full } }, 'forward: start.layer (' + NL + ') must be a layer in [0, ' + NL + ')'],
      [{ start: { layer: 1, from: full }, patch: [{ layer: 0, position: 0, from: full }] },
        'forward: patch[0].layer (0) must be a layer that runs, in [1, ' + NL + ')'],
      [{ stop: 1, ablate: [[1, 0]] }, 'forward: ablate[0][0] (1) must be a layer that runs, in [0, 1)'],
      [{ stop: 0 }, 'forward: stop (0) must be a number of blocks in [1, ' + NL + ']'],
      [{ stop: NL + 1 }, 'forward: stop (' + (NL + 1) + ')'],
      [{ lens: 0 }, 'forward: lens (0) must be an integer k in [1, vocab ' + m.vocabSize + ']'],
      [{ lens: m.vocabSize + 1 }, 'forward: lens (' + (m.vocabSize + 1) + ')'],
      [{ lens: 1.5 }, 'forward: lens (1.5)'],
      [{ set: [{ layer: 0, site: 'nope', values: null }] }, 'forward: set[0].site "nope" is not one of resid_in, attn_in'],
      [{ set: [{ layer: 0, site: 'attn_out', position: 0, values: new Float32Array(3) }] },
        'forward: set[0].values has 3 values, expected ' + D],
      [{ set: [{ layer: 0, site: 'attn_out', values: new Float32Array(D) }] },
        'forward: set[0].values has ' + D + ' values, expected ' + L * D],
      [{ set: [{ layer: 0, site: 'head_out', values: null }] }, 'forward: set[0].head (undefined) must be a head in [0, ' + H + ')'],
      [{ set: [{ layer: 0, site: 'ffn_out', head: 0, values: null }] }, 'forward: set[0].head is for site head_out only'],
      [{ set: [{ layer: 0, site: 'ffn_out' }] }, 'forward: set[0].values is required'],
      [{ set: [{ layer: 0, site: 'ffn_out', position: 0, values: new Float32Array(D).fill(NaN) }] },
        'forward: set[0].values[0] is NaN, not finite'],
      [{ set: [{ layer: 0, site: 'ffn_out', position: 0, values: [1, 2] }] }, 'forward: set[0].values must be a Float32Array'],
      [{ lenz: 1 }, 'forward has no option "lenz"']
    ];
    for (const [opts, msg] of bad) {
      assert.throws(() => m.forward(ids, opts), (e) => {
        assert.ok(e instanceof Error);
        assert.ok(e.message.includes(msg), 'message "' + e.message + '" lacks "' + msg + '"');
        return true;
      });
      assert.ok(sameBits(m.forward(ids).logits, full.logits), 'still usable after ' + msg);
    }
    // a getter that throws while the options are read
    const trap = { get ablate() { throw new Error('trap'); } };
    assert.throws(() => m.forward(ids, trap), /forward: reading its arguments threw Error: trap/);
  });
}

test('head_out_set_to_a_heads_own_context_changes_nothing', () => {
  for (const name of Object.keys(MODELS)) {
    const m = loaded[name], ids = idsOf(m, 2), full = m.forward(ids), hd = m.headDim, h = m.nHeads - 1;
    const ctx = full.layers[1].attention.context.slice(h * L * hd, (h + 1) * L * hd);
    const r = m.forward(ids, { set: [{ layer: 1, site: 'head_out', head: h, values: ctx },
      { layer: 1, site: 'ffn_hidden', position: 2, values: full.layers[1].ffn.activated.slice(2 * m.dFF, 3 * m.dFF) }] });
    assert.ok(sameBits(r.logits, full.logits), name);
  }
});

test('logits_last_is_bit_identical_on_every_architecture_fixture', async () => {
  const dir = path.join(root, 'tests', 'fixtures', 'models'), fs = require('node:fs');
  const names = fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, 'config.json')));
  assert.ok(names.length >= 6, names.join(' '));
  for (const name of names) {
    const m = await bl.loadModel(path.join(dir, name));
    try {
      const ids = idsOf(m, 4), V = m.vocabSize;
      for (const opts of [{}, { ablate: [[m.nLayers - 1, 0], [0, 'ffn']] }]) {
        const full = m.forward(ids, opts).logits, last = m.forward(ids, Object.assign({ logits: 'last' }, opts)).logits;
        assert.ok(sameBits(last, full.subarray((L - 1) * V, L * V)), name + ' ' + JSON.stringify(opts));
      }
    } finally { m.free(); }
  }
  console.log('logits: \'last\' bit-identical on ' + names.join(', '));
});
