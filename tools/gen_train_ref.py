#!/usr/bin/python3
# The training references (tests/fixtures/train/gpt2_tiny.json) for src/train.c and src/adamw.c:
# a tiny GPT-2 (tools/train/gpt2.py's forward, as train.py: pre-LN, causal, tied embeddings), its mean loss
# and every gradient by torch autograd, and 20 steps of clip_grad_norm_(1.0) + torch.optim.AdamW
# (weight decay on the 2-D weights only, as train.py), for gelu_new and relu. The references are
# float64; each tolerance is the same computation in float32 against float64, times 16
# (floored), as tools/gen_fixtures.py's choose_atol measures its tolerances.
# Parameters are not stored: they are np.random.RandomState(seed).randn(n) as float32, times
# `scale`, gains + 1, in the engine's flat layout (include/blocklens.h, "training"), which the
# Node test regenerates with bl.numpyRandom(seed).randnF32(n). Gradients and final weights are
# stored as base64 of little-endian float32 (float32 values are what the engine is compared
# with; 4 bytes per value keeps the file at tens of kB).
# Usage: /usr/bin/python3 tools/gen_train_ref.py   (Debian's python3-torch 1.13, python3-numpy)
import base64
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
import gpt2  # noqa: E402  (tools/train/gpt2.py: the forward train.py trains)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "train", "gpt2_tiny.json")
SIZES = {"n_layers": 2, "d_model": 16, "n_heads": 2, "d_ff": 32, "vocab": 13, "n_positions": 8,
         "eps": 1e-5, "batch": 3, "L": 8}
ACTS = {"gelu_new": 2, "relu": 0}          # activation_function -> bl_activation
SEED, SCALE = 7, 0.3
ADAMW = {"lr": 1e-2, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.1, "clip": 1.0,
         "steps": 20}
FLOOR = 1e-7
torch.set_num_threads(1)


def layout(s):
    """[(HF name, shape, how)] in the engine's buffer order; how: None, or ('cols', j) for
    c_attn's column block j, ('slice', j) for its bias's j-th third (bq, bk, bv stay adjacent)."""
    D, Fd, V, P = s["d_model"], s["d_ff"], s["vocab"], s["n_positions"]
    out = [("wte.weight", (V, D), None), ("wpe.weight", (P, D), None)]
    for i in range(s["n_layers"]):
        h = "h.%d." % i
        out += [(h + "ln_1.weight", (D,), None), (h + "ln_1.bias", (D,), None)]
        out += [(h + "attn.c_attn.weight", (D, D), ("cols", j)) for j in range(3)]
        out += [(h + "attn.c_attn.bias", (D,), ("slice", j)) for j in range(3)]
        out += [(h + "attn.c_proj.weight", (D, D), None), (h + "attn.c_proj.bias", (D,), None),
                (h + "ln_2.weight", (D,), None), (h + "ln_2.bias", (D,), None),
                (h + "mlp.c_fc.weight", (D, Fd), None), (h + "mlp.c_fc.bias", (Fd,), None),
                (h + "mlp.c_proj.weight", (Fd, D), None), (h + "mlp.c_proj.bias", (D,), None)]
    return out + [("ln_f.weight", (D,), None), ("ln_f.bias", (D,), None)]


def unflatten(flat, s, dtype):
    D, P, at = s["d_model"], {}, 0
    parts = {}
    for name, shape, how in layout(s):
        n = int(np.prod(shape))
        parts.setdefault(name, []).append((flat[at:at + n].reshape(shape), how))
        at += n
    assert at == len(flat)
    for name, ps in parts.items():
        if ps[0][1] is None:
            P[name] = torch.tensor(ps[0][0], dtype=dtype)
        elif ps[0][1][0] == "cols":
            P[name] = torch.tensor(np.concatenate([p for p, _ in ps], axis=1), dtype=dtype)
        else:
            P[name] = torch.tensor(np.concatenate([p for p, _ in ps]), dtype=dtype)
    return {k: v.requires_grad_() for k, v in P.items()}


def flatten(T, s):
    D, out = s["d_model"], []
    for name, shape, how in layout(s):
        t = T[name].detach().double().numpy()
        if how is not None:
            t = t[:, how[1] * D:(how[1] + 1) * D] if how[0] == "cols" else t[how[1] * D:(how[1] + 1) * D]
        out.append(t.reshape(-1))
    return np.concatenate(out)


def initial(s):
    n = sum(int(np.prod(shape)) for _, shape, _ in layout(s))
    flat = np.random.RandomState(SEED).randn(n).astype(np.float32) * np.float32(SCALE)
    at = 0
    for name, shape, _ in layout(s):
        k = int(np.prod(shape))
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            flat[at:at + k] += np.float32(1)
        at += k
    return flat


def forward_loss(P, tokens, s, act):
    rows = torch.from_numpy(tokens)
    idx, y = rows[:, :-1].clamp(min=0), rows[:, 1:]
    fn = torch.relu if act == "relu" else (lambda f: F.gelu(f, approximate="tanh"))
    x = gpt2.forward(P, idx, s["n_layers"], s["n_heads"], s["eps"], fn)
    real = y >= 0
    return F.cross_entropy(x[real] @ P["wte.weight"].T, y[real])


def grads(flat, tokens, s, act, dtype):
    P = unflatten(flat, s, dtype)
    loss = forward_loss(P, tokens, s, act)
    loss.backward()
    return float(loss), flatten({k: v.grad for k, v in P.items()}, s)


def train(flat, batches, s, act, dtype):
    P = unflatten(flat, s, dtype)
    decay = [p for k, p in P.items() if k.endswith(".weight") and p.dim() == 2]
    other = [p for k, p in P.items() if not (k.endswith(".weight") and p.dim() == 2)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": ADAMW["weight_decay"]},
                             {"params": other, "weight_decay": 0.0}], lr=ADAMW["lr"],
                            betas=(ADAMW["beta1"], ADAMW["beta2"]), eps=ADAMW["eps"])
    losses = []
    for tokens in batches:
        loss = forward_loss(P, tokens, s, act)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(P.values()), ADAMW["clip"])
        opt.step()
        losses.append(float(loss))
    return np.array(losses), flatten(P, s)


def tol(a32, a64, keep=None):
    d = np.abs(np.asarray(a32, np.float64) - a64)
    return max(FLOOR, 16 * float(np.max(d if keep is None else d[keep])))


def not_bk(s):
    """A mask of the buffer without the key biases (c_attn.bias's second third): their true
    gradient is 0 (a softmax row is shift-invariant), so in float32 they get rounding noise that
    Adam normalises to steps of up to lr either way; they change no output, and are left out of
    the final weights' comparison."""
    keep, at = [], 0
    for name, shape, how in layout(s):
        n = int(np.prod(shape))
        keep.append(np.full(n, how != ("slice", 1)))
        at += n
    return np.concatenate(keep)


def b64(a):
    return base64.b64encode(np.asarray(a, "<f4").tobytes()).decode()


def batch_tokens(rng, s):
    """(batch, L + 1): <s> (0) then random ids; the last row padded: its last 3 targets -1."""
    t = rng.randint(1, s["vocab"], size=(s["batch"], s["L"] + 1)).astype(np.int64)
    t[:, 0] = 0
    t[-1, -3:] = -1
    return t


def main():
    s = SIZES
    flat = initial(s)
    rng = np.random.RandomState(SEED + 1)
    tokens = batch_tokens(rng, s)
    batches = [batch_tokens(rng, s) for _ in range(ADAMW["steps"])]
    cases, keep = [], not_bk(s)
    for act, code in ACTS.items():
        l64, g64 = grads(flat, tokens, s, act, torch.float64)
        l32, g32 = grads(flat, tokens, s, act, torch.float32)
        ls64, p64 = train(flat, batches, s, act, torch.float64)
        ls32, p32 = train(flat, batches, s, act, torch.float32)
        cases.append({
            "name": "gpt2 tiny, " + act,
            "desc": dict(s, activation=code),
            "init": {"seed": SEED, "scale": SCALE, "gains_plus_one": True},
            "tokens": tokens.reshape(-1).tolist(),
            "loss": l64, "loss_atol": tol([l32], [l64]),
            "grads_f32_b64": b64(g64), "grads_atol": tol(g32, g64), "rtol": 1e-4,
            "adamw": dict(ADAMW, losses=ls64.tolist(), losses_atol=tol(ls32, ls64)),
        })
        if act == "gelu_new":   # the final weights of one case (the file stays small)
            cases[-1]["adamw"].update(final_f32_b64=b64(p64), final_atol=tol(p32, p64, keep),
                                      final_skip="bk: " + not_bk.__doc__.split(": ", 1)[1])
        print("%s: loss %.6f (f32 diff %.2g), grads atol %.3g, 20-step losses atol %.3g, final atol %.3g"
              % (act, l64, abs(l32 - l64), cases[-1]["grads_atol"], cases[-1]["adamw"]["losses_atol"],
                 cases[-1]["adamw"].get("final_atol", 0)))
    doc = {"about": "tools/gen_train_ref.py: torch %s autograd and AdamW references (float64), "
                    "tolerances 16 x the float32 difference" % torch.__version__,
           "batches": [b.reshape(-1).tolist() for b in batches], "cases": cases}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote %s (%d bytes)" % (os.path.relpath(OUT, ROOT), os.path.getsize(OUT)))


if __name__ == "__main__":
    main()
