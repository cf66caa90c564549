/* dom/opener.js - "Open a model folder…" beside the Weights field: a folder picker (webkitdirectory),
   a files picker, and a drop anywhere on the page. The files go to the Worker, which loads them
   (dom/compute.js open) and parses a tokenizer.json there, once (the page encodes the text field
   through it, workerTokenizer), and tells the settings the model's sizes (params.setOpened).
   A refusal shows the engine's message here; the last good model and view stay. Nothing leaves
   the machine. On a served page the opened folder is also kept in the browser (model/store.js):
   the line under the model's facts says so, with Forget, and a link to that model reopens it
   from there without asking. */
import { byName, needsTokenizer, openedModel } from '../model/folder.js';
import { setOpened } from '../model/params.js';
import { pieceLabel, tableReader } from '../model/pieces.js';
import { createStore, neededFiles } from '../model/store.js';
import { el, setHidden, setText } from './el.js';

const TOK_KEY = Symbol.for('blocklens.tokenizers'), SRC_KEY = Symbol.for('blocklens.tokenizers.source');
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'vocab.json', 'merges.txt',
  'special_tokens_map.json'];

// The tokenizer module, as a classic script beside the page's (from file:// too): its API and its
// own source (a Blob Worker cannot importScripts a file:// URL; it gets the text instead).
let tokLoading = null;
function tokenizerModule(url) {
  if (self[TOK_KEY]) return Promise.resolve(self[TOK_KEY]);
  if (!tokLoading) {
    tokLoading = new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = url;
      const no = (why) => {
        tokLoading = null;
        reject(new Error('BlockLens: ' + why + ' the tokenizer module from ' + url));
      };
      s.onload = () => (self[TOK_KEY] ? resolve(self[TOK_KEY]) : no('no registration of'));
      s.onerror = () => no('could not load');
      document.head.appendChild(s);
    });
  }
  return tokLoading;
}

export { pieceLabel };

// The page's encoder: the folder's tokenizer, or (vocab.json as a list, the poem model's) one id
// per character after <s>. named: { name: File | Blob }; module(): a Promise of the tokenizer
// module. -> { encode(text) -> { ids, labels }, label(id), text(id) } (tools/render.js, in Node;
// the page itself parses only a vocab.json list: workerTokenizer below is its tokenizer.json's)
export async function pageTokenizer(named, module) {
  if (needsTokenizer(named)) {
    const mod = await module(), given = {};
    for (const n of TOKENIZER_FILES) if (named[n]) given[n] = new Uint8Array(await named[n].arrayBuffer());
    const tok = mod.fromFiles(given);
    const label = (id) => { try { return pieceLabel(tok.piece(id)); } catch (e) { return '#' + id; } };
    const text = (id) => { try { return tok.piece(id).text; } catch (e) { return null; } };
    const encode = (s) => { const ids = Array.from(tok.encode(s)); return { ids, labels: ids.map(label) }; };
    return { encode, label, text };
  }
  const list = named['vocab.json'] ? JSON.parse(await named['vocab.json'].text()) : null;
  if (!Array.isArray(list)) return null;   // the engine's refusal says what is missing
  const at = new Map(list.map((s, i) => [s, i])), unk = at.has('<unk>') ? at.get('<unk>') : 0;
  const bos = at.has('<s>') ? [at.get('<s>')] : [];
  return { encode: (s) => { const ids = bos.concat(Array.from(s, (c) => (at.has(c) ? at.get(c) : unk)));
    return { ids, labels: ids.map((i) => list[i]) }; }, label: (i) => list[i], text: (i) => list[i] };
}

// The page's encoder of a folder the Worker tokenizes (its tokenizer.json is parsed once, there,
// never on the page's thread): labels and texts from the Worker's table (meta.pieces), encode from
// a cache filled by the Worker. encode(text) answers from it; ready(text) says whether the text
// is in, asking the Worker if not (onEncoded() once the answer is in: the controller waits for it,
// model/controller.js). ask(text, serial) -> a Promise of ids (dom/compute.js encode).
const ENCODED_KEPT = 64;   // texts kept: typing makes one per pause
export function workerTokenizer(table, serial, ask, onEncoded) {
  const { label, text } = tableReader(table), cache = new Map();
  let last = { ids: [], labels: [] };   // what encode gives for a text not in yet
  const ready = (s) => {
    s = String(s);
    if (cache.has(s)) return !!cache.get(s).done;
    const entry = { done: false };
    cache.set(s, entry);
    if (cache.size > ENCODED_KEPT) cache.delete(cache.keys().next().value);
    entry.settled = ask(s, serial).then((ids) => {
      const list = Array.from(ids);
      Object.assign(entry, { done: true, ids: list, labels: list.map(label) });
    }, (e) => {
      // No Worker to answer (it stopped): not an answer about the text; asked again next time.
      if (e && e.code === 'noWorker') { if (cache.get(s) === entry) cache.delete(s); return; }
      Object.assign(entry, { done: true, error: e instanceof Error ? e : new Error(String(e)) });
    }).then(() => { if (cache.get(s) === entry && entry.done && onEncoded) onEncoded(); });
    return false;
  };
  // A promise settled once text s is encoded (or refused): what waits for the ids, not a test.
  const encoded = (s) => (ready(s) ? Promise.resolve() : cache.get(String(s)).settled);
  const encode = (s) => {
    const e = ready(s) ? cache.get(String(s)) : null;
    if (!e) return last;
    if (e.error) throw e.error;
    last = { ids: e.ids.slice(), labels: e.labels.slice() };
    return last;
  };
  return { encode, ready, encoded, label, text };
}

const mb = (n) => (n >= 1e9 ? (n / 1e9).toFixed(2) + ' GB' : n >= 1e6 ? (n / 1e6).toFixed(1) + ' MB'
  : (n / 1e3).toFixed(1) + ' kB');

// wrap: the Weights field. opts: { compute() (the page's, or null), t() (translator), onOpened(meta),
// onEncoded() (the Worker encoded a text the page asked for: controller.refresh),
// tokenizersUrl, inlineTokenizers (a Blob Worker), store (model/store.js's, null for none; by
// default the page's origin's where it can be used) }.
export function mount(wrap, opts) {
  const store = opts.store !== undefined ? opts.store : createStore(typeof navigator === 'object' ? navigator.storage
    : null, typeof location === 'object' ? location.protocol : '');
  const row = el('div', 'open-row');
  const dirBtn = el('button', 'mini wide open-dir'), filesBtn = el('button', 'mini open-files');
  const cancel = el('button', 'mini open-cancel');
  [dirBtn, filesBtn, cancel].forEach((b) => { b.type = 'button'; row.appendChild(b); });
  dirBtn.setAttribute('data-i18n', 'openModel');
  filesBtn.setAttribute('data-i18n', 'openFiles');
  cancel.setAttribute('data-i18n', 'openCancel');
  cancel.hidden = true;
  const dir = el('input'), some = el('input');
  dir.type = some.type = 'file';
  dir.webkitdirectory = true;
  dir.setAttribute('webkitdirectory', '');
  some.multiple = true;
  dir.id = 'open-dir-input';
  some.id = 'open-files-input';
  [dir, some].forEach((i) => { i.hidden = true; i.tabIndex = -1; row.appendChild(i); });
  const line = el('p', 'hint open-line'), err = el('p', 'field-err open-err'), info = el('p', 'hint open-info');
  line.id = 'open-line';
  err.id = 'open-err';
  info.id = 'open-info';
  line.setAttribute('aria-live', 'polite');
  err.hidden = true;
  line.hidden = true;
  info.hidden = true;
  wrap.appendChild(row);
  wrap.appendChild(line);
  wrap.appendChild(info);
  const kept = keptLine(opts, store);
  wrap.appendChild(kept.root);
  wrap.appendChild(kept.rest);
  wrap.appendChild(err);
  const help = el('p', 'hint open-help');
  help.setAttribute('data-i18n', 'openHint');
  wrap.appendChild(help);
  let last = null, gen = 0;   // the facts of the model open now; the newest attempt
  const ask = el('p', 'field-err open-ask');
  ask.id = 'open-ask';
  ask.hidden = true;
  wrap.insertBefore(ask, row);
  let wanted = null;   // a link's view of a model folder, waiting for the folder (ask())

  dirBtn.addEventListener('click', () => dir.click());
  // "your model" picked with none open yet: the folder picker (the field says why meanwhile).
  const select = wrap.querySelector('select');
  if (select) select.addEventListener('change', () => { if (select.value === 'model' && !last) dir.click(); });
  filesBtn.addEventListener('click', () => some.click());
  cancel.addEventListener('click', () => { const c = opts.compute(); if (c) c.cancelOpen(); });
  [dir, some].forEach((i) => i.addEventListener('change', () => {
    if (i.files.length) open(Array.from(i.files));
    i.value = '';
  }));
  // A folder or files dropped anywhere on the page.
  const hasFiles = (e) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  document.addEventListener('dragover', (e) => { if (hasFiles(e)) e.preventDefault(); });
  document.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    droppedFiles(e.dataTransfer).then((files) => { if (files.length) open(files); });
  });

  function fail(message) {
    line.hidden = true;
    cancel.hidden = true;
    const t = opts.t();
    setText(err, /cancelled/.test(message) ? t('openCancelled') : t('openFailed', { message }));
    setHidden(err, false);
    document.body.dataset.open = 'failed';
  }

  // from: { name, bytes } when the files are the store's copy (File objects of its own, without
  // the folder's name).
  async function open(files, from) {
    const my = ++gen, t = opts.t(), c = opts.compute();
    const named = byName(files);
    const name = from ? from.name : (files[0] && String(files[0].webkitRelativePath || '').split('/')[0]) || 'model';
    setHidden(err, true);
    setText(line, t('openReading', { name, phase: t('phase_start'), read: '0', total: '?' }));
    setHidden(line, false);
    cancel.hidden = false;
    document.body.dataset.open = 'opening';
    const t0 = performance.now();
    try {
      if (!c) throw new Error('BlockLens: the engine is not loaded');
      // A tokenizer.json is the Worker's to parse; a Blob Worker gets the module's source from
      // the page, which loads the script for it (its code only, no tokenizer.json).
      const worker = needsTokenizer(named), tok = worker ? null : await pageTokenizer(named, () => null);
      if (worker && opts.inlineTokenizers) await tokenizerModule(opts.tokenizersUrl);
      const src = worker && opts.inlineTokenizers ? self[SRC_KEY] || null : null;
      const meta = await c.open(files, src, (p) => {
        const tr = opts.t();
        if (my === gen) {
          setText(line, tr('openReading', { name, phase: tr('phase_' + p.phase), read: mb(p.bytesRead),
            total: mb(p.bytesTotal) }));
        }
      });
      if (my !== gen) return;
      const enc = worker && meta.pieces ? workerTokenizer(meta.pieces, meta.serial, c.encode, () => {
        if (last && last.serial === meta.serial && opts.onEncoded) opts.onEncoded();
      }) : tok;
      if (!enc) throw new Error('BlockLens: the folder has no tokenizer the page can read');
      delete meta.pieces;
      last = Object.assign(openedModel(meta, enc), { openMs: Math.round(performance.now() - t0) },
        from ? { name } : {});
      setOpened(last);
      line.hidden = true;
      cancel.hidden = true;
      document.body.dataset.open = 'opened';
      document.body.dataset.openedFrom = from ? 'store' : 'files';
      show();
      if (from) kept.showKept(name, from.bytes); else kept.keep(last.name, files);
      setHidden(ask, true);
      const view = wanted;
      wanted = null;
      opts.onOpened(last, view);
    } catch (e) {
      if (my !== gen) return;
      fail(String((e && e.message) || e));
      if (from) showAsk();   // the kept copy did not open: the folder is asked for as from file://
    }
  }

  // The Weights line: the open model's facts (in the page's language).
  function show() {
    if (!last) return setHidden(info, true);
    const t = opts.t();
    setText(info, t('openDone', { name: last.name, arch: last.arch, params: last.params.toLocaleString('en-US'),
      dtype: last.dtype, layers: last.layers, heap: mb(last.heapBytes) }));
    setHidden(info, false);
    // The Weights field names it (its own text from now on, not the i18n key's).
    const opt = wrap.querySelector('option[value="model"]');
    if (opt) { opt.removeAttribute('data-i18n'); opt.textContent = t('weights_model_named', { name: last.name }); }
  }
  // A link (URL hash) shows a model folder that is not open here: opened from the browser's copy
  // where there is one, else asked for by name; view: the link's settings, applied once it opens.
  function askFor(view) {
    wanted = view;
    if (!store || !view.model) return showAsk();
    store.find(String(view.model)).then((hit) => {
      if (wanted !== view) return;   // a folder was opened meanwhile
      if (hit) open(hit.files, { name: String(view.model), bytes: hit.bytes }); else showAsk();
    }, showAsk);
  }
  function showAsk() {
    if (!wanted) return;
    setText(ask, opts.t()('openAsk', { name: wanted.model || '?' }));
    setHidden(ask, false);
  }
  return { update: () => { show(); showAsk(); kept.update(); }, open, askFor };
}

// The line under the model's facts: keeping it in this browser (progress, Cancel), kept (its size,
// Forget), or why not (quota, a failed write): the open model stays either way. body data-kept
// names the state (saving | kept | quota | failed | cancelled | forgotten | forgetFailed).
function keptLine(opts, store) {
  const root = el('p', 'hint open-kept'), text = el('span', 'open-kept-text'), bar = el('progress');
  const stop = el('button', 'mini open-keep-cancel'), forget = el('button', 'mini open-forget');
  root.id = 'open-kept';
  root.setAttribute('aria-live', 'polite');
  bar.max = 1;
  stop.setAttribute('data-i18n', 'openCancel');
  forget.setAttribute('data-i18n', 'keptForget');
  [stop, forget].forEach((b) => { b.type = 'button'; });
  [text, bar, stop, forget].forEach((n) => root.appendChild(n));
  root.hidden = true;
  // Under it, the other models this page's origin keeps (each opened once here), with Forget those.
  const rest = el('p', 'hint open-kept open-kept-others'), restText = el('span', 'open-kept-others-text');
  const restBtn = el('button', 'mini open-forget-others');
  rest.id = 'open-kept-others';
  restBtn.type = 'button';
  restBtn.setAttribute('data-i18n', 'keptForgetOthers');
  rest.appendChild(restText);
  rest.appendChild(restBtn);
  rest.hidden = true;
  let now = null, keeping = null;   // { state, vars }; the copy under way: { ctl, done }
  let others = [], othersErr = null;   // store.others(); why Forget those failed

  function set(state, vars) {
    now = { state, vars };
    update();
    if (state !== 'saving') refreshOthers();
  }
  async function refreshOthers() {
    const name = now && now.vars.name;
    try {
      others = store && name ? await store.others(name) : [];
    } catch (e) {
      others = [];
    }
    if (now && now.vars.name === name) drawOthers();
  }
  function drawOthers() {
    const t = opts.t();
    setHidden(rest, !others.length && !othersErr);
    setHidden(restBtn, !others.length);
    setText(restBtn, t('keptForgetOthers'));
    const names = others.map((o) => o.name || t('kept_unfinished')).join(', ');
    setText(restText, othersErr ? t('kept_forgetFailed', { name: names, message: othersErr }) : others.length
      ? t('kept_others', { names, size: mb(others.reduce((n, o) => n + o.bytes, 0)) }) : '');
  }
  restBtn.addEventListener('click', async () => {
    othersErr = null;
    try {
      await store.forgetOthers(now.vars.name);
    } catch (e) {
      othersErr = String((e && e.message) || e);
    }
    await refreshOthers();
  });
  function update() {
    drawOthers();
    if (!now) return;
    const t = opts.t();
    setText(text, t('kept_' + now.state, now.vars));
    setText(stop, t('openCancel'));
    setText(forget, t('keptForget'));
    setHidden(bar, now.state !== 'saving');
    setHidden(stop, now.state !== 'saving');
    setHidden(forget, now.state !== 'kept');
    if (now.state === 'saving') bar.value = now.vars.fraction;
    setHidden(root, false);
    root.dataset.state = now.state;
    document.body.dataset.kept = now.state;
  }
  // Waits for a copy under way to stop (it removes what it wrote).
  async function halt() {
    const k = keeping;
    keeping = null;
    if (!k) return;
    k.ctl.abort();
    await k.done;
  }

  // A model just opened from the reader's files: copied in, unless the store cannot be used here.
  async function keep(name, files) {
    await halt();
    if (!store) return;
    const ctl = new AbortController();
    let finish;
    const me = keeping = { ctl, done: new Promise((r) => { finish = r; }), name };
    const saving = (written, total) => set('saving', { name, written: mb(written), total: mb(total),
      fraction: total ? written / total : 0 });
    try {
      const list = await neededFiles(byName(files));
      saving(0, list.reduce((n, f) => n + f.size, 0));
      const r = await store.keep(name, list, { signal: ctl.signal,
        onProgress: (w, tot) => { if (keeping === me) saving(w, tot); } });
      if (keeping === me) set('kept', { name, size: mb(r.bytes) });
    } catch (e) {
      const code = e && e.code, v = (e && e.vars) || {};
      if (keeping === me || code === 'cancelled' && now && now.state === 'saving') {
        set(code === 'quota' ? 'quota' : code === 'cancelled' ? 'cancelled' : 'failed', { name, need: mb(v.need || 0),
          free: mb(v.free || 0), message: v.message || String((e && e.message) || e) });
      }
    } finally {
      if (keeping === me) keeping = null;
      finish();
    }
  }
  async function showKept(name, bytes) {
    await halt();
    set('kept', { name, size: mb(bytes) });
  }
  stop.addEventListener('click', () => { setHidden(stop, true); halt(); });
  forget.addEventListener('click', async () => {
    const name = now && now.vars.name;
    if (!name) return;
    await halt();
    try {
      await store.forget(name);
      set('forgotten', { name });
    } catch (e) {
      set('forgetFailed', { name, message: String((e && e.message) || e) });
    }
  });
  return { root, rest, keep, showKept, update };
}

// The files of a drop: a folder's entries read recursively (webkitGetAsEntry), else the files.
async function droppedFiles(dt) {
  const entries = [...dt.items || []].map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null)).filter(Boolean);
  if (!entries.length) return Array.from(dt.files || []);
  const out = [];
  const walk = async (entry) => {
    if (entry.isFile) out.push(await new Promise((res, rej) => entry.file(res, rej)));
    else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e);
      }
    }
  };
  for (const e of entries) await walk(e);
  return out;
}
