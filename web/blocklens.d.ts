// blocklens.d.ts - TypeScript declarations for the BlockLens engine (web/dist/blocklens.js).
// All matrices are row-major; a linear layer is y = x @ W + b with W stored (in, out).

/* A float input: an array, or weights kept in the engine's heap (engine.holdWeights), which a
   call reads in place instead of copying them in. */
export type FloatArray = Float32Array | Float64Array | number[] | HeldWeights;
export interface HeldWeights {
  readonly length: number;   // values held; 0 once freed
  readonly freed: boolean;
  free(): void;              // gives the heap memory back; again, it does nothing
}
export type Activation = 'relu' | 'gelu' | 'gelu_tanh' | 'silu' | 'identity' | 'swiglu' | 'geglu';
export type PresetName = 'transformer-base' | 'transformer-big' | 'bert-base' | 'gpt2' | 'llama-2-7b' | 'mixtral-8x7b'
  | 'qwen2-0.5b' | 'poems';

export interface NumpyRandom {
  readonly seed: number;
  /** np.random.randn(n): the same doubles as numpy's legacy RandomState. */
  randn(n: number): Float64Array;
  /** np.random.rand(n) */
  rand(n: number): Float64Array;
  /** Float32Array.from(randn(n)): how the page draws its weights. */
  randnF32(n: number): Float32Array;
  /** A second stream that continues from this point independently of this one. */
  copy(): NumpyRandom;
}

export interface FfnOptions {
  L: number; dModel: number; dFF: number;
  x: FloatArray;                       // (L, dModel)
  activation?: Activation;             // default 'relu'
  W1?: FloatArray; b1?: FloatArray;    // (dModel, dFF), (dFF); the gate when gated
  W3?: FloatArray; b3?: FloatArray;    // gated only: the up projection
  W2?: FloatArray; b2?: FloatArray;    // (dFF, dModel), (dModel)
  Wg?: FloatArray; bg?: FloatArray;    // Llama names: Wg = W1, Wu = W3, Wd = W2
  Wu?: FloatArray; bu?: FloatArray;
  Wd?: FloatArray; bd?: FloatArray;
}

export interface FfnResult {
  hidden: Float32Array;      // (L, dFF) pre-activation
  activated: Float32Array;   // (L, dFF)
  out: Float32Array;         // (L, dModel)
  gate?: Float32Array;       // gated: same array as hidden
  up?: Float32Array;         // gated: (L, dFF)
}

/** Mixtral-style mixture of experts: expert weights stacked on a leading expert axis, named as
    in FfnOptions (gated: W1/Wg the gate, W3/Wu the up projection, W2/Wd the down projection). */
export interface MoeOptions extends Omit<FfnOptions, 'L' | 'dModel' | 'dFF' | 'x'> {
  L: number; dModel: number;
  dFF: number;                         // per expert
  nExperts: number;                    // 1..64
  topK: number;                        // 1..nExperts: experts per token
  x: FloatArray;                       // (L, dModel)
  Wr: FloatArray;                      // (dModel, nExperts) the router, no bias
  // W1 (nExperts, dModel, dFF), b1 (nExperts, dFF), W2 (nExperts, dFF, dModel), b2 (nExperts, dModel)
}

export interface MoeResult {
  logits: Float32Array;      // (L, nExperts) x @ Wr
  probs: Float32Array;       // (L, nExperts) softmax over every expert (not used by out)
  topIndex: Int32Array;      // (L, topK) largest logit first; equal logits: the lower index first
  topWeight: Float32Array;   // (L, topK) softmax over the chosen logits only
  load: Int32Array;          // (nExperts) tokens routed to each expert
  out: Float32Array;         // (L, dModel) sum of topWeight x the chosen experts' FFN outputs
}

export interface AttentionWeights {
  Wq: FloatArray; Wk: FloatArray; Wv: FloatArray; Wo: FloatArray;   // (dModel, dModel)
  bq?: FloatArray; bk?: FloatArray; bv?: FloatArray; bo?: FloatArray; // (dModel)
  causal?: boolean;            // default false (bidirectional)
  scale?: boolean;             // default true: divide scores by sqrt(d_k)
  keyMask?: ArrayLike<number | boolean>;  // (L): 0/false = padding nobody attends to
}

export interface AttentionOptions extends AttentionWeights {
  L: number; dModel: number; nHeads: number;
  x: FloatArray;
}

export interface AttentionResult {
  q: Float32Array; k: Float32Array; v: Float32Array;   // (L, dModel)
  scores: Float32Array;     // (nHeads, L, L) raw q·k, unscaled and unmasked
  weights: Float32Array;    // (nHeads, L, L) softmax; masked = 0; fully masked row = 0
  context: Float32Array;    // (nHeads, L, dK)
  concat: Float32Array;     // (L, dModel)
  out: Float32Array;        // (L, dModel) after Wo
}

export interface NormOptions {
  L: number; d: number; x: FloatArray;
  gamma?: FloatArray; beta?: FloatArray;   // (d); rmsNorm takes no beta
  eps?: number;                            // default 1e-5
}

export interface NormResult {
  out: Float32Array;
  rstd: Float32Array;        // per token (layer, rms) or per feature (batch)
  mean?: Float32Array;       // layer and batch only
}

export interface EncoderLayerOptions extends AttentionWeights, Omit<FfnOptions, 'L' | 'dModel' | 'dFF' | 'x'> {
  L: number; dModel: number; nHeads: number; dFF: number;
  x: FloatArray;
  norm?: 'post' | 'pre';     // default 'post' (BERT); 'pre' as GPT-2
  eps?: number;
  ln1Gamma?: FloatArray; ln1Beta?: FloatArray; ln2Gamma?: FloatArray; ln2Beta?: FloatArray;
}

export interface EncoderLayerResult {
  attn: AttentionResult;
  ffn: FfnResult;
  resid1: Float32Array; norm1: Float32Array; resid2: Float32Array; norm2: Float32Array;
  out: Float32Array;
}

export interface ModelConfig {
  vocab?: number; maxPositions?: number; typeVocab?: number;
  dModel: number; nLayers?: number; nHeads: number; nKvHeads?: number; dFF: number;
  gated?: boolean; norm?: 'layer' | 'rms';
  /** true / 'all': q, k, v and o carry biases; 'qkv': q, k and v only (Qwen2); false / 'none' */
  attnBias?: boolean | 0 | 1 | 'all' | 'qkv' | 'none'; ffnBias?: boolean;
  embedNorm?: boolean; finalNorm?: boolean; lmHead?: boolean; pooler?: boolean;
  nExperts?: number; topK?: number; nDecLayers?: number;
}

export interface ParamCount {
  embeddings: number; attention: number; ffn: number; norms: number; other: number;
  total: number; active: number; attentionPerLayer: number; ffnPerLayer: number;
  printedTotal: number;      // the paper's / model card's figure for presets, else 0
}

/** GPT-2's config.json: the keys loadModel reads (others are ignored). */
export interface Gpt2Config {
  n_embd: number; n_layer: number; n_head: number; n_positions: number; vocab_size: number;
  /** 'relu' | 'gelu' (erf) | 'gelu_new' / 'gelu_pytorch_tanh' (tanh approximation) | 'silu';
      default 'gelu_new' */
  activation_function?: string;
  layer_norm_epsilon?: number;           // default 1e-5
  n_inner?: number | null;               // null: 4 n_embd
  bos_token_id?: number; unk_token_id?: number;   // used when the vocab has no "<s>" / "<unk>"
  [key: string]: unknown;
}

/** A Llama-family config.json (model_type llama, mistral, qwen2, qwen3): the keys loadModel reads. */
export interface LlamaConfig {
  model_type: 'llama' | 'mistral' | 'qwen2' | 'qwen3';
  hidden_size: number; intermediate_size: number; num_hidden_layers: number;
  num_attention_heads: number; vocab_size: number; max_position_embeddings: number;
  num_key_value_heads?: number;          // default num_attention_heads; must divide it
  head_dim?: number | null;              // default hidden_size / num_attention_heads; even
  rms_norm_eps?: number;                 // default 1e-6
  rope_theta?: number;                   // default 10000 (or rope_parameters.rope_theta)
  /** null, or rope_type (older: type) "default" or "llama3" with factor, low_freq_factor,
      high_freq_factor, original_max_position_embeddings; linear, dynamic, yarn, ... are refused. */
  rope_scaling?: { [key: string]: unknown } | null;
  rope_parameters?: { [key: string]: unknown } | null;   // the newer style, rope_theta inside
  tie_word_embeddings?: boolean;         // default false: lm_head.weight is read
  attention_bias?: boolean;              // q, k, v, o biases (Qwen2: q, k, v always, never o)
  mlp_bias?: boolean;
  hidden_act?: 'silu';
  sliding_window?: number | null;        // Mistral: bounds nPositions (exact below the window)
  use_sliding_window?: boolean;          // Qwen: true is refused
  bos_token_id?: number; unk_token_id?: number;
  [key: string]: unknown;
}

export interface LoadModelOptions {
  /** The bytes of a .safetensors file (F32, F16 or BF16) with GPT-2's tensor names (wte, wpe,
      h.N.ln_1, h.N.attn.c_attn (n_embd, 3 n_embd), h.N.attn.c_proj, h.N.ln_2, h.N.mlp.c_fc,
      h.N.mlp.c_proj, ln_f; a "transformer." prefix is accepted), Conv1D weights (in, out);
      or, for a LlamaConfig, Hugging Face's names (model.embed_tokens, model.layers.N.self_attn.
      q_proj / k_proj / v_proj / o_proj (+ q_norm, k_norm), .mlp.gate_proj / up_proj / down_proj,
      the two layer norms, model.norm, lm_head), nn.Linear weights (out, in), kept in the heap
      in the file's dtype when every tensor has the same one. */
  weights: Uint8Array | ArrayBuffer;
  config: Gpt2Config | LlamaConfig;
  /** vocab_size distinct strings: token i is vocab[i]. */
  vocab: string[];
}

/** A Hugging Face model folder's files by name (as in the folder): config.json, model.safetensors
    or model.safetensors.index.json and its shards, vocab.json (an array of strings), or
    tokenizer.json / vocab.json + merges.txt (these need blocklens-tokenizers.js). Blobs are read
    in pieces (Blob.slice().arrayBuffer()), never whole. */
export interface ModelFiles {
  files: { [name: string]: Uint8Array | ArrayBuffer | Blob };
}

/** A folder load's progress: bytes of the weights' files done with (header and data), of all of
    them; phase 'headers' once per file, 'weights' per piece read, then 'done' (bytesRead is then
    bytesTotal). */
export interface LoadProgress {
  bytesRead: number;
  bytesTotal: number;
  phase: 'headers' | 'weights' | 'done';
}

export interface LoadFolderOptions {
  onProgress?: (e: LoadProgress) => void;
  /** Once aborted, the load rejects with an Error saying it was cancelled and frees everything. */
  signal?: AbortSignal;
}

/** One layer's intermediates (L tokens, d = n_embd, H = n_head). */
export interface DecoderLayerResult {
  x: Float32Array;            // (L, d) the residual entering the layer (after patch / set edits of it)
  input: Float32Array;        // the same array as x
  norm1: Float32Array;        // (L, d)
  attention: AttentionResult; // causal; context (H, L, d / H); out after c_proj
  resid1: Float32Array;       // (L, d) x + attention.out
  norm2: Float32Array;        // (L, d)
  ffn: FfnResult;             // hidden, activated (L, n_inner); out (L, d)
  resid2: Float32Array;       // (L, d) resid1 + ffn.out: the next layer's x
}

/** One Llama-family layer's intermediates (Q = nHeads headDim, KV = nKvHeads headDim, F = dFF). */
export interface LlamaLayerResult {
  x: Float32Array;            // (L, d) the residual entering the layer (after patch / set edits of it)
  input: Float32Array;        // the same array as x
  norm1: Float32Array;        // (L, d) RMSNorm(x) * input_layernorm
  rstd1: Float32Array;        // (L) 1 / sqrt(mean(x^2) + eps)
  attention: {
    q: Float32Array;          // (L, Q) after bias and q_norm, before RoPE
    k: Float32Array; v: Float32Array;   // (L, KV)
    qRot: Float32Array;       // (L, Q) after RoPE
    kRot: Float32Array;       // (L, KV) after RoPE
    scores: Float32Array;     // (nHeads, L, L) raw q_rot k_rot^T, unscaled and unmasked
    weights: Float32Array;    // (nHeads, L, L) causal softmax(scores / sqrt(headDim))
    context: Float32Array;    // (nHeads, L, headDim)
    concat: Float32Array;     // (L, Q)
    out: Float32Array;        // (L, d) after o_proj
  };
  resid1: Float32Array;       // (L, d) x + attention.out
  norm2: Float32Array;        // (L, d)
  rstd2: Float32Array;        // (L)
  ffn: { gate: Float32Array; up: Float32Array; activated: Float32Array;   // (L, F): silu(gate) * up
    out: Float32Array };      // (L, d) after down_proj
  resid2: Float32Array;       // (L, d) resid1 + ffn.out
}

export interface LlamaResult {
  logits: Float32Array | null;   // (L, vocab_size), (vocab_size) with logits 'last'; null with options.stop
  embeddings: Float32Array;   // (L, d) embed_tokens[ids]
  hidden: Float32Array | null;   // (L, d) after model.norm; null with options.stop
  layers: (LlamaLayerResult | null)[];
  /** With options.lens. */
  lens?: (LensEntry | null)[];
}

/** The logit lens of one residual stream: per row its top k tokens (largest probability first;
    equal logits: the lower id first) through the final norm and unembedding, as the logits are;
    and the rank and probability of the token that actually comes next (ids[i + 1]). */
export interface LensEntry {
  ids: Int32Array;            // (L, k)
  probs: Float32Array;        // (L, k) softmax over the whole vocabulary
  rank: Int32Array;           // (L) row i: ids[i + 1]'s rank in the same order (1 = the top); 0 at the last row
  prob: Float32Array;         // (L) row i: ids[i + 1]'s probability; NaN at the last row
}

/** A site inside a block (options.set), with its width per row: resid_in (d, the residual
    entering the block), attn_in (d, norm1), head_out (headDim: one head's context before o_proj),
    attn_out (d, after o_proj with its bias), resid_mid (d, resid1), ffn_in (d, norm2), ffn_hidden
    (dFF, activated), ffn_out (d). */
export type Site = 'resid_in' | 'attn_in' | 'head_out' | 'attn_out' | 'resid_mid' | 'ffn_in' | 'ffn_hidden' |
  'ffn_out';

/** model.forward's options. Layers and heads count from 0. Edits apply in the order patch, ablate,
    set, each right after its site is computed (kept intermediates show the edited values). Every
    bad value throws an Error naming it; the model stays usable. */
export interface ForwardOptions {
  /** Which layers' intermediates to keep (default all). */
  layers?: number[];
  /** k in [1, vocabSize]: result.lens, nLayers + 1 entries: 0 the embeddings, i the residual after
      block i - 1 (the last through the final norm exactly as the logits); null where not computed. */
  lens?: number;
  /** [layer, head]: that head's output zeroed before o_proj (attention.out is then o_proj's bias
      where every head is); [layer, 'ffn']: that layer's FFN output zeroed (resid2 = resid1). */
  ablate?: [number, number | 'ffn'][];
  /** The residual entering block `layer` at `position` replaced by from.layers[layer].x's row
      (from: an earlier result of this model, same L, that kept layer `layer`; or a copy of one,
      e.g. posted from a Worker: then its layers has nLayers entries and layers[layer].x is
      L x d finite float32 values). */
  patch?: { layer: number; position: number; from: DecoderResult | LlamaResult }[];
  /** Begin at block `layer` from from.layers[layer].x (from as for patch); earlier layers are not
      run (null). */
  start?: { layer: number; from: DecoderResult | LlamaResult };
  /** The low-level form: values (the site's width, or L x width without position; null: zeros). */
  set?: { layer: number; site: Site; position?: number; values: Float32Array | null; head?: number }[];
  /** n in [1, nLayers]: run blocks < n only; logits and hidden are null. */
  stop?: number;
  /** 'all' (default): logits (L, vocab); 'last': only the last row is unembedded, logits (vocab),
      bit for bit the last row of the 'all' call (for sweeps that read only the next token). */
  logits?: 'all' | 'last';
}

export interface DecoderResult {
  logits: Float32Array | null;   // (L, vocab_size): row i predicts token i + 1; (vocab_size) with logits
                                 // 'last'; null with options.stop
  embeddings: Float32Array;   // (L, d) wte[ids] + wpe[0:L]
  hidden: Float32Array | null;   // (L, d) after ln_f, before the tied unembedding; null with options.stop
  /** One entry per layer: null for the layers not asked for (or not run: start, stop). */
  layers: (DecoderLayerResult | null)[];
  /** With options.lens. */
  lens?: (LensEntry | null)[];
}

/** A loaded model: its weights live in the wasm heap (float32; the Llama family's in the file's
    dtype) until free(). Its fields are read-only at run time too (assigning one throws in strict
    code); config and vocab are frozen. */
export interface Model {
  readonly config: Readonly<Gpt2Config> | Readonly<{ [key: string]: unknown }>;   // as read, defaults filled in
  readonly vocab: readonly string[];
  readonly nLayers: number; readonly dModel: number; readonly nHeads: number; readonly dFF: number;
  readonly nKvHeads: number;   // GPT-2: nHeads
  readonly headDim: number;    // GPT-2: dModel / nHeads
  readonly vocabSize: number; readonly nPositions: number;
  readonly activation: Activation; readonly eps: number;
  readonly bosId: number; readonly unkId: number;   // "<s>", "<unk>" (or the config's); -1: none
  /** Bytes of wasm heap the weights hold. */
  readonly heapBytes: number;
  /** The id of "<s>", then one id per character (code point), "<unk>"'s for unknown ones; a
      model loaded with a tokenizer (tokenizer.json): that tokenizer's ids. */
  encode(text: string): Int32Array;
  /** The vocabulary strings of ids, joined (special tokens as written: "<s>"). */
  decode(ids: ArrayLike<number>): string;
  /** ids: 1 to nPositions token ids. options: which layers to keep, the lens, and the hooks
      (ForwardOptions). */
  forward(ids: Int32Array | number[], options?: ForwardOptions): DecoderResult | LlamaResult;
  /** Layer l's weights under the names engine.attention / ffn / encoderLayer take (copies;
      Wq, Wk, Wv are c_attn's column blocks); for the Llama family, float32 copies in the file's
      (out, in) layout, only those the model has. */
  layerWeights(l: number): {
    ln1Gamma: Float32Array; ln1Beta: Float32Array; ln2Gamma: Float32Array; ln2Beta: Float32Array;
    Wq: Float32Array; bq: Float32Array; Wk: Float32Array; bk: Float32Array;
    Wv: Float32Array; bv: Float32Array; Wo: Float32Array; bo: Float32Array;
    W1: Float32Array; b1: Float32Array; W2: Float32Array; b2: Float32Array;
  } | {
    attnNorm: Float32Array; Wq: Float32Array; Wk: Float32Array; Wv: Float32Array; Wo: Float32Array;
    ffnNorm: Float32Array; Wgate: Float32Array; Wup: Float32Array; Wdown: Float32Array;
    bq?: Float32Array; bk?: Float32Array; bv?: Float32Array; bo?: Float32Array;
    qNorm?: Float32Array; kNorm?: Float32Array; bgate?: Float32Array; bup?: Float32Array; bdown?: Float32Array;
  };
  /** Direct logits of v (dModel), e.g. an FFN neuron's output row: U (vocab, d) · (g ⊙ v), U the
      unembedding (GPT-2's tied wte, lm_head or the tied embed_tokens), g the final norm's weight;
      no centring, no bias; summed in double. -> (vocabSize). */
  directLogits(v: Float32Array): Float32Array;
  /** Gives the heap memory back; any later call throws. Safe to call twice. */
  free(): void;
}

/** bl.trainer's model: HF GPT-2 config keys (the vocabulary comes from the text). */
export interface TrainConfig {
  n_embd: number; n_layer: number; n_head: number; n_positions: number;
  n_inner?: number | null;                               // default / null: 4 n_embd
  activation_function?: 'relu' | 'gelu' | 'gelu_new';   // default 'gelu_new' (tanh approximation)
  layer_norm_epsilon?: number;                           // default 1e-5
}

export interface TrainerOptions {
  /** The training text: one sample per line ("\n"; a trailing "\r" dropped, empty lines
      skipped), each "<s>" + the line cut to n_positions characters (code points). With 20 lines
      or more, every 20th (line i with i % 20 == 19) is held out for evaluate(). The vocabulary:
      "<s>" (id 0), "<unk>" (id 1), then the training lines' characters by count, ties by code
      point, as many as `coverage` asks. Fewer than 2 training characters throws naming `text`. */
  text: string;
  config: TrainConfig;
  seed?: number;         // integer in [0, 2^32): initialisation and batch order; default 1234
  batch?: number;        // lines per step, default 8
  lr?: number;           // peak learning rate, default 3e-3
  weightDecay?: number;  // AdamW's, on the matrices only (wte, wpe, c_attn, c_proj, c_fc); default 0.01
  warmup?: number;       // steps of linear warm-up (step k: lr (k + 1) / warmup); default 0
  /** Total steps: with it, after the warm-up a cosine from lr down to lr / 10 at step `steps`
      (lr / 10 after it), as tools/train/train.py; without it, constant lr. */
  steps?: number;
  /** In [0, 1], default 1 (every character): the vocabulary keeps the most frequent characters
      until they cover this share of the training lines' characters (tools/train/train.py uses
      0.99); the others become "<unk>" (id 1) in training, evaluate() and the saved tokenizer. */
  coverage?: number;
}

/** What the last step() did. */
export interface TrainStep {
  loss: number;          // the batch's mean loss (nats per token)
  tokens: number;        // targets scored (the lines' characters)
  positions: number;     // batch x L computed (L: the batch's longest line + 1, at most n_positions)
  lr: number;            // the learning rate it used
  gradNorm: number;      // the gradients' global 2-norm before clipping to 1
}

/** A GPT-2 trained in the engine (src/train.c): pre-LN, causal, tied embeddings, initialised as
    GPT-2 (normal std 0.02, wpe 0.01, residual projections 0.02 / sqrt(2 n_layer), biases 0, LN
    gains 1) from the engine's numpy-compatible RNG. Each step draws `batch` training lines
    uniformly with replacement (a seeded stream: the same options give the same losses, bit for
    bit), runs forward and backward, clips the gradients' global norm to 1 and takes one AdamW
    step (betas 0.9, 0.95, eps 1e-8, torch.optim.AdamW's update). */
export interface Trainer {
  readonly vocab: readonly string[];
  /** The full config.json save() writes (vocab_size included). */
  readonly config: Readonly<Gpt2Config>;
  readonly parameters: number;
  readonly trainLines: number;
  readonly heldOutLines: number;
  readonly batch: number;
  /** The share of the training lines' characters the vocabulary covers (1 without <unk> targets). */
  readonly coverage: number;
  /** Steps taken. */
  readonly steps: number;
  /** The last step's numbers; null before the first. */
  readonly lastStep: TrainStep | null;
  /** Trains on one batch; returns its mean loss (nats per token). */
  step(): number;
  /** Mean loss (nats per token) without training: of the held-out lines (throws when the text had
      fewer than 20 lines), or of `text`'s lines, split as trainer() splits its text. */
  evaluate(text?: string): number;
  /** The baseline: the mean loss of the held-out lines (or of `text`'s) under the training
      targets' character frequencies; a token never seen as a target counts as frequency 1e-12. */
  unigramLoss(text?: string): number;
  /** The learning rate step k (0-based; default the next) uses. */
  lrAt(k?: number): number;
  /** A Model (as loadModel returns) of a COPY of the current weights: later steps do not change
      it. Free it when done. */
  model(): Model;
  /** The Hugging Face folder of the current weights: config.json, model.safetensors (F32, GPT-2's
      tensor names) and tokenizer.json (a character-level BPE without merges; loadModel({ files })
      reads it through blocklens-tokenizers.js): the model it loads gives the same logits. */
  save(): { files: { 'config.json': Uint8Array; 'model.safetensors': Uint8Array; 'tokenizer.json': Uint8Array } };
  /** Gives the heap memory back; any later call throws. Safe to call twice. */
  free(): void;
}

export interface Engine {
  /** true when the wasm SIMD build runs, false for the scalar fallback. */
  readonly simd: boolean;
  /** true for the FMA build: relaxed-SIMD fused multiply-add in large matrix products
      (Chromium; Node 20 with --experimental-wasm-relaxed-simd). */
  readonly fma: boolean;
  /** The compiled wasm module this engine runs. Post it to a dedicated Worker (a
      WebAssembly.Module is structured-cloneable) and pass it to load({ wasmModule }) there, with
      the same simd / fma options, to skip decoding and compiling it again. */
  readonly wasmModule: WebAssembly.Module;
  readonly presets: PresetName[];
  readonly activations: Activation[];
  numpyRandom(seed: number): NumpyRandom;
  /* values copied into the heap once (checked finite) for any float input of any call of this
     engine; a freed handle, or one of another engine or of the wrong length, is refused. */
  holdWeights(values: Float32Array | Float64Array | number[]): HeldWeights;
  /* Every argument is checked before anything is computed; a bad one throws an Error whose
     message starts with "BlockLens: " and names it (values quoted at most 40 characters long);
     the engine keeps working. Each option is read once (getters and Proxies run once, in the
     call); an option name the call does not know (a misspelt `Causal`) throws and lists the
     known ones. Arrays count by their real kind and length (a Proxy of a typed array is not
     one; a subclass's own `length` is not asked). An exception thrown by the caller's code
     while the options are read comes back as a BlockLens Error with it as `cause`. A call
     needing more than the 4 GiB heap throws (naming its sizes) before anything is allocated.
     `into`: a previous result of the same call (same sizes and options); its arrays receive
     the outputs and it is returned, so repeated calls allocate nothing. Its arrays must be
     real Float32Arrays (Int32Arrays for moe's topIndex and load) of the output sizes, none
     overlapping another; a gated FFN's `gate` must be its `hidden` array or absent (added when
     `into` is extensible); else it throws and `into` is left untouched.
     Fresh results are Float32Arrays the caller owns. Small ones (4 KB of outputs or less, as at
     the page's sizes) are views of a shared 16 KB ArrayBuffer, never overlapping another
     result: copy an array (`.slice()`) before transferring its `.buffer` to a worker
     (transferring it detaches every result in that buffer; later calls start a new one). */
  ffn(options: FfnOptions, into?: FfnResult): FfnResult;
  moe(options: MoeOptions, into?: MoeResult): MoeResult;
  attention(options: AttentionOptions, into?: AttentionResult): AttentionResult;
  layerNorm(options: NormOptions, into?: NormResult): NormResult;
  rmsNorm(options: NormOptions, into?: NormResult): NormResult;
  batchNorm(options: NormOptions, into?: NormResult): NormResult;
  encoderLayer(options: EncoderLayerOptions, into?: EncoderLayerResult): EncoderLayerResult;
  /** Throws when a count is past 2^53 - 1 (a JS number would hold it rounded). */
  paramCount(config: ModelConfig | PresetName): ParamCount;
  presetConfig(name: PresetName): { config: Required<ModelConfig>; printedTotal: number };
  /** Bytes of wasm memory (grows on demand, never shrinks). */
  heapBytes(): number;
  /** Parses and checks the whole file first (a truncated file, a bad header, a missing, misshapen
      or overlapping tensor, an unknown dtype, a NaN: a BlockLens Error naming it), then copies
      the weights into the heap once; a failed load leaves nothing allocated. Takes no options. */
  loadModel(options: LoadModelOptions): Model;
  /** A Hugging Face model folder: a path (Node's fs), { files }, or a browser's FileList
      (<input type=file webkitdirectory>: the folder prefix of webkitRelativePath is dropped) or
      File[]. Every file's header is read and checked (across shards and against the index) before
      the heap is taken; then each tensor is read in pieces into it. Rejects with a BlockLens Error
      naming the file and tensor (a missing config.json, weights or shard, a truncated shard, a
      tensor in two shards or not where the index puts it, a dtype other than F32, F16 and BF16,
      a model_type other than gpt2, shapes against the config, a model past the heap, a tokenizer
      that needs blocklens-tokenizers.js); a failed or cancelled load frees what it took. */
  loadModel(folder: string | ModelFiles | FileList | File[], options?: LoadFolderOptions): Promise<Model>;
  /** A GPT-2 of `config` to train on `text` (see Trainer). Bad options throw naming the option. */
  trainer(options: TrainerOptions): Trainer;
}

export interface LoadOptions {
  simd?: boolean;
  fma?: boolean;
  /** An engine.wasmModule from this same file (e.g. posted from the page to a Worker): it is
      instantiated instead of decoding and compiling the inlined module. It must be of the
      build this call picks (scalar, SIMD or FMA): another one rejects with a BlockLens Error;
      anything but a WebAssembly.Module throws. When that build is already loaded, the checked
      module is not used: load() returns the same promise as ever. */
  wasmModule?: WebAssembly.Module;
}

/** One shared engine per page or process (per build); every call returns the same promise.
    The FMA build is picked where the runtime validates relaxed SIMD, else the SIMD build where
    it validates wasm SIMD, else the scalar build. { fma: false } and { simd: false } step down;
    true for either rejects where the runtime lacks it. The inlined module is decoded by the
    loader and never fetch()ed, so a strict Content-Security-Policy (script-src 'self'
    'wasm-unsafe-eval', no connect-src) logs nothing. */
export function load(options?: LoadOptions): Promise<Engine>;
export const version: string;
