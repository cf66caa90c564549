/* controller.js - the one controller of the page, embed.html and <block-lens>: settings (as
   typed, from the URL hash or from attributes) -> checks -> a compute request -> the newest
   answer. No DOM: hosts draw on change(kind), kind 'status' (messages, busy) | 'result' (new
   numbers) | 'page' (language or theme).
   A bad setting blocks only the figures that read it (each figure lists its `reads`): the
   request uses the last valid value of that setting (and, for a head count that does not
   divide d_model, the largest valid one below it), the other figures are drawn with the new
   numbers, and the blocked ones keep their last good drawing, marked stale by the host. */
import { coerce, defaults, getOpened, inert, validate } from './params.js';

export const PAGE_KEYS = ['lang', 'theme'];   // change the page, never the numbers
const TYPING_DELAY = 250;                       // ms after the last keystroke
const ENGINE = 'engine';                        // the key of an engine failure: blocks every figure

const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const same = (a, b) => a.key === b.key && a.code === b.code;

// The largest head count <= want that divides d (1 always does).
function headsFor(d, want) {
  for (let h = Math.min(want, d); h > 1; h--) if (d % h === 0) return h;
  return 1;
}

// compute: { request(state, cb(err, res)), cancel(), busy() } (dom/compute.js).
// reads: the settings each of the host's figures reads ([['d', 'heads', ...], ...]); a request
// is sent only when at least one of them can be drawn. Without it, any bad setting blocks all.
export function createController(compute, change, reads) {
  let state = defaults(), good = null, res = null, timer = 0, resInvalid = new Set();
  let fieldErrors = new Map(), given = [], engineErrors = [];
  const kept = defaults();   // per setting, its value in the last answer where it was valid
  let waiting = false;       // a request waits for the Worker's encoding of the text (encoding())

  // An opened folder's tokenizer encodes in the Worker (dom/opener.js workerTokenizer): until the
  // ids of the text (and of the corrupted text) are in, its checks wait, and so does the request
  // (refresh() follows the answer). Asks for them meanwhile.
  function encoding() {
    const o = state.weights === 'model' ? getOpened() : null;
    if (!o || typeof o.ready !== 'function') return false;
    const a = o.ready(state.tokens), b = !state.corrupt || o.ready(state.corrupt);
    return !(a && b);
  }
  const checks = () => (encoding() ? [] : validate(state));

  // A field whose text does not parse keeps its setting's last value: the checks of that value
  // (3 heads that do not divide d_model) are not the message for the text now in the field.
  // Nor is a parse error on a setting the weights make inert (a layer under random weights, or
  // d_model under a trained model's) any message: that field is hidden or disabled.
  const blocking = () => [...[...fieldErrors.values()].filter((e) => !inert(e.key, state)),
    ...checks().filter((e) => !fieldErrors.has(e.key)), ...engineErrors];
  const invalid = () => new Set(blocking().map((e) => e.key));
  const blocks = (set, keys) => set.has(ENGINE) || (keys ? keys.some((k) => set.has(k)) : set.size > 0);

  // The settings a request uses: bad ones replaced by their last valid value. Returns the
  // state and the settings it could not honour (their figures are not drawn from it).
  function effective() {
    const bad = invalid(), eff = Object.assign({}, state);
    bad.forEach((k) => { if (k in kept) eff[k] = kept[k]; });
    if (eff.d % eff.heads !== 0) { eff.heads = headsFor(eff.d, eff.heads); bad.add('heads'); }
    if (eff.topk > eff.experts) { eff.topk = eff.experts; bad.add('topk'); }
    return { eff, bad };
  }

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(run, delay);
  }

  function run() {
    timer = 0;
    engineErrors = [];
    waiting = encoding();
    if (waiting) return change('status');
    const { eff, bad } = effective();
    const useful = reads ? reads.some((r) => !blocks(bad, r)) : !bad.size;
    if (!compute || !useful) {
      if (compute) compute.cancel();
      return change('status');
    }
    compute.request(eff, (err, answer) => {
      if (err) {
        engineErrors = [{ key: ENGINE, code: 'engine', vars: { message: String((err && err.message) || err) } }];
        return change('status');
      }
      good = eff;
      res = answer;
      resInvalid = bad;
      Object.keys(eff).forEach((k) => { if (!bad.has(k)) kept[k] = eff[k]; });
      change('result');
    });
    change('status');
  }

  return {
    get state() { return state; },
    get result() { return res; },
    // The settings of the latest answer (all valid together), with the page's language/theme:
    // what the figures drawn from it show, and what the URL hash holds.
    shown() { return Object.assign({}, good || state, pick(state, PAGE_KEYS)); },
    // Every message: bad settings, then what the host was given (a parse error that the
    // checks also report is listed once).
    errors() {
      const b = blocking();
      return [...b, ...given.filter((g) => !b.some((e) => same(e, g)))];
    },
    blocking,
    // May the latest answer be drawn in a figure reading these settings? (It was computed
    // with last valid values in place of the settings that were bad when it was asked.)
    fresh: (keys) => !blocks(resInvalid, keys),
    // Should such a figure be marked as showing older settings (bad now, or not yet redrawn)?
    stale: (keys) => !!res && (blocks(invalid(), keys) || blocks(resInvalid, keys)),
    // The settings among these that are bad now.
    badOf: (keys) => {
      const s = invalid();
      return keys.filter((k) => s.has(k)).concat(s.has(ENGINE) ? [ENGINE] : []);
    },
    // needs: the stages of the host's figures (figures' `needs`): done once those are in.
    busy(needs) { return !!compute && (waiting || compute.busy(needs)); },

    // The Worker's encoding of a text is in: the request that waited for it goes now.
    refresh() {
      if (waiting && !timer) run(); else change('status');
    },

    // A change from a control or a figure: valid values, applied now.
    set(patch) {
      for (const k of Object.keys(patch)) fieldErrors.delete(k);
      Object.assign(state, patch);
      given = [];
      if (Object.keys(patch).every((k) => PAGE_KEYS.includes(k))) return change('page');
      schedule(0);
    },

    // Text from a field: parsed by the parameter list; typing waits for a pause. A bad value
    // leaves the setting as it was (a request already waiting still goes).
    setRaw(key, raw, now) {
      const r = coerce(key, raw, state);
      given = [];
      if (r.error) { fieldErrors.set(key, r.error); return change('status'); }
      fieldErrors.delete(key);
      state[key] = r.value;
      schedule(now ? 0 : TYPING_DELAY);
    },

    // Typing is over (Enter, or the field left): what waits for the pause goes now.
    flush() { if (timer) { clearTimeout(timer); run(); } },

    // New settings from outside (URL hash, attributes): their parse errors are shown; the
    // fields that parsed are kept.
    replace(next, errors) {
      state = Object.assign(defaults(), next);
      given = errors || [];
      fieldErrors = new Map();
      change('page');
      schedule(0);
    },

    // Settings that could not be read (a bad URL hash): shown, nothing changes.
    note(errors) { given = errors; change('status'); },

    // A failure outside any setting (no engine).
    fail(error) { engineErrors = [error]; change('status'); },
    attach(c) { compute = c; run(); }
  };
}
