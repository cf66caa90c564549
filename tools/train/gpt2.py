# gpt2.py - the one torch GPT-2 forward (pre-LN, causal, tied embeddings; parameters keyed by HF
# GPT-2's names) shared by tools/train/train.py, tools/gen_train_ref.py and
# tools/bench/train_torch.py, so the model they train, check and time is the same code.
import math

import torch
import torch.nn.functional as F


def forward(P, idx, n_layer, n_head, eps, act=torch.relu):
    """idx (B, T) -> final-norm output (B, T, d); logits are that @ wte^T. act: the FFN's."""
    d = P["wte.weight"].shape[1]
    B, T = idx.shape
    dk = d // n_head
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    x = P["wte.weight"][idx] + P["wpe.weight"][:T]                         # (B, T, d)
    for i in range(n_layer):
        h = "h.%d." % i
        a = F.layer_norm(x, (d,), P[h + "ln_1.weight"], P[h + "ln_1.bias"], eps)
        qkv = a @ P[h + "attn.c_attn.weight"] + P[h + "attn.c_attn.bias"]  # (B, T, 3d)
        q, k, v = (t.view(B, T, n_head, dk).transpose(1, 2) for t in qkv.split(d, dim=2))
        s = (q @ k.transpose(-2, -1)) / math.sqrt(dk)                     # (B, nh, T, T)
        w = s.masked_fill(mask, float("-inf")).softmax(-1)
        ctxv = (w @ v).transpose(1, 2).reshape(B, T, d)
        x = x + ctxv @ P[h + "attn.c_proj.weight"] + P[h + "attn.c_proj.bias"]
        m = F.layer_norm(x, (d,), P[h + "ln_2.weight"], P[h + "ln_2.bias"], eps)
        f = act(m @ P[h + "mlp.c_fc.weight"] + P[h + "mlp.c_fc.bias"])    # (B, T, dff)
        x = x + f @ P[h + "mlp.c_proj.weight"] + P[h + "mlp.c_proj.bias"]
    return F.layer_norm(x, (d,), P["ln_f.weight"], P["ln_f.bias"], eps)
