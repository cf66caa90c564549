#!/usr/bin/python3
# What the shipped poem model does, measured on the held-out poems: per-head attention
# statistics, the share of ReLU outputs that are exactly zero, the last block's neurons that fire
# at the rhyme slot, and top predictions. Prints the Markdown tables tools/train/REPORT.md
# quotes. Uses train.py's corpus split and reference.py's forward (float32 here, for speed).
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402
import train  # noqa: E402

PUNCT = set("，。？！；")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--cache", default=os.path.join(train.ROOT, ".cache", "train"))
    ap.add_argument("--model", default=reference.MODEL)
    args = ap.parse_args()
    config, vocab, W = reference.load_model(args.model)
    ctx, H, nl = config["n_positions"], config["n_head"], config["n_layer"]
    train_p, held = train.load_poems(args.cache, args.corpus)
    stoi = {ch: i for i, ch in enumerate(vocab)}
    rows = train.encode(train_p, stoi, ctx)[:, 1:]
    counts = np.bincount(rows[rows >= 0], minlength=len(vocab)).astype(np.float64)
    uni_logp = np.log(np.maximum(counts, 1e-12) / counts.sum())
    nll = {"punctuation": [0.0, 0.0, 0], "characters": [0.0, 0.0, 0]}  # model, unigram, count

    # Attention: queries from the second line on (i >= n + 2, n = the poem's line length, so
    # every offset below lands after <s>); one row per head.
    offsets = {"-1": lambda n: 1, "-2": lambda n: 2, "-n": lambda n: n, "-(n+1)": lambda n: n + 1}
    sums = np.zeros((nl, H, len(offsets) + 4))  # offsets, <s>, punctuation, line start, entropy
    best = {n: np.zeros((nl, H, n + 3)) for n in (5, 7)}  # weight on offsets 0..-(n+2)
    count, count_n = 0, {5: 0, 7: 0}
    relu_zero, relu_total = np.zeros(nl), 0
    n_ff = config["n_inner"]
    fire = {k: np.zeros(n_ff) for k in ("。", "，", "other")}
    n_pos = {k: 0 for k in fire}
    uniform, uniform_punct, uniform_ent = 0.0, 0.0, 0.0
    for body, n in held:
        full = reference.encode(body[:ctx], vocab, config)  # the last one only as a target
        ids, toks = full[:ctx], ["<s>"] + list(body[:ctx])
        logits, layers = reference.forward(config, W, ids, np.float32)
        L = len(ids)
        lg = logits.astype(np.float64)
        lg -= lg.max(1, keepdims=True)
        logp = lg - np.log(np.exp(lg).sum(1, keepdims=True))
        for j, t in enumerate(full[1:]):
            acc = nll["punctuation" if toks[j + 1] in PUNCT else "characters"]
            acc[0] -= logp[j, t]
            acc[1] -= uni_logp[t]
            acc[2] += 1
        punct = np.array([t in PUNCT for t in toks[:L]])
        q = np.arange(n + 2, L)
        start = q - (q - 1) % (n + 1) - 1  # the mark (，。) that opened the query's line
        for li, r in enumerate(layers):
            w = r["weights"]                                                 # (H, L, L)
            for j, f in enumerate(offsets.values()):
                sums[li, :, j] += w[:, q, q - f(n)].sum(1)
            wq = w[:, q]                                                     # (H, Q, L)
            sums[li, :, -4] += wq[:, :, 0].sum(1)
            sums[li, :, -3] += wq[:, :, punct].sum(2).sum(1)
            sums[li, :, -2] += w[:, q, start].sum(1)
            sums[li, :, -1] -= (wq * np.log(np.maximum(wq, 1e-30))).sum(2).sum(1)
            for o in range(n + 3):
                best[n][li, :, o] += w[:, q, q - o].sum(1)
            relu_zero[li] += (r["activated"] == 0).sum()
        uniform += (1.0 / (q + 1)).sum()
        uniform_punct += (np.cumsum(punct)[q] / (q + 1)).sum()
        uniform_ent += np.log(q + 1).sum()
        count += len(q)
        count_n[n] += len(q)
        relu_total += L * n_ff
        # line ends: the positions whose next character is 。 (the rhyme slot) or ，
        on = layers[-1]["activated"][:len(toks) - 1] > 0                    # (<= L, d_ff)
        nxt = np.array([t if t in "，。" else "other" for t in toks[1:]])
        for k in fire:
            fire[k] += on[nxt == k].sum(0)
            n_pos[k] += int((nxt == k).sum())
    mean = sums / count
    mean[:, :, -1] /= uniform_ent / count  # entropy as a share of uniform attention's
    print("## Held-out loss by kind of target (nats/char, float32 forward)\n")
    print("| targets | count | model | unigram |\n|---|---|---|---|")
    tot = [sum(v[i] for v in nll.values()) for i in range(3)]
    for k, v in list(nll.items()) + [("all", tot)]:
        print("| %s | %d | %.4f | %.4f |" % (k, v[2], v[0] / v[2], v[1] / v[2]))
    print()

    print("## Attention on held-out poems (%d poems, %d queries from the second line on)\n"
          % (len(held), count))
    print("| block.head | -1 | -2 | -n | -(n+1) | `<s>` | punct. | line start | entropy "
          "| strongest offset (5-char / 7-char) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for li in range(nl):
        for h in range(H):
            strongest = []
            for n in (5, 7):
                m = best[n][li, h, 1:n + 3] / max(1, count_n[n])
                o = int(np.argmax(m)) + 1
                strongest.append("-%d (%.2f)" % (o, m[o - 1]))
            print("| %d.%d | %s | %s |" % (li + 1, h + 1, " | ".join("%.3f" % v for v in mean[li, h]),
                                         " / ".join(strongest)))
    print("\nUniform attention would put %.3f on any one key and %.3f on the marks. n is the "
          "poem's line length "
          "(5 or 7); -(n+1) is the same column one line up (the ，/。 takes a slot); punct. is "
          "the total weight on ，。？！; line start is the weight "
          "on the mark that opened the query's line; entropy is the mean entropy of a row as a "
          "share of uniform attention's; strongest offset is the offset in -1..-(n+2) with the "
          "most weight, and that weight." % (uniform / count, uniform_punct / count))

    print("\n## ReLU outputs exactly zero (held-out poems, every position)\n")
    for li in range(nl):
        print("- block %d: %.1f %%" % (li + 1, 100 * relu_zero[li] / relu_total))

    rate = {k: fire[k] / n_pos[k] for k in fire}
    line_end = (rate["。"] >= 0.5) & (rate["other"] <= 0.05)
    both = line_end & (rate["，"] >= 0.5)
    print("\n## Layer-%d neurons at the rhyme slot\n" % (nl - 1))
    print("%d of %d neurons fire (> 0) at >= 50 %% of the %d positions just before a 。 and at "
          "<= 5 %% of the %d positions not before a ， or 。; %d of them also fire at >= 50 %% of "
          "the %d positions before a ， (line-end neurons), the other %d only before 。."
          % (line_end.sum(), n_ff, n_pos["。"], n_pos["other"], both.sum(), n_pos["，"],
             line_end.sum() - both.sum()))
    print("\n## Top predictions\n")
    for text in reference.TEXTS:
        logits, _ = reference.forward(config, W, reference.encode(text, vocab, config))
        print("- after %s: %s" % (text, " ".join(
            "%s %.3f" % (t["char"], t["p"]) for t in reference.top_k(logits[-1], vocab))))


if __name__ == "__main__":
    main()
