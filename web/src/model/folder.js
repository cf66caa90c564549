/* folder.js - what the page tells of a model folder the reader opens, from its files alone: the
   name, architecture, exact parameter count and dtypes (summed over the safetensors headers,
   GPT-2's mask buffers left out), and whether its tokenizer needs the tokenizer module. No DOM;
   File / Blob in, plain values out (the Worker and the page share it). */

const emptyParts = () => ({ embeddings: 0, attention: 0, ffn: 0, norms: 0, other: 0, attentionPerLayer: 0,
  ffnPerLayer: 0 });
const base = (f) => String(f.webkitRelativePath || f.name).split('/').pop();
const folderName = (f) => { const p = String(f.webkitRelativePath || '').split('/'); return p.length > 1 ? p[0] : ''; };

// files: a FileList or File[] -> { name: File } by base name (a folder's prefix dropped).
export function byName(files) {
  const out = Object.create(null);
  Array.from(files).forEach((f) => { out[base(f)] = f; });
  return out;
}

export const needsTokenizer = (named) => 'tokenizer.json' in named || ('merges.txt' in named && 'vocab.json' in named);

// A tensor's part of the model, by its Hugging Face name (GPT-2's or the Llama family's).
function partOf(name) {
  if (/(^|\.)(wte|wpe|embed_tokens|lm_head)\./.test(name)) return 'embeddings';
  if (/(^|\.)(ln_\d|ln_f|norm|input_layernorm|post_attention_layernorm|q_norm|k_norm)\./.test(name)) return 'norms';
  if (/\.(attn|self_attn)\./.test(name)) return 'attention';
  if (/\.mlp\./.test(name)) return 'ffn';
  return 'other';
}
const firstLayer = (name) => /(^|\.)(h|layers)\.0\./.test(name);

// One safetensors header -> { params, dtypes, parts } (buffers such as GPT-2's attn.bias not counted).
async function header(file) {
  const head = new DataView(await file.slice(0, 8).arrayBuffer());
  const n = Number(head.getBigUint64(0, true));
  if (!(n > 0 && n < 1e8)) return { params: 0, dtypes: [] };
  const json = JSON.parse(new TextDecoder().decode(await file.slice(8, 8 + n).arrayBuffer()));
  let params = 0;
  const dtypes = new Set(), parts = emptyParts();
  Object.keys(json).forEach((k) => {
    if (k === '__metadata__' || /\.attn\.(masked_)?bias$/.test(k) && !/c_attn/.test(k)) return;
    const size = json[k].shape.reduce((a, b) => a * b, 1), part = partOf(k);
    params += size;
    parts[part] += size;
    if (firstLayer(k) && (part === 'attention' || part === 'ffn')) parts[part + 'PerLayer'] += size;
    dtypes.add(json[k].dtype);
  });
  return { params, dtypes: [...dtypes], parts };
}

// Everything the page and its figures read of a loaded folder: describe()'s facts and the
// model's sizes (serial: which opening this is, for the stages' keys).
export async function facts(files, model, serial) {
  return Object.assign(await describe(files, model), { serial, layers: model.nLayers, d: model.dModel, dff: model.dFF,
    heads: model.nHeads, kvHeads: model.nKvHeads, headDim: model.headDim, vocabSize: model.vocabSize,
    positions: model.nPositions, activation: model.activation });
}

// What params.setOpened takes: the facts, the page's tokenizer ({ encode, label, text }), the
// activation and norm as the settings name them.
export const openedModel = (meta, tok) => Object.assign({}, meta, tok, { act: meta.activation,
  norm: meta.activation === 'swiglu' ? 'rms' : 'layer' });

// The facts shown beside the Weights field, after the engine has loaded the folder.
export async function describe(files, model) {
  const named = byName(files), list = Array.from(files);
  let cfg = model.config || {};
  try {
    if (named['config.json']) cfg = JSON.parse(await named['config.json'].text());
  } catch (e) { /* the engine's then */ }
  let params = 0;
  const dtypes = new Set(), counts = emptyParts();
  for (const f of Object.keys(named).filter((k) => /\.safetensors$/.test(k))) {
    const h = await header(named[f]);
    params += h.params;
    h.dtypes.forEach((d) => dtypes.add(d));
    Object.keys(counts).forEach((k) => { counts[k] += h.parts[k]; });
  }
  counts.total = params;
  const arch = (Array.isArray(cfg.architectures) && cfg.architectures[0]) || cfg.model_type || 'gpt2';
  const name = folderName(list[0] || {}) || (typeof cfg._name_or_path === 'string' && cfg._name_or_path) || arch;
  return { name: String(name).slice(0, 80), arch: String(arch).slice(0, 80),
    modelType: String(cfg.model_type || 'gpt2'),
    ffnBias: !cfg.model_type || cfg.model_type === 'gpt2' || !!cfg.mlp_bias,
    // o_proj's bias, as the engine read the config (GPT-2's has no o_bias key: always there;
    // Qwen2 has q/k/v biases but none on o_proj)
    oBias: !model.config || model.config.o_bias !== false,
    params, counts, dtype: [...dtypes].join(' + '), heapBytes: model.heapBytes };
}
