/* no-simd.js - preload (node --require) that makes this runtime look like one without wasm
   SIMD: WebAssembly.validate refuses any module using SIMD opcodes (0xfd prefix after a
   code section), so BlockLens.load() takes its scalar build. Used to run the test suite
   against the scalar build: node --require ./tools/bench/no-simd.js --test tests/node/ */
'use strict';
const validate = WebAssembly.validate;
WebAssembly.validate = function (bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer || bytes);
  if (b.length < 64 && b.includes(253)) return false;   /* the feature probe */
  return validate.call(WebAssembly, bytes);
};
