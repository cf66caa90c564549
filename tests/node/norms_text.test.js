// norms_text.test.js - the norms figure's text gives the reasons Transformers use LayerNorm that
// hold (no dependence on the batch, so training and inference compute the same; sequences of any
// length, where BatchNorm needs padding), not "it treats every position alone" as the cause
// (issue 24, statement 5), in English and 中文.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const i18n = require(path.join(SRC, 'i18n', 'index.js'));

test('norms_text_gives_batch_independence_and_variable_length_as_the_reasons_en_zh', () => {
  const en = i18n.translator('en')('p_norms_2'), zh = i18n.translator('zh')('p_norms_2');
  assert.ok(!/That is why|treats every position alone/.test(en), en);
  assert.ok(!/这就是 Transformer 选用 LayerNorm 的原因|逐个位置单独处理/.test(zh), zh);
  // Reason 1: statistics from the token alone, none from the batch: training = inference.
  assert.match(en, /never from the other examples of a batch, so the model computes the same function in training and at inference/);
  assert.match(en, /BatchNorm uses the current batch's statistics while training and running averages afterwards/);
  assert.ok(zh.includes('与同一 batch 里的其他样本无关') && zh.includes('训练和推理时模型算的是同一个函数'), zh);
  // Reason 2: variable-length sequences; BatchNorm would need padding.
  assert.match(en, /sentences of any length need nothing special.*padded to one length/);
  assert.ok(zh.includes('句子长短不一') && zh.includes('补齐（padding）'), zh);
  // What the figure itself shows stays: one row for LayerNorm, every row for BatchNorm.
  assert.match(en, /^Perturb one token and LayerNorm changes that row only, while BatchNorm changes every row/);
  assert.ok(zh.startsWith('扰动一个 token，LayerNorm 只改变那一行；BatchNorm 却改变每一行'), zh);
});
