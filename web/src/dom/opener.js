/* dom/opener.js - "Open a model folder…" beside the Weights field: a folder picker (webkitdirectory),
   a files picker, and a drop anywhere on the page. The files go to the Worker, which loads them
   (dom/compute.js open); the page keeps the folder's tokenizer (the text field encodes with it)
   and tells the settings the model's sizes (params.setOpened). A refusal shows the engine's
   message here; the last good model and view stay. Nothing leaves the machine. */
import { byName, needsTokenizer, openedModel } from '../model/folder.js';
import { setOpened } from '../model/params.js';
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

// A piece as the token strip shows it: its text (spaces as ␣, newlines as ⏎), or its bytes as
// <e5 ba> where they are only part of a UTF-8 character.
export function pieceLabel(p) {
  if (!p) return '?';
  if (typeof p.text === 'string') return p.text.replace(/ /g, '\u2423').replace(/\n/g, '\u23ce').replace(/\t/g, '\u21e5') || '\u2205';
  return '<' + Array.from(p.bytes || [], (b) => b.toString(16).padStart(2, '0')).join(' ') + '>';
}

// The page's encoder: the folder's tokenizer, or (vocab.json as a list, the poem model's) one id
// per character after <s>. named: { name: File | Blob }; module(): a Promise of the tokenizer
// module. -> { encode(text) -> { ids, labels }, label(id), text(id) } (tools/render.js too)
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

const mb = (n) => (n >= 1e9 ? (n / 1e9).toFixed(2) + ' GB' : n >= 1e6 ? (n / 1e6).toFixed(1) + ' MB'
  : (n / 1e3).toFixed(1) + ' kB');

// wrap: the Weights field. opts: { compute() (the page's, or null), t() (translator), onOpened(meta),
// tokenizersUrl, inlineTokenizers (a Blob Worker) }.
export function mount(wrap, opts) {
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

  async function open(files) {
    const my = ++gen, t = opts.t(), c = opts.compute();
    const named = byName(files);
    const name = (files[0] && String(files[0].webkitRelativePath || '').split('/')[0]) || 'model';
    setHidden(err, true);
    setText(line, t('openReading', { name, phase: t('phase_start'), read: '0', total: '?' }));
    setHidden(line, false);
    cancel.hidden = false;
    document.body.dataset.open = 'opening';
    const t0 = performance.now();
    try {
      if (!c) throw new Error('BlockLens: the engine is not loaded');
      const tok = await pageTokenizer(named, () => tokenizerModule(opts.tokenizersUrl));
      const src = opts.inlineTokenizers && needsTokenizer(named) ? self[SRC_KEY] || null : null;
      const meta = await c.open(files, src, (p) => {
        const tr = opts.t();
        if (my === gen) {
          setText(line, tr('openReading', { name, phase: tr('phase_' + p.phase), read: mb(p.bytesRead),
            total: mb(p.bytesTotal) }));
        }
      });
      if (my !== gen) return;
      if (!tok) throw new Error('BlockLens: the folder has no tokenizer the page can read');
      last = Object.assign(openedModel(meta, tok), { openMs: Math.round(performance.now() - t0) });
      setOpened(last);
      line.hidden = true;
      cancel.hidden = true;
      document.body.dataset.open = 'opened';
      show();
      setHidden(ask, true);
      const view = wanted;
      wanted = null;
      opts.onOpened(last, view);
    } catch (e) {
      if (my === gen) fail(String((e && e.message) || e));
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
  // A link (URL hash) shows a model folder that is not open here (from file:// nothing can be kept
  // across a reload): ask for it by name; view: the link's settings, applied once it opens.
  function askFor(view) {
    wanted = view;
    showAsk();
  }
  function showAsk() {
    if (!wanted) return;
    setText(ask, opts.t()('openAsk', { name: wanted.model || '?' }));
    setHidden(ask, false);
  }
  return { update: () => { show(); showAsk(); }, open, askFor };
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
