// neurons.test.js - FFN neurons (web/src/model/stages/neurons.js, figure 16): the `neuron`
// setting's parsing and errors; the neurons stage on the shipped poem model and on the gpt2,
// llama and qwen3 fixture folders against the independent float64 torch references of
// tests/fixtures/hooks/neurons.json (tools/gen_neuron_ref.py): each layer's 10 most active
// neurons (exact ids), the activation on every token, and the promoted / suppressed token ids
// (exact) with their direct logits U (g * w_out), g the final norm's weight, no centring (within
// the stored atol); the held-out search's top 10 poems (lines and positions exact) on the poem model.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');

const SRC = path.join(root, 'web', 'src');
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { createAssets } = require(path.join(SRC, 'model', 'assets.js'));
const N = require(path.join(SRC, 'model', 'stages', 'neurons.js'));
const { RUNS } = require(path.join(SRC, 'model', 'stages', 'wide.js'));

const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const REF = read(path.join(root, 'tests', 'fixtures', 'hooks', 'neurons.json'));
const byName = (n) => REF.models.find((m) => m.name === n);

let bl, assets;
test.before(async () => {
  bl = await BlockLens.load();
  const dir = path.join(root, 'web', 'models', 'poems');
  assets = createAssets();
  assets.add('poems', { weights: new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))),
    config: read(path.join(dir, 'config.json')), vocab: read(path.join(dir, 'vocab.json')),
    heldout: fs.readFileSync(path.join(dir, 'heldout.txt'), 'utf8') });
});

/* ---- the setting ------------------------------------------------------------------------- */
test('neuron_text_parses_1_based_and_names_a_bad_value', () => {
  assert.deepEqual(N.parseNeuron('').pick, null);
  assert.deepEqual(N.parseNeuron(' 2.97 ').pick, [1, 96]);
  for (const bad of ['x', '0.1', '1.0', '1', '1.2.3', '-1.2']) {
    assert.deepEqual(N.parseNeuron(bad).error, { code: 'neuronItem', vars: { value: bad } }, bad);
  }
  assert.deepEqual(N.parseNeuron('3.1', 2, 256).error, { code: 'neuronLayer', vars: { value: '3.1', max: 2 } });
  assert.deepEqual(N.parseNeuron('1.257', 2, 256).error, { code: 'neuronIndex', vars: { value: '1.257', max: 256 } });
  assert.equal(params.coerce('neuron', '1.x').error.code, 'neuronItem');
  assert.deepEqual(params.parseHash('#weights=poems&neuron=1.300').errors,
    [{ key: 'neuron', code: 'neuronIndex', vars: { value: '1.300', max: 256 } }]);
  assert.equal(params.parseHash('#weights=poems&neuron=3.1').errors[0].code, 'neuronLayer');
  assert.equal(params.coerce('nsearch', 'yes').error.code, 'enum');
});

test('top_indexes_orders_by_value_then_lower_index_both_ways', () => {
  const v = Float32Array.from([0.1, 0.5, 0.5, -1, 0.9, -1]);
  assert.deepEqual(N.topIndexes(v, 3, 1), [4, 1, 2]);
  assert.deepEqual(N.topIndexes(v, 3, -1), [3, 5, 0]);
  assert.deepEqual(N.topIndexes(v, 9, 1).length, 6);
});

/* ---- against torch ----------------------------------------------------------------------- */
// One reference model's checks on a stage value per neuron (value: the stage with that neuron).
function checkModel(ref, stageFor, label) {
  const first = stageFor('');
  assert.equal(first.lists.length, ref.layers.length);
  ref.layers.forEach((L, l) => {
    assert.deepEqual(Array.from(first.lists[l].ids), L.top, `${label} layer ${l + 1}: top 10 ids`);
    assertClose(first.lists[l].max, L.max, REF.atol, 0, `${label} layer ${l + 1}: max`);
  });
  const last = ref.layers.length - 1;
  assert.deepEqual([first.layer, first.neuron, first.picked], [last, ref.layers[last].top[0], false], 'default');
  for (const c of ref.neurons) {
    const v = stageFor((c.layer + 1) + '.' + (c.neuron + 1)), at = `${label} ${c.layer + 1}.${c.neuron + 1}`;
    assert.deepEqual([v.layer, v.neuron, v.picked], [c.layer, c.neuron, true]);
    const d = assertClose(v.act, c.activation, REF.atol, 0, at + ' activation');
    assert.deepEqual(Array.from(v.promote), c.promote, at + ' promoted ids');
    assert.deepEqual(Array.from(v.suppress), c.suppress, at + ' suppressed ids');
    const e = Math.max(assertClose(v.promoteV, c.promote_values, REF.atol, 0, at + ' promoted values'),
      assertClose(v.suppressV, c.suppress_values, REF.atol, 0, at + ' suppressed values'));
    assert.ok(d < REF.atol && e < REF.atol, `${at}: max diff ${d}, ${e}`);
  }
}

const compute = (patch) => model.create(bl, assets).compute(Object.assign(params.defaults(), { weights: 'poems' }, patch));

test('poems: the neurons stage matches torch on the quatrain', () => {
  const ref = byName('poems');
  checkModel(ref, (neuron) => {
    const r = compute({ tokens: ref.text, neuron });
    assert.deepEqual(Array.from(r.wide.ids), ref.ids, 'the same ids');
    return r.neurons;
  }, 'poems');
});

for (const name of ['gpt2', 'llama', 'qwen3']) {
  test(name + ': the neurons stage matches torch', async () => {
    const ref = byName(name), m = await bl.loadModel(path.join(root, 'tests', 'fixtures', 'models', name));
    try {
      const ids = Int32Array.from(ref.ids), wide = { ids };
      RUNS.set(wide, { model: m, out: m.forward(ids), ids });
      checkModel(ref, (neuron) => {
        const s = { weights: 'model', neuron, layers: m.nLayers, dff: m.dFF, d: m.dModel, L: ids.length };
        const steps = N.neurons.steps(bl, s, (n) => (n === 'wide' ? wide : null));
        return steps[steps.length - 1].run();
      }, name);
    } finally { m.free(); }
  });
}

test('direct_logits_checks_its_argument', () => {
  const m = assets.model(bl, 'poems');
  assert.throws(() => m.directLogits(new Float32Array(3)), /directLogits: v must be a Float32Array of dModel \(64\)/);
  assert.throws(() => m.directLogits(Float32Array.from({ length: 64 }, (_, i) => (i === 5 ? NaN : 0))), /v\[5\] is not finite/);
});

test('poems: the held_out search finds the reference top 10 poems', () => {
  const ref = byName('poems'), S = ref.search;
  const r = compute({ tokens: ref.text, neuron: (S.layer + 1) + '.' + (S.neuron + 1), nsearch: 'on' });
  const H = r.nsearch;
  assert.deepEqual([H.layer, H.neuron, H.poems], [S.layer, S.neuron, 300]);
  assert.deepEqual(H.hits.map((h) => h.line), S.lines, 'lines');
  assert.deepEqual(H.hits.map((h) => h.position), S.positions, 'positions');
  assertClose(H.hits.map((h) => h.value), S.values, REF.atol, 0, 'values');
  const poems = fs.readFileSync(path.join(root, 'web', 'models', 'poems', 'heldout.txt'), 'utf8').split('\n');
  H.hits.forEach((h) => assert.equal(h.chars.join(''), Array.from(poems[h.line]).slice(0, 63).join('')));
  assert.equal(compute({ tokens: ref.text }).nsearch, null, 'no search unless asked');
  // (30 steps of 10 poems: the page's progress bar moves, and a newer request stops it between them)
  assert.equal(N.nsearch.steps(bl, { weights: 'poems', nsearch: 'on', L: 8, d: 64, dff: 256, layers: 2 }, () => null,
    assets).length, 30);
});
