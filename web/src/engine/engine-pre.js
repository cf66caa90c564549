/* engine-pre.js - opens a function scope around Emscripten's output so that its factory does
   not become a page global; engine-post.js (appended last) closes it. Named so that
   BlockLens.workerSource() can hand its own text to a Worker. Not a script alone: not linted. */
(function blocklensModule(root) {
