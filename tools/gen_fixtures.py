#!/usr/bin/python3
# Independent reference fixtures for the BlockLens engine: numpy's legacy RNG streams and
# float64 torch references for the FFN, attention, norms, one block and parameter counts.
# Writes tests/fixtures/*.json (committed, so the tests need neither numpy nor torch); last, the
# shipped poem model's float64 forward (tools/train/reference.py -> tests/fixtures/poems.json).
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch

from tolerance import nice_up
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures")
F64 = torch.float64
F32 = torch.float32
RTOL = 1e-4

torch.set_num_threads(1)  # deterministic reductions


# ---- helpers ----------------------------------------------------------------------------
def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32)


def flat(a):
    """Flat row-major list of Python floats (exact doubles)."""
    if isinstance(a, torch.Tensor):
        a = a.detach().cpu().numpy()
    return [float(v) for v in np.asarray(a).ravel()]


def T(a, dt):
    return torch.tensor(np.asarray(a, dtype=np.float64), dtype=dt)


def floor_for(k):
    """Base absolute tolerance for a float32 reduction of length k (inputs of order 1)."""
    return min(1e-4, 2e-5 * max(1.0, k / 16.0))


def excess(ref, got, rtol=RTOL):
    """Largest |got - ref| - rtol*|ref| over all arrays (how much atol is needed)."""
    worst = 0.0
    for key, r in ref.items():
        r = np.asarray(r, dtype=np.float64)
        g = np.asarray(got[key], dtype=np.float64)
        assert r.shape == g.shape, key
        worst = max(worst, float(np.max(np.abs(g - r) - rtol * np.abs(r))))
    return worst


def choose_atol(ref, f32_results, k, margin=16.0):
    """Measured float32 error (of one or more float32 implementations) times a margin,
    never below the floor for a length-k reduction."""
    err = max(excess(ref, g) for g in f32_results)
    atol = nice_up(max(floor_for(k), margin * err))
    for g in f32_results:
        for key, r in ref.items():
            r = np.asarray(r, dtype=np.float64)
            used = np.abs(np.asarray(g[key], dtype=np.float64) - r) / (atol + RTOL * np.abs(r))
            WORST[0] = max(WORST[0], float(used.max()))
    return atol


WORST = [0.0]  # largest fraction of the allowance used by a float32 implementation, per file


_MM = [torch.matmul]


def mm(a, b):
    """Matrix product used by the references (swapped for seq_mm to estimate float32 error)."""
    return _MM[0](a, b)


def seq_mm(a, b):
    """float32 matmul with plain sequential accumulation, like a naive C loop."""
    an, bn = a.numpy(), b.numpy()
    prod = an[..., :, :, None] * bn[..., None, :, :]
    return torch.from_numpy(np.add.accumulate(prod, axis=-2, dtype=np.float32)[..., -1, :].copy())


def run_seq(fn, *args):
    _MM[0] = seq_mm
    try:
        return fn(*args)
    finally:
        _MM[0] = torch.matmul


def to_np(d):
    return {k: v.detach().numpy() if isinstance(v, torch.Tensor) else v for k, v in d.items()}


def check_pass(ref, got, atol, rtol=RTOL):
    for key, r in ref.items():
        r = np.asarray(r, dtype=np.float64)
        g = np.asarray(got[key], dtype=np.float64)
        if not np.all(np.abs(g - r) <= atol + rtol * np.abs(r)):
            return False
    return True


def write(name, cases, summary):
    head = {"generator": "tools/gen_fixtures.py", "numpy": np.__version__,
            "torch": torch.__version__}
    text = json.dumps(head, separators=(",", ":"))[:-1] + ',"cases":[\n'
    text += ",\n".join(json.dumps(c, separators=(",", ":"), allow_nan=False) for c in cases)
    text += "\n]}\n"
    json.loads(text)
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as fh:
        fh.write(text)
    used = "  float32 uses <= %.0f%% of tolerance" % (100 * WORST[0]) if WORST[0] else ""
    WORST[0] = 0.0
    print("%-15s %3d cases %8d bytes  %s%s" % (name, len(cases), len(text.encode()), summary,
                                                used))


# ---- 1. rng.json ------------------------------------------------------------------------
def gen_rng():
    cases = []
    seq = [("randn", 3), ("rand", 2), ("randn", 4), ("randn", 1), ("rand", 1), ("randn", 1000)]
    for s in (0, 1, 42, 12345, 4294967295):
        np.random.seed(s)
        calls = []
        for fn, n in seq:
            vals = np.random.randn(n) if fn == "randn" else np.random.rand(n)
            calls.append({"fn": fn, "n": n, "values": flat(vals)})
        cases.append({"name": "seed_%d_randn_rand_interleaved" % s, "params": {"seed": s},
                      "inputs": {}, "expected": {"calls": calls}, "atol": 0.0, "rtol": 0.0})
    # raw 32-bit outputs (bl_rng_next_u32) then uniforms: 53 bits from two draws
    for s in (5489, 42):
        np.random.seed(s)
        u = np.random.randint(0, 2 ** 32, size=8, dtype=np.uint32)
        r = np.random.rand(3)
        np.random.seed(s)
        np.random.randint(0, 2 ** 32, size=8, dtype=np.uint32)
        w = np.random.randint(0, 2 ** 32, size=6, dtype=np.uint32).astype(np.uint64)
        manual = [((int(w[2 * i]) >> 5) * 67108864 + (int(w[2 * i + 1]) >> 6)) / 9007199254740992.0
                  for i in range(3)]
        assert manual == [float(v) for v in r], "random_sample is not (a>>5, b>>6)"
        if s == 5489:
            assert int(u[0]) == 3499211612  # MT19937 reference first output
        cases.append({"name": "seed_%d_u32_then_rand" % s, "params": {"seed": s}, "inputs": {},
                      "expected": {"calls": [{"fn": "u32", "n": 8, "values": [int(v) for v in u]},
                                             {"fn": "rand", "n": 3, "values": flat(r)}]},
                      "atol": 0.0, "rtol": 0.0})

    # the explanations' classic example
    np.random.seed(42)
    x = np.random.randn(7, 8)
    w1 = np.random.randn(8, 32)
    b1 = np.random.randn(32)
    w2 = np.random.randn(32, 8)
    b2 = np.random.randn(8)
    neg64 = int(np.sum(x @ w1 + b1 < 0))
    x32, w132, b132 = f32(x), f32(w1), f32(b1)
    h32 = x32 @ w132 + b132
    assert h32.dtype == np.float32
    neg32 = int(np.sum(h32 < 0))
    hidden = x32.astype(np.float64) @ w132.astype(np.float64) + b132.astype(np.float64)
    assert neg64 == neg32 == int(np.sum(hidden < 0)) == 100, (neg64, neg32)
    atol = choose_atol({"h": hidden}, [{"h": h32}], 8)
    cases.append({"name": "classic_seed42", "params": {"seed": 42, "L": 7, "d_model": 8, "d_ff": 32},
                  "inputs": {"x": flat(x), "w1": flat(w1), "b1": flat(b1), "w2": flat(w2),
                             "b2": flat(b2)},
                  "expected": {"hidden_negatives": neg64, "relu_negatives": 0,
                               "hidden": flat(hidden)},
                  "atol": atol, "rtol": RTOL})
    write("rng.json", cases, "classic_seed42 hidden_negatives=%d" % neg64)


# ---- 2. ffn.json ------------------------------------------------------------------------
ACT = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "silu": F.silu,
    "identity": lambda t: t,
    "swiglu": F.silu,  # gate function
    "geglu": F.gelu,
}
GATED = ("swiglu", "geglu")


def ffn_ref(inp, p, dt):
    L, d, dff = p["L"], p["d_model"], p["d_ff"]
    x = T(inp["x"], dt).reshape(L, d)
    h = mm(x, T(inp["w1"], dt).reshape(d, dff))
    if "b1" in inp:
        h = h + T(inp["b1"], dt)
    res = {"hidden": h}
    if p["activation"] in GATED:
        u = mm(x, T(inp["w3"], dt).reshape(d, dff))
        if "b3" in inp:
            u = u + T(inp["b3"], dt)
        res["up"] = u
        a = ACT[p["activation"]](h) * u
    else:
        a = ACT[p["activation"]](h)
    res["activated"] = a
    o = mm(a, T(inp["w2"], dt).reshape(dff, d))
    if "b2" in inp:
        o = o + T(inp["b2"], dt)
    res["out"] = o
    return res


def gen_ffn():
    rng = np.random.default_rng(20240601)
    cases = []
    specs = []
    for act in ACT:
        specs.append((act, 7, 8, 32, True, 1.0))
        specs.append((act, 3, 5, 13, False, 1.0))
    specs += [("gelu", 9, 24, 96, True, 1.0), ("swiglu", 9, 24, 96, True, 1.0)]
    for act in ("gelu", "gelu_tanh", "silu", "swiglu", "geglu"):
        specs.append((act, 3, 5, 13, True, 8.0))
    for act, L, d, dff, bias, xs in specs:
        gated = act in GATED
        if xs == 1.0:
            x = rng.standard_normal((L, d))
        else:
            x = rng.uniform(-xs, xs, (L, d))
        inp = {"x": flat(f32(x))}
        inp["w1"] = flat(f32(rng.standard_normal((d, dff)) / math.sqrt(d)))
        if bias:
            inp["b1"] = flat(f32(0.1 * rng.standard_normal(dff)))
        if gated:
            inp["w3"] = flat(f32(rng.standard_normal((d, dff)) / math.sqrt(d)))
            if bias:
                inp["b3"] = flat(f32(0.1 * rng.standard_normal(dff)))
        inp["w2"] = flat(f32(rng.standard_normal((dff, d)) / math.sqrt(dff)))
        if bias:
            inp["b2"] = flat(f32(0.1 * rng.standard_normal(d)))
        # keys in a stable order: x, w1, b1, w3, b3, w2, b2
        p = {"L": L, "d_model": d, "d_ff": dff, "activation": act, "bias": bias}
        ref = to_np(ffn_ref(inp, p, F64))
        got = [to_np(ffn_ref(inp, p, F32)), to_np(run_seq(ffn_ref, inp, p, F32))]
        atol = choose_atol(ref, got, max(d, dff))
        name = "%s_%s_L%d_d%d_ff%d%s" % (act, "bias" if bias else "nobias", L, d, dff,
                                         "_large_inputs" if xs != 1.0 else "")
        cases.append({"name": name, "params": p, "inputs": inp,
                      "expected": {k: flat(v) for k, v in ref.items()},
                      "atol": atol, "rtol": RTOL})
    write("ffn.json", cases, "activations=%s" % ",".join(ACT))


# ---- 3. attention.json ------------------------------------------------------------------
def allowed_mask(p, key_mask):
    L = p["L"]
    allowed = torch.ones(L, L, dtype=torch.bool)
    if p["causal"]:
        allowed = torch.tril(allowed)
    if key_mask is not None:
        allowed = allowed & torch.tensor([bool(v) for v in key_mask])[None, :]
    return allowed


def attention_ref(inp, p, dt, x=None):
    L, d, H = p["L"], p["d_model"], p["n_heads"]
    dk = d // H
    if x is None:
        x = T(inp["x"], dt).reshape(L, d)

    def lin(w, b):
        y = mm(x, T(inp[w], dt).reshape(d, d))
        return y + T(inp[b], dt) if b in inp else y

    q, k, v = lin("wq", "bq"), lin("wk", "bk"), lin("wv", "bv")
    qh = q.reshape(L, H, dk).transpose(0, 1)
    kh = k.reshape(L, H, dk).transpose(0, 1)
    vh = v.reshape(L, H, dk).transpose(0, 1)
    scores = mm(qh, kh.transpose(1, 2))
    s = 1.0 if p.get("no_scale") else 1.0 / math.sqrt(dk)
    allowed = allowed_mask(p, inp.get("key_mask"))[None].expand(H, L, L)
    logits = torch.where(allowed, scores * s, torch.full_like(scores, -math.inf))
    m = logits.max(dim=-1, keepdim=True).values
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.where(allowed, torch.exp(logits - m), torch.zeros_like(scores))
    den = e.sum(dim=-1, keepdim=True)
    weights = torch.where(den > 0, e / torch.where(den > 0, den, torch.ones_like(den)),
                          torch.zeros_like(e))
    context = mm(weights, vh)
    concat = context.transpose(0, 1).reshape(L, d)
    out = mm(concat, T(inp["wo"], dt).reshape(d, d))
    if "bo" in inp:
        out = out + T(inp["bo"], dt)
    return {"q": q, "k": k, "v": v, "scores": scores, "weights": weights,
            "context": context, "concat": concat, "out": out}


def mha_check(inp, p, ref):
    """Cross-check the manual reference against torch.nn.MultiheadAttention (float64)."""
    L, d, H = p["L"], p["d_model"], p["n_heads"]
    mha = nn.MultiheadAttention(d, H, dropout=0.0, bias=True, batch_first=True, dtype=F64)
    mha.train()

    def W(n):
        return T(inp[n], F64).reshape(d, d)

    def B(n):
        return T(inp[n], F64) if n in inp else torch.zeros(d, dtype=F64)

    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([W("wq").T, W("wk").T, W("wv").T], 0))
        mha.in_proj_bias.copy_(torch.cat([B("bq"), B("bk"), B("bv")]))
        mha.out_proj.weight.copy_(W("wo").T)
        mha.out_proj.bias.copy_(B("bo"))
        x = T(inp["x"], F64).reshape(1, L, d)
        attn_mask = None
        if p["causal"]:
            attn_mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        kpm = None
        if "key_mask" in inp:
            kpm = torch.tensor([v == 0 for v in inp["key_mask"]]).reshape(1, L)
        out, w = mha(x, x, x, key_padding_mask=kpm, need_weights=True, attn_mask=attn_mask,
                     average_attn_weights=False)
    assert torch.allclose(out[0], ref["out"], rtol=1e-12, atol=1e-12)
    assert torch.allclose(w[0], ref["weights"], rtol=1e-12, atol=1e-12)


def gen_attention():
    rng = np.random.default_rng(31337)
    specs = [
        # name, L, d, H, causal, no_scale, bias, key_mask, x scale
        ("bidir_scaled_1head", 5, 8, 1, False, False, True, None, 1.0),
        ("bidir_scaled_2heads", 6, 8, 2, False, False, True, None, 1.0),
        ("causal_scaled_4heads", 6, 16, 4, True, False, True, None, 1.0),
        ("bidir_unscaled_2heads", 5, 8, 2, False, True, True, None, 1.0),
        ("causal_unscaled_1head", 4, 6, 1, True, True, True, None, 1.0),
        ("bidir_nobias_4heads_dk3", 7, 12, 4, False, False, False, None, 1.0),
        ("bidir_key_mask_2heads", 6, 8, 2, False, False, True, [1, 1, 0, 1, 0, 1], 1.0),
        ("causal_key_mask_row0_empty", 5, 8, 2, True, False, True, [0, 1, 1, 0, 1], 1.0),
        ("bidir_large_scores_2heads", 6, 8, 2, False, False, True, None, 10.0),
    ]
    cases = []
    for name, L, d, H, causal, no_scale, bias, km, xs in specs:
        inp = {"x": flat(f32(xs * rng.standard_normal((L, d))))}
        for w in ("q", "k", "v", "o"):
            inp["w" + w] = flat(f32(rng.standard_normal((d, d)) / math.sqrt(d)))
            if bias:
                inp["b" + w] = flat(f32(0.1 * rng.standard_normal(d)))
        if km is not None:
            inp["key_mask"] = list(km)
        p = {"L": L, "d_model": d, "n_heads": H, "causal": causal, "no_scale": no_scale,
             "bias": bias, "key_mask": km is not None}
        ref_t = attention_ref(inp, p, F64)
        empty_row = bool((allowed_mask(p, km).sum(dim=1) == 0).any())
        if not no_scale and not empty_row:
            mha_check(inp, p, ref_t)
        if name == "causal_key_mask_row0_empty":
            assert empty_row
            assert torch.all(ref_t["weights"][:, 0, :] == 0)
            assert torch.all(ref_t["concat"][0] == 0)
            assert torch.equal(ref_t["out"][0], T(inp["bo"], F64))
        if xs != 1.0:
            assert ref_t["scores"].abs().max() > 100, ref_t["scores"].abs().max()
        ref = to_np(ref_t)
        got = [to_np(attention_ref(inp, p, F32)), to_np(run_seq(attention_ref, inp, p, F32))]
        atol = choose_atol(ref, got, max(d, L))
        cases.append({"name": name, "params": p, "inputs": inp,
                      "expected": {k: flat(v) for k, v in ref.items()},
                      "atol": atol, "rtol": RTOL})
    write("attention.json", cases, "MultiheadAttention cross-check ok")


# ---- 4. norms.json ----------------------------------------------------------------------
def norm_stats(kind, x, eps):
    """float64 statistics by hand. x: (L, d) float64 numpy."""
    if kind == "layer":
        mean = x.mean(axis=1)
        var = ((x - mean[:, None]) ** 2).mean(axis=1)
        return {"mean": mean, "rstd": 1.0 / np.sqrt(var + eps)}
    if kind == "rms":
        return {"rstd": 1.0 / np.sqrt((x ** 2).mean(axis=1) + eps)}
    mean = x.mean(axis=0)
    var = ((x - mean[None, :]) ** 2).mean(axis=0)
    return {"mean": mean, "rstd": 1.0 / np.sqrt(var + eps)}


def norm_torch(kind, inp, p, dt):
    L, d, eps = p["L"], p["d"], p["eps"]
    x = T(inp["x"], dt).reshape(L, d)
    g = T(inp["gamma"], dt) if "gamma" in inp else None
    b = T(inp["beta"], dt) if "beta" in inp else None
    if kind == "layer":
        return F.layer_norm(x, (d,), g, b, eps)
    if kind == "batch":
        return F.batch_norm(x, None, None, g, b, training=True, momentum=0.0, eps=eps)
    r = torch.rsqrt((x * x).mean(dim=1, keepdim=True) + eps)
    y = x * r
    return y * g if g is not None else y


def norm_seq_f32(kind, inp, p, naive=False):
    """A plain-C-like float32 implementation: sequential sums, two-pass (or naive) variance."""
    L, d = p["L"], p["d"]
    eps = np.float32(p["eps"])
    x = np.array(inp["x"], dtype=np.float32).reshape(L, d)
    g = np.array(inp.get("gamma", [1.0] * d), dtype=np.float32)
    b = np.array(inp.get("beta", [0.0] * d), dtype=np.float32)
    xx = x if kind != "batch" else x.T.copy()  # rows = the groups normalised together
    n = np.float32(xx.shape[1])

    def seqsum(a):
        return np.add.accumulate(a, axis=1, dtype=np.float32)[:, -1]

    if kind == "rms":
        ms = seqsum(xx * xx) / n
        rstd = np.float32(1.0) / np.sqrt(ms + eps)
        return {"out": xx * rstd[:, None] * g[None, :], "rstd": rstd}
    mean = seqsum(xx) / n
    if naive:
        var = seqsum(xx * xx) / n - mean * mean
    else:
        c = xx - mean[:, None]
        var = seqsum(c * c) / n
    rstd = np.float32(1.0) / np.sqrt(np.maximum(var, np.float32(0)) + eps)
    y = (xx - mean[:, None]) * rstd[:, None]
    if kind == "batch":
        y = y.T
        out = y * g[None, :] + b[None, :]
    else:
        out = y * g[None, :] + b[None, :]
    return {"out": out, "mean": mean, "rstd": rstd}


def gen_norms():
    rng = np.random.default_rng(777)
    specs = [
        # name, kind, L, d, eps, affine, x generator
        ("layer_affine_eps1e-5_const_row", "layer", 4, 16, 1e-5, True, "const_row"),
        ("layer_plain_eps1e-12", "layer", 3, 7, 1e-12, False, "normal"),
        ("layer_affine_offset1000", "layer", 4, 16, 1e-5, True, "offset"),
        ("rms_affine_eps1e-5", "rms", 4, 16, 1e-5, True, "normal"),
        ("rms_plain_eps1e-12", "rms", 3, 7, 1e-12, False, "normal"),
        ("rms_plain_tiny_inputs_eps_matters", "rms", 3, 8, 1e-5, False, "tiny"),
        ("batch_affine_eps1e-5", "batch", 8, 6, 1e-5, True, "normal"),
        ("batch_plain_eps1e-12", "batch", 5, 3, 1e-12, False, "normal"),
        ("batch_affine_offset1000", "batch", 16, 4, 1e-5, True, "offset"),
    ]
    cases = []
    for name, kind, L, d, eps, affine, gen in specs:
        if gen == "normal":
            x = 1.5 * rng.standard_normal((L, d)) + 0.3
        elif gen == "const_row":
            x = rng.standard_normal((L, d))
            x[1, :] = 0.75
        elif gen == "offset":
            x = 1000.0 + rng.standard_normal((L, d))
        else:
            x = 1e-3 * rng.standard_normal((L, d))
        x = f32(x)
        inp = {"x": flat(x)}
        if affine:
            inp["gamma"] = flat(f32(1.0 + 0.2 * rng.standard_normal(d)))
            if kind != "rms":
                inp["beta"] = flat(f32(0.1 * rng.standard_normal(d)))
        p = {"kind": kind, "L": L, "d": d, "eps": eps, "affine": affine}
        x64 = x.astype(np.float64)
        st = norm_stats(kind, x64, eps)
        out = norm_torch(kind, inp, p, F64).numpy()
        # the same out by hand, from the statistics
        g = np.array(inp.get("gamma", [1.0] * d))
        b = np.array(inp.get("beta", [0.0] * d))
        if kind == "layer":
            hand = (x64 - st["mean"][:, None]) * st["rstd"][:, None] * g + b
        elif kind == "rms":
            hand = x64 * st["rstd"][:, None] * g
        else:
            hand = (x64 - st["mean"][None, :]) * st["rstd"][None, :] * g + b
        assert np.allclose(out, hand, rtol=1e-12, atol=1e-12), name
        ref = {"out": out}
        ref.update(st)
        got_t = {"out": norm_torch(kind, inp, p, F32).numpy()}
        got_t.update({k: v for k, v in norm_seq_f32(kind, inp, p).items() if k in st})
        seq = {k: v for k, v in norm_seq_f32(kind, inp, p).items() if k in ref}
        atol = choose_atol(ref, [got_t, seq], d if kind != "batch" else L)
        if gen == "offset":
            naive = {k: v for k, v in norm_seq_f32(kind, inp, p, naive=True).items() if k in ref}
            assert check_pass(ref, seq, atol) and not check_pass(ref, naive, atol), name
            naive_err = excess(ref, naive)
        if gen == "tiny":
            # eps dominates mean(x^2): a misplaced eps would be far off
            no_eps = 1.0 / np.sqrt((x64 ** 2).mean(axis=1))
            assert np.all(no_eps > 2 * st["rstd"]), name
        cases.append({"name": name, "params": p, "inputs": inp,
                      "expected": {k: flat(v) for k, v in ref.items()},
                      "atol": atol, "rtol": RTOL})
    write("norms.json", cases, "offset case: naive E[x^2]-E[x]^2 float32 excess %.3g rejected"
          % naive_err)


# ---- 5. block.json ----------------------------------------------------------------------
def layer_norm(x, g, b, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def block_ref(inp, p, dt):
    L, d, dff, eps = p["L"], p["d_model"], p["d_ff"], p["eps"]
    x = T(inp["x"], dt).reshape(L, d)
    g1, b1 = T(inp["ln1_gamma"], dt), T(inp["ln1_beta"], dt)
    g2, b2 = T(inp["ln2_gamma"], dt), T(inp["ln2_beta"], dt)
    ap = {"L": L, "d_model": d, "n_heads": p["n_heads"], "causal": p["causal"]}
    fp = {"L": L, "d_model": d, "d_ff": dff, "activation": p["activation"]}

    def attn(t):
        return attention_ref(inp, ap, dt, x=t)["out"]

    def ffn(t):
        fi = {"x": t.detach().numpy().astype(np.float64)}
        fi.update({k: inp[k] for k in ("w1", "b1", "w2", "b2")})
        return ffn_ref(fi, fp, dt)["out"]

    if not p["pre_ln"]:
        a = attn(x)
        r1 = x + a
        n1 = layer_norm(r1, g1, b1, eps)
        r2 = n1 + ffn(n1)
        n2 = layer_norm(r2, g2, b2, eps)
        out = n2
    else:
        n1 = layer_norm(x, g1, b1, eps)
        a = attn(n1)
        r1 = x + a
        n2 = layer_norm(r1, g2, b2, eps)
        r2 = r1 + ffn(n2)
        out = r2
    return {"attn_out": a, "resid1": r1, "norm1": n1, "resid2": r2, "norm2": n2, "out": out}


def torch_layer_check(inp, p, ref_out):
    L, d, H, dff = p["L"], p["d_model"], p["n_heads"], p["d_ff"]
    layer = nn.TransformerEncoderLayer(d, H, dim_feedforward=dff, dropout=0.0,
                                       activation=p["activation"], layer_norm_eps=p["eps"],
                                       batch_first=True, norm_first=p["pre_ln"], dtype=F64)
    layer.train()  # dropout is 0; training mode avoids the fused inference fast path

    def M(n, r, c):
        return T(inp[n], F64).reshape(r, c)

    with torch.no_grad():
        sa = layer.self_attn
        sa.in_proj_weight.copy_(torch.cat([M("wq", d, d).T, M("wk", d, d).T, M("wv", d, d).T]))
        sa.in_proj_bias.copy_(torch.cat([T(inp["bq"], F64), T(inp["bk"], F64),
                                         T(inp["bv"], F64)]))
        sa.out_proj.weight.copy_(M("wo", d, d).T)
        sa.out_proj.bias.copy_(T(inp["bo"], F64))
        layer.linear1.weight.copy_(M("w1", d, dff).T)
        layer.linear1.bias.copy_(T(inp["b1"], F64))
        layer.linear2.weight.copy_(M("w2", dff, d).T)
        layer.linear2.bias.copy_(T(inp["b2"], F64))
        layer.norm1.weight.copy_(T(inp["ln1_gamma"], F64))
        layer.norm1.bias.copy_(T(inp["ln1_beta"], F64))
        layer.norm2.weight.copy_(T(inp["ln2_gamma"], F64))
        layer.norm2.bias.copy_(T(inp["ln2_beta"], F64))
        mask = None
        if p["causal"]:
            mask = torch.triu(torch.full((L, L), -math.inf, dtype=F64), diagonal=1)
        y = layer(M("x", L, d)[None], src_mask=mask)[0]
    assert torch.allclose(y, ref_out, rtol=1e-10, atol=1e-10), (y - ref_out).abs().max()


def gen_block():
    rng = np.random.default_rng(4242)
    specs = []
    for pre in (False, True):
        for act in ("relu", "gelu"):
            for causal in (False, True):
                specs.append((5, 8, 2, 32, act, pre, causal))
    specs.append((6, 12, 3, 20, "gelu", True, True))
    cases = []
    for L, d, H, dff, act, pre, causal in specs:
        inp = {"x": flat(f32(rng.standard_normal((L, d))))}
        for w in ("q", "k", "v", "o"):
            inp["w" + w] = flat(f32(rng.standard_normal((d, d)) / math.sqrt(d)))
            inp["b" + w] = flat(f32(0.1 * rng.standard_normal(d)))
        for n in ("ln1", "ln2"):
            inp[n + "_gamma"] = flat(f32(1.0 + 0.2 * rng.standard_normal(d)))
            inp[n + "_beta"] = flat(f32(0.1 * rng.standard_normal(d)))
        inp["w1"] = flat(f32(rng.standard_normal((d, dff)) / math.sqrt(d)))
        inp["b1"] = flat(f32(0.1 * rng.standard_normal(dff)))
        inp["w2"] = flat(f32(rng.standard_normal((dff, d)) / math.sqrt(dff)))
        inp["b2"] = flat(f32(0.1 * rng.standard_normal(d)))
        p = {"L": L, "d_model": d, "n_heads": H, "d_ff": dff, "activation": act,
             "pre_ln": pre, "causal": causal, "eps": 1e-5}
        ref_t = block_ref(inp, p, F64)
        torch_layer_check(inp, p, ref_t["out"])
        ref = to_np(ref_t)
        got = [to_np(block_ref(inp, p, F32)), to_np(run_seq(block_ref, inp, p, F32))]
        atol = choose_atol(ref, got, max(d, dff))
        name = "%s_%s_%s_L%d_d%d_h%d_ff%d" % ("pre_ln" if pre else "post_ln", act,
                                              "causal" if causal else "bidir", L, d, H, dff)
        cases.append({"name": name, "params": p, "inputs": inp,
                      "expected": {k: flat(v) for k, v in ref.items()},
                      "atol": atol, "rtol": RTOL})
    write("block.json", cases, "TransformerEncoderLayer cross-check ok")


# ---- 6. params.json ---------------------------------------------------------------------
class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, device="meta"))


def make_norm(c):
    return nn.LayerNorm(c["d_model"], device="meta") if c["norm"] == "layer" else RMSNorm(c["d_model"])


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, H = c["d_model"], c["n_heads"]
        kv = c["n_kv_heads"] or H
        dkv = kv * (d // H)
        # attn_bias: False, True (q, k, v and o) or "qkv" (q, k and v only, as in Qwen2)
        bias, o_bias = bool(c["attn_bias"]), c["attn_bias"] is True
        self.q = nn.Linear(d, d, bias=bias, device="meta")
        self.k = nn.Linear(d, dkv, bias=bias, device="meta")
        self.v = nn.Linear(d, dkv, bias=bias, device="meta")
        self.o = nn.Linear(d, d, bias=o_bias, device="meta")


class Expert(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, dff, bias = c["d_model"], c["d_ff"], c["ffn_bias"]
        self.w1 = nn.Linear(d, dff, bias=bias, device="meta")
        if c["gated"]:
            self.w3 = nn.Linear(d, dff, bias=bias, device="meta")
        self.w2 = nn.Linear(dff, d, bias=bias, device="meta")


class FFN(nn.Module):
    def __init__(self, c):
        super().__init__()
        if c["n_experts"]:
            self.router = nn.Linear(c["d_model"], c["n_experts"], bias=False, device="meta")
            self.experts = nn.ModuleList([Expert(c) for _ in range(c["n_experts"])])
        else:
            self.experts = nn.ModuleList([Expert(c)])


class EncoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.ffn = FFN(c)
        self.norm1, self.norm2 = make_norm(c), make_norm(c)


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.cross_attn = Attention(c)
        self.ffn = FFN(c)
        self.norm1, self.norm2, self.norm3 = make_norm(c), make_norm(c), make_norm(c)


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["d_model"]
        self.tok = nn.Embedding(c["vocab"], d, device="meta")
        if c["max_positions"]:
            self.pos = nn.Embedding(c["max_positions"], d, device="meta")
        if c["type_vocab"]:
            self.typ = nn.Embedding(c["type_vocab"], d, device="meta")
        if c["embed_norm"]:
            self.embed_norm = make_norm(c)
        self.layers = nn.ModuleList([EncoderLayer(c) for _ in range(c["n_layers"])])
        self.dec_layers = nn.ModuleList([DecoderLayer(c) for _ in range(c["n_dec_layers"])])
        if c["final_norm"]:
            self.final_norm = make_norm(c)
        if c["pooler"]:
            self.pooler = nn.Linear(d, d, bias=True, device="meta")
        if c["lm_head"]:
            self.lm_head = nn.Linear(d, c["vocab"], bias=False, device="meta")


def count_params(c):
    m = Model(c)
    groups = {"embeddings": 0, "attention": 0, "ffn": 0, "norms": 0, "other": 0}
    unused_experts = 0
    for name, prm in m.named_parameters():
        assert prm.device.type == "meta"
        n = prm.numel()
        parts = name.split(".")
        if parts[0] in ("tok", "pos", "typ"):
            g = "embeddings"
        elif parts[0] in ("pooler", "lm_head"):
            g = "other"
        elif "attn" in name:
            g = "attention"
        elif ".ffn." in name:
            g = "ffn"
            if "experts" in parts and c["n_experts"]:
                idx = int(parts[parts.index("experts") + 1])
                if idx >= c["top_k"]:
                    unused_experts += n
        elif "norm" in name:
            g = "norms"
        else:
            raise AssertionError(name)
        groups[g] += n
    total = sum(groups.values())
    assert total == sum(p.numel() for p in m.parameters())
    res = dict(groups)
    res["total"] = total
    res["active"] = total - unused_experts
    layer = EncoderLayer(c)
    res["attention_per_layer"] = sum(p.numel() for p in layer.self_attn.parameters())
    res["ffn_per_layer"] = sum(p.numel() for p in layer.ffn.parameters())
    return res


def config(**kw):
    c = {"vocab": 0, "max_positions": 0, "type_vocab": 0, "d_model": 0, "n_layers": 0,
         "n_heads": 0, "n_kv_heads": 0, "d_ff": 0, "gated": False, "norm": "layer",
         "attn_bias": False, "ffn_bias": False, "embed_norm": False, "final_norm": False,
         "lm_head": False, "pooler": False, "n_experts": 0, "top_k": 0, "n_dec_layers": 0}
    for k, v in kw.items():
        assert k in c, k
        c[k] = v
    return c


def gen_params():
    tb = dict(vocab=37000, d_model=512, n_layers=6, n_heads=8, d_ff=2048, attn_bias=True,
              ffn_bias=True, n_dec_layers=6)
    presets = [
        ("transformer-base", config(**tb), 65000000, None),
        ("transformer-big", config(**dict(tb, d_model=1024, n_heads=16, d_ff=4096)), 213000000,
         None),
        ("bert-base", config(vocab=30522, max_positions=512, type_vocab=2, d_model=768,
                             n_layers=12, n_heads=12, d_ff=3072, attn_bias=True, ffn_bias=True,
                             embed_norm=True, pooler=True), 110000000, 109482240),
        ("gpt2", config(vocab=50257, max_positions=1024, d_model=768, n_layers=12, n_heads=12,
                        d_ff=3072, attn_bias=True, ffn_bias=True, final_norm=True),
         117000000, 124439808),   # the GPT-2 paper printed 117M; the weights hold 124M
        ("llama-2-7b", config(vocab=32000, d_model=4096, n_layers=32, n_heads=32, d_ff=11008,
                              gated=True, norm="rms", final_norm=True, lm_head=True),
         7000000000, 6738415616),
        ("mixtral-8x7b", config(vocab=32000, d_model=4096, n_layers=32, n_heads=32,
                                n_kv_heads=8, d_ff=14336, gated=True, norm="rms",
                                final_norm=True, lm_head=True, n_experts=8, top_k=2),
         46700000000, 46702792704),
        ("qwen2-0.5b", config(vocab=151936, d_model=896, n_layers=24, n_heads=14, n_kv_heads=2,
                              d_ff=4864, gated=True, norm="rms", attn_bias="qkv",
                              final_norm=True),
         494032768, 494032768),   # the model card's total, exactly
        ("poems", config(vocab=3436, max_positions=64, d_model=64, n_layers=2, n_heads=4,
                         d_ff=256, attn_bias=True, ffn_bias=True, final_norm=True),
         324096, 324096),   # web/models/poems: its config.json and its safetensors file
    ]
    customs = [
        ("tiny_relu_bias", config(vocab=7, d_model=8, n_layers=1, n_heads=2, d_ff=32,
                                  attn_bias=True, ffn_bias=True)),
        ("tiny_nobias_final_norm_untied_head", config(vocab=7, d_model=8, n_layers=1,
                                                      n_heads=2, d_ff=32, final_norm=True,
                                                      lm_head=True)),
        ("small_gated_rms_positions", config(vocab=11, max_positions=16, d_model=12, n_layers=2,
                                             n_heads=3, d_ff=20, gated=True, norm="rms",
                                             ffn_bias=True, final_norm=True)),
        ("small_gqa_attn_bias", config(vocab=10, d_model=16, n_layers=2, n_heads=4,
                                       n_kv_heads=2, d_ff=24, gated=True, norm="rms",
                                       attn_bias=True, final_norm=True, lm_head=True)),
        ("small_gqa_qkv_bias_only", config(vocab=10, d_model=16, n_layers=2, n_heads=4,
                                           n_kv_heads=2, d_ff=24, gated=True, norm="rms",
                                           attn_bias="qkv", final_norm=True)),
        ("small_moe_4experts_top2", config(vocab=9, d_model=8, n_layers=2, n_heads=2,
                                           n_kv_heads=1, d_ff=12, gated=True, norm="rms",
                                           final_norm=True, lm_head=True, n_experts=4,
                                           top_k=2)),
        ("small_bert_like", config(vocab=13, max_positions=6, type_vocab=2, d_model=8,
                                   n_layers=2, n_heads=2, d_ff=16, attn_bias=True,
                                   ffn_bias=True, embed_norm=True, pooler=True)),
        ("small_encoder_decoder", config(vocab=10, d_model=8, n_layers=1, n_heads=2, d_ff=16,
                                         attn_bias=True, ffn_bias=True, n_dec_layers=2)),
    ]
    cases = []
    for name, c, printed, exact in presets:
        r = count_params(c)
        if exact is not None:
            assert r["total"] == exact, (name, r["total"], exact)
        if name == "mixtral-8x7b":
            assert r["active"] == 12879925248, r["active"]
        if name.startswith("transformer"):
            # the paper rounds; our count must at least round to the printed millions
            assert abs(r["total"] - printed) / printed < 0.05, (name, r["total"])
        params = dict(c)
        params["preset"] = name
        exp = dict(r)
        exp["printed_total"] = printed
        cases.append({"name": name, "params": params, "inputs": {}, "expected": exp,
                      "atol": 0, "rtol": 0})
    for name, c in customs:
        params = dict(c)
        params["preset"] = None
        cases.append({"name": name, "params": params, "inputs": {},
                      "expected": count_params(c), "atol": 0, "rtol": 0})
    tot = {c["name"]: c["expected"]["total"] for c in cases}
    write("params.json", cases, "bert-base=%d gpt2=%d llama-2-7b=%d transformer-base=%d"
          % (tot["bert-base"], tot["gpt2"], tot["llama-2-7b"], tot["transformer-base"]))


# ---- moe.json: Mixtral-style mixture of experts ------------------------------------------
def moe_route(logits, k):
    """Per token the k largest logits, largest first; among equal logits the lower expert index
    first (the stated rule: torch.topk promises no order for ties)."""
    return [sorted(range(len(row)), key=lambda j: (-row[j], j))[:k] for row in logits.tolist()]


def moe_expert(x, inp, p, e, dt):
    """Expert e's FFN on every token: x (L, d) -> (L, d), its weights sliced from the stack."""
    E, d, dff = p["n_experts"], p["d_model"], p["d_ff"]

    def W(n, r, c):
        return T(inp[n], dt).reshape(E, r, c)[e]

    def b(n, c):
        return T(inp[n], dt).reshape(E, c)[e] if n in inp else 0.0

    h = mm(x, W("w1", d, dff)) + b("b1", dff)
    a = ACT[p["activation"]](h)
    if p["activation"] in GATED:
        a = a * (mm(x, W("w3", d, dff)) + b("b3", dff))
    return mm(a, W("w2", dff, d)) + b("b2", d)


def moe_ref(inp, p, dt):
    """Dense reference: every expert on every token, then per token the weighted sum of its
    chosen experts' outputs."""
    L, d, E, K = p["L"], p["d_model"], p["n_experts"], p["top_k"]
    x = T(inp["x"], dt).reshape(L, d)
    logits = mm(x, T(inp["wr"], dt).reshape(d, E))
    idx = moe_route(logits, K)
    ys = [moe_expert(x, inp, p, e, dt) for e in range(E)]
    w = torch.stack([torch.softmax(logits[i, idx[i]], dim=-1) for i in range(L)])
    out = torch.stack([sum(w[i, k] * ys[idx[i][k]][i] for k in range(K)) for i in range(L)])
    load = [sum(e in row for row in idx) for e in range(E)]
    return {"logits": logits, "probs": torch.softmax(logits, dim=-1), "top_weight": w,
            "out": out}, idx, load


def moe_mixtral_check(inp, p, ref, idx, tie):
    """The same numbers the way Mixtral's code computes them: softmax over all experts, top-k,
    renormalise; each expert on its gathered tokens, index_add_ back."""
    L, d, E, K = p["L"], p["d_model"], p["n_experts"], p["top_k"]
    x = T(inp["x"], F64).reshape(L, d)
    probs = F.softmax(x @ T(inp["wr"], F64).reshape(d, E), dim=-1)
    tw, ti = torch.topk(probs, K, dim=-1)
    tw = tw / tw.sum(dim=-1, keepdim=True)
    assert torch.allclose(tw, ref["top_weight"], rtol=1e-12, atol=1e-12)
    if not tie:  # topk's order among equal values is unspecified
        assert ti.tolist() == idx
    sel = torch.tensor(idx)
    final = torch.zeros(L, d, dtype=F64)
    for e in range(E):
        tok, slot = torch.where(sel == e)
        if len(tok):
            y = moe_expert(x[tok], inp, p, e, F64) * ref["top_weight"][tok, slot, None]
            final.index_add_(0, tok, y)
    assert torch.allclose(final, ref["out"], rtol=1e-12, atol=1e-12)


def gen_moe():
    rng = np.random.default_rng(8072)
    # name, L, d, dff, E, K, activation, biases, tie (columns a < b of the router equal)
    specs = [("top1_relu", 7, 8, 16, 4, 1, "relu", True, None),
             ("top2_relu", 9, 8, 32, 8, 2, "relu", True, None),
             ("top2_gelu_nobias", 6, 12, 20, 5, 2, "gelu", False, None),
             ("top2_swiglu_mixtral_nobias", 9, 8, 24, 8, 2, "swiglu", False, None),
             ("top3_swiglu_bias", 5, 6, 10, 6, 3, "swiglu", True, None),
             ("tie_top1_relu", 8, 8, 16, 4, 1, "relu", True, (1, 3)),
             ("tie_top2_swiglu", 8, 8, 12, 6, 2, "swiglu", True, (2, 4))]
    cases = []
    for name, L, d, dff, E, K, act, bias, tie in specs:
        gated = act in GATED
        while True:
            if tie:  # dyadic values: every logit exact in any precision and order, ties too
                x = rng.integers(-16, 17, (L, d)) / 8.0
                wr = rng.integers(-4, 5, (d, E)) / 4.0
                wr[:, tie[1]] = wr[:, tie[0]]
            else:
                x = rng.standard_normal((L, d))
                wr = rng.standard_normal((d, E)) / math.sqrt(d)
            lg = x @ wr
            ranks = np.array([sorted(row, reverse=True)[:K + 1] for row in lg])
            if tie:  # the tie decides the choice (one of the pair in, one out) for 2+ tokens
                a, b = tie
                order = moe_route(torch.tensor(lg), E)
                deciding = sum(row.index(a) == K - 1 and row.index(b) == K for row in order)
                if deciding >= 2:
                    break
            elif K == E or np.min(-np.diff(ranks, axis=1)) > 1e-3:
                break  # float32 rounding cannot reorder the top K + 1 logits
        inp = {"x": flat(f32(x)), "wr": flat(f32(wr))}
        inp["w1"] = flat(f32(rng.standard_normal((E, d, dff)) / math.sqrt(d)))
        if bias:
            inp["b1"] = flat(f32(0.1 * rng.standard_normal((E, dff))))
        if gated:
            inp["w3"] = flat(f32(rng.standard_normal((E, d, dff)) / math.sqrt(d)))
            if bias:
                inp["b3"] = flat(f32(0.1 * rng.standard_normal((E, dff))))
        inp["w2"] = flat(f32(rng.standard_normal((E, dff, d)) / math.sqrt(dff)))
        if bias:
            inp["b2"] = flat(f32(0.1 * rng.standard_normal((E, d))))
        p = {"L": L, "d_model": d, "d_ff": dff, "n_experts": E, "top_k": K, "activation": act,
             "bias": bias, "tie": list(tie) if tie else None}
        ref_t, idx, load = moe_ref(inp, p, F64)
        moe_mixtral_check(inp, p, ref_t, idx, tie)
        if tie:
            assert any(tie[0] in row and tie[1] not in row for row in idx)
        ref = to_np(ref_t)
        got = []
        for fn in (lambda: moe_ref(inp, p, F32), lambda: run_seq(moe_ref, inp, p, F32)):
            g, gidx, gload = fn()
            assert gidx == idx and gload == load, name  # float32 routes every token the same
            got.append(to_np(g))
        atol = choose_atol(ref, got, max(d, dff))
        expected = {k: flat(v) for k, v in ref.items()}
        expected["top_index"] = [j for row in idx for j in row]
        expected["load"] = load
        cases.append({"name": "%s_L%d_d%d_ff%d_E%d" % (name, L, d, dff, E), "params": p,
                      "inputs": inp, "expected": expected, "atol": atol, "rtol": RTOL})
    write("moe.json", cases, "Mixtral-style top-k + index_add_ cross-check ok")


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    gen_rng()
    gen_ffn()
    gen_attention()
    gen_norms()
    gen_block()
    gen_params()
    gen_moe()
    gen_poems()


def gen_poems():
    """poems.json: the trained model of web/models/poems through its own numpy reference."""
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "train", "reference.py")],
                   check=True)


if __name__ == "__main__":
    main()
