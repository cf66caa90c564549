// state_parse.test.js - the page's settings parser (web/src/core/params.js) and the element's
// link check against hostile input: prototype keys are unknown keys, quoted values are short,
// and only http(s) or relative links reach an href.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const params = require(path.join(SRC, 'core', 'params.js'));
const { t } = require(path.join(SRC, 'core', 'i18n.js'));
const { safeLink } = require(path.join(SRC, 'entries', 'element.js'));

test('prototype_names_in_the_hash_are_unknown_keys_not_settings', () => {
  for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    const r = params.parseHash('#' + k + '=1&d=12&heads=3');
    assert.deepEqual(r.errors, [], k);
    assert.equal(r.state.d, 12, k);
    assert.equal(Object.getPrototypeOf(r.state), Object.prototype, k);
    const c = params.coerce(k, 'x');
    assert.equal(c.error && c.error.code, 'unknownKey', k);
  }
});

test('every_error_message_of_the_parser_fills_its_template', () => {
  const hashes = ['#d=abc', '#d=99999', '#act=nope', '#causal=maybe', '#pval=1e400', '#constructor=x', '#%E0%A4%A=1'];
  for (const h of hashes) {
    for (const e of params.parseHash(h).errors) {
      for (const lang of ['en', 'zh']) assert.doesNotMatch(t(lang, 'err_' + e.code, e.vars), /\{\w+\}/, h + ' ' + lang);
    }
  }
});

test('a_huge_value_is_quoted_short', () => {
  const big = 'x'.repeat(1 << 20);
  for (const key of ['d', 'act', 'causal', 'pval']) {
    const e = params.coerce(key, big).error;
    assert.ok(e, key);
    const msg = t('en', 'err_' + e.code, e.vars);
    assert.ok(msg.length < 120, `${key}: ${msg.length} characters`);
  }
  assert.equal(params.quote('远'.repeat(50)), '远'.repeat(40) + '\u2026', 'cut by characters');
  assert.equal(params.quote('short'), 'short');
});

test('only_http_and_relative_links_reach_the_open_link', () => {
  const base = 'https://blog.example/post/';
  assert.equal(safeLink('index.html', base), 'https://blog.example/post/index.html');
  assert.equal(safeLink('../blocklens/index.html#x', base), 'https://blog.example/blocklens/index.html');
  assert.equal(safeLink('https://other.example/bl/', base), 'https://other.example/bl/');
  for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', '\u0001javascript:alert(1)',
    'data:text/html,<b>x</b>', 'vbscript:x', 'file:///etc/passwd', 'blob:https://blog.example/x']) {
    assert.equal(safeLink(bad, base), null, JSON.stringify(bad));
  }
});
