/* dom/assets.js - fetches a trained model's files on demand, as a classic script: from file://
   browsers refuse fetch() of sibling files but run <script src>, and script-src 'self' allows
   it under the strict CSP. dist/blocklens-<name>.js (built by tools/bundle.js from
   web/models/<name>/) sets self[Symbol.for('blocklens.assets')][name] = { config, vocab,
   weights: base64 }. A Symbol key, not a named global: markup on the host page
   (<form id="BlockLensAssets">, two <a id=...>) shadows window's string names, never a symbol. */

export const ASSETS_KEY = Symbol.for('blocklens.assets');
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

const loading = new Map();

function decode(b64) {
  const bin = atob(b64), out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// name -> Promise of { weights: Uint8Array, config, vocab }; one script per name per document.
export function loadAsset(name, url) {
  if (loading.has(name)) return loading.get(name);
  const p = new Promise((resolve, reject) => {
    const registry = () => (own(self, ASSETS_KEY) ? self[ASSETS_KEY] : null);
    const have = () => { const r = registry(); return !!r && typeof r === 'object' && own(r, name); };
    const take = () => {
      const a = registry()[name];
      if (!a || typeof a.weights !== 'string' || !a.config || !Array.isArray(a.vocab)) {
        return reject(new Error('BlockLens: ' + url + ' gave malformed "' + name + '" weights'));
      }
      resolve({ weights: decode(a.weights), config: a.config, vocab: a.vocab,
        heldout: typeof a.heldout === 'string' ? a.heldout : '' });   // (figure 16's held-out poems)
    };
    if (have()) return take();
    const s = document.createElement('script');
    s.src = url;
    s.async = true;
    const missing = () => new Error('BlockLens: ' + url + ' did not define the "' + name + '" weights');
    s.onload = () => (have() ? take() : reject(missing()));
    s.onerror = () => reject(new Error('BlockLens: could not load the "' + name + '" weights from ' + url));
    document.head.appendChild(s);
  });
  p.catch(() => loading.delete(name));   // a later request may try again
  loading.set(name, p);
  return p;
}
