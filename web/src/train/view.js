/* train/view.js - the Train view's elements: the data picker (two samples, or a pasted or dropped
   text), the settings, the buttons, and the places the live figures draw into (train/live.js).
   Fixed texts carry data-i18n keys (the page fills them in its language); text is only ever
   set as text. */
import { el } from '../dom/el.js';
import { SETTINGS } from './data.js';

const i18n = (node, key) => { node.setAttribute('data-i18n', key); return node; };

function button(cls, key, id) {
  const b = i18n(el('button', cls), key);
  b.type = 'button';
  b.id = id;
  return b;
}

// The data: a radio group, the text box and file picker for one's own text, facts and errors.
function dataPart(root) {
  const box = el('fieldset', 'train-data');
  box.appendChild(i18n(el('legend'), 'train_data'));
  const radios = {};
  for (const k of ['poems', 'english', 'own']) {
    const lab = el('label', 'train-radio'), r = el('input');
    r.type = 'radio';
    r.name = 'train-data';
    r.value = k;
    r.id = 'train-data-' + k;
    lab.appendChild(r);
    lab.appendChild(i18n(el('span'), 'train_data_' + k));
    box.appendChild(lab);
    radios[k] = r;
  }
  const own = el('div', 'train-own');
  own.id = 'train-own';
  const area = el('textarea', 'train-text');
  area.id = 'train-text';
  area.rows = 5;
  area.spellcheck = false;
  area.setAttribute('data-i18n-attr', 'placeholder:train_paste aria-label:train_paste');
  const row = el('div', 'train-own-row');
  const pick = button('mini', 'train_file', 'train-file-btn'), use = button('mini', 'train_useText', 'train-use');
  const file = el('input');
  file.type = 'file';
  file.accept = '.txt,text/plain';
  file.id = 'train-file';
  file.hidden = true;
  file.tabIndex = -1;
  row.appendChild(use);
  row.appendChild(pick);
  row.appendChild(file);
  own.appendChild(area);
  own.appendChild(row);
  own.appendChild(i18n(el('p', 'hint'), 'train_ownHint'));
  box.appendChild(own);
  const info = el('p', 'hint train-data-info'), err = el('p', 'field-err train-data-err');
  info.id = 'train-data-info';
  info.setAttribute('aria-live', 'polite');
  err.id = 'train-data-err';
  err.setAttribute('role', 'alert');
  err.hidden = true;
  box.appendChild(info);
  box.appendChild(err);
  root.appendChild(box);
  return { radios, own, area, pick, use, file, info, err };
}

// The sizes and the run's settings: one labelled text field each, its message under it.
function settingsPart(root) {
  const box = el('fieldset', 'train-settings');
  box.appendChild(i18n(el('legend'), 'train_settings'));
  const grid = el('div', 'train-grid'), fields = {}, errs = {};
  for (const p of SETTINGS) {
    const f = el('div', 'train-field'), lab = i18n(el('label'), 'train_lbl_' + p.key), input = el('input');
    input.type = 'text';
    input.inputMode = p.kind === 'int' ? 'numeric' : 'decimal';
    input.id = 'train-' + p.key;
    input.value = String(p.def);
    input.autocomplete = 'off';
    lab.htmlFor = input.id;
    const err = el('p', 'field-err');
    err.id = 'train-err-' + p.key;
    err.hidden = true;
    input.setAttribute('aria-describedby', err.id);
    f.appendChild(lab);
    f.appendChild(input);
    f.appendChild(err);
    grid.appendChild(f);
    fields[p.key] = input;
    errs[p.key] = err;
  }
  box.appendChild(grid);
  const size = el('p', 'hint train-size');
  size.id = 'train-size';
  box.appendChild(size);
  root.appendChild(box);
  return { fields, errs, size };
}

// The buttons and the status line (step, speed, time left) with the run's messages.
function runPart(root) {
  const bar = el('div', 'train-buttons');
  const b = { start: button('pill primary', 'train_start', 'train-start'),
    pause: button('pill', 'train_pause', 'train-pause'),
    reset: button('pill', 'train_reset', 'train-reset'), inspect: button('pill', 'train_inspect', 'train-inspect'),
    download: button('pill', 'train_download', 'train-download') };
  Object.values(b).forEach((x) => bar.appendChild(x));
  root.appendChild(bar);
  const status = el('p', 'train-status'), msg = el('p', 'field-err train-msg');
  status.id = 'train-status';
  status.setAttribute('aria-live', 'polite');
  msg.id = 'train-msg';
  msg.setAttribute('role', 'alert');
  msg.hidden = true;
  root.appendChild(status);
  root.appendChild(msg);
  return Object.assign(b, { status, msg });
}

// The live figures: the loss curves (with their table), the sample, the probe's attention maps
// with the time slider, and the ReLU zeros per layer.
function livePart(root) {
  const wrap = el('div', 'train-live');
  const lossFig = el('figure', 'train-fig');
  lossFig.appendChild(i18n(el('figcaption'), 'train_h_loss'));
  const legend = el('p', 'train-legend');
  legend.id = 'train-legend';
  const loss = el('canvas', 'train-loss');
  loss.id = 'train-loss';
  loss.setAttribute('role', 'img');
  const lossTable = el('div');
  lossFig.appendChild(legend);
  lossFig.appendChild(loss);
  lossFig.appendChild(lossTable);
  wrap.appendChild(lossFig);

  const sampleFig = el('figure', 'train-fig');
  sampleFig.appendChild(i18n(el('figcaption'), 'train_h_sample'));
  const sample = el('ol', 'train-samples');
  sample.id = 'train-samples';
  sampleFig.appendChild(sample);
  wrap.appendChild(sampleFig);

  const headFig = el('figure', 'train-fig');
  headFig.appendChild(i18n(el('figcaption'), 'train_h_heads'));
  const probe = el('p', 'hint train-probe');
  probe.id = 'train-probe';
  const timeRow = el('div', 'train-time-row'), time = el('input'), timeLab = el('label', 'train-time-label');
  time.type = 'range';
  time.id = 'train-time';
  time.min = '0';
  time.max = '0';
  time.value = '0';
  time.disabled = true;
  timeLab.htmlFor = time.id;
  timeLab.id = 'train-time-label';
  timeRow.appendChild(timeLab);
  timeRow.appendChild(time);
  const heads = el('div', 'train-heads');
  heads.id = 'train-heads';
  headFig.appendChild(probe);
  headFig.appendChild(timeRow);
  headFig.appendChild(heads);
  wrap.appendChild(headFig);

  const zeroFig = el('figure', 'train-fig');
  zeroFig.appendChild(i18n(el('figcaption'), 'train_h_zeros'));
  const zeros = el('div', 'train-zeros');
  zeros.id = 'train-zeros';
  zeroFig.appendChild(zeros);
  wrap.appendChild(zeroFig);
  root.appendChild(wrap);
  return { legend, loss, lossTable, sample, probe, time, timeLab, heads, zeros };
}

// root: the view's element (#train-view) -> the references the controller uses.
export function build(root) {
  root.textContent = '';
  const top = el('div', 'train-form');
  const data = dataPart(top), settings = settingsPart(top);
  root.appendChild(top);
  const run = runPart(root), live = livePart(root);
  return { root, data, settings, run, live };
}
