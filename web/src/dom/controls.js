/* dom/controls.js - the form, built from the declarative parameter list: tokens, sizes,
   activation, seed, mask and scaling, with live hints (token count, d_k, d_ff ratio) and a
   message under any field whose value cannot be used. */
import * as params from '../model/params.js';
import { el, setHidden, setText } from './el.js';

// key, control type, and which keys type into a text box (their input is debounced).
const FIELDS = [
  { key: 'tokens', type: 'textarea' },
  { key: 'weights', type: 'select' },
  { key: 'layer', type: 'text' },
  { key: 'd', type: 'text' },
  { key: 'heads', type: 'text' },
  { key: 'dff', type: 'text', extra: 'ratio' },
  { key: 'act', type: 'select' },
  { key: 'init', type: 'select' },
  { key: 'seed', type: 'text' },
  { key: 'causal', type: 'checkbox' },
  { key: 'scale', type: 'checkbox' }
];
// "Classic example" restores every setting but language and theme (the parameter list's
// defaults are the classic numpy example); "BERT-base widths" changes the sizes only.
const PAGE_ONLY = ['lang', 'theme'];
const SIZES = {
  classic: Object.fromEntries(params.PARAMS.filter((p) => !PAGE_ONLY.includes(p.key)).map((p) => [p.key, p.def])),
  bert: { weights: 'random', d: 768, dff: 3072, heads: 12, act: 'gelu', init: 'scaled' },
  poems: { weights: 'poems', tokens: params.POEM.tokens, layer: 1, sel: params.POEM.sel, pert: 3 }
};

function mount(root, ctx) {
  const form = el('form', 'controls-form');
  form.noValidate = true;
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  root.appendChild(form);
  const f = {};
  FIELDS.forEach(function (fd) {
    const wrap = el('div', 'field field-' + fd.key + (fd.type === 'checkbox' ? ' check' : ''));
    const id = 'ctl-' + fd.key;
    const label = el('label');
    label.htmlFor = id;
    label.setAttribute('data-i18n', 'ctl_' + fd.key);
    let input;
    if (fd.type === 'select') {
      input = el('select');
      params.byKey[fd.key].options.forEach(function (a) {
        const o = el('option'); o.value = a; o.setAttribute('data-i18n', fd.key + '_' + a); input.appendChild(o);
      });
    } else if (fd.type === 'textarea') {
      input = el('textarea');
      input.rows = 2;
      input.spellcheck = false;
    } else {
      input = el('input');
      input.type = fd.type;
      if (fd.type === 'text') { input.inputMode = 'numeric'; input.autocomplete = 'off'; }
    }
    input.id = id;
    input.name = fd.key;
    const hint = el('p', 'hint');
    hint.id = id + '-hint';
    const err = el('p', 'field-err');
    err.id = id + '-err';
    err.hidden = true;
    input.setAttribute('aria-describedby', hint.id + ' ' + err.id);
    if (fd.type === 'checkbox') { wrap.appendChild(input); wrap.appendChild(label); }
    else { wrap.appendChild(label); wrap.appendChild(input); }
    if (fd.extra === 'ratio') {
      const row = el('div', 'input-row');
      wrap.insertBefore(row, input);
      row.appendChild(input);
      const ratios = el('span', 'ratios');
      [['4', 4], ['8/3', 8 / 3], ['2', 2]].forEach(function (r) {
        const b = el('button', 'mini', '\u00d7' + r[0]);
        b.type = 'button';
        b.setAttribute('data-i18n-attr', 'title:ratioTitle');
        b.addEventListener('click', function () {
          let dff = Math.max(1, Math.round(ctx.state.d * r[1]));
          if (r[0] === '8/3') dff = Math.max(1, Math.round(dff / 8) * 8 || dff);   // Llama rounds to a multiple
          input.value = String(dff);
          ctx.setRaw('dff', input.value, input, true);
        });
        ratios.appendChild(b);
      });
      row.appendChild(ratios);
    }
    wrap.appendChild(hint);
    wrap.appendChild(err);
    form.appendChild(wrap);
    const typed = fd.type === 'text' || fd.type === 'textarea';
    input.addEventListener(typed ? 'input' : 'change', function () {
      const v = fd.type === 'checkbox' ? (input.checked ? '1' : '0') : input.value;
      // (New weights move the selected and perturbed tokens with the model's <s>.)
      if (fd.key === 'weights') return ctx.setMany(params.switchWeights(ctx.state, v));
      ctx.setRaw(fd.key, v, input, !typed);
    });
    if (typed) input.addEventListener('change', ctx.flush);   // Enter or leaving the field: no pause
    f[fd.key] = { input: input, hint: hint, err: err, type: fd.type };
  });

  const quick = el('div', 'quick');
  const quickLabel = el('span', 'quick-label');
  quickLabel.setAttribute('data-i18n', 'quickLabel');
  quick.appendChild(quickLabel);
  Object.keys(SIZES).forEach(function (k) {
    const b = el('button', 'mini wide');
    b.type = 'button';
    b.setAttribute('data-i18n', 'quick_' + k);
    b.addEventListener('click', function () { ctx.setMany(SIZES[k]); });
    quick.appendChild(b);
  });
  form.appendChild(quick);

  // state -> inputs (not the one being typed in), hints, and the per-field messages. Hints
  // give the values in effect; attn: the settings the attention figures still show while the
  // head count is bad (null otherwise).
  function update(state, c, errors, attn) {
    const t = c.t;
    Object.keys(f).forEach(function (k) {
      const x = f[k];
      const mine = errors.filter(function (e) { return e.key === k; });
      setHidden(x.err, !mine.length);
      setText(x.err, mine.map(function (e) { return c.message(e); }).join(' '));
      if (mine.length) x.input.setAttribute('aria-invalid', 'true'); else x.input.removeAttribute('aria-invalid');
      // Never overwrite what is being typed, nor a rejected value the message refers to.
      const typing = document.activeElement === x.input && (x.type === 'text' || x.type === 'textarea');
      if (x.type === 'checkbox') x.input.checked = !!state[k];
      else if (!typing && !mine.length) x.input.value = String(state[k]);
    });
    const tc = params.tokenCount(state);
    const hint = tc.opened ? 'hint_tokens_model' : tc.trained ? 'hint_tokens_trained'
      : tc.n === 1 ? 'hint_tokens_one' : 'hint_tokens';
    setText(f.tokens.hint, t(hint, tc));
    setText(f.d.hint, t('hint_d'));
    setText(f.dff.hint, t('hint_dff', { r: (state.dff / state.d).toFixed(2).replace(/\.?0+$/, '') }));
    setText(f.heads.hint, state.d % state.heads === 0 ? t('hint_heads', { dk: state.d / state.heads })
      : attn ? t('hint_heads_kept', { d: attn.d, h: attn.heads, dk: attn.d / attn.heads }) : '');
    setText(f.act.hint, t('hint_act_' + (params.isGated(state.act) ? 'gated' : 'plain')));
    setText(f.init.hint, t('hint_init_' + state.init));
    setText(f.seed.hint, t(state.weights === 'random' ? 'hint_seed' : state.weights === 'model' ? 'hint_seed_model'
      : 'hint_seed_trained'));
    setText(f.causal.hint, t(state.causal ? 'hint_causal_on' : 'hint_causal_off'));
    setText(f.scale.hint, t('hint_scale'));
    setText(f.weights.hint, t('hint_weights_' + state.weights));
    // A trained model fixes the sizes, the activation, the mask and the initialisation.
    const model = params.modelOf(state);
    setText(f.layer.hint, model ? t('hint_layer', { n: model.layers }) : '');
    setHidden(f.layer.input.closest('.field'), !model);
    // (How random weights are scaled says nothing about a trained model's: no field for it.)
    setHidden(f.init.input.closest('.field'), !!model);
    const fixed = model ? { d: model.d, dff: model.dff, heads: model.heads, act: t('act_' + model.act),
      causal: t('ctl_causal'), init: t('weights_' + state.weights) } : {};
    ['d', 'dff', 'heads', 'act', 'init', 'causal'].forEach(function (k) {
      f[k].input.disabled = !!model;
      if (!model) return;
      setText(f[k].hint, t('hint_fixed', { v: fixed[k] }));
      // The disabled fields show the model's values (the state keeps the reader's own for later).
      if (k === 'causal') f[k].input.checked = true;
      else if (k !== 'init') f[k].input.value = String(model[k]);
    });
  }
  return { update: update };
}


export { mount };
