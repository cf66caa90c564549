#!/usr/bin/python3
# The shipped poem model's hooks reference, tests/fixtures/hooks/poems.json (as hooks.json of
# tools/gen_models.py): lens, ablations and patching on 床前明月光 (clean) / 床前明日光 (corrupted),
# and on the quatrain 床前明月光，疑是地上霜。举头望明月，低头思故乡。 its lens and every head ablated
# alone, read at the row that predicts its last 乡. Reads web/models/poems itself (safetensors,
# config.json, vocab.json: "<s>" then one id per character, "<unk>" for others, as
# engine-vocab.js encodes); its float64 forward is gen_models.py's GPT-2 one, checked first
# against tools/train/reference.py's independent numpy numbers (tests/fixtures/poems.json).
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import F64, gpt2_forward, run_seq, write_json  # noqa: E402
from hooks_ref import hooks_doc, standard_ablations  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "web", "models", "poems")
OUT = os.path.join(ROOT, "tests", "fixtures", "hooks", "poems.json")
CLEAN, CORRUPT = "床前明月光", "床前明日光"
QUATRAIN = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
DTYPES = {"F16": torch.float16, "F32": torch.float32}


def read_safetensors(path):
    """{name: tensor in its file dtype}, named as GPT2LMHeadModel's ("transformer." + name)."""
    with open(path, "rb") as fh:
        data = fh.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    W = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[8 + n + a:8 + n + b]), dtype=DTYPES[e["dtype"]])
        W[name if name.startswith("transformer.") else "transformer." + name] = t.view(e["shape"])
    return W


def encode(text, vocab):
    ids = {s: i for i, s in enumerate(vocab)}
    return [ids["<s>"]] + [ids.get(ch, ids["<unk>"]) for ch in text]


def main():
    with open(os.path.join(MODEL, "config.json")) as fh:
        cfg = json.load(fh)
    with open(os.path.join(MODEL, "vocab.json")) as fh:
        vocab = json.load(fh)
    W = read_safetensors(os.path.join(MODEL, "model.safetensors"))
    clean, corrupt, quatrain = (encode(t, vocab) for t in (CLEAN, CORRUPT, QUATRAIN))
    assert 1 not in clean + corrupt + quatrain, "a character is not in vocab.json"

    def forward(Wd, dt, ids, hooks):
        return gpt2_forward(cfg, Wd, ids, dt, -1, hooks)

    # the forward agrees with the independent numpy reference on the clean text
    with open(os.path.join(ROOT, "tests", "fixtures", "poems.json")) as fh:
        other = next(c for c in json.load(fh)["cases"] if c["text"] == CLEAN)
    assert other["ids"] == clean, (other["ids"], clean)
    mine = forward({n: t.to(F64) for n, t in W.items()}, F64, clean, None)["logits"][-1].numpy()
    gap = float(np.max(np.abs(mine - np.array(other["last_logits"]))))
    assert gap < other["atol"], gap

    target = len(quatrain) - 2    # ids[-2] is 乡 (then 。); row target - 1 predicts it
    assert vocab[quatrain[target]] == "乡"
    H, NL = cfg["n_head"], cfg["n_layer"]
    spec = {"lens": [clean, quatrain],
            "ablate": [{"ids": clean, "row": len(clean) - 1, "cases": standard_ablations(H, NL)},
                       {"ids": quatrain, "row": target - 1, "target": quatrain[target],
                        "cases": [{"name": "layer %d head %d" % (l, h), "ablate": [[l, h]]}
                                  for l in range(NL) for h in range(H)]}],
            "patch": {"clean": clean, "corrupt": corrupt}}
    doc = hooks_doc(forward, W, spec, max(cfg["n_embd"], cfg["n_inner"]), run_seq)
    doc = dict({"generator": "tools/gen_poem_hooks.py", "torch": torch.__version__,
                "model": "web/models/poems", "texts": {"clean": CLEAN, "corrupt": CORRUPT,
                                                       "quatrain": QUATRAIN},
                "numpy_reference_gap": gap}, **doc)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    write_json(OUT, doc)
    p = doc["patch"]
    print("poems.json %d bytes  atol %s  answer %s wrong %s  clean %.3f corrupt %.3f  "
          "(numpy gap %.1e)" % (os.path.getsize(OUT), doc["atol"], vocab[p["answer"]], vocab[p["wrong"]],
             p["clean_diff"], p["corrupt_diff"], gap))


if __name__ == "__main__":
    main()
