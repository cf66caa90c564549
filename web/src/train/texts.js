/* train/texts.js - the shipped training texts loaded on demand, as a classic script (from file://
   a fetch() of train.txt is refused; <script src> runs): dist/blocklens-poems-text.js, written by
   tools/bundle.js from web/models/poems/{train,heldout}.txt, sets
   self[Symbol.for('blocklens.texts')].poems = { train, heldout }. A Symbol key: no markup of the
   page can shadow it. The English sample is small and ships inside the page's code (english.js). */
import { ENGLISH } from './english.js';

export const TEXTS_KEY = Symbol.for('blocklens.texts');
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
let poems = null;

// name ('poems' | 'english') -> Promise of { train, heldout, probe } (texts of whole lines).
export function loadSample(name, url) {
  if (name === 'english') return Promise.resolve(ENGLISH);
  if (name !== 'poems') return Promise.reject(new Error('BlockLens: no sample named "' + name + '"'));
  if (poems) return poems;
  poems = new Promise((resolve, reject) => {
    const take = () => {
      const r = own(self, TEXTS_KEY) ? self[TEXTS_KEY] : null, p = r && own(r, 'poems') ? r.poems : null;
      if (!p || typeof p.train !== 'string' || typeof p.heldout !== 'string') return false;
      // Li Bai's quatrain, the page's poem text elsewhere too.
      resolve({ train: p.train, heldout: p.heldout, probe: '床前明月光，疑是地上霜。举头望明月，低头思故乡。' });
      return true;
    };
    if (take()) return;
    const s = document.createElement('script');
    s.src = url;
    s.async = true;
    s.onload = () => { if (!take()) reject(new Error('BlockLens: ' + url + ' did not define the poem text')); };
    s.onerror = () => reject(new Error('BlockLens: could not load the poem text from ' + url));
    document.head.appendChild(s);
  });
  poems.catch(() => { poems = null; });
  return poems;
}
