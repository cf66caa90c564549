#!/usr/bin/python3
# FFN neuron references, tests/fixtures/hooks/neurons.json (figure 16): for the shipped poem model
# on the quatrain and for the gpt2, llama and qwen3 fixture folders on gen_models.py's IDS, in
# float64 torch on the checkpoints themselves (gen_models.py's forwards):
#   - per layer, the 10 neurons with the largest activation over positions 2..L (position 1 sees
#     only itself, the same row for every text that starts with it), ties the lower index first;
#   - for a few neurons, the activation on every position, and the 10 tokens each promotes and
#     suppresses most: U (vocab, d) @ (g * w_out), w_out the neuron's output row (GPT-2 c_proj row
#     n, Llama down_proj column n), g the final norm's weight, no centring, no bias;
#   - the poem model only: one neuron's top 10 of the 300 held-out poems (web/models/poems/
#     heldout.txt, "<s>" + the poem cut to the 64-position context), by its largest activation
#     over positions 2..L, with that position.
import json
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import F64, IDS, gpt2_forward, llama_forward, short, write_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "hooks", "neurons.json")
QUATRAIN = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
DTYPES = {"F16": torch.float16, "F32": torch.float32, "BF16": torch.bfloat16}
TOP = 10
ATOL = 1e-4   # float32 engine against float64 torch, activations and direct logits (|v| < 20)


def read_folder(folder):
    """{name: float64 tensor} from every .safetensors file of a folder."""
    W = {}
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".safetensors"):
            continue
        with open(os.path.join(folder, f), "rb") as fh:
            data = fh.read()
        n = struct.unpack("<Q", data[:8])[0]
        for name, e in json.loads(data[8:8 + n]).items():
            if name == "__metadata__" or e["dtype"] not in DTYPES:   # (GPT-2's saved causal-mask buffers)
                continue
            a, b = e["data_offsets"]
            t = torch.frombuffer(bytearray(data[8 + n + a:8 + n + b]), dtype=DTYPES[e["dtype"]])
            W[name] = t.view(e["shape"]).to(F64)
    return W


def top_ids(values, k, largest=True):
    """ids of the k largest (smallest) values, ties the lower id first."""
    order = sorted(range(len(values)), key=lambda i: (-values[i] if largest else values[i], i))
    return order[:k]


def model_doc(name, forward, nl, ids, w_out, gain, unembed, picks):
    acts = [forward(ids, l)["layer"]["activated"] for l in range(nl)]   # (L, F) each
    doc = {"name": name, "ids": ids, "layers": []}
    for l, a in enumerate(acts):
        rows = a[1:] if len(ids) > 1 else a
        mx = rows.max(0).values.tolist()
        top = top_ids(mx, TOP)
        doc["layers"].append({"top": top, "max": [short(mx[n]) for n in top]})
    chosen = [(l, doc["layers"][l]["top"][0]) for l in range(nl)] + picks
    doc["neurons"] = []
    for l, n in chosen:
        direct = (unembed @ (gain * w_out(l, n))).tolist()
        up, down = top_ids(direct, TOP), top_ids(direct, TOP, largest=False)
        doc["neurons"].append({"layer": l, "neuron": n,
                               "activation": [short(v) for v in acts[l][:, n].tolist()],
                               "promote": up, "promote_values": [short(direct[i]) for i in up],
                               "suppress": down, "suppress_values": [short(direct[i]) for i in down]})
    return doc


def poems_doc():
    folder = os.path.join(ROOT, "web", "models", "poems")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    vocab = json.load(open(os.path.join(folder, "vocab.json")))
    W = {("transformer." + k if not k.startswith("transformer.") else k): v
         for k, v in read_folder(folder).items()}
    index = {s: i for i, s in enumerate(vocab)}
    enc = lambda text: [index["<s>"]] + [index.get(ch, index["<unk>"]) for ch in text]  # noqa: E731
    fwd = lambda ids, l: gpt2_forward(cfg, W, ids, F64, l)  # noqa: E731
    NL = cfg["n_layer"]
    doc = model_doc("poems", fwd, NL, enc(QUATRAIN), lambda l, n: W["transformer.h.%d.mlp.c_proj.weight" % l][n],
                    W["transformer.ln_f.weight"], W["transformer.wte.weight"], [(0, 0), (1, 255)])
    doc["text"] = QUATRAIN
    # the held-out search for layer 2's top neuron on the quatrain
    l, n = 1, doc["layers"][1]["top"][0]
    with open(os.path.join(folder, "heldout.txt"), encoding="utf-8") as fh:
        poems = [line.rstrip("\n") for line in fh]
    assert len(poems) == 300
    hits = []
    for i, poem in enumerate(poems):
        ids = enc(poem)[:cfg["n_positions"]]
        a = fwd(ids, l)["layer"]["activated"][1:, n].tolist()
        p = max(range(len(a)), key=lambda j: (a[j], -j))
        hits.append((a[p], i, p + 1))
    hits.sort(key=lambda h: (-h[0], h[1]))
    doc["search"] = {"layer": l, "neuron": n, "lines": [h[1] for h in hits[:TOP]],
                     "positions": [h[2] for h in hits[:TOP]], "values": [short(h[0]) for h in hits[:TOP]]}
    return doc


def fixture_doc(name):
    folder = os.path.join(ROOT, "tests", "fixtures", "models", name)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    W = read_folder(folder)
    if cfg["model_type"] == "gpt2":
        W = {("transformer." + k if not k.startswith("transformer.") else k): v for k, v in W.items()}
        fwd = lambda ids, l: gpt2_forward(cfg, W, ids, F64, l)  # noqa: E731
        return model_doc(name, fwd, cfg["n_layer"], IDS, lambda l, n: W["transformer.h.%d.mlp.c_proj.weight" % l][n],
                         W["transformer.ln_f.weight"], W["transformer.wte.weight"], [(1, 3)])
    c = {"heads": cfg["num_attention_heads"], "kv_heads": cfg["num_key_value_heads"],
         "head_dim": cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"],
         "eps": cfg["rms_norm_eps"], "rope_theta": cfg.get("rope_theta") or cfg["rope_parameters"]["rope_theta"], "rope_scaling": cfg.get("rope_scaling"),
         "layers": cfg["num_hidden_layers"]}
    fwd = lambda ids, l: llama_forward(c, W, ids, F64, l)  # noqa: E731
    head = W.get("lm_head.weight", W["model.embed_tokens.weight"])
    return model_doc(name, fwd, c["layers"], IDS,
                     lambda l, n: W["model.layers.%d.mlp.down_proj.weight" % l][:, n],
                     W["model.norm.weight"], head, [(1, 3)])


def main():
    doc = {"generator": "tools/gen_neuron_ref.py", "torch": torch.__version__, "atol": ATOL, "top": TOP,
           "convention": "direct logits U @ (g * w_out): g the final norm's weight, no centring, no bias",
           "models": [poems_doc()] + [fixture_doc(n) for n in ("gpt2", "llama", "qwen3")]}
    write_json(OUT, doc)
    s = doc["models"][0]["search"]
    print("neurons.json %d bytes; poems search neuron %d.%d lines %s" % (os.path.getsize(OUT), s["layer"] + 1,
                                                                    s["neuron"] + 1, s["lines"][:5]))


if __name__ == "__main__":
    main()
