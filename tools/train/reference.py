#!/usr/bin/python3
# Independent float64 reference for the shipped poem model: parses web/models/poems/ itself
# (safetensors, config.json, vocab.json; no code shared with train.py), runs the GPT-2 forward
# in numpy and writes tests/fixtures/poems.json (committed, so the tests need neither numpy nor
# torch): ids, last-position logits and top 10 for a few strings, every intermediate of each
# layer and all logits for the first one, with float32 tolerances measured like
# tools/gen_fixtures.py does (a float32 run of the same forward, times a margin).
import argparse
import json
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tolerance import nice_up  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "web", "models", "poems")
OUT = os.path.join(ROOT, "tests", "fixtures", "poems.json")
TEXTS = ["床前明月光", "远方有颗苹果树", "白日依山尽，黄河入海"]
RTOL = 1e-4
DTYPES = {"F16": "<f2", "F32": "<f4"}


def read_safetensors(path):
    """{name: float64 array}: u64 LE header length, JSON header, then the data block."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out, end = {}, 0
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
        out[name] = arr.astype(np.float32).astype(np.float64)  # float16 -> float32 is exact
        end = max(end, b)
    assert end == len(data), "safetensors: data block length does not match the header"
    return out


def load_model(folder=MODEL):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    W = read_safetensors(os.path.join(folder, "model.safetensors"))
    assert len(vocab) == config["vocab_size"] == W["wte.weight"].shape[0]
    return config, vocab, W


def encode(text, vocab, config):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return [config["bos_token_id"]] + [stoi.get(ch, config["unk_token_id"]) for ch in text]


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def forward(config, W, ids, dtype=np.float64):
    """ids (L,) -> (logits (L, vocab), [per-layer dict of intermediates]), all in dtype."""
    d, H, eps = config["n_embd"], config["n_head"], dtype(config["layer_norm_epsilon"])
    W = {k: v.astype(dtype) for k, v in W.items()}
    L, dk = len(ids), d // H
    x = W["wte.weight"][ids] + W["wpe.weight"][:L]                          # (L, d)
    future = np.triu(np.ones((L, L), dtype=bool), 1)
    layers = []
    for i in range(config["n_layer"]):
        p = lambda n: W["h.%d.%s" % (i, n)]  # noqa: E731
        r = {"x": x}
        r["norm1"] = layer_norm(x, p("ln_1.weight"), p("ln_1.bias"), eps)
        qkv = r["norm1"] @ p("attn.c_attn.weight") + p("attn.c_attn.bias")     # (L, 3d)
        r["q"], r["k"], r["v"] = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
        qh, kh, vh = (r[n].reshape(L, H, dk).transpose(1, 0, 2) for n in "qkv")  # (H, L, dk)
        r["scores"] = qh @ kh.transpose(0, 2, 1)                             # (H, L, L) raw
        s = np.where(future, -np.inf, r["scores"] / dtype(math.sqrt(dk)))
        r["weights"] = softmax(s)
        r["context"] = r["weights"] @ vh                                     # (H, L, dk)
        r["concat"] = r["context"].transpose(1, 0, 2).reshape(L, d)
        r["attn_out"] = r["concat"] @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
        r["resid1"] = x + r["attn_out"]
        r["norm2"] = layer_norm(r["resid1"], p("ln_2.weight"), p("ln_2.bias"), eps)
        r["hidden"] = r["norm2"] @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias")   # (L, d_ff)
        r["activated"] = np.maximum(r["hidden"], 0)
        r["ffn_out"] = r["activated"] @ p("mlp.c_proj.weight") + p("mlp.c_proj.bias")
        r["resid2"] = x = r["resid1"] + r["ffn_out"]
        layers.append(r)
    lnf = layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], eps)
    return lnf @ W["wte.weight"].T, layers                                   # tied unembedding


def top_k(logits, vocab, k=10):
    p = softmax(logits)
    order = sorted(range(len(p)), key=lambda j: (-p[j], j))[:k]
    return [{"id": j, "char": vocab[j], "p": rnd(p[j])} for j in order]


def rnd(v):
    return float("%.7g" % v)


def flat(a):
    return [rnd(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def atol_for(ref, got, margin=16.0, floor=1e-4):
    """Absolute tolerance (with RTOL) covering a float32 run's error times a margin."""
    err = max(float(np.max(np.abs(got[k] - ref[k]) - RTOL * np.abs(ref[k]))) for k in ref)
    return nice_up(max(floor, margin * err))


def layer_record(r):
    return {"x": flat(r["x"]), "norm1": flat(r["norm1"]),
            "attention": {n: flat(r[n]) for n in ("q", "k", "v", "scores", "weights", "context",
                                                  "concat")} | {"out": flat(r["attn_out"])},
            "resid1": flat(r["resid1"]), "norm2": flat(r["norm2"]),
            "ffn": {"hidden": flat(r["hidden"]), "activated": flat(r["activated"]),
                    "out": flat(r["ffn_out"])},
            "resid2": flat(r["resid2"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    config, vocab, W = load_model(args.model)
    cases = []
    for n, text in enumerate(TEXTS):
        ids = encode(text, vocab, config)
        logits, layers = forward(config, W, ids)
        logits32, layers32 = forward(config, W, ids, np.float32)
        ref = {"logits": logits} | {"%d.%s" % (i, k): v for i, r in enumerate(layers)
                                    for k, v in r.items()}
        got = {"logits": logits32} | {"%d.%s" % (i, k): v for i, r in enumerate(layers32)
                                      for k, v in r.items()}
        case = {"text": text, "ids": ids, "tokens": [vocab[i] for i in ids], "L": len(ids),
                "last_logits": flat(logits[-1]), "top10": top_k(logits[-1], vocab),
                "atol": atol_for(ref, got), "rtol": RTOL}
        if n == 0:
            case["logits"] = flat(logits)
            case["layers"] = [layer_record(r) for r in layers]
        cases.append(case)
        print("%-12s ids %s  top: %s  (atol %g)" % (text, ids, " ".join(
            "%s %.3f" % (t["char"], t["p"]) for t in case["top10"][:5]), case["atol"]))
    head = {"generator": "tools/train/reference.py", "numpy": np.__version__,
            "model": "web/models/poems", "vocab_size": config["vocab_size"],
            "shapes": {"x, norm1, q, k, v, concat, attention.out, resid1, norm2, ffn.out, resid2":
                       "(L, n_embd)", "scores, weights": "(n_head, L, L)",
                       "context": "(n_head, L, n_embd / n_head)",
                       "ffn.hidden, ffn.activated": "(L, n_inner)",
                       "logits": "(L, vocab_size)", "last_logits": "(vocab_size,)"},
            "notes": "x is the layer's input (layer 0: wte[ids] + wpe[:L]); scores are raw q.k, "
                     "unscaled and unmasked; weights = softmax(scores / sqrt(d_k) + causal mask); "
                     "values rounded to 7 significant digits"}
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"cases":[\n'
    text += ",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":"),
                                  allow_nan=False) for c in cases)
    text += "\n]}\n"
    json.loads(text)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s (%d bytes)" % (args.out, len(text.encode())))


if __name__ == "__main__":
    main()
