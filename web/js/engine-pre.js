/* engine-pre.js - opens a function scope around Emscripten's output so that its factory
   does not become a page global; engine.js (appended after it) closes the scope. */
(function (root) {
