/* params.js - the page state as ONE declarative list of parameters, mirrored to the URL hash.
   Pure functions, no DOM: the page, the browser tests and a later embed page share this list. */
import { parseAblate } from './stages/ablation.js';
import { parseNeuron } from './stages/neurons.js';

// Page limits (tighter than the engine's): keep a redraw interactive on a laptop.
const LIMITS = { tokens: 128, tokenText: 8000, dModel: 1024, dFF: 4096, heads: 64, experts: 64, layers: 48 };

const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'identity', 'swiglu', 'geglu'];

// key: name in the URL hash; kind: how a string is parsed; def: the classic numpy example.
const PARAMS = [
  { key: 'tokens', kind: 'text', def: '远方有颗苹果树', maxLength: LIMITS.tokenText },
  { key: 'd', kind: 'int', def: 8, min: 1, max: LIMITS.dModel },
  { key: 'dff', kind: 'int', def: 32, min: 1, max: LIMITS.dFF },
  { key: 'heads', kind: 'int', def: 2, min: 1, max: LIMITS.heads },
  { key: 'act', kind: 'enum', def: 'relu', options: ACTIVATIONS },
  { key: 'seed', kind: 'int', def: 42, min: 0, max: 4294967295 },
  { key: 'causal', kind: 'bool', def: false },
  { key: 'scale', kind: 'bool', def: true },
  { key: 'sel', kind: 'int', def: 0, min: 0, max: LIMITS.tokens - 1 },      // selected token
  { key: 'pert', kind: 'int', def: 3, min: 0, max: LIMITS.tokens - 1 },     // perturbed token
  { key: 'pval', kind: 'float', def: 1000, min: -1e6, max: 1e6 },           // value it is set to
  { key: 'show', kind: 'enum', def: 'weights', options: ['weights', 'scaled', 'raw'] },
  { key: 'head', kind: 'int', def: 1, min: 1, max: LIMITS.heads },          // head shown large (many heads)
  { key: 'init', kind: 'enum', def: 'classic', options: ['classic', 'scaled'] },   // unit randn | randn/sqrt(fan_in)
  { key: 'ln', kind: 'enum', def: 'post', options: ['post', 'pre'] },        // the block figure's norm placement
  // attention: BERT and GPT masks side by side
  { key: 'masks', kind: 'enum', def: 'one', options: ['one', 'both'] },
  { key: 'hmeasure', kind: 'enum', def: 'prev', options: ['prev', 'sink', 'self', 'up', 'entropy'] },   // model view
  { key: 'experts', kind: 'int', def: 8, min: 1, max: LIMITS.experts },      // mixture of experts
  { key: 'topk', kind: 'int', def: 2, min: 1, max: LIMITS.experts },
  // numpy streams | the trained poem model
  // numpy streams | the trained poem model | a model folder the reader opened (opened.js)
  { key: 'weights', kind: 'enum', def: 'random', options: ['random', 'poems', 'model'] },
  // The opened model's name (its folder's): a link to a view of it says which folder to open.
  { key: 'model', kind: 'text', def: '', maxLength: 80 },
  // The trained model's block shown; its own block count is the range a bad value is told in.
  { key: 'layer', kind: 'int', def: 1, min: 1, max: LIMITS.layers,
    maxIn: (s) => (modelOf(s) ? modelOf(s).layers : undefined) },
  { key: 'temp', kind: 'float', def: 1, min: 0.05, max: 5 },                 // next-character temperature
  // Head ablation: the heads and FFNs switched off ("1.3,2.ffn", 1-based), the token followed
  // (-1: the top one unablated), and the sweep of every head alone (run only when asked).
  { key: 'ablate', kind: 'text', def: '', maxLength: 400, check: (v) => parseAblate(v).error },
  { key: 'abltok', kind: 'int', def: -1, min: -1, max: 1e7 },
  { key: 'sweep', kind: 'enum', def: 'off', options: ['off', 'on'] },
  // Activation patching: the corrupted text ('' = none yet), and the answer and wrong token ids
  // (-1: the clean and the corrupted run's top next token).
  { key: 'corrupt', kind: 'text', def: '', maxLength: LIMITS.tokenText },
  { key: 'answer', kind: 'int', def: -1, min: -1, max: 16777215 },
  { key: 'wrong', kind: 'int', def: -1, min: -1, max: 16777215 },
  // FFN neurons: the neuron shown ("2.97", 1-based; '' = the text's most active in the last layer)
  // and the poem model's held-out search (run only when asked).
  { key: 'neuron', kind: 'text', def: '', maxLength: 40, check: (v) => parseNeuron(v).error },
  { key: 'nsearch', kind: 'enum', def: 'off', options: ['off', 'on'] },
  { key: 'lang', kind: 'enum', def: 'auto', options: ['auto', 'zh', 'en'] },
  { key: 'theme', kind: 'enum', def: 'auto', options: ['auto', 'light', 'dark'] }
];
// No prototype: a key such as 'constructor' or '__proto__' from a URL is simply unknown.
const BY_KEY = Object.create(null);
PARAMS.forEach(function (p) { BY_KEY[p.key] = p; });
Object.freeze(BY_KEY);

function defaults() {
  const s = {};
  PARAMS.forEach(function (p) { s[p.key] = p.def; });
  return s;
}

// A value quoted in a message: at most 40 characters (a 1 MB hash value gives a short message).
function quote(str) {
  const chars = Array.from(str.length > 200 ? str.slice(0, 200) : str);
  return chars.length > 40 ? chars.slice(0, 40).join('') + '\u2026' : str;
}

// One string -> one value. Errors are codes + variables, worded later by i18n.
// state (optional): the settings so far, for a range told in their terms (maxIn).
function coerce(key, raw, state) {
  const p = BY_KEY[key];
  const str = String(raw);
  const fail = function (code, vars) {
    if (vars && vars.value !== undefined) vars.value = quote(vars.value);
    return { error: { key: key, code: code, vars: vars || {} } };
  };
  if (!p) return fail('unknownKey');
  if (p.kind === 'text') {
    if (str.length > p.maxLength) return fail('tooLong', { max: p.maxLength });
    const bad = p.check && p.check(str);
    return bad ? fail(bad.code, bad.vars) : { value: str };
  }
  if (p.kind === 'bool') {
    if (str === '1' || str === 'true') return { value: true };
    if (str === '0' || str === 'false') return { value: false };
    return fail('bool', { value: str });
  }
  if (p.kind === 'enum') {
    return p.options.indexOf(str) >= 0 ? { value: str } : fail('enum', { value: str });
  }
  const t = str.trim();
  if (!t) return fail('empty');
  if (p.kind === 'int' && !/^[+-]?\d+$/.test(t)) return fail('int', { value: str });
  if (p.kind === 'float' && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
    return fail('number', { value: str });
  }
  const v = Number(t);
  if (!isFinite(v) || v < p.min || v > p.max) {
    const shown = p.maxIn && state ? p.maxIn(state) : undefined;   // (the settings' own limit, if any)
    return fail('range', { value: str, min: p.min, max: shown === undefined ? p.max : shown });
  }
  return { value: v };
}

// Tokens: each CJK character alone (no spaces between them), other text split on whitespace.
// Full-width punctuation (，。！？；：、「」… U+3000-303F, U+FE10-FE6F, U+FF00-FFEF) is part of CJK
// text, so it stands alone too: "pie，" is "pie" + "，", as "方，" is "方" + "，". ASCII
// punctuation is unchanged: it stays in its word ("pie," is one token) and stands alone next to
// a CJK character ("方," is "方" + ","), as before.
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]/u;
const WIDE = /[\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe6f\uff00-\uffef]/u, PUNCT = /[\p{P}\p{S}]/u;
const alone = (ch) => CJK.test(ch) || (WIDE.test(ch) && PUNCT.test(ch));
function tokenize(text) {
  const out = [];
  String(text).split(/\s+/).forEach(function (chunk) {
    let word = '';
    Array.from(chunk).forEach(function (ch) {
      if (alone(ch)) {
        if (word) out.push(word);
        word = '';
        out.push(ch);
      } else {
        word += ch;
      }
    });
    if (word) out.push(word);
  });
  return out;
}

// The trained models the page knows: their sizes (config.json's, so that settings can be checked
// before the weights are loaded); a model reads text one character at a time after a <s>.
const MODELS = Object.freeze({
  poems: Object.freeze({ d: 64, dff: 256, heads: 4, layers: 2, positions: 64, act: 'relu' })
});
const BOS = '<s>';

// The model folder the reader opened on this page (dom/opener.js sets it once the Worker has
// loaded it): its sizes, and its tokenizer as encode(text) -> { ids, labels }. One per page.
let opened = null;
function setOpened(m) { opened = m || null; }
function getOpened() { return opened; }
// A state's trained model: the poems' sizes, the opened model's, or null (random weights, or
// "model" before any folder is open).
function modelOf(s) {
  if (s.weights === 'model') return opened;
  return Object.prototype.hasOwnProperty.call(MODELS, s.weights) ? MODELS[s.weights] : null;
}
// The trained view's text: 静夜思, the whole quatrain, long enough for the head that reads one line
// up to show; selected, the second 明 (16), with lines before it to compare.
const POEM = Object.freeze({ tokens: '床前明月光，疑是地上霜。举头望明月，低头思故乡。', sel: 16 });

// A switch of weights keeps the same characters selected and perturbed: a trained model's tokens
// start with its <s>, so their indexes move by one, and a switch to it never lands on <s>.
function switchWeights(s, to) {
  const trained = (w) => w === 'poems', shift = (trained(to) ? 1 : 0) - (trained(s.weights) ? 1 : 0);
  const at = (i) => Math.max(trained(to) ? 1 : 0, Math.min(LIMITS.tokens - 1, i + shift));
  return { weights: to, sel: at(s.sel), pert: at(s.pert) };
}

// Where a folder just opened starts (with no link's view): layer 1, head 1, row 0 perturbed and,
// selected, the text's last token. The first reads only itself under the causal mask (figure 3's
// attention links would be just the FFN's self-link) and, with Llama's or Mistral's tokenizer, is
// the <s> the tokenizer adds, an attention sink: the poem view never starts on its <s> either.
// m: the opened model (its encode), text: the state's tokens.
function openedStart(m, text) {
  const L = m.encode(String(text)).ids.length;
  return { layer: 1, sel: Math.max(0, Math.min(LIMITS.tokens, L) - 1), pert: 0, head: 1 };
}

// Tokens as the figures label them: the page's tokenizer for random weights; for a trained
// model <s> and then every character but whitespace.
function tokensFor(s) {
  if (s.weights === 'model') return opened ? opened.encode(s.tokens).labels : tokenize(s.tokens);
  if (s.weights !== 'poems') return tokenize(s.tokens);
  return [BOS].concat(Array.from(String(s.tokens)).filter((ch) => !/\s/u.test(ch)));
}

// The tokens the user typed, as the hint and the error count them: a trained model's <s> (its
// own, always there) is not one of them; max: how many the page or the model reads.
function tokenCount(s) {
  if (s.weights === 'model') {
    return { n: tokensFor(s).length, max: opened ? Math.min(LIMITS.tokens, opened.positions) : LIMITS.tokens,
      trained: false, opened: true };
  }
  const trained = s.weights === 'poems' ? MODELS.poems : null;
  return { n: tokensFor(s).length - (trained ? 1 : 0), max: trained ? trained.positions - 1 : LIMITS.tokens,
    trained: !!trained };
}

// Settings that do nothing under these weights: a trained model fixes the sizes, activation,
// initialisation and mask (the form shows them disabled); random weights have no layer (the
// field is hidden). A field's parse error on one of them is not reported (controller.js).
const FIXED_BY_MODEL = ['d', 'dff', 'heads', 'act', 'init', 'causal'];
function inert(key, s) {
  return s.weights === 'random' ? key === 'layer' : FIXED_BY_MODEL.includes(key);
}

// Checks that involve several fields, on an already coerced state.
function validate(s) {
  const errors = [];
  const trained = modelOf(s);
  const { n, max } = tokenCount(s);
  if (s.weights === 'model' && !opened) errors.push({ key: 'weights', code: 'noModel', vars: {} });
  if (n === 0) errors.push({ key: 'tokens', code: 'tokensEmpty', vars: {} });
  if (n > max) errors.push({ key: 'tokens', code: 'tokensMany', vars: { n: n, max: max } });
  if (trained && s.layer > trained.layers) {
    errors.push({ key: 'layer', code: 'range', vars: { value: String(s.layer), min: 1, max: trained.layers } });
  }
  const abl = trained && s.ablate ? parseAblate(s.ablate, trained.layers, trained.heads).error : null;
  if (abl) errors.push({ key: 'ablate', code: abl.code, vars: abl.vars });
  const neu = trained && s.neuron ? parseNeuron(s.neuron, trained.layers, trained.dff).error : null;
  if (neu) errors.push({ key: 'neuron', code: neu.code, vars: neu.vars });
  if (!trained && s.d % s.heads !== 0) {
    errors.push({ key: 'heads', code: 'divisible', vars: { d: s.d, heads: s.heads } });
  }
  if (s.topk > s.experts) errors.push({ key: 'topk', code: 'topk', vars: { k: s.topk, n: s.experts } });
  return errors;
}

// "#tokens=...&d=8" -> { state, errors }; bad fields keep the value from `base`.
function parseHash(hash, base) {
  const state = Object.assign(defaults(), base || {});
  let errors = [];
  const text = String(hash || '').replace(/^#/, '');
  if (!text) return { state: state, errors: errors, keys: [] };
  const keys = [];
  text.split('&').forEach(function (pair) {
    if (!pair) return;
    const eq = pair.indexOf('=');
    let k, v;
    try {
      k = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      v = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, '%20'));
    } catch (e) {
      errors.push({ key: 'hash', code: 'hashEncoding', vars: { text: pair.slice(0, 40) } });
      return;
    }
    if (!BY_KEY[k]) return;   // unknown keys are left for other pages (e.g. an embed's view=)
    const r = coerce(k, v, state);
    if (r.error) errors.push(r.error);
    else { state[k] = r.value; keys.push(k); }
  });
  poemDefaults(state, keys);
  if (!errors.length) errors = validate(state);
  return { state: state, errors: errors, keys: keys };
}

// A hand-written trained-model link or element that gives no text: the quatrain (on its
// second 明, if no token is selected either), not the random example's 7 characters, too short
// to show what the heads do. keys: the settings given.
function poemDefaults(state, keys) {
  if (state.weights !== 'poems' || keys.includes('tokens')) return;
  state.tokens = POEM.tokens;
  if (!keys.includes('sel')) state.sel = POEM.sel;
}

// Every parameter is written, so a shared link restores the exact view.
function toHash(s) {
  return PARAMS.map(function (p) {
    let v = s[p.key];
    if (p.kind === 'bool') v = v ? '1' : '0';
    return p.key + '=' + encodeURIComponent(String(v));
  }).join('&');
}

function isGated(act) { return act === 'swiglu' || act === 'geglu'; }

export { LIMITS, ACTIVATIONS, MODELS, BOS, POEM, setOpened, getOpened, modelOf,
  inert, poemDefaults, switchWeights, openedStart, tokensFor, tokenCount, PARAMS,
  BY_KEY as byKey, defaults, coerce, tokenize, validate, parseHash, toHash, isGated, quote };
