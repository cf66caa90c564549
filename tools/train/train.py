#!/usr/bin/python3
# Trains BlockLens's shipped model: a 2-layer GPT-2 (pre-LN, ReLU, tied embeddings) on Tang
# poems, character by character, and writes web/models/poems/ (safetensors float16 with GPT-2's
# tensor names, a GPT-2-style config.json, vocab.json). Reproducible: fixed seeds, a fixed number
# of steps, one thread. Run it through tools/train/run, which fetches the corpus first.
import argparse
import collections
import json
import math
import os
import re
import struct
import subprocess
import sys
import tarfile
import time
import zlib

import numpy as np
import torch
import torch.nn.functional as F

import gpt2   # this folder's: the shared forward

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = {"name": "chinese-poetry", "version": "2.0.1", "licence": "MIT",
          "source": "https://www.npmjs.com/package/chinese-poetry",
          "files": "dist/quantangshi/poet.tang.*.json (Tang poems, traditional characters)"}
CONFIG = {"n_embd": 64, "n_head": 4, "n_inner": 256, "n_layer": 2, "n_positions": 64,
          "layer_norm_epsilon": 1e-5}
BOS, UNK = "<s>", "<unk>"
SEED = 1234
COVERAGE = 0.99     # the vocabulary covers this share of the training characters
HELDOUT_MOD = 50    # a poem is held out when crc32(body) % 50 == 0 (~2 %, order-independent)
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
POEM_RE = re.compile("[%s，。？！；]+" % HAN)


# ---- corpus -----------------------------------------------------------------------------
def read_tang(tgz):
    """Poem bodies (paragraphs joined), traditional characters, in file order."""
    with tarfile.open(tgz) as tf:
        names = [n for n in tf.getnames()
                 if re.fullmatch(r"package/dist/quantangshi/poet\.tang\.\d+\.json", n)]
        names.sort(key=lambda n: int(n.split(".")[-2]))
        return ["".join(p["paragraphs"]) for n in names for p in json.load(tf.extractfile(n))]


def simplified(bodies, cache, tag):
    """Debian's opencc t2s on all bodies at once (one per line), cached per corpus version."""
    out = os.path.join(cache, "tang.t2s.%s.txt" % tag)
    if not os.path.exists(out):
        src = os.path.join(cache, "tang.trad.txt")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(bodies) + "\n")
        subprocess.run(["opencc", "-c", "t2s.json", "-i", src, "-o", out + ".tmp"], check=True)
        os.replace(out + ".tmp", out)
        os.remove(src)
    with open(out, encoding="utf-8") as f:
        simp = f.read().split("\n")[:-1]
    assert len(simp) == len(bodies), "opencc changed the number of lines"
    return simp


def keep(body):
    """Five- or seven-character verse: Han characters and end-of-line marks only, every line
    the same length, 5 or 7."""
    if not POEM_RE.fullmatch(body):
        return None
    lines = re.split("[，。？！；]", body)
    if lines[-1] != "":
        return None
    n = len(lines[0])
    return n if n in (5, 7) and all(len(s) == n for s in lines[:-1]) else None


def load_poems(cache, tgz):
    """[(body, line_length)] of the kept poems, split into (train, heldout)."""
    tag = os.path.basename(tgz).rsplit(".", 1)[0]
    poems = [(b, keep(b)) for b in simplified(read_tang(tgz), cache, tag)]
    poems = [(b, n) for b, n in poems if n]
    held = [p for p in poems if zlib.crc32(p[0].encode()) % HELDOUT_MOD == 0]
    train = [p for p in poems if zlib.crc32(p[0].encode()) % HELDOUT_MOD != 0]
    return train, held


def build_vocab(train, ctx):
    """<s>, <unk>, then the most frequent characters of the (context-cut) training poems,
    ties by code point, until they cover COVERAGE of them."""
    counts = collections.Counter(ch for b, _ in train for ch in b[:ctx])
    total = sum(counts.values())
    chars, seen = [], 0
    for ch, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if seen >= COVERAGE * total:
            break
        chars.append(ch)
        seen += c
    return [BOS, UNK] + chars, seen / total


def encode(poems, stoi, ctx):
    """(N, ctx + 1) int64: <s>, the body cut to ctx characters, then -1 padding."""
    out = np.full((len(poems), ctx + 1), -1, dtype=np.int64)
    for i, (b, _) in enumerate(poems):
        ids = [0] + [stoi.get(ch, 1) for ch in b[:ctx]]
        out[i, :len(ids)] = ids
    return out


# ---- model: GPT-2 with plain torch ops (gpt2.py); parameters keyed by GPT-2's names -------------------
def init_params(vocab_size, gen):
    d, dff, nl, ctx = (CONFIG[k] for k in ("n_embd", "n_inner", "n_layer", "n_positions"))

    def normal(*shape, std=0.02):
        return torch.randn(*shape, generator=gen) * std

    P = {"wte.weight": normal(vocab_size, d), "wpe.weight": normal(ctx, d, std=0.01)}
    for i in range(nl):
        h = "h.%d." % i
        proj_std = 0.02 / math.sqrt(2 * nl)  # GPT-2: residual projections scaled by depth
        P.update({
            h + "ln_1.weight": torch.ones(d), h + "ln_1.bias": torch.zeros(d),
            h + "attn.c_attn.weight": normal(d, 3 * d), h + "attn.c_attn.bias": torch.zeros(3 * d),
            h + "attn.c_proj.weight": normal(d, d, std=proj_std),
            h + "attn.c_proj.bias": torch.zeros(d),
            h + "ln_2.weight": torch.ones(d), h + "ln_2.bias": torch.zeros(d),
            h + "mlp.c_fc.weight": normal(d, dff), h + "mlp.c_fc.bias": torch.zeros(dff),
            h + "mlp.c_proj.weight": normal(dff, d, std=proj_std),
            h + "mlp.c_proj.bias": torch.zeros(d),
        })
    P["ln_f.weight"], P["ln_f.bias"] = torch.ones(d), torch.zeros(d)
    return {k: v.requires_grad_() for k, v in P.items()}


def forward(P, idx):
    """idx (B, T) -> final-norm output (B, T, d); logits are that @ wte^T."""
    return gpt2.forward(P, idx, CONFIG["n_layer"], CONFIG["n_head"], CONFIG["layer_norm_epsilon"])


def batch_loss(P, rows):
    """Mean cross-entropy (nats) over the non-padding targets of rows (B, ctx + 1)."""
    rows = torch.from_numpy(rows)
    x, y = rows[:, :-1].clamp(min=0), rows[:, 1:]
    real = y >= 0
    logits = forward(P, x)[real] @ P["wte.weight"].T  # tied unembedding, padding skipped
    return F.cross_entropy(logits, y[real])


@torch.no_grad()
def mean_loss(P, data, bs=64):
    total, n = 0.0, 0
    for s in range(0, len(data), bs):
        rows = data[s:s + bs]
        k = int((rows[:, 1:] >= 0).sum())
        total += float(batch_loss(P, rows)) * k
        n += k
    return total / n


def unigram_loss(train, held, vocab_size):
    """Cross-entropy of held-out targets under the training targets' character frequencies."""
    counts = np.bincount(train[:, 1:][train[:, 1:] >= 0], minlength=vocab_size).astype(np.float64)
    logp = np.log(np.maximum(counts, 1e-12) / counts.sum())
    return float(-logp[held[:, 1:][held[:, 1:] >= 0]].mean())


def lr_at(step, steps, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    t = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))  # cosine down to peak / 10


# ---- output -----------------------------------------------------------------------------
def write_safetensors(path, tensors, metadata):
    """Minimal safetensors writer (Debian 12 has no python3-safetensors and PyPI is out of
    reach): u64 little-endian header length, JSON header {name: {dtype, shape, data_offsets}}
    padded with spaces to 8 bytes, then the raw little-endian data in header order."""
    header, blobs, off = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f2")
        header[name] = {"dtype": "F16", "shape": list(a.shape),
                        "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", required=True, help="chinese-poetry-<version>.tgz (npm pack)")
    ap.add_argument("--cache", default=os.path.join(ROOT, ".cache", "train"))
    ap.add_argument("--out", default=os.path.join(ROOT, "web", "models", "poems"))
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bench", action="store_true", help="time 30 steps and stop")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)  # fixed, so reductions repeat run to run
    torch.manual_seed(SEED)
    t0 = time.time()

    ctx = CONFIG["n_positions"]
    train_p, held_p = load_poems(args.cache, args.corpus)
    vocab, coverage = build_vocab(train_p, ctx)
    stoi = {ch: i for i, ch in enumerate(vocab)}
    train, held = encode(train_p, stoi, ctx), encode(held_p, stoi, ctx)
    n_chars = sum(len(b) for b, _ in train_p + held_p)
    print("poems kept %d (train %d, held out %d), %d characters; vocab %d covers %.4f"
          % (len(train_p) + len(held_p), len(train_p), len(held_p), n_chars, len(vocab), coverage))

    P = init_params(len(vocab), torch.Generator().manual_seed(SEED))
    n_params = sum(p.numel() for p in P.values())
    decay = [p for k, p in P.items() if k.endswith(".weight") and p.dim() == 2]
    other = [p for k, p in P.items() if not (k.endswith(".weight") and p.dim() == 2)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": other, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.95))
    rng = np.random.RandomState(SEED)
    steps = 30 if args.bench else args.steps
    t_train, ema = time.time(), None
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step, steps, args.lr, warmup=min(200, steps // 10))
        loss = batch_loss(P, train[rng.randint(0, len(train), args.batch)])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(P.values()), 1.0)
        opt.step()
        ema = float(loss) if ema is None else 0.98 * ema + 0.02 * float(loss)
        if step % 250 == 0 or step == steps - 1:
            print("step %5d  loss %.4f  (%.1f s)" % (step, ema, time.time() - t_train), flush=True)
        if (step + 1) % 500 == 0 and not args.bench:
            print("            held out %.4f" % mean_loss(P, held), flush=True)
    train_seconds = time.time() - t_train
    if args.bench:
        print("%.2f steps/s (batch %d)" % (steps / train_seconds, args.batch))
        return

    # what ships is float16: measure the losses on the rounded weights
    with torch.no_grad():
        for p in P.values():
            p.copy_(p.half().float())
    train_loss, held_loss = mean_loss(P, train[::10]), mean_loss(P, held)  # every 10th: enough
    uni = unigram_loss(train, held, len(vocab))
    print("float16 weights: train %.4f, held out %.4f nats/char; unigram %.4f"
          % (train_loss, held_loss, uni))

    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"),
                      {k: p.detach().numpy() for k, p in P.items()}, {"format": "pt"})
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
              "vocab_size": len(vocab), **CONFIG, "activation_function": "relu",
              "tie_word_embeddings": True, "bos_token_id": 0, "unk_token_id": 1,
              "torch_dtype": "float16",
              "blocklens": {
                  "description": "character-level Tang-poem model (simplified Chinese), "
                                 "trained by tools/train/run",
                  "corpus": CORPUS, "poems_kept": len(train_p) + len(held_p),
                  "poems_train": len(train_p), "poems_heldout": len(held_p),
                  "characters": n_chars, "vocab_coverage": round(coverage, 4),
                  "parameters": n_params, "seed": SEED, "steps": args.steps,
                  "batch": args.batch, "lr": args.lr, "train_seconds": round(train_seconds),
                  "train_loss": round(train_loss, 4), "train_loss_on": "every 10th training poem",
                  "heldout_loss": round(held_loss, 4),
                  "unigram_heldout_loss": round(uni, 4), "loss_unit": "nats/char"}}
    with open(os.path.join(args.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print("wrote %s (%d parameters) in %.0f s" % (args.out, n_params, time.time() - t0))


if __name__ == "__main__":
    sys.exit(main())
