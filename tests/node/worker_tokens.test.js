// worker_tokens.test.js - the page's tokens of an opened folder without a parse on the page:
// the Worker's piece table (model/pieces.js) gives every id the label and text the tokenizer's
// piece() gives; the page's encoder (dom/opener.js workerTokenizer) answers from the Worker's
// encodings, asking once per text, and the controller sends no request while a text's ids are
// not in (then one, on refresh); the next-token list's top k is a full sort's first k.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Tokenizers, gpt2Files } = require('./tokenizer_data.js');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const { pieceTable, tableReader, tableBuffers } = require(path.join(SRC, 'model', 'pieces.js'));
const { pieceLabel, workerTokenizer } = require(path.join(SRC, 'dom', 'opener.js'));
const { top } = require(path.join(SRC, 'model', 'nextchar.js'));
const { createController } = require(path.join(SRC, 'model', 'controller.js'));
const params = require(path.join(SRC, 'model', 'params.js'));

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

test('the_piece_table_gives_every_gpt2_id_the_label_and_text_of_its_piece', () => {
  const t = Tokenizers.fromFiles(gpt2Files()), size = t.vocabSize + 3;   // 3 padded ids past it
  const r = tableReader(pieceTable(t, size));
  let bytePieces = 0;
  for (let id = 0; id < t.vocabSize; id++) {
    const p = t.piece(id);
    assert.equal(r.label(id), pieceLabel(p), 'label of ' + id);
    assert.equal(r.text(id), p.text, 'text of ' + id);
    if (p.text === null) bytePieces++;
  }
  assert.ok(bytePieces > 100, 'GPT-2 has pieces that are part of a character: ' + bytePieces);
  for (const id of [t.vocabSize, size - 1, size, -1, 1.5]) {
    assert.equal(r.label(id), '#' + id);
    assert.equal(r.text(id), null);
  }
  assert.equal(tableBuffers(pieceTable(t, 4)).length, 3);
});

test('the_table_from_the_engines_texts_is_the_table_from_piece_alone', () => {
  const t = Tokenizers.fromFiles(gpt2Files()), size = t.vocabSize + 3;
  // Model.vocab as the engine makes it (engine-vocab.js TokenizerVocab): piece(i).text, '' where null,
  // for the model's ids (here fewer than the tokenizer's: the rest come from piece()).
  const known = Array.from({ length: t.vocabSize - 10 }, (_, i) => {
    const p = t.piece(i);
    return typeof p.text === 'string' ? p.text : '';
  });
  assert.deepEqual(pieceTable(t, size, known), pieceTable(t, size));
});

// A Worker stand-in: encodings answered when release() is called, each text counted.
function fakeWorker(tok) {
  const asked = [], waiting = [];
  const ask = (text, serial) => {
    asked.push([text, serial]);
    return new Promise((resolve, reject) => waiting.push(() => {
      try { resolve(Int32Array.from(tok.encode(text))); } catch (e) { reject(e); }
    }));
  };
  return { asked, ask, release: async () => { waiting.splice(0).forEach((f) => f()); await settle(0); } };
}

test('the_worker_encoder_asks_once_per_text_and_answers_the_tokenizers_ids_and_labels', async () => {
  const t = Tokenizers.fromFiles(gpt2Files()), w = fakeWorker(t);
  let told = 0;
  const enc = workerTokenizer(pieceTable(t, t.vocabSize), 7, w.ask, () => told++);
  assert.equal(enc.ready('Hello world'), false);
  assert.equal(enc.ready('Hello world'), false);
  assert.deepEqual(enc.encode('Hello world'), { ids: [], labels: [] }, 'nothing encoded yet');
  assert.deepEqual(w.asked, [['Hello world', 7]], 'asked once, with the model serial');
  await w.release();
  assert.equal(told, 1);
  assert.equal(enc.ready('Hello world'), true);
  const ids = t.encode('Hello world');
  assert.deepEqual(enc.encode('Hello world'), { ids, labels: ids.map((id) => pieceLabel(t.piece(id))) });
  // A text not in yet: the last encoding meanwhile (the token count hint keeps its number).
  assert.deepEqual(enc.encode('床前').ids, ids);
  await w.release();
  assert.deepEqual(enc.encode('床前').ids, t.encode('床前'));
  assert.equal(enc.text(ids[0]), t.piece(ids[0]).text);
  assert.equal(w.asked.length, 2);
});

test('a_text_the_worker_refuses_throws_its_message_from_encode', async () => {
  const w = fakeWorker({ encode: () => { throw new Error('encode: the text has a character outside the vocabulary'); } });
  const enc = workerTokenizer(pieceTable({ piece: () => ({ text: 'a', bytes: Uint8Array.of(97) }) }, 2), 1, w.ask, null);
  enc.ready('x');
  await w.release();
  assert.throws(() => enc.encode('x'), /outside the vocabulary/);
});

test('without_a_worker_a_text_stays_not_ready_and_is_asked_again_with_no_error', async () => {
  let asks = 0, told = 0;
  const lost = () => { asks++; return Promise.reject(Object.assign(new Error('no Worker'), { code: 'noWorker' })); };
  const enc = workerTokenizer(pieceTable({ piece: () => ({ text: 'a', bytes: Uint8Array.of(97) }) }, 2), 1, lost, () => told++);
  assert.equal(enc.ready('x'), false);
  await settle(0);
  assert.equal(enc.ready('x'), false, 'still not in');
  assert.equal(asks, 2, 'asked again');
  assert.deepEqual(enc.encode('x'), { ids: [], labels: [] }, 'no throw');
  assert.equal(told, 0, 'nothing to redo');
});

test('the_controller_asks_for_nothing_until_the_texts_ids_are_in_then_once_on_refresh', async () => {
  const t = Tokenizers.fromFiles(gpt2Files()), w = fakeWorker(t), asked = [];
  const enc = workerTokenizer(pieceTable(t, t.vocabSize), 1, w.ask, () => ctl.refresh());
  params.setOpened(Object.assign({ name: 'm', layers: 2, heads: 2, positions: 64, d: 8, dff: 32, act: 'gelu' }, enc));
  const compute = { request: (state) => asked.push(state.tokens), cancel() {}, busy: () => false };
  const ctl = createController(null, () => {});
  try {
    ctl.set({ weights: 'model', tokens: 'Hello there' });
    ctl.attach(compute);
    await settle(10);
    assert.deepEqual(asked, [], 'no request before the ids are in');
    assert.equal(ctl.busy(), true, 'busy meanwhile');
    assert.deepEqual(ctl.errors(), [], 'and no message about the text');
    await w.release();
    await settle(10);
    assert.deepEqual(asked, ['Hello there'], 'asked once the Worker answered');
    assert.equal(ctl.busy(), false);
  } finally {
    params.setOpened(null);
  }
});

test('top_k_is_a_full_sorts_first_k_with_ties_to_the_lower_id', () => {
  let seed = 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (const [n, k] of [[1, 1], [5, 10], [1000, 10], [20000, 10], [300, 300], [50, 0]]) {
    const p = Float64Array.from({ length: n }, () => Math.floor(rand() * 40) / 40);   // many ties
    const want = Array.from(p.keys()).sort((a, b) => p[b] - p[a] || a - b).slice(0, k);
    assert.deepEqual(top(p, k), want, n + ' ids, k ' + k);
  }
});
