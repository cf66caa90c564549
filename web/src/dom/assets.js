/* dom/assets.js - fetches a trained model's files on demand, as a classic script: from file://
   browsers refuse fetch() of sibling files but run <script src>, and script-src 'self' allows
   it under the strict CSP. dist/blocklens-<name>.js (built by tools/bundle.js from
   web/models/<name>/) sets self.BlockLensAssets[name] = { config, vocab, weights: base64 }. */

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
    const have = () => self.BlockLensAssets && Object.prototype.hasOwnProperty.call(self.BlockLensAssets, name);
    const take = () => {
      const a = self.BlockLensAssets[name];
      resolve({ weights: decode(a.weights), config: a.config, vocab: a.vocab });
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
