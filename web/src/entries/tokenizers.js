/* tokenizers.js - dist/blocklens-tokenizers.js: the tokenizer of a model folder (tokenizer/),
   loaded only when a model is opened, never with the page. In Node it is module.exports; in a
   page or a Worker it registers at self[Symbol.for('blocklens.tokenizers')], a key that no
   element id can shadow (a named global can be). */
/* global module */
import { fromFiles } from '../tokenizer/tokenizer.js';

export const TOKENIZERS_KEY = Symbol.for('blocklens.tokenizers');
const api = Object.freeze({ fromFiles: fromFiles });
// CommonJS's module where there is one (tools/bundle.js tells esbuild this is meant).
if (typeof module === 'object' && module && typeof module.exports === 'object') module.exports = api;
else self[TOKENIZERS_KEY] = api;
