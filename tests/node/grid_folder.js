// grid_folder.js - the model view's large grid as a Hugging Face folder: a llama of 30 layers x
// 9 query heads (3 key/value heads of 8), d 72, d_ff 96, vocab 64, F32 random small weights
// (norm gains 1) and the llama fixture's tokenizer (one character per id). Forwards take
// milliseconds, so what it times is the page's drawing. Used by tests/browser/modelview.test.js
// and tools/bench/modelwide.js (--models mv30).
//   writeGridFolder(dir) -> dir: writes model.safetensors, config.json and tokenizer.json there.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { safetensors } = require('./checkpoint.js');

const GRID = { NL: 30, H: 9, KV: 3, dk: 8, d: 72, f: 96, V: 64 };
const LLAMA = path.join(__dirname, '..', 'fixtures', 'models', 'llama');

function writeGridFolder(dir) {
  const { NL, H, KV, dk, d, f, V } = GRID;
  const config = Object.assign(JSON.parse(fs.readFileSync(path.join(LLAMA, 'config.json'), 'utf8')),
    { hidden_size: d, intermediate_size: f, num_hidden_layers: NL, num_attention_heads: H, num_key_value_heads: KV,
      head_dim: dk });
  const shapes = { 'lm_head.weight': [V, d], 'model.embed_tokens.weight': [V, d], 'model.norm.weight': [d] };
  for (let l = 0; l < NL; l++) {
    const p = 'model.layers.' + l + '.';
    Object.assign(shapes, { [p + 'input_layernorm.weight']: [d], [p + 'post_attention_layernorm.weight']: [d],
      [p + 'mlp.down_proj.weight']: [d, f], [p + 'mlp.gate_proj.weight']: [f, d], [p + 'mlp.up_proj.weight']: [f, d],
      [p + 'self_attn.q_proj.weight']: [H * dk, d], [p + 'self_attn.k_proj.weight']: [KV * dk, d],
      [p + 'self_attn.v_proj.weight']: [KV * dk, d], [p + 'self_attn.o_proj.weight']: [d, H * dk] });
  }
  // Weights uniform in [-0.3, 0.3) from one Lehmer generator over the tensors in order.
  const tensors = {};
  let x = 12345;
  for (const [name, shape] of Object.entries(shapes)) {
    const n = shape.reduce((a, b) => a * b, 1), a = new Float32Array(n);
    for (let i = 0; i < n; i++) { x = (x * 48271) % 2147483647; a[i] = shape.length === 1 ? 1 : (x / 2147483647 - 0.5) * 0.6; }
    tensors[name] = ['F32', shape, a];
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'model.safetensors'), safetensors(tensors));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  fs.copyFileSync(path.join(LLAMA, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  return dir;
}

module.exports = { writeGridFolder, GRID };
