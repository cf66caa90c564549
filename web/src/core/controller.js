/* controller.js - the one controller of the page, embed.html and <block-lens>: settings (as
   typed, from the URL hash or from attributes) -> checks -> a compute request -> the newest
   answer. No DOM: hosts draw on change(kind), kind 'status' (messages, busy) | 'result' (new
   numbers) | 'page' (language or theme). While settings are bad the last good result stays. */
import { coerce, defaults, validate } from './params.js';

export const PAGE_KEYS = ['lang', 'theme'];   // change the page, never the numbers
const TYPING_DELAY = 250;                       // ms after the last keystroke

const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));

// compute: { request(state, cb(err, res)), cancel(), busy() } (dom/compute.js).
export function createController(compute, change) {
  let state = defaults(), good = null, res = null, timer = 0;
  let fieldErrors = new Map(), given = [], engineErrors = [];

  const blocking = () => [...fieldErrors.values(), ...validate(state), ...engineErrors];

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(run, delay);
  }

  function run() {
    engineErrors = [];
    if (!compute || blocking().length) {
      if (compute) compute.cancel();
      return change('status');
    }
    const asked = Object.assign({}, state);
    compute.request(asked, (err, answer) => {
      if (err) {
        engineErrors = [{ key: 'engine', code: 'engine', vars: { message: String((err && err.message) || err) } }];
        return change('status');
      }
      good = asked;
      res = answer;
      change('result');
    });
    change('status');
  }

  return {
    get state() { return state; },
    get result() { return res; },
    // What the figures show: the last good settings, with the page's current language/theme.
    shown() { return Object.assign({}, good || state, pick(state, PAGE_KEYS)); },
    errors() { return [...blocking(), ...given]; },
    blocking,
    busy() { return !!compute && compute.busy(); },

    // A change from a control or a figure: valid values, applied now.
    set(patch) {
      for (const k of Object.keys(patch)) fieldErrors.delete(k);
      Object.assign(state, patch);
      given = [];
      if (Object.keys(patch).every((k) => PAGE_KEYS.includes(k))) return change('page');
      schedule(0);
    },

    // Text from a field: parsed by the parameter list; typing waits for a pause.
    setRaw(key, raw, now) {
      const r = coerce(key, raw);
      given = [];
      if (r.error) { fieldErrors.set(key, r.error); clearTimeout(timer); return change('status'); }
      fieldErrors.delete(key);
      state[key] = r.value;
      schedule(now ? 0 : TYPING_DELAY);
    },

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
