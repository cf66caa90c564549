#!/usr/bin/python3
"""forward_onnx.py - a GPT-2 checkpoint folder (config.json + model.safetensors, F32, GPT-2's
tensor names, Conv1D weights stored (in, out)) as an ONNX graph for onnxruntime-web, plus a
float64 reference of its logits, for tools/bench/forward.js.

usage:  /usr/bin/python3 tools/bench/forward_onnx.py DIR OUT.onnx IDS.json REF.bin
  DIR       the folder forward.js wrote
  OUT.onnx  ids int64 (L,) -> logits float32 (L, vocab_size); L fixed by IDS.json, opset 17
  IDS.json  the token ids (a JSON array) the benchmark runs on
  REF.bin   the float64 logits of those ids (L x vocab_size, little-endian), computed by the same
            torch module in double precision: the reference both engines are compared with

Debian's python3-torch (1.13) and python3-numpy; `transformers` is not needed: the forward below
is Hugging Face's GPT2LMHeadModel written out (pre-LN blocks, causal attention masked with
float32's lowest value as HF does, gelu_new, ln_f, the unembedding tied to wte). Everything is
2-D (one sequence, no batch axis): every Conv1D exports as one Gemm. The tied unembedding,
F.linear(h, wte), exports with a transpose of wte that constant folding stores as a second,
transposed copy (649 MB of ONNX for 498 MB of weights), as in other GPT-2 ONNX exports."""
import json
import math
import sys

import numpy as np
import torch


def read_safetensors(path):
    with open(path, 'rb') as f:
        n = int.from_bytes(f.read(8), 'little')
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode='r', offset=8 + n)
    out = {}
    for name, t in header.items():
        if name == '__metadata__':
            continue
        if t['dtype'] != 'F32':
            raise SystemExit(f'{name}: dtype {t["dtype"]}, this script reads F32 only')
        a, b = t['data_offsets']
        out[name] = torch.from_numpy(np.frombuffer(data[a:b], dtype='<f4').reshape(t['shape']).copy())
    return out


class GPT2(torch.nn.Module):
    def __init__(self, cfg, w):
        super().__init__()
        self.cfg = cfg
        self.w = torch.nn.ParameterDict({k.replace('.', '_'): torch.nn.Parameter(v, requires_grad=False)
                                         for k, v in w.items()})

    def p(self, name):
        return self.w[name.replace('.', '_')]

    def forward(self, ids):
        c, p = self.cfg, self.p
        L, D, H = ids.shape[0], c['n_embd'], c['n_head']
        dk, eps = D // H, c.get('layer_norm_epsilon', 1e-5)
        ln = lambda x, n: torch.nn.functional.layer_norm(x, (D,), p(n + '.weight'), p(n + '.bias'), eps)
        lin = lambda x, n: torch.addmm(p(n + '.bias'), x, p(n + '.weight'))   # Conv1D: x @ W (in, out) + b
        causal = torch.ones(L, L, dtype=torch.bool).tril()
        low = torch.tensor(torch.finfo(torch.float32).min, dtype=p('wte.weight').dtype)
        h = p('wte.weight')[ids] + p('wpe.weight')[:L]
        for layer in range(c['n_layer']):
            pre = f'h.{layer}.'
            qkv = lin(ln(h, pre + 'ln_1'), pre + 'attn.c_attn')
            q, k, v = (t.reshape(L, H, dk).transpose(0, 1) for t in qkv.split(D, dim=1))
            s = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(dk)
            a = torch.softmax(torch.where(causal, s, low), dim=-1)
            ctx = torch.matmul(a, v).transpose(0, 1).reshape(L, D)
            h = h + lin(ctx, pre + 'attn.c_proj')
            f = lin(ln(h, pre + 'ln_2'), pre + 'mlp.c_fc')
            f = 0.5 * f * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (f + 0.044715 * torch.pow(f, 3.0))))
            h = h + lin(f, pre + 'mlp.c_proj')
        return torch.nn.functional.linear(ln(h, 'ln_f'), p('wte.weight'))


def main():
    folder, onnx_path, ids_path, ref_path = sys.argv[1:5]
    cfg = json.load(open(f'{folder}/config.json'))
    w = read_safetensors(f'{folder}/model.safetensors')
    w = {k[len('transformer.'):] if k.startswith('transformer.') else k: v for k, v in w.items()}
    ids = torch.tensor(json.load(open(ids_path)), dtype=torch.int64)
    model = GPT2(cfg, w).eval()
    with torch.no_grad():
        torch.onnx.export(model, (ids,), onnx_path, input_names=['ids'], output_names=['logits'],
                          opset_version=17, do_constant_folding=True)
        ref = GPT2(cfg, {k: v.double() for k, v in w.items()}).eval()(ids)
    ref.numpy().astype('<f8').tofile(ref_path)
    print(json.dumps({'onnx': onnx_path, 'torch': torch.__version__, 'L': int(ids.shape[0]),
                      'ref_max_abs': float(ref.abs().max())}))


if __name__ == '__main__':
    main()
