/* train.test.js - the Train view, from file:// in Chromium: a tiny model trained a few dozen steps
   in its Worker (the loss curve and the probe's attention draw, Pause and Resume between steps),
   bad input shows a message and keeps the last good state, no main-thread task takes 50 ms of
   CPU while it trains (a trace; the PerformanceObserver's wall-time bound where the host is not
   oversubscribed), a dropped text file and a served page train too, Download gives a zip whose folder loads back (bl.loadModel({ files })) with
   the trained model's logits, and Inspect opens it in the figures. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('node:os');
const path = require('node:path');
const { unzipSync } = require('fflate');
const BlockLens = require('../../web/dist/blocklens.js');
const { FILE_URL, setup, open } = require('./helpers.js');

// Steps enough that Pause lands mid-run (a tiny model takes about a millisecond per step).
const TINY = { d: 16, layers: 1, heads: 2, ctx: 16, batch: 2, lr: 0.01, steps: 3000, every: 300, seed: 3 };

// The renderer's main-thread tasks in a Chromium trace: { wall, cpu } in ms (tdur: thread time).
function mainTasks(file) {
  const ev = JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents;
  const main = ev.filter((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain');
  const ids = new Set(main.map((e) => e.pid + ':' + e.tid));
  return ev.filter((e) => e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') &&
    ids.has(e.pid + ':' + e.tid) && typeof e.tdur === 'number').map((e) => ({ wall: e.dur / 1000, cpu: e.tdur / 1000 }));
}

async function fill(page, values) {
  for (const [k, v] of Object.entries(values)) await page.fill('#train-' + k, String(v));
}
const phase = (page) => page.$eval('#train-view', (e) => e.dataset.phase);
async function waitPhase(page, want, timeout) {
  await page.waitForFunction((w) => document.getElementById('train-view').dataset.phase === w, want, { timeout: timeout || 60000 });
}

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { if (env) await env.close(); });

test('tiny_model_trains_from_file_with_curve_attention_pause_and_no_long_task', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    // The English sample ships in the page's code.
    await page.check('#train-data-english');
    await page.waitForFunction(() => document.getElementById('train-view').dataset.data === 'english');
    await fill(page, TINY);
    // The training Worker starts when the view nears the screen (above): let it, then long tasks
    // and the view's own work per frame from here on.
    await page.waitForTimeout(1500);
    await page.evaluate(() => {
      performance.clearMeasures('blocklens:train:render');
      window.__long = [];
      new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration)))
        .observe({ type: 'longtask', buffered: false });
    });
    // And a trace: each main-thread task's CPU time beside its wall time.
    const tracePath = path.join(os.tmpdir(), 'bl-train-trace-' + process.pid + '.json');
    await env.browser.startTracing(page, { path: tracePath, categories: ['toplevel', 'devtools.timeline'] });
    await page.click('#train-start');
    await page.waitForFunction(() => +document.getElementById('train-view').dataset.step >= 60, null, { timeout: 60000 });
    await page.click('#train-pause');
    await waitPhase(page, 'paused');
    const at = +(await page.$eval('#train-view', (e) => e.dataset.step));
    await page.waitForTimeout(600);
    assert.strictEqual(+(await page.$eval('#train-view', (e) => e.dataset.step)), at, 'no step while paused');
    assert.strictEqual(await page.textContent('#train-pause'), 'Resume');
    await page.click('#train-pause');
    await waitPhase(page, 'done');
    assert.strictEqual(+(await page.$eval('#train-view', (e) => e.dataset.step)), TINY.steps);
    await env.browser.stopTracing();
    const tasks = mainTasks(tracePath);
    fs.unlinkSync(tracePath);

    // The curve: one point per step, a held-out point per snapshot (0, 10, ..., 40), drawn pixels.
    const loss = await page.$eval('#train-loss', (c) => ({ points: +c.dataset.points, held: +c.dataset.held,
      w: c.width, inked: (() => {
        const g = c.getContext('2d'), d = g.getImageData(0, 0, c.width, c.height).data, bg = [d[0], d[1], d[2]];
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 60) n++;
        return n;
      })() }));
    assert.strictEqual(loss.points, TINY.steps);
    assert.strictEqual(loss.held, TINY.steps / TINY.every + 1);
    assert.ok(loss.inked > 500, 'the loss canvas has ink (' + loss.inked + ' pixels)');
    // The probe's attention: a map per head, rows = <s> + the probe's characters, each row sums to 1.
    const maps = await page.$$eval('#train-heads canvas', (cs) => cs.map((c) => ({ head: c.dataset.head, rows: +c.dataset.rows,
      cols: +c.dataset.cols })));
    assert.deepStrictEqual(maps.map((m) => m.head), ['1.1', '1.2']);
    assert.strictEqual(maps[0].rows, TINY.ctx);   // <s> + 15 characters of the probe
    const snaps = +(await page.$eval('#train-view', (e) => e.dataset.snapshots));
    assert.strictEqual(snaps, TINY.steps / TINY.every + 1);
    // The time slider replays: its first snapshot is step 0.
    await page.$eval('#train-time', (r) => { r.value = '0'; r.dispatchEvent(new Event('input')); });
    await page.waitForFunction(() => /step 0 /.test(document.getElementById('train-time-label').textContent));
    const zeros = await page.$$eval('.train-zero-row', (rs) => rs.map((r) => +r.dataset.zeros));
    assert.strictEqual(zeros.length, 1);
    assert.ok(zeros[0] >= 0 && zeros[0] <= 1);
    const long = await page.evaluate(() => window.__long);
    const renders = (await page.evaluate(() => performance.getEntriesByName('blocklens:train:render').map((e) => e.duration)))
      .sort((a, b) => a - b);
    const load = os.loadavg()[0] / os.cpus().length, cpuMax = Math.max(...tasks.map((x) => x.cpu));
    const wallMax = Math.max(...tasks.map((x) => x.wall));
    console.log('training ' + TINY.steps + ' steps: ' + renders.length + ' redraws, median ' + renders[renders.length >> 1].toFixed(1) +
      ' ms, longest ' + renders[renders.length - 1].toFixed(1) + ' ms; long tasks ' + JSON.stringify(long.map(Math.round)) +
      '; ' + tasks.length + ' main-thread tasks traced, the most CPU ' + cpuMax.toFixed(1) + ' ms, the longest wall ' +
      wallMax.toFixed(1) + ' ms (load ' + load.toFixed(1) + ' per core)');
    // No main-thread task takes 50 ms of CPU while training (the trace's thread time: what the
    // page asks of the main thread, whatever else the host runs).
    assert.ok(tasks.length > 20, 'tasks traced: ' + tasks.length);
    assert.ok(cpuMax < 50, 'a main-thread task used ' + cpuMax + ' ms of CPU');
    // The view's work per frame, a wall time of its own: the median frame well under a frame's budget.
    assert.ok(renders.length >= 5 && renders[renders.length >> 1] < 16, 'median redraw ' + renders[renders.length >> 1]);
    // No main-thread task of 50 ms while training. On a host with more runnable threads than
    // cores every task's wall time stretches (a 1 ms redraw measured 80 ms at 10 per core), so
    // the bound is asserted where the host is not oversubscribed, and said when it is not.
    if (load <= 1) assert.ok(long.every((d) => d < 50), 'main-thread tasks while training: ' + JSON.stringify(long));
    else console.log('NOT CHECKED: the 50 ms long-task bound, the host has ' + load.toFixed(1) + ' runnable threads per core');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('bad_input_shows_a_message_and_keeps_the_last_good_state', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await page.check('#train-data-english');
    await page.waitForFunction(() => document.getElementById('train-view').dataset.data === 'english');
    const info = await page.textContent('#train-data-info');
    // heads must divide d_model: a message under the field, Start refuses.
    await page.fill('#train-d', '30');
    await page.fill('#train-heads', '4');
    await page.waitForFunction(() => /heads:divisible/.test(document.getElementById('train-view').dataset.errors));
    assert.match(await page.textContent('#train-err-heads'), /divisible/);
    await page.fill('#train-lr', 'fast');
    await page.waitForFunction(() => /lr:number/.test(document.getElementById('train-view').dataset.errors));
    // The character coverage: its own message under its field.
    await page.fill('#train-coverage', '0.5');
    await page.waitForFunction(() => /coverage:range/.test(document.getElementById('train-view').dataset.errors));
    assert.ok(await page.isVisible('#train-err-coverage'));
    assert.match(await page.textContent('#train-err-coverage'), /0\.5 is outside 0\.9 … 1/);
    await page.click('#train-start');
    await page.waitForTimeout(200);
    assert.strictEqual(await phase(page), 'idle');
    // Own text: empty, binary and too short are refused; the English sample stays in use.
    await page.check('#train-data-own');
    await page.click('#train-use');
    await page.waitForFunction(() => document.getElementById('train-view').dataset.dataError === 'textEmpty');
    assert.ok(await page.isVisible('#train-data-err'));
    await page.setInputFiles('#train-file', { name: 'x.bin', mimeType: 'application/octet-stream',
      buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0xff, 0xfe]) });
    await page.waitForFunction(() => document.getElementById('train-view').dataset.dataError === 'textBinary');
    assert.match(await page.textContent('#train-data-err'), /not a UTF-8 text/);
    await page.setInputFiles('#train-file', { name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(4 * 1024 * 1024 + 10, 'a') });
    await page.waitForFunction(() => document.getElementById('train-view').dataset.dataError === 'textHuge');
    assert.strictEqual(await page.textContent('#train-data-info'), info, 'the data in use stays');
    assert.strictEqual(await page.$eval('#train-view', (e) => e.dataset.data), 'english');
    // Markup in a text is text: a good file is used, and nothing of it becomes an element.
    const lines = Array.from({ length: 12 }, (v, i) => '<img src=x onerror=alert(1)> line ' + i).join('\n');
    await page.setInputFiles('#train-file', { name: 'mine.txt', mimeType: 'text/plain', buffer: Buffer.from(lines) });
    await page.waitForFunction(() => document.getElementById('train-view').dataset.data === 'own');
    assert.match(await page.textContent('#train-data-info'), /11 lines/);
    assert.strictEqual(await page.$$eval('#train-view img', (x) => x.length), 0);
    // A text file dropped on the view is training data (not a model folder for the page's drop).
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([Array.from({ length: 20 }, (v, i) => 'dropped line number ' + i).join('\n')], 'd.txt',
        { type: 'text/plain' }));
      document.getElementById('train-view').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true,
        cancelable: true }));
    });
    await page.waitForFunction(() => /18 lines/.test(document.getElementById('train-data-info').textContent));
    assert.notStrictEqual(await page.$eval('body', (b) => b.dataset.open || ''), 'opening', 'no model folder opened');
  } finally { await close(); }
});

test('character_coverage_setting_reaches_the_trainer', async () => {
  // The reference: bl.trainer in Node on the same text and config (its vocabulary: <s>, <unk> and
  // the characters covering that share); a smaller coverage must give a smaller vocabulary.
  const SRC = path.join(__dirname, '..', '..', 'web', 'src', 'train');
  const { ENGLISH } = require(path.join(SRC, 'english.js')), data = require(path.join(SRC, 'data.js'));
  const bl = await BlockLens.load(), config = data.configOf(TINY);
  const ref = (coverage) => { const t = bl.trainer({ text: ENGLISH.train, config, coverage }); const n = t.vocab.length; t.free(); return n; };
  const want = ref(0.9);
  assert.ok(want < ref(1), want + ' < ' + ref(1));
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await page.check('#train-data-english');
    await page.waitForFunction(() => document.getElementById('train-view').dataset.data === 'english');
    await fill(page, Object.assign({}, TINY, { steps: 5, every: 5, coverage: 0.9 }));
    await page.click('#train-start');
    await waitPhase(page, 'done');
    const line = await page.textContent('#train-status');
    assert.match(line, new RegExp('vocabulary ' + want + '$'), line);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('served_page_trains_in_the_worker_from_its_own_file', async () => {
  const served = await setup({ server: true });
  try {
    const { page, log, close } = await open(served.browser, served.url + 'index.html', 'lang=en');
    try {
      await page.check('#train-data-english');
      await page.waitForFunction(() => document.getElementById('train-view').dataset.data === 'english');
      await fill(page, Object.assign({}, TINY, { steps: 100, every: 50 }));
      await page.click('#train-start');
      await waitPhase(page, 'done');
      assert.strictEqual(+(await page.$eval('#train-loss', (c) => c.dataset.points)), 100);
      assert.ok(log.requests.some((u) => /dist\/blocklens-worker\.js$/.test(u)), 'the Worker from its own file');
      assert.deepStrictEqual(log.errors, []);
    } finally { await close(); }
  } finally { await served.close(); }
});

test('download_zip_loads_back_with_the_trained_logits_and_inspect_opens_it', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=zh');
  try {
    await page.check('#train-data-english');
    await page.waitForFunction(() => document.getElementById('train-view').dataset.data === 'english');
    await fill(page, Object.assign({}, TINY, { steps: 20 }));
    await page.click('#train-start');
    await waitPhase(page, 'done');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#train-download')]);
    assert.match(dl.suggestedFilename(), /^blocklens-english-d16-20\.zip$/);
    const zip = unzipSync(new Uint8Array(fs.readFileSync(await dl.path())));
    const names = Object.keys(zip).sort();
    assert.ok(names.includes('blocklens-english-d16-20/config.json'), names.join(' '));
    assert.ok(names.includes('blocklens-english-d16-20/model.safetensors'), names.join(' '));
    // The folder, loaded back by the engine in Node (its tokenizer.json through the tokenizer
    // module beside it), against the trained model's own logits in the page's Worker.
    const trained = await page.$eval('#train-view', (e) => ({ ids: e.blTrain.ids, logits: Array.from(e.blTrain.logits),
      step: e.blTrain.step, probe: e.blTrain.probe }));
    assert.strictEqual(trained.step, 20);
    const files = {};
    names.forEach((n) => { files[n.split('/').pop()] = zip[n]; });
    const bl = await BlockLens.load();
    const m = await bl.loadModel({ files });
    const ids = m.encode(trained.probe);
    assert.deepStrictEqual(Array.from(ids), trained.ids, 'the zip\'s tokenizer encodes the probe as the trainer did');
    const V = m.vocabSize, back = Array.from(m.forward(ids).logits.slice((ids.length - 1) * V, ids.length * V));
    m.free();
    assert.strictEqual(back.length, trained.logits.length);
    let worst = 0;
    back.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - trained.logits[i])); });
    // (Node may run another wasm build than Chromium: SIMD or FMA, float32 sums in another order.)
    assert.ok(worst <= 1e-4, 'max |logit difference| ' + worst);
    // Inspect: the page's figures switch to the trained folder.
    await page.click('#train-inspect');
    await page.waitForFunction(() => document.body.dataset.open === 'opened', null, { timeout: 30000 });
    await page.waitForFunction(() => /blocklens-english-d16-20/.test(location.hash), null, { timeout: 30000 });
    assert.match(await page.textContent('#open-info'), /blocklens-english-d16-20/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
