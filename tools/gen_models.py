#!/usr/bin/python3
# Tiny random checkpoints in Hugging Face's folder layout (config.json as transformers writes it
# for the architecture, model.safetensors or shards with model.safetensors.index.json) under
# tests/fixtures/models/<variant>/, each with a reference.json: an independent float64 PyTorch
# forward written from HF's LlamaForCausalLM / Qwen2 / Qwen3 / Mistral / GPT2LMHeadModel
# semantics (not the engine), on the weights exactly as stored (up-cast from F16 / BF16): the
# logits and every intermediate of one layer for a fixed id list. Tolerances as gen_fixtures.py
# derives them: the float32 error of two float32 runs of the same forward, times 16, floored.
# The forwards also take hooks (heads or FFN zeroed, residual rows patched); hooks_ref.py turns
# them into hooks.json (logit lens, ablation, activation patching) for gpt2, llama, qwen2, qwen3.
import json
import math
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fixtures import RTOL, choose_atol, seq_mm  # noqa: E402
from hooks_ref import hooks_doc, standard_ablations  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "models")
F64 = torch.float64
F32 = torch.float32
IDS = [3, 17, 0, 42, 63, 17]
CORRUPT = [3, 17, 9, 42, 63, 17]   # IDS with position 2 changed: the patching pair
NL = 2   # layers of every tiny variant

torch.set_num_threads(1)


# ---- safetensors ------------------------------------------------------------------------
ST_NAME = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.bool: "BOOL"}


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    if t.dtype == torch.bool:
        return t.numpy().astype(np.uint8).tobytes()
    return t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


def write_safetensors(path, tensors):
    """tensors: {name: torch tensor} -> a .safetensors file (names sorted, header padded with
    spaces to a multiple of 8 bytes, as the safetensors library writes it)."""
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        b = tensor_bytes(t)
        header[name] = {"dtype": ST_NAME[t.dtype], "shape": list(t.shape),
                        "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)))
        fh.write(text.encode())
        for b in blobs:
            fh.write(b)
    return off


def write_checkpoint(folder, tensors, shards):
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        return
    names = sorted(tensors)
    weight_map, total = {}, 0
    for s in range(shards):
        file = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        part = {n: tensors[n] for n in names[s * len(names) // shards:(s + 1) * len(names) // shards]}
        total += write_safetensors(os.path.join(folder, file), part)
        weight_map.update({n: file for n in part})
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as fh:
        json.dump(index, fh, indent=2)
        fh.write("\n")


# ---- the Llama family's forward (HF semantics), in any float dtype ------------------------
_MM = [torch.matmul]


def mm(a, b):
    return _MM[0](a, b)


def rms(x, w, eps):
    """HF's LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * weight; and rstd per row."""
    rstd = torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    return x * rstd * w, rstd[..., 0]


def inv_freq(c, dt):
    """HF's rotary frequencies, default or "llama3" (_compute_llama3_parameters), in dt."""
    hd, theta, sc = c["head_dim"], c["rope_theta"], c.get("rope_scaling")
    f = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.int64).to(dt) / hd))
    if not sc:
        return f
    factor, lo, hi = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"]
    old = sc["original_max_position_embeddings"]
    wavelen = 2 * math.pi / f
    fl = torch.where(wavelen > old / lo, f / factor, f)
    smooth = (old / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * fl / factor + smooth * fl
    medium = ~(wavelen < old / hi) * ~(wavelen > old / lo)
    return torch.where(medium, smoothed, fl)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Hooks:
    """What a forward replaces, at TransformerLens's hook points (HF has no such switch):
    ablate: (layer, head) zeroes that head's context (before concat and o_proj), (layer, "ffn")
    the layer's FFN output; patch: {(layer, position): row} replaces the residual entering
    `layer` at `position`. No hooks: every method returns its input itself."""

    def __init__(self, spec=None):
        self.lens = spec is not None
        spec = spec or {}
        self.ablate = {tuple(a) for a in spec.get("ablate", ())}
        self.patch = spec.get("patch", {})

    def resid(self, l, x):
        rows = [(p, r) for (pl, p), r in self.patch.items() if pl == l]
        if rows:
            x = x.clone()
            for p, r in rows:
                x[p] = r
        return x

    def heads(self, l, ctx):   # ctx (heads, L, head_dim)
        hs = sorted(h for (pl, h) in self.ablate if pl == l and h != "ffn")
        if hs:
            ctx = ctx.clone()
            ctx[hs] = 0
        return ctx

    def ffn(self, l, y):
        return torch.zeros_like(y) if (l, "ffn") in self.ablate else y

    def finish(self, out, points, unembed):
        """With hooks, out["points"]: the residual entering each block and after the last (NL+1),
        out["lens"]: each point through the final norm and the unembedding."""
        if self.lens:
            out["points"] = points
            out["lens"] = [unembed(p) for p in points]
        return out


def llama_forward(c, W, ids, dt, keep, hooks=None):
    """LlamaForCausalLM's forward (and Mistral's, Qwen2's, Qwen3's: the same graph with biases
    and q/k norms where the weights have them). Returns logits, embed, hidden, layer `keep`."""
    hk = Hooks(hooks)
    g = lambda n: W[n].to(dt)  # noqa: E731
    opt = lambda n: W[n].to(dt) if n in W else None  # noqa: E731
    L, H, KVH, hd, eps = len(ids), c["heads"], c["kv_heads"], c["head_dim"], c["eps"]
    h = g("model.embed_tokens.weight")[torch.tensor(ids)]
    out, points = {"embed": h}, [h]
    pos = torch.arange(L, dtype=torch.int64).to(dt)
    freqs = pos[:, None] * inv_freq(c, dt)[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()

    def lin(x, p):
        y = mm(x, g(p + ".weight").T)
        b = opt(p + ".bias")
        return y + b if b is not None else y

    for l in range(c["layers"]):
        p = "model.layers.%d." % l
        x = hk.resid(l, h)
        n1, rstd1 = rms(x, g(p + "input_layernorm.weight"), eps)
        q = lin(n1, p + "self_attn.q_proj").view(L, H, hd)
        k = lin(n1, p + "self_attn.k_proj").view(L, KVH, hd)
        v = lin(n1, p + "self_attn.v_proj").view(L, KVH, hd)
        if p + "self_attn.q_norm.weight" in W:
            q = rms(q, g(p + "self_attn.q_norm.weight"), eps)[0]
            k = rms(k, g(p + "self_attn.k_norm.weight"), eps)[0]
        qt, kt, vt = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)  # (heads, L, hd)
        qr = qt * cos + rotate_half(qt) * sin
        kr = kt * cos + rotate_half(kt) * sin
        rep = H // KVH
        ke, ve = kr.repeat_interleave(rep, dim=0), vt.repeat_interleave(rep, dim=0)
        scores = mm(qr, ke.transpose(1, 2))
        mask = torch.triu(torch.full((L, L), -math.inf, dtype=dt), diagonal=1)
        weights = torch.softmax(scores * hd ** -0.5 + mask, dim=-1)
        ctx = hk.heads(l, mm(weights, ve))
        concat = ctx.transpose(0, 1).reshape(L, H * hd)
        attn = lin(concat, p + "self_attn.o_proj")
        r1 = x + attn
        n2, rstd2 = rms(r1, g(p + "post_attention_layernorm.weight"), eps)
        gate = lin(n2, p + "mlp.gate_proj")
        up = lin(n2, p + "mlp.up_proj")
        act = torch.nn.functional.silu(gate) * up
        ffn = hk.ffn(l, lin(act, p + "mlp.down_proj"))
        h = r1 + ffn
        points.append(h)
        if l == keep:
            out["layer"] = {
                "x": x, "norm1": n1, "rstd1": rstd1, "q": q.reshape(L, H * hd),
                "k": k.reshape(L, KVH * hd), "v": v.reshape(L, KVH * hd),
                "q_rot": qr.transpose(0, 1).reshape(L, H * hd),
                "k_rot": kr.transpose(0, 1).reshape(L, KVH * hd),
                "scores": scores, "weights": weights, "context": ctx, "concat": concat,
                "attn_out": attn, "resid1": r1, "norm2": n2, "rstd2": rstd2, "gate": gate,
                "up": up, "activated": act, "ffn_out": ffn, "resid2": h}
    head = W.get("lm_head.weight", W["model.embed_tokens.weight"]).to(dt)
    norm = lambda r: rms(r, g("model.norm.weight"), eps)[0]  # noqa: E731
    out["hidden"] = norm(h)
    out["logits"] = mm(out["hidden"], head.T)
    return hk.finish(out, points, lambda r: mm(norm(r), head.T))


def gpt2_forward(c, W, ids, dt, keep, hooks=None):
    """GPT2LMHeadModel's forward (pre-LN, Conv1D (in, out) weights, tied head; gelu_new, or relu
    where activation_function says so, as the poem model)."""
    hk = Hooks(hooks)
    g = lambda n: W["transformer." + n].to(dt)  # noqa: E731
    L, D, H, eps = len(ids), c["n_embd"], c["n_head"], c["layer_norm_epsilon"]
    dk = D // H

    def ln(x, p):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * g(p + ".weight") + g(p + ".bias")

    def gelu_new(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    activation = {"gelu_new": gelu_new, "relu": torch.relu}[c["activation_function"]]
    h = g("wte.weight")[torch.tensor(ids)] + g("wpe.weight")[:L]
    out, points = {"embed": h}, [h]
    for l in range(c["n_layer"]):
        p = "h.%d." % l
        x = hk.resid(l, h)
        n1 = ln(x, p + "ln_1")
        qkv = mm(n1, g(p + "attn.c_attn.weight")) + g(p + "attn.c_attn.bias")
        q, k, v = (qkv[:, i * D:(i + 1) * D].view(L, H, dk).transpose(0, 1) for i in range(3))
        scores = mm(q, k.transpose(1, 2))
        mask = torch.triu(torch.full((L, L), -math.inf, dtype=dt), diagonal=1)
        weights = torch.softmax(scores / math.sqrt(dk) + mask, dim=-1)
        ctx = hk.heads(l, mm(weights, v))
        concat = ctx.transpose(0, 1).reshape(L, D)
        attn = mm(concat, g(p + "attn.c_proj.weight")) + g(p + "attn.c_proj.bias")
        r1 = x + attn
        n2 = ln(r1, p + "ln_2")
        hid = mm(n2, g(p + "mlp.c_fc.weight")) + g(p + "mlp.c_fc.bias")
        act = activation(hid)
        ffn = hk.ffn(l, mm(act, g(p + "mlp.c_proj.weight")) + g(p + "mlp.c_proj.bias"))
        h = r1 + ffn
        points.append(h)
        if l == keep:
            out["layer"] = {"x": x, "norm1": n1, "q": q.transpose(0, 1).reshape(L, D),
                            "k": k.transpose(0, 1).reshape(L, D),
                            "v": v.transpose(0, 1).reshape(L, D), "scores": scores,
                            "weights": weights, "context": ctx, "concat": concat,
                            "attn_out": attn, "resid1": r1, "norm2": n2, "hidden": hid,
                            "activated": act, "ffn_out": ffn, "resid2": h}
    out["hidden"] = ln(h, "ln_f")
    out["logits"] = mm(out["hidden"], g("wte.weight").T)
    return hk.finish(out, points, lambda r: mm(ln(r, "ln_f"), g("wte.weight").T))


def flat_np(out):
    """{key: array} with the kept layer's arrays as "layer.<key>"."""
    r = {k: v.detach().numpy().astype(np.float64) for k, v in out.items() if k != "layer"}
    r.update({"layer." + k: v.detach().numpy().astype(np.float64) for k, v in out["layer"].items()})
    return r


def run_seq(fn, *a):
    _MM[0] = seq_mm
    try:
        return fn(*a)
    finally:
        _MM[0] = torch.matmul


def short(v):
    """A float64 to 9 significant digits: 5e-9 relative, far inside any tolerance here."""
    return float("%.9g" % v)


# ---- the variants -----------------------------------------------------------------------
HF_VERSION = "4.46.0"


def llama_config(v):
    """config.json as transformers writes it for this variant (to_json_string's sorted keys)."""
    t = v["type"]
    dtype = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[v["dtype"]]
    c = {"architectures": [{"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM",
                            "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}[t]],
         "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
         "hidden_size": v["D"], "initializer_range": 0.02, "intermediate_size": v["F"],
         "max_position_embeddings": 128, "model_type": t, "num_attention_heads": v["H"],
         "num_hidden_layers": NL, "num_key_value_heads": v["KVH"], "rms_norm_eps": v["eps"],
         "tie_word_embeddings": v["tied"], "use_cache": True, "vocab_size": v["V"]}
    if t == "llama":
        c.update({"attention_bias": False, "head_dim": v["hd"], "mlp_bias": False,
                  "pretraining_tp": 1, "rope_theta": v["theta"], "rope_scaling": v["scaling"]})
    elif t == "mistral":
        c.update({"head_dim": None, "rope_theta": v["theta"], "sliding_window": 4096})
    elif t == "qwen2":
        c.update({"max_window_layers": NL, "rope_scaling": None, "rope_theta": v["theta"],
                  "sliding_window": None, "use_sliding_window": False})
    elif t == "qwen3":
        c.update({"attention_bias": False, "head_dim": v["hd"],
                  "layer_types": ["full_attention"] * NL, "max_window_layers": NL,
                  "rope_parameters": {"rope_theta": v["theta"], "rope_type": "default"},
                  "sliding_window": None, "use_sliding_window": False})
    if t == "qwen3":   # the newer style: "dtype", and rope_theta inside rope_parameters
        c.update({"dtype": dtype, "transformers_version": "4.57.0.dev0"})
    else:
        c.update({"torch_dtype": dtype, "transformers_version": HF_VERSION})
    return dict(sorted(c.items()))


LLAMA3 = {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
          "original_max_position_embeddings": 256, "rope_type": "llama3"}
# What the variants share; each names only how it differs. hooks: also write hooks.json.
BASE = {"type": "llama", "dtype": "F32", "D": 16, "H": 4, "KVH": 2, "hd": 8, "F": 32, "V": 64,
        "eps": 1e-6, "theta": 1000000.0, "scaling": None, "tied": True, "qkv_bias": False,
        "qk_norm": False, "shards": 1, "keep": 1, "hooks": False}
# llama: GQA 4 q heads / 2 kv heads, head_dim 8 (Q = 32 != d_model 16), llama3 RoPE, untied
LLAMA = dict(BASE, name="llama", F=24, eps=1e-5, theta=500000.0, scaling=LLAMA3, tied=False,
             seed=11, hooks=True)
VARIANTS = [
    LLAMA,
    dict(LLAMA, name="llama-bf16", dtype="BF16", hooks=False),
    dict(BASE, name="qwen2", type="qwen2", dtype="F16", hd=4, qkv_bias=True, shards=2, seed=12,
         keep=0, hooks=True),
    # qwen3: q/k norms, head_dim 8 != 16 / 4
    dict(BASE, name="qwen3", type="qwen3", dtype="BF16", qk_norm=True, seed=13, hooks=True),
    # mistral: one kv head for all four query heads
    dict(BASE, name="mistral", type="mistral", KVH=1, hd=4, eps=1e-5, theta=10000.0, tied=False,
         seed=14),
]
TORCH_DTYPE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def llama_weights(v):
    """Random weights in HF's names and nn.Linear's (out, in) layout, in the variant's dtype."""
    rng = np.random.default_rng(v["seed"])
    D, H, KVH, hd, F, V = v["D"], v["H"], v["KVH"], v["hd"], v["F"], v["V"]
    W = {}

    def put(name, a):
        W[name] = torch.tensor(np.asarray(a, dtype=np.float32)).to(TORCH_DTYPE[v["dtype"]])

    def linear(name, out, inp, scale=1.0, bias=False):
        put(name + ".weight", scale * rng.standard_normal((out, inp)) / math.sqrt(inp))
        if bias:
            put(name + ".bias", 0.1 * rng.standard_normal(out))

    put("model.embed_tokens.weight", rng.standard_normal((V, D)))
    for l in range(NL):
        p = "model.layers.%d." % l
        put(p + "input_layernorm.weight", 1.0 + 0.2 * rng.standard_normal(D))
        linear(p + "self_attn.q_proj", H * hd, D, 2.0, v["qkv_bias"])
        linear(p + "self_attn.k_proj", KVH * hd, D, 2.0, v["qkv_bias"])
        linear(p + "self_attn.v_proj", KVH * hd, D, 1.0, v["qkv_bias"])
        linear(p + "self_attn.o_proj", D, H * hd)
        if v["qk_norm"]:
            put(p + "self_attn.q_norm.weight", 1.0 + 0.2 * rng.standard_normal(hd))
            put(p + "self_attn.k_norm.weight", 1.0 + 0.2 * rng.standard_normal(hd))
        put(p + "post_attention_layernorm.weight", 1.0 + 0.2 * rng.standard_normal(D))
        linear(p + "mlp.gate_proj", F, D)
        linear(p + "mlp.up_proj", F, D)
        linear(p + "mlp.down_proj", D, F)
    put("model.norm.weight", 1.0 + 0.2 * rng.standard_normal(D))
    if not v["tied"]:
        linear("lm_head", V, D, 4.0)
    return W


def gpt2_variant():
    rng = np.random.default_rng(15)
    D, H, F, V, P = 16, 2, 32, 64, 16
    c = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
         "attn_pdrop": 0.1, "bos_token_id": 0, "embd_pdrop": 0.1, "eos_token_id": 0,
         "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
         "n_ctx": P, "n_embd": D, "n_head": H, "n_inner": F, "n_layer": NL, "n_positions": P,
         "reorder_and_upcast_attn": False, "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx":
         False, "scale_attn_weights": True, "summary_activation": None,
         "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
         "summary_type": "cls_index", "summary_use_proj": True, "torch_dtype": "float32",
         "transformers_version": HF_VERSION, "use_cache": True, "vocab_size": V}
    W = {}

    def put(name, a):
        W["transformer." + name] = torch.tensor(np.asarray(a, dtype=np.float32))

    put("wte.weight", rng.standard_normal((V, D)))
    put("wpe.weight", 0.5 * rng.standard_normal((P, D)))
    for l in range(NL):
        p = "h.%d." % l
        put(p + "ln_1.weight", 1.0 + 0.2 * rng.standard_normal(D))
        put(p + "ln_1.bias", 0.1 * rng.standard_normal(D))
        put(p + "attn.c_attn.weight", rng.standard_normal((D, 3 * D)) / math.sqrt(D))
        put(p + "attn.c_attn.bias", 0.1 * rng.standard_normal(3 * D))
        put(p + "attn.c_proj.weight", rng.standard_normal((D, D)) / math.sqrt(D))
        put(p + "attn.c_proj.bias", 0.1 * rng.standard_normal(D))
        put(p + "ln_2.weight", 1.0 + 0.2 * rng.standard_normal(D))
        put(p + "ln_2.bias", 0.1 * rng.standard_normal(D))
        put(p + "mlp.c_fc.weight", rng.standard_normal((D, F)) / math.sqrt(D))
        put(p + "mlp.c_fc.bias", 0.1 * rng.standard_normal(F))
        put(p + "mlp.c_proj.weight", rng.standard_normal((F, D)) / math.sqrt(F))
        put(p + "mlp.c_proj.bias", 0.1 * rng.standard_normal(D))
        # the buffers older transformers saved with the weights: the causal mask and -1e4
        W["transformer." + p + "attn.bias"] = torch.tril(torch.ones(P, P, dtype=torch.bool))[None, None]
        W["transformer." + p + "attn.masked_bias"] = torch.tensor(-1e4, dtype=torch.float32)
    put("ln_f.weight", 1.0 + 0.2 * rng.standard_normal(D))
    put("ln_f.bias", 0.1 * rng.standard_normal(D))
    return c, W


def reference(fn, c, W, keep, k, extra):
    W64 = {n: t.to(F64) if t.is_floating_point() else t for n, t in W.items()}
    ref = flat_np(fn(c, W64, IDS, F64, keep))
    W32 = {n: t.to(F32) if t.is_floating_point() else t for n, t in W.items()}
    got = [flat_np(fn(c, W32, IDS, F32, keep)), flat_np(run_seq(fn, c, W32, IDS, F32, keep))]
    atol = choose_atol(ref, got, k)
    doc = {"generator": "tools/gen_models.py", "torch": torch.__version__, "ids": IDS,
           "layer": keep, "atol": atol, "rtol": RTOL}
    doc.update(extra)
    doc["expected"] = {key: [short(x) for x in a.ravel()] for key, a in ref.items()}
    doc["shapes"] = {key: list(a.shape) for key, a in ref.items()}
    return doc, ref, atol


def write_json(path, obj, indent=None):
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=indent, separators=None if indent else (",", ":"),
                  allow_nan=False)
        fh.write("\n")


def write_folder(v, cfg, W, fn, c):
    """A variant's folder: config.json, the checkpoint, reference.json, and hooks.json where
    v["hooks"] (the lens and ablations on IDS, patching CORRUPT with IDS)."""
    folder = os.path.join(OUT_DIR, v["name"])
    os.makedirs(folder, exist_ok=True)
    write_json(os.path.join(folder, "config.json"), cfg, indent=2)
    write_checkpoint(folder, W, v["shards"])
    doc, ref, atol = reference(fn, c, W, v["keep"], v["k"], {"dtype": v["dtype"]})
    if v.get("scaling"):   # the llama3 frequencies must matter at these few positions
        plain = flat_np(fn(dict(c, rope_scaling=None), {n: t.to(F64) for n, t in W.items()},
                           IDS, F64, 1))
        moved = float(np.max(np.abs(plain["logits"] - ref["logits"])))
        assert moved > 100 * atol, moved
        doc["llama3_moves_logits_by"] = moved
    write_json(os.path.join(folder, "reference.json"), doc)
    note = ""
    if v["hooks"]:
        spec = {"lens": [IDS], "ablate": [{"ids": IDS, "row": len(IDS) - 1,
                                           "cases": standard_ablations(v["H"], NL)}],
                "patch": {"clean": IDS, "corrupt": CORRUPT}}
        hd = hooks_doc(lambda Wd, dt, ids, h: fn(c, Wd, ids, dt, -1, h), W, spec, v["k"], run_seq)
        hd = dict({"generator": "tools/gen_models.py", "torch": torch.__version__}, **hd)
        path = os.path.join(folder, "hooks.json")
        write_json(path, hd)
        note = "  hooks.json %d bytes, atol %s" % (os.path.getsize(path), hd["atol"])
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    print("%-11s %6d bytes  atol %g%s" % (v["name"], size, atol, note))


def main():
    for v in VARIANTS:
        c = {"heads": v["H"], "kv_heads": v["KVH"], "head_dim": v["hd"], "eps": v["eps"],
             "rope_theta": v["theta"], "rope_scaling": v["scaling"], "layers": NL}
        write_folder(dict(v, k=max(v["D"], v["F"])), llama_config(v), llama_weights(v),
                     llama_forward, c)
    cfg, W = gpt2_variant()
    write_folder({"name": "gpt2", "dtype": "F32", "H": cfg["n_head"], "shards": 1, "keep": 1,
                  "k": 32, "hooks": True}, cfg, W, gpt2_forward, cfg)


if __name__ == "__main__":
    main()
