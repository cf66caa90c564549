// eslint.config.js - lint for the front end (web/src), the tools and the tests: undefined names,
// unused variables and shadowing are errors. `npx eslint .` (tools/test runs it).
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

module.exports = [
  { ignores: ['build*/**', 'node_modules/**', 'web/dist/**', 'web/src/engine/**', '.cache/**', 'tests/artifacts/**',
    'tools/bench/**'] },   // benchmark scripts: peers' page globals; not part of what ships
  js.configs.recommended,
  {
    files: ['web/src/**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module',
      globals: Object.assign({}, globals.browser, globals.worker,
        { BlockLens: 'readonly', __WORKER_CODE__: 'readonly', __ELEMENT_CSS__: 'readonly' }) },
    rules: RULES
  },
  {
    files: ['tools/**/*.js', 'tests/**/*.js', 'eslint.config.js'],
    // Functions run inside pages see the engine as a global.
    languageOptions: { ecmaVersion: 2022, sourceType: 'commonjs', globals: Object.assign({}, globals.node, globals.browser,
      { BlockLens: 'readonly' }) },
    rules: Object.assign({}, RULES, { 'no-var': 'off' })
  }
];
