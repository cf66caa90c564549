/* engine-pre.js - opens a function scope around Emscripten's output so that its factory
   does not become a page global; engine.js (appended after it) closes the scope. The scope is
   named so that BlockLens.workerSource() can hand its own text to a Worker built from a Blob. */
(function blocklensModule(root) {
