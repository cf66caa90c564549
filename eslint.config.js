// eslint.config.js - lint for the front end (web/src), the tools and the tests: undefined names,
// unused variables and shadowing are errors, and web/src keeps lines within 120 characters.
// `npx eslint .` (tools/test runs it).
'use strict';
const js = require('@eslint/js');
const globals = require('globals');

const RULES = {
  'no-undef': 'error',
  'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none' }],
  'no-shadow': ['error', { builtinGlobals: false }],
  'no-var': 'error',
  eqeqeq: ['error', 'always', { null: 'ignore' }]
};
// What ships: 120 characters a line, long regular expressions and URLs apart.
const MAX_LEN = { 'max-len': ['error', { code: 120, ignoreRegExpLiterals: true, ignoreUrls: true }] };

module.exports = [
  { ignores: ['build*/**', 'node_modules/**', 'web/dist/**', '.cache/**', 'tests/artifacts/**',
    'tools/bench/**',      // benchmark scripts: peers' page globals; not part of what ships
    'web/src/engine/engine-pre.js', 'web/src/engine/engine-post.js'] },   // the engine's scope: halves of one line
  js.configs.recommended,
  {
    files: ['web/src/**/*.js'],
    ignores: ['web/src/engine/**'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module',
      globals: Object.assign({}, globals.browser, globals.worker,
        { BlockLens: 'readonly', __WORKER_CODE__: 'readonly', __ELEMENT_CSS__: 'readonly' }) },
    rules: Object.assign({}, RULES, MAX_LEN)
  },
  {
    // A sentence of the page is one string: it is not broken up to fit.
    files: ['web/src/i18n/*.js'],
    rules: { 'max-len': ['error', { code: 120, ignoreStrings: true, ignoreRegExpLiterals: true, ignoreUrls: true }] }
  },
  {
    // The engine wrapper: classic scripts that emcc concatenates, after its own output, into one
    // function scope (cmake/wasm.cmake). Each file names what it takes from the files before it
    // (/* global */) and leaves to those after it (/* exported */). ES2020: the file is shipped
    // as it is (Node 18, Firefox ESR); root and blocklensModule are the scope's, the factories emcc's.
    files: ['web/src/engine/*.js'],
    languageOptions: { ecmaVersion: 2020, sourceType: 'script', globals: Object.assign({}, globals.browser,
      globals.worker, { module: 'readonly', Buffer: 'readonly', root: 'readonly', blocklensModule: 'readonly',
        BlockLensCore: 'readonly', BlockLensCoreScalar: 'readonly' }) },
    rules: Object.assign({}, RULES, MAX_LEN)
  },
  {
    files: ['tools/**/*.js', 'tests/**/*.js', 'eslint.config.js'],
    // Functions run inside pages see the engine as a global.
    languageOptions: { ecmaVersion: 2022, sourceType: 'commonjs', globals: Object.assign({}, globals.node, globals.browser,
      { BlockLens: 'readonly' }) },
    rules: Object.assign({}, RULES, { 'no-var': 'off' })
  }
];
