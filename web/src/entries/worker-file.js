/* worker-file.js - dist/blocklens-worker.js, the Worker a served page starts from its own origin
   (script-src 'self' covers it; a blob: Worker would need worker-src blob:). */
import { main } from './worker.js';

if (!self.BlockLens) importScripts('blocklens.js');   // resolved next to this file: dist/
main(self);
