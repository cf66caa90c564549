// state_parse.test.js - the page's settings parser (web/src/model/params.js) and the element's
// link check against hostile input: prototype keys are unknown keys, quoted values are short,
// and only http(s) or relative links reach an href.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const params = require(path.join(SRC, 'model', 'params.js'));
const { t } = require(path.join(SRC, 'i18n', 'index.js'));
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

test('full_width_punctuation_stands_alone_like_the_cjk_text_around_it', () => {
  assert.equal(params.tokenize(params.defaults().tokens).length, 7, 'the classic example keeps its 7 tokens');
  assert.deepEqual(params.tokenize('pie，apple。'), ['pie', '，', 'apple', '。']);
  assert.deepEqual(params.tokenize('我爱吃pie，你呢？'), ['我', '爱', '吃', 'pie', '，', '你', '呢', '？']);
  assert.deepEqual(params.tokenize('「引号」、顿号；冒号：！'), ['「', '引', '号', '」', '、', '顿', '号', '；', '冒', '号', '：', '！']);
  assert.deepEqual(params.tokenize('a、b（c）'), ['a', '、', 'b', '（', 'c', '）']);
  // ASCII punctuation as before: in its word, alone next to a CJK character.
  assert.deepEqual(params.tokenize('pie, apple.'), ['pie,', 'apple.']);
  assert.deepEqual(params.tokenize('远方,有'), ['远', '方', ',', '有']);
  assert.deepEqual(params.tokenize('ＡＢＣ１２'), ['ＡＢＣ１２'], 'full-width letters and digits are not punctuation');
  assert.deepEqual(params.tokenize('x\u3000y'), ['x', 'y'], 'the ideographic space separates');
});

test('an_empty_number_field_says_it_is_empty', () => {
  for (const key of ['d', 'dff', 'heads', 'seed', 'pval']) {
    for (const raw of ['', '  ']) assert.equal(params.coerce(key, raw).error.code, 'empty', key + ' ' + JSON.stringify(raw));
  }
  assert.equal(t('en', 'err_empty'), 'the field is empty.');
  assert.equal(params.coerce('seed', 'x').error.code, 'int');
});

// A trained model's layer out of range is told in the model's own range (the poem model has 2
// blocks), not in the parameter list's limit for any model (48).
test('a_layer_out_of_range_names_the_trained_models_own_range', () => {
  const r = params.parseHash('weights=poems&layer=0');
  const e = r.errors.find((x) => x.key === 'layer');
  assert.deepEqual([e.code, e.vars.min, e.vars.max], ['range', 1, params.MODELS.poems.layers]);
  assert.match(t('en', 'err_range', e.vars), new RegExp('\\b1\\b.*\\b' + params.MODELS.poems.layers + '\\b'));
  assert.equal(params.coerce('layer', '0', { weights: 'random' }).error.vars.max, params.LIMITS.layers);
});

// The tokens field's hint and its error count the same tokens: a trained model's <s> is its own.
test('the_token_hint_and_the_too_many_error_count_the_same_tokens', () => {
  for (const weights of ['random', 'poems']) {
    const max = params.tokenCount({ weights, tokens: '' }).max;
    const text = weights === 'poems' ? '床'.repeat(max + 1) : Array.from({ length: max + 1 }, (_, i) => 'w' + i).join(' ');
    const s = Object.assign(params.defaults(), { weights, tokens: text });
    const e = params.validate(s).find((x) => x.code === 'tokensMany');
    assert.deepEqual([e.vars.n, e.vars.max], [params.tokenCount(s).n, max], weights);
    assert.equal(params.tokenCount(s).n, max + 1, weights);
  }
  const hint = t('en', 'hint_tokens_trained', params.tokenCount({ weights: 'poems', tokens: '床前 明月' }));
  assert.match(hint, /^4 characters/);
});
