/* train/session.js - one training run inside the Worker (no DOM): the engine's bl.trainer stepped
   in short ticks (a message between two ticks, Pause or Reset, is handled between two steps), the
   held-out loss, the probe's attention, the ReLU zeros and a sample every `every` steps. The
   messages it takes and sends are listed in entries/worker.js. */
import { firstLines, paramCount, probeText, rng, sampleId, unigramLoss, zeroShare } from './data.js';

const TICK_MS = 40;          // steps run back to back for up to this long, then the Worker looks at its messages
const HELDOUT_CHARS = 4000;  // the held-out loss is measured on this many characters of whole lines
const SAMPLE_T = 0.8;        // the samples' temperature

const message = (err) => String((err && err.message) || err);

// engine: the loaded BlockLens API; post(msg, transfer): to the page.
export function createSession(engine, post) {
  let run = null;   // { t, m (the start message), paused, done, ms, snaps ... }

  function free() {
    if (!run) return;
    const r = run;
    run = null;
    clearTimeout(r.timer);
    try { r.t.free(); } catch (e) { /* already freed */ }
  }

  // m: { text, heldout, probe, config, seed, batch, lr, weightDecay, warmup, steps, every, coverage? }
  // (coverage: bl.trainer's; absent keeps every character)
  function start(m) {
    free();
    let t;
    try {
      t = engine.trainer({ text: m.text, config: m.config, seed: m.seed, batch: m.batch, lr: m.lr,
        weightDecay: m.weightDecay, warmup: m.warmup, steps: m.steps, coverage: m.coverage });
    } catch (err) { post({ type: 'trainFailed', message: message(err) }); return; }
    const vocab = Array.from(t.vocab);
    const r = run = { t, m, vocab, paused: false, done: false, ms: 0, wall: 0, tokens: 0, steps: 0, timer: 0,
      held: firstLines(m.heldout, HELDOUT_CHARS), probe: probeText(m.probe, m.heldout, m.config.n_positions) };
    // (Each line is one row of <s> and at most n_positions characters, for the model and the baseline.)
    const base = unigramLoss(m.text, r.held, m.config.n_positions);
    post({ type: 'trainStarted', vocabSize: vocab.length, params: t.parameters || paramCount(m.config, vocab.length),
      unigram: base.loss, unseen: base.unseen, probe: r.probe, heldChars: Array.from(r.held).length,
      trainLines: t.trainLines });
    if (!measure(r)) return;
    schedule(r);
  }

  function schedule(r) { clearTimeout(r.timer); r.timer = setTimeout(() => tick(r), 0); }

  // Steps until TICK_MS has passed or a measurement is due; their losses in one message.
  function tick(r) {
    if (r !== run || r.paused || r.done) return;
    const losses = [], t0 = performance.now();
    try {
      do {
        const loss = r.t.step();
        r.steps = r.t.steps;
        r.tokens += r.t.lastStep ? r.t.lastStep.tokens : r.m.batch * r.m.config.n_positions;
        losses.push([r.steps, loss]);
        if (r.steps % r.m.every === 0 || r.steps >= r.m.steps) break;
      } while (performance.now() - t0 < TICK_MS);
    } catch (err) { r.done = true; post({ type: 'trainFailed', message: message(err) }); return; }
    r.ms += performance.now() - t0;
    const due = r.steps % r.m.every === 0, end = r.steps >= r.m.steps;
    if ((due || end) && !measure(r)) return;
    // wall: the time spent on this run's steps and measurements (not paused, not between ticks).
    r.wall += performance.now() - t0;
    post({ type: 'trainProgress', losses, step: r.steps, steps: r.m.steps, ms: r.ms, wall: r.wall, tokens: r.tokens });
    if (end) { r.done = true; post({ type: 'trainState', state: 'done', step: r.steps }); return; }
    schedule(r);
  }

  // The held-out loss and a snapshot of the probe: its attention per layer (H, L, L), the share
  // of exact zeros among each layer's ReLU outputs on it, and a sample drawn from the logits.
  function measure(r) {
    let model = null;
    try {
      const heldout = r.t.evaluate(r.held);
      model = r.t.model();   // a copy of the weights now, freed below
      const ids = model.encode(r.probe), out = model.forward(ids), buffers = [];
      const layers = out.layers.map((l) => {
        const weights = new Float32Array(l.attention.weights);
        buffers.push(weights.buffer);
        return { weights, zeros: zeroShare(l.ffn.activated) };
      });
      const labels = Array.from(ids, (i) => r.vocab[i]), V = r.vocab.length;
      const logits = out.logits.slice((ids.length - 1) * V, ids.length * V);   // the next character's, after the probe
      buffers.push(logits.buffer);
      post({ type: 'trainSnapshot', step: r.steps, heldout, sample: sample(r, model), labels, layers,
        ids: Array.from(ids), logits }, buffers);
      return true;
    } catch (err) {
      r.done = true;
      post({ type: 'trainFailed', message: message(err) });
      return false;
    } finally {
      if (model) model.free();
    }
  }

  // Up to 48 characters written by the model after <s> (a line starts so in training), seeded by
  // the seed and the step.
  function sample(r, model) {
    const V = r.vocab.length, bos = r.vocab.indexOf('<s>'), unk = r.vocab.indexOf('<unk>');
    const nl = r.vocab.indexOf('\n'), u = rng((r.m.seed * 7919 + r.steps) >>> 0);
    const ids = [bos >= 0 ? bos : 0], n = Math.min(48, r.m.config.n_positions - 1), skip = [bos, unk];
    for (let k = 0; k < n; k++) {
      const out = model.forward(Int32Array.from(ids), { layers: [] });
      const id = sampleId(out.logits, (ids.length - 1) * V, V, SAMPLE_T, u(), skip);
      if (id === nl) break;
      ids.push(id);
    }
    return ids.slice(1).map((i) => r.vocab[i]).join('');
  }

  return {
    // The Worker's train* messages.
    handle(m) {
      if (m.type === 'train') return start(m);
      if (m.type === 'trainReset') { free(); post({ type: 'trainState', state: 'idle', step: 0 }); return; }
      if (!run) { post({ type: 'trainFailed', message: 'BlockLens: no training run (press Start)' }); return; }
      const r = run;
      if (m.type === 'trainPause') {
        if (!r.done) { r.paused = true; clearTimeout(r.timer); }
        post({ type: 'trainState', state: r.done ? 'done' : 'paused', step: r.steps });
      } else if (m.type === 'trainResume') {
        // A larger step count continues a finished run.
        if (Number.isInteger(m.steps) && m.steps > r.steps) {
          r.m = Object.assign({}, r.m, { steps: m.steps });
          r.done = false;
        }
        if (r.done) { post({ type: 'trainState', state: 'done', step: r.steps }); return; }
        r.paused = false;
        post({ type: 'trainState', state: 'running', step: r.steps });
        schedule(r);
      } else if (m.type === 'trainSave') {
        try {
          const files = r.t.save().files, out = {}, buffers = [];
          Object.keys(files).forEach((k) => { out[k] = new Uint8Array(files[k]); buffers.push(out[k].buffer); });
          post({ type: 'trainSaved', files: out, step: r.steps, purpose: m.purpose }, buffers);
        } catch (err) { post({ type: 'trainFailed', message: message(err) }); }
      }
    },
    free
  };
}
