/* train/controller.js - the Train view's state and wiring: the data and settings checked (a bad
   value shows its message and the last good data stays), Start / Pause / Resume / Reset sent
   to the training Worker (train/client.js), its messages folded into the state, and the live
   figures redrawn once per frame at most. "Inspect this model" hands the saved folder to the
   page's own "open a model" path; "Download" zips it. */
import { setHidden, setText } from '../dom/el.js';
import { checkSettings, clock, configOf, keepSnapshot, paramCount, readText, split, timeLeft } from './data.js';
import { createTrainWorker } from './client.js';
import { createLive } from './live.js';
import { loadSample } from './texts.js';
import { build } from './view.js';
import { asFiles, named, zipFolder } from './zip.js';

const MAX_SNAPSHOTS = 120;

// root: #train-view. opts: { engine, loading, workerUrl, workerCode, t() (translator), scheme() (the
// colour scheme), poemsUrl, openModel(files) -> Promise (the page's opener) }. -> { update() }
export function mount(root, opts) {
  const refs = build(root), live = createLive(Object.assign({ root }, refs.live));
  const worker = createTrainWorker({ engine: opts.engine, loading: opts.loading, workerUrl: opts.workerUrl,
    workerCode: opts.workerCode, onMessage });
  const s = { phase: 'idle', kind: 'poems', data: null, dataNote: null, dataErr: null, msg: null, errors: [],
    train: [], held: [], baseline: NaN, snaps: [], shown: -1, follow: true, samples: [], step: 0, steps: 0, ms: 0,
    started: null, probe: '', run: null, saved: null };
  let frame = 0, dirty = new Set();

  // ---- data ----
  function choose(kind) {
    s.kind = kind;
    setHidden(refs.data.own, kind !== 'own');
    if (kind === 'own') { s.dataErr = null; return paint('data'); }
    s.dataNote = 'loading';
    paint('data');
    loadSample(kind, opts.poemsUrl).then((d) => {
      if (s.kind !== kind) return;
      useData(kind, d);
    }, (err) => { s.dataErr = { code: 'textLoad', vars: { message: String(err.message || err) } }; paint('data'); });
  }
  // The data's counts once, when it is chosen (the poems' 522 kB are not counted again per redraw).
  function useData(kind, d) {
    const lines = (x) => x.split('\n').length, flat = d.train.replace(/\n/g, '');
    s.data = Object.assign({ kind, lines: lines(d.train), held: lines(d.heldout), chars: Array.from(flat).length,
      distinct: new Set(flat).size }, d);
    s.dataErr = null;
    s.dataNote = null;
    paint('data', 'size');
  }
  // Pasted or dropped text: checked, split; a bad one shows why and the data in use stays.
  function ownText(input) {
    const r = readText(input);
    if (r.error) { s.dataErr = r.error; return paint('data'); }
    const parts = split(r.text);
    useData('own', { train: parts.train, heldout: parts.heldout, probe: '' });
  }
  refs.data.radios.poems.checked = true;
  Object.values(refs.data.radios).forEach((r) => r.addEventListener('change', () => {
    if (r.checked) choose(r.value);
  }));
  refs.data.use.addEventListener('click', () => ownText(refs.data.area.value));
  refs.data.pick.addEventListener('click', () => refs.data.file.click());
  refs.data.file.addEventListener('change', () => {
    const f = refs.data.file.files[0];
    refs.data.file.value = '';
    if (f) readFile(f);
  });
  function readFile(f) {
    if (f.size > 4 * 1024 * 1024) return ownText(new Uint8Array(4 * 1024 * 1024 + 1));   // (refused without reading it)
    f.arrayBuffer().then((b) => ownText(new Uint8Array(b)), (err) => {
      s.dataErr = { code: 'textLoad', vars: { message: String(err.message || err) } };
      paint('data');
    });
  }
  // A text file dropped on the view is training data, not a model folder (the page's drop).
  root.addEventListener('dragover', (e) => {
    if (e.dataTransfer && [...e.dataTransfer.types].includes('Files')) { e.preventDefault(); e.stopPropagation(); }
  });
  root.addEventListener('drop', (e) => {
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    e.stopPropagation();
    refs.data.radios.own.checked = true;
    s.kind = 'own';
    setHidden(refs.data.own, false);
    readFile(e.dataTransfer.files[0]);
  });

  // ---- settings ----
  const raw = () => Object.fromEntries(Object.entries(refs.settings.fields).map(([k, f]) => [k, f.value]));
  Object.values(refs.settings.fields).forEach((f) => f.addEventListener('input', () => {
    paint('settings', 'size', 'status');
  }));
  Object.values(refs.settings.fields).forEach((f) => f.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') start();
  }));

  // ---- the run ----
  function start() {
    const chk = checkSettings(raw());
    s.errors = chk.errors;
    if (chk.errors.length) return paint('settings');
    if (!s.data) { s.msg = { code: 'noData' }; return paint('status'); }
    const v = chk.values, cfg = configOf(v);
    Object.assign(s, { phase: 'starting', train: [], held: [], baseline: NaN, snaps: [], shown: -1, follow: true,
      samples: [], step: 0, steps: v.steps, ms: 0, tokens: 0, started: null, probe: '', msg: null, saved: null,
      run: { values: v, kind: s.data.kind } });
    worker.post({ type: 'train', text: s.data.train, heldout: s.data.heldout, probe: s.data.probe || '', config: cfg,
      seed: v.seed, batch: v.batch, lr: v.lr, weightDecay: 0.01, warmup: Math.min(50, Math.floor(v.steps / 10)),
      steps: v.steps, every: v.every, coverage: v.coverage });
    paint('all');
  }
  function pause() {
    if (s.phase === 'running') worker.post({ type: 'trainPause' });
    else if (s.phase === 'paused' || s.phase === 'done') {
      const chk = checkSettings(raw());
      const more = chk.errors.some((e) => e.key === 'steps') ? undefined : chk.values.steps;
      worker.post({ type: 'trainResume', steps: more });
    }
  }
  function reset() {
    worker.post({ type: 'trainReset' });
    Object.assign(s, { phase: 'idle', train: [], held: [], baseline: NaN, snaps: [], shown: -1, samples: [], step: 0,
      msg: null, started: null, probe: '', saved: null });
    paint('all');
  }
  const folderName = () => 'blocklens-' + s.run.kind + '-d' + s.run.values.d + '-' + s.step;
  function save(purpose) {
    if (!(s.phase === 'paused' || s.phase === 'done')) return;
    s.msg = { code: purpose === 'inspect' ? 'inspecting' : 'zipping', info: true };
    paint('status');
    worker.post({ type: 'trainSave', purpose });
  }
  refs.run.start.addEventListener('click', start);
  refs.run.pause.addEventListener('click', pause);
  refs.run.reset.addEventListener('click', reset);
  refs.run.inspect.addEventListener('click', () => save('inspect'));
  refs.run.download.addEventListener('click', () => save('download'));
  refs.live.time.addEventListener('input', () => {
    s.shown = Number(refs.live.time.value);
    s.follow = s.shown === s.snaps.length - 1;
    paint('heads');
  });

  function onMessage(m) {
    if (!m || typeof m.type !== 'string') return;
    if (m.type === 'trainStarted') {
      s.phase = 'running';
      s.started = m;
      s.baseline = m.unigram;
      s.probe = m.probe;
      paint('status', 'loss', 'size');
    } else if (m.type === 'trainProgress') {
      m.losses.forEach((p) => s.train.push(p));
      s.step = m.step;
      s.steps = m.steps;
      s.ms = m.ms;
      s.wall = m.wall;
      s.tokens = m.tokens;
      paint('status', 'loss');
    } else if (m.type === 'trainSnapshot') {
      if (Number.isFinite(m.heldout)) s.held.push([m.step, m.heldout]);
      keepSnapshot(s.snaps, { step: m.step, labels: m.labels, layers: m.layers }, MAX_SNAPSHOTS);
      if (s.follow || s.shown < 0) s.shown = s.snaps.length - 1;
      s.shown = Math.min(s.shown, s.snaps.length - 1);
      s.samples.push({ step: m.step, text: m.sample });
      // For tests: the trained model's own logits after the probe (a Download must give the same).
      root.blTrain = { step: m.step, probe: s.probe, ids: m.ids, logits: m.logits };
      paint('loss', 'heads', 'samples');
    } else if (m.type === 'trainState') {
      if (s.phase !== 'idle' || m.state === 'idle') s.phase = m.state;
      if (m.state === 'running') s.msg = null;
      paint('status');
    } else if (m.type === 'trainSaved') {
      saved(m);
    } else if (m.type === 'trainFailed') {
      s.msg = { code: 'failed', vars: { message: m.message } };
      if (s.phase === 'starting' || m.fatal) s.phase = s.train.length ? 'paused' : 'idle';
      paint('status');
    }
  }

  function saved(m) {
    const name = folderName(), files = named(m.files, name);
    if (m.purpose === 'download') {
      const blob = new Blob([zipFolder(name, files)], { type: 'application/zip' }), url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name + '.zip';
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      s.msg = { code: 'downloaded', vars: { name: name + '.zip', kb: Math.round(blob.size / 1024) }, info: true };
      return paint('status');
    }
    Promise.resolve(opts.openModel(asFiles(files))).then(() => {
      s.msg = { code: 'inspected', vars: { name }, info: true };
      paint('status');
      const figs = document.getElementById('figures');
      if (figs && figs.scrollIntoView) figs.scrollIntoView();
    }, (err) => { s.msg = { code: 'failed', vars: { message: String(err.message || err) } }; paint('status'); });
  }

  // ---- drawing, at most once a frame ----
  function paint(...what) {
    what.forEach((w) => dirty.add(w));
    if (frame) return;
    const go = () => { frame = 0; render(); };
    frame = typeof requestAnimationFrame === 'function' && !document.hidden ? requestAnimationFrame(go)
      : setTimeout(go, 0);
  }
  // The curve at most every 200 ms while training (a step's loss comes every few ms).
  let lossAt = -1e9, lossTimer = 0;
  function render() {
    const t0 = performance.now(), all = dirty.has('all'), d = dirty, t = opts.t(), sc = opts.scheme();
    if (!all && d.has('loss') && !d.has('heads') && s.phase === 'running' && t0 - lossAt < 200) {
      d.delete('loss');
      if (!lossTimer) lossTimer = setTimeout(() => { lossTimer = 0; paint('loss'); }, 200 - (t0 - lossAt));
    }
    if (all || d.has('loss')) lossAt = t0;
    dirty = new Set();
    if (all || d.has('data')) renderData(t);
    if (all || d.has('settings') || d.has('size')) renderSettings(t);
    if (all || d.has('status')) renderStatus(t);
    if (all || d.has('loss')) live.loss(s, t, sc);
    if (all || d.has('samples')) live.samples(s, t);
    if (all || d.has('heads')) { live.heads(s, t, sc); live.zeros(s, t); }
    root.dataset.phase = s.phase;
    root.dataset.step = String(s.step);
    if (performance.measure) performance.measure('blocklens:train:render', { start: t0, end: performance.now() });
  }
  function renderData(t) {
    const e = refs.data.err, d = s.data;
    setHidden(e, !s.dataErr);
    if (s.dataErr) setText(e, t('train_err_' + s.dataErr.code, s.dataErr.vars));
    root.dataset.dataError = s.dataErr ? s.dataErr.code : '';
    let info = s.dataNote === 'loading' ? t('train_dataLoading') : '';
    if (d) {
      const n = (v) => v.toLocaleString('en-US');
      info = t('train_dataInfo', { what: t('train_data_' + d.kind), lines: n(d.lines), chars: n(d.chars),
        held: n(d.held), distinct: n(d.distinct) }) + (info ? ' ' + info : '');
    }
    setText(refs.data.info, info);
    root.dataset.data = d ? d.kind : '';
  }
  function renderSettings(t) {
    const chk = checkSettings(raw()), errs = chk.errors;
    Object.keys(refs.settings.errs).forEach((k) => {
      const e = errs.find((x) => x.key === k), node = refs.settings.errs[k];
      setHidden(node, !e);
      if (e) setText(node, t('err_' + e.code, e.vars));
      refs.settings.fields[k].setAttribute('aria-invalid', e ? 'true' : 'false');
    });
    root.dataset.errors = errs.map((e) => e.key + ':' + e.code).join(' ');
    const V = s.data ? s.data.distinct + 2 : 0;
    setText(refs.settings.size, errs.length ? t('train_fix') : s.data ? t('train_size', {
      params: paramCount(configOf(chk.values), V).toLocaleString('en-US'), V: V.toLocaleString('en-US'),
      batch: chk.values.batch, ctx: chk.values.ctx }) : '');
  }
  function renderStatus(t) {
    const p = s.phase, r = refs.run, stopped = p === 'paused' || p === 'done';
    r.start.disabled = p === 'starting';
    // After the last step, Resume goes on only to a larger Steps.
    const more = checkSettings(raw()).values.steps > s.step;
    r.pause.disabled = !(p === 'running' || p === 'paused' || (p === 'done' && more));
    r.pause.setAttribute('data-i18n', p === 'running' ? 'train_pause' : 'train_resume');
    setText(r.pause, t(p === 'running' ? 'train_pause' : 'train_resume'));
    r.reset.disabled = p === 'idle';
    r.inspect.disabled = r.download.disabled = !stopped;
    let line = t('train_phase_' + p);
    if (s.step && s.started) {
      const tps = s.ms > 0 ? Math.round(s.tokens / (s.ms / 1000)) : 0;
      const left = timeLeft(s.step, s.steps, s.wall || s.ms);
      line = t('train_statusLine', { phase: line, step: s.step, steps: s.steps, tps: tps.toLocaleString('en-US'),
        left: left === null || p === 'done' ? '–' : clock(left), params: s.started.params.toLocaleString('en-US'),
        V: s.started.vocabSize.toLocaleString('en-US') });
    }
    setText(r.status, line);
    const m = s.msg;
    setHidden(r.msg, !m);
    if (m) {
      setText(r.msg, t('train_msg_' + m.code, m.vars));
      r.msg.classList.toggle('field-err', !m.info);
      r.msg.classList.toggle('hint', !!m.info);
    }
    root.dataset.msg = m ? m.code : '';
  }

  // The Worker starts, and the poem sample (a 582 kB script) loads, when the view comes near the
  // screen: the Worker's start (a Blob of the engine's text from file://) is then not a task in the
  // middle of training, and neither is on the page's first load, ahead of the first figure.
  const near = () => { worker.warm(); if (!s.data && s.kind === 'poems') choose('poems'); };
  if (typeof IntersectionObserver === 'function') {
    const io = new IntersectionObserver((es) => {
      if (es.some((e) => e.isIntersecting)) { io.disconnect(); near(); }
    }, { rootMargin: '800px' });
    io.observe(root);
  } else {
    near();
  }
  paint('all');
  return { update: () => paint('all'), state: () => s, stop: () => worker.stop() };
}
