/* worker-blob.js - the Worker's code for a Blob, after the engine's own text (file:// pages
   cannot start a Worker from a file). tools/build inlines this bundle as a string. */
import { main } from './worker.js';

main(self);
