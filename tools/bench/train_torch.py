#!/usr/bin/python3
"""train_torch.py - the PyTorch CPU peer of tools/bench/train.js: the poem config's GPT-2 (pre-LN,
ReLU, tied embeddings; tools/train/gpt2.py's forward, which train.py trains) trained with AdamW on
one thread, started by train.js as a child process and driven over stdin / stdout, one JSON object
a line, so its steps can be interleaved with the wasm peers' in one run.

    /usr/bin/python3 tools/bench/train_torch.py --weights W.safetensors --batches B.bin --config C.json
    stdin:  {"run": K}     the next K steps (batches in file order) -> {"losses": [...], "wall": s, "cpu": s}
            {"loss": i}    the loss of batch i under the current weights, no update -> {"loss": x}
            {"quit": 1}
W: the initial weights (safetensors, F32 / F16 / BF16, HF GPT-2 names, "transformer." optional);
B: int32, per batch L then (batch, L + 1) ids, -1 none (train.js's drawBatches); C: {n_embd, n_head, n_layer, n_inner, n_positions,
layer_norm_epsilon, vocab_size, lr, warmup, weight_decay, beta1, beta2, eps, clip}.
"""
import argparse
import json
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
import gpt2  # noqa: E402  (tools/train/gpt2.py: train.py's forward)


def read_safetensors(path):
    """{name: float32 tensor}; names without a leading "transformer."."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        a, b = h["data_offsets"]
        raw = data[a:b]
        if h["dtype"] == "F32":
            arr = np.frombuffer(raw, dtype="<f4")
        elif h["dtype"] == "F16":
            arr = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif h["dtype"] == "BF16":
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError("weights: tensor %s has dtype %s (F32, F16, BF16 read)" % (name, h["dtype"]))
        key = name[len("transformer."):] if name.startswith("transformer.") else name
        out[key] = torch.from_numpy(arr.copy().reshape(h["shape"]))
    return out


def batch_loss(P, C, rows):
    """Mean cross-entropy (nats) over the scored targets of rows (B, L + 1): -1 is no token (an
    input -1 reads as id 0, a target -1 is not scored), as bl.trainer's engine."""
    x, y = rows[:, :-1].clamp(min=0), rows[:, 1:]
    logits = gpt2.forward(P, x, C["n_layer"], C["n_head"], C["layer_norm_epsilon"]) @ P["wte.weight"].T
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1)


def read_batches(path, B):
    """train.js's batch file as a list of int64 tensors (B, L + 1)."""
    ids, out, at = np.fromfile(path, dtype="<i4"), [], 0
    while at < len(ids):
        L = int(ids[at])
        out.append(torch.from_numpy(ids[at + 1:at + 1 + B * (L + 1)].astype(np.int64).reshape(B, L + 1)))
        at += 1 + B * (L + 1)
    return out


def capability():
    """The SIMD level torch's CPU kernels dispatch to (torch 1.13 says it only in its build config)."""
    for line in torch.__config__.show().splitlines():
        if "CPU capability usage:" in line:
            return line.split(":", 1)[1].strip()
    return "unknown"


def blas():
    """The BLAS library this process mapped (Debian's torch calls the system's libblas.so.3)."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1].rsplit("/", 1)[-1] for line in f if "blas" in line.split()[-1]}
    if any("openblas" in n for n in libs):
        return "OpenBLAS"
    return "reference BLAS (Debian's libblas3)" if libs else "no BLAS library"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--batches", required=True)
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    with open(args.config) as f:
        C = json.load(f)
    P = {k: v.requires_grad_() for k, v in read_safetensors(args.weights).items()}
    need = ["wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias"]
    missing = [k for k in need if k not in P]
    if missing:
        raise ValueError("weights: missing %s" % ", ".join(missing))
    batches = read_batches(args.batches, C["batch"])
    # Decoupled decay on the matrices only (train.py's groups; what the engine decays is matched by C).
    decay = [p for k, p in P.items() if p.dim() == 2 and k.endswith(".weight") and k in C["decay"]]
    other = [p for k, p in P.items() if not any(p is q for q in decay)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": C["weight_decay"]},
                             {"params": other, "weight_decay": 0.0}],
                            lr=C["lr"], betas=(C["beta1"], C["beta2"]), eps=C["eps"])
    step = 0
    print(json.dumps({"ready": True, "torch": torch.__version__,
                      "capability": capability(), "blas": blas(),
                      "threads": torch.get_num_threads(), "params": sum(p.numel() for p in P.values())}),
          flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        if "quit" in cmd:
            break
        if "loss" in cmd:
            with torch.no_grad():
                print(json.dumps({"loss": float(batch_loss(P, C, batches[cmd["loss"]]))}), flush=True)
            continue
        losses = []
        w0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(cmd["run"]):
            lr = C["lr"] * min(1.0, (step + 1) / C["warmup"]) if C["warmup"] > 0 else C["lr"]
            for g in opt.param_groups:
                g["lr"] = lr
            loss = batch_loss(P, C, batches[step % len(batches)])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if C["clip"] > 0:
                torch.nn.utils.clip_grad_norm_(list(P.values()), C["clip"])
            opt.step()
            losses.append(float(loss))
            step += 1
        print(json.dumps({"losses": losses, "wall": time.perf_counter() - w0,
                          "cpu": time.thread_time() - c0}), flush=True)


if __name__ == "__main__":
    main()
