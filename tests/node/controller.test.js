// controller.test.js - the page's controller (web/src/model/controller.js) waits for a pause in
// typing before it asks for numbers, and Enter or leaving the field (flush) asks at once.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { createController } = require(path.join(__dirname, '..', '..', 'web', 'src', 'model', 'controller.js'));

// A compute that records the settings of each request and never answers.
function recorder() {
  const asked = [];
  return { asked, compute: { request: (state) => asked.push(state.seed), cancel() {}, busy: () => false } };
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

// A controller attached to a recorder, past its first request.
async function started() {
  const { asked, compute } = recorder(), ctl = createController(null, () => {});
  ctl.attach(compute);
  await settle(10);
  asked.length = 0;
  return { asked, ctl };
}

test('typed_value_waits_for_the_typing_pause_then_is_asked_once', async () => {
  const { asked, ctl } = await started();
  ctl.setRaw('seed', '7', false);
  ctl.setRaw('seed', '71', false);
  assert.deepEqual(asked, [], 'nothing asked while typing');
  await settle(400);
  assert.deepEqual(asked, [71], 'the last value, once, after the pause');
});

test('flush_asks_for_the_typed_value_at_once_and_cancels_the_pause', async () => {
  const { asked, ctl } = await started();
  ctl.setRaw('seed', '7', false);
  ctl.flush();
  assert.deepEqual(asked, [7], 'asked in the same task as the flush');
  await settle(400);
  assert.deepEqual(asked, [7], 'the pause that was waiting asks nothing again');
  ctl.flush();
  assert.deepEqual(asked, [7], 'a flush with nothing typed asks nothing');
});

test('flush_after_a_rejected_value_asks_nothing', async () => {
  const { asked, ctl } = await started();
  ctl.setRaw('seed', 'abc', false);
  ctl.flush();
  await settle(400);
  assert.deepEqual(asked, []);
  assert.ok(ctl.errors().some((e) => e.key === 'seed'), 'the bad value is reported');
});
