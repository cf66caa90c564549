/* blocklens.mjs - the engine as an ES module: import { load } from 'blocklens'. The engine is
   one classic script, web/dist/blocklens.js (CommonJS under Node and in bundlers, the global
   BlockLens in a page); this re-exports its API by name, for Node's import and for bundlers.
   package.json's "exports" sends import here and require to the script itself: both give the
   same objects (one engine per process). */
import api from './dist/blocklens.js';

export const load = api.load;
export const version = api.version;
export const workerSource = api.workerSource;
export default api;
