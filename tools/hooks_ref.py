# The logit lens, ablation and activation-patching references (hooks.json) of a forward that
# takes hooks (gen_models.py's llama_forward / gpt2_forward): float64 numbers, and per section
# a tolerance measured as reference.json's is: the same computation in float32 (torch's matmul
# and a sequential one) against float64, times 16, floored (gen_fixtures.choose_atol).
import numpy as np
import torch

from gen_fixtures import RTOL, choose_atol

F64, F32 = torch.float64, torch.float32
LENS_K = 5      # lens entries: the top 5 per position (stored with the 6th, for near ties)
TOP = 10        # a row of a large vocabulary is stored as its top 10 (and the 11th)
FULL_V = 256    # rows of vocabularies up to this size are stored whole


def standard_ablations(H, NL):
    """One head; heads across layers; every head of one layer; one FFN; a head and an FFN."""
    return [
        {"name": "one head", "ablate": [[0, 1]]},
        {"name": "heads across layers", "ablate": [[0, 0], [NL - 1, H - 1]]},
        {"name": "every head of one layer", "ablate": [[NL - 1, h] for h in range(H)]},
        {"name": "one layer's FFN", "ablate": [[0, "ffn"]]},
        {"name": "a head and an FFN", "ablate": [[NL - 1, 0], [0, "ffn"]]},
    ]


def short(v):
    """9 significant digits: 5e-9 relative, far inside any tolerance here."""
    return float("%.9g" % v)


def nested(a):
    return np.vectorize(short, otypes=[float])(a).tolist() if np.ndim(a) else short(a)


def top(p, k):
    """ids and values of the k largest of p (1-D), largest first, equal values: lower id first."""
    order = np.lexsort((np.arange(len(p)), -p))[:k]
    return order.tolist(), p[order]


def next_rank(p, t, tol):
    """Rank of id t in p (1-D) as the lens orders (larger first, equal: lower id first; 1 = the
    top), its value, and how many other ids lie within tol of it (a float32 rank may move by as
    many)."""
    ids = np.arange(len(p))
    rank = 1 + int(np.sum((p > p[t]) | ((p == p[t]) & (ids < t))))
    near = int(np.sum(np.abs(p - p[t]) <= tol)) - 1
    return rank, p[t], near


def last_diff(logits, answer, wrong):
    return logits[-1, answer] - logits[-1, wrong]


def computed(fwd, spec, answer, wrong):
    """Every number of hooks.json in the forward's dtype, softmax and KL included (as the engine
    computes its lens in float32): {key: tensor}. fwd(ids, hooks) -> the forward's out."""
    r = {}
    for i, ids in enumerate(spec["lens"]):
        r["lens.%d" % i] = torch.stack([torch.softmax(x, -1) for x in fwd(ids, {})["lens"]])
    for g, grp in enumerate(spec["ablate"]):
        row, base = grp["row"], fwd(grp["ids"], {})["logits"][grp["row"]]
        lp = torch.log_softmax(base, -1)
        r["ablate.%d.base.logits" % g], r["ablate.%d.base.probs" % g] = base, lp.exp()
        for j, case in enumerate(grp["cases"]):
            lg = fwd(grp["ids"], {"ablate": case["ablate"]})["logits"][row]
            lq = torch.log_softmax(lg, -1)
            key = "ablate.%d.%d." % (g, j)
            r[key + "logits"], r[key + "probs"] = lg, lq.exp()
            r[key + "kl"] = (lp.exp() * (lp - lq)).sum()   # KL(unablated || ablated)
            if "target" in grp:
                r[key + "target_logprob"] = lq[grp["target"]]
        if "target" in grp:
            r["ablate.%d.base.target_logprob" % g] = lp[grp["target"]]
    pc = spec["patch"]
    clean, corrupt = fwd(pc["clean"], {}), fwd(pc["corrupt"], {})
    r["patch.clean"] = last_diff(clean["logits"], answer, wrong)
    r["patch.corrupt"] = last_diff(corrupt["logits"], answer, wrong)
    r["patch.clean_logits"], r["patch.corrupt_logits"] = clean["logits"][-1], corrupt["logits"][-1]
    nl, L = len(clean["points"]) - 1, len(pc["clean"])
    rows = [[fwd(pc["corrupt"], {"patch": {(l, p): clean["points"][l][p]}})["logits"]
             for p in range(L)] for l in range(nl)]
    r["patch.diff"] = torch.stack([torch.stack([last_diff(x, answer, wrong) for x in rs])
                                   for rs in rows])
    r["patch.logits"] = torch.stack([torch.stack([x[-1] for x in rs]) for rs in rows])
    return {k: v.detach().numpy().astype(np.float64) for k, v in r.items()}


def choose_tokens(fwd, pc):
    """The answer: the clean run's top-10 token at the last position that the corruption lowers
    most in log-probability; the wrong one: the corrupted run's top-10 token it raises most."""
    a = torch.log_softmax(fwd(pc["clean"], {})["logits"][-1], -1).numpy()
    b = torch.log_softmax(fwd(pc["corrupt"], {})["logits"][-1], -1).numpy()
    answer = max(top(a, TOP)[0], key=lambda i: a[i] - b[i])
    wrong = max(top(b, TOP)[0], key=lambda i: b[i] - a[i])
    assert answer != wrong and a[answer] - b[answer] > 0 > a[wrong] - b[wrong]
    return int(answer), int(wrong)


def row_doc(ref, key, full):
    """A logits row as stored: whole for a small vocabulary, else its top TOP+1 by probability."""
    if full:
        return {"logits": nested(ref[key + "logits"])}
    ids, probs = top(ref[key + "probs"], TOP + 1)
    return {"top": ids, "probs": nested(probs)}


def hooks_doc(forward, W, spec, k, run_seq):
    """hooks.json of one model. forward(W, dt, ids, hooks) -> out (W cast to dt inside);
    spec: {"lens": [ids], "ablate": [{"ids", "row", "cases", "target"?}], "patch": {"clean",
    "corrupt"}}; k: the longest reduction (the tolerance floor); run_seq(f, *a): f with the
    sequential float32 matmul."""
    W64, W32 = ({n: t.to(dt) if t.is_floating_point() else t for n, t in W.items()}
                for dt in (F64, F32))
    f64 = lambda ids, h: forward(W64, F64, ids, h)  # noqa: E731
    f32 = lambda ids, h: forward(W32, F32, ids, h)  # noqa: E731
    answer, wrong = choose_tokens(f64, spec["patch"])
    ref = computed(f64, spec, answer, wrong)
    got = [computed(f32, spec, answer, wrong), run_seq(computed, f32, spec, answer, wrong)]
    atol = {}
    for part in ("lens", "ablate", "patch"):
        keys = [key for key in ref if key.startswith(part + ".")]
        atol[part] = choose_atol({q: ref[q] for q in keys},
                                 [{q: g[q] for q in keys} for g in got], k)
    check(ref, spec)
    for i, ids in enumerate(spec["lens"]):   # the lens's last point is the logits themselves
        want = torch.softmax(f64(ids, None)["logits"], -1).numpy()
        assert np.max(np.abs(ref["lens.%d" % i][-1] - want)) < 1e-15
    V = ref["patch.clean_logits"].shape[-1]
    full = V <= FULL_V
    doc = {"atol": atol, "rtol": RTOL, "vocab_size": V,
           "notes": "lens[i].top / probs: (NL+1, L, k+1), point 0 the embeddings, i the residual "
                    "after block i-1, each through the final norm and unembedding; the top k+1 "
                    "by probability (ties: lower id first), k+1 so that a near tie at rank k "
                    "shows. lens[i].next_rank / next_prob / next_near: (NL+1, L-1), the rank "
                    "(1 = the top) and probability of ids[j+1] at position j, and how many "
                    "other ids are within atol.lens + rtol * p of it. ablate: rows `row` of the logits (whole, or top %d+1 by probability) "
                    "with each case's heads' contexts or FFN outputs zeroed; kl = KL(unablated "
                    "|| ablated) of that row, in nats. patch: diff[l][p] = logit[answer] - "
                    "logit[wrong] at the last position of the corrupted run with the clean "
                    "residual entering block l at position p; logits[l][p]: that last row."
                    % TOP}
    doc["lens"] = []
    for i, ids in enumerate(spec["lens"]):
        tops = [[top(p, LENS_K + 1) for p in point] for point in ref["lens.%d" % i]]
        nexts = [[next_rank(p, ids[j + 1], atol["lens"] + RTOL * p[ids[j + 1]])
                  for j, p in enumerate(point[:-1])] for point in ref["lens.%d" % i]]
        doc["lens"].append({"ids": list(ids), "k": LENS_K,
                            "top": [[t[0] for t in point] for point in tops],
                            "probs": [[nested(t[1]) for t in point] for point in tops],
                            "next_rank": [[r[0] for r in point] for point in nexts],
                            "next_prob": [[short(r[1]) for r in point] for point in nexts],
                            "next_near": [[r[2] for r in point] for point in nexts]})
    doc["ablate"] = []
    for g, grp in enumerate(spec["ablate"]):
        d = {"ids": list(grp["ids"]), "row": grp["row"]}
        if "target" in grp:
            d["target"] = grp["target"]
        d["base"] = row_doc(ref, "ablate.%d.base." % g, full)
        if "target" in grp:
            d["base"]["target_logprob"] = short(ref["ablate.%d.base.target_logprob" % g])
        d["cases"] = []
        for j, case in enumerate(grp["cases"]):
            key = "ablate.%d.%d." % (g, j)
            c = dict(case, kl=short(ref[key + "kl"]), **row_doc(ref, key, full))
            if "target" in grp:
                c["target_logprob"] = short(ref[key + "target_logprob"])
            d["cases"].append(c)
        doc["ablate"].append(d)
    pc = spec["patch"]
    doc["patch"] = {"clean": list(pc["clean"]), "corrupt": list(pc["corrupt"]), "answer": answer,
                    "wrong": wrong, "clean_diff": short(ref["patch.clean"]),
                    "corrupt_diff": short(ref["patch.corrupt"]), "diff": nested(ref["patch.diff"])}
    if full:
        doc["patch"].update({"clean_logits": nested(ref["patch.clean_logits"]),
                             "corrupt_logits": nested(ref["patch.corrupt_logits"]),
                             "logits": nested(ref["patch.logits"])})
    return doc


def check(ref, spec):
    """What must hold of the float64 numbers whatever the weights (a wrong hook breaks these)."""
    pc = spec["patch"]
    moved = [p for p, (a, b) in enumerate(zip(pc["clean"], pc["corrupt"])) if a != b]
    diff = ref["patch.diff"]
    # before the first changed position the two runs' residuals agree: patching there is a no-op
    assert np.all(diff[:, :moved[0]] == ref["patch.corrupt"]), diff
    # one changed token patched at the embeddings restores the clean run
    if len(moved) == 1:
        assert abs(diff[0, moved[0]] - ref["patch.clean"]) < 1e-12 * (1 + abs(ref["patch.clean"]))
    assert ref["patch.clean"] > ref["patch.corrupt"]
    for g, grp in enumerate(spec["ablate"]):
        for j, _ in enumerate(grp["cases"]):
            assert ref["ablate.%d.%d.kl" % (g, j)] > 0
