/* i18n/paramsplit.js - the `paramsplit` figure's strings (parameter split), English and 中文 (same keys). */
export default {
  en: {
    h_paramsplit: 'Where the parameters are',
    p_paramsplit_1: 'Per block, attention has four d × d matrices (4·d², plus biases) and the FFN two d × d_ff matrices (2·d·d_ff). With d_ff = 4·d the FFN holds twice as many weights: two thirds of a block. Gated FFNs use three matrices, so Llama shrinks d_ff to about 8/3·d to keep the same budget.',
    p_paramsplit_2: 'For a whole model, the embeddings count too. In BERT-base the FFN is 2/3 of the weights inside the layers but only about 52% of all 109,482,240 parameters. The totals below are exact counts by the engine, next to the rounded figures that papers print.',
    splitTitle: 'One block at d_model = {d}, d_ff = {f} (with biases; the number of heads does not change the counts):',
    splitRatio: 'The FFN has {r} × the parameters of attention: {share} of the block.',
    presetsCaption: 'Real models: exact parameter counts by part',
    colModel: 'model', colSplit: 'split', colTotal: 'exact total', colPrinted: 'printed',
    colFfnShare: 'FFN / all', colFfnLayer: 'FFN / (FFN + attention)',
    activeNote: '{n} active per token',
    'preset_transformer-base': 'Transformer base (2017)', 'preset_transformer-big': 'Transformer big (2017)',
    'preset_bert-base': 'BERT-base', preset_gpt2: 'GPT-2 (small)', 'preset_llama-2-7b': 'Llama-2-7B (SwiGLU)',
    'preset_mixtral-8x7b': 'Mixtral-8x7B (8 experts, top-2)',
    'preset_qwen2-0.5b': 'Qwen2-0.5B (q/k/v biases)', preset_poems: 'the Tang-poem model (this page)',
    presetsNote: 'The printed totals are rounded, and for the 2017 Transformer no single reading of the paper gives exactly 65M or 213M. The exact column is computed from each architecture\'s description.',
    presetsTwoThirds: 'FFN / (FFN + attention) is 2/3 (within half a point) for {names}: in each of their layers one attention of 4·d² weights meets an FFN of about 8·d².',
    presetsOtherShares: 'It is {tr} for the 2017 Transformer, whose decoder layers add a second attention (cross-attention) to the same FFN; {qwen} for Qwen2-0.5B, whose {heads} query heads share {kv} key/value heads (a smaller attention) and whose gated FFN is {wide}·d wide; {mix} for Mixtral, where each layer holds {experts} whole FFNs, one per expert.',
    presetsOutside: 'FFN / all is lower than that in every row: the embeddings, the norms and any untied output head or pooler lie outside the layers, from {leastShare} of the parameters in {least} to {mostShare} in {most}.'
  },
  zh: {
    h_paramsplit: '参数都在哪里',
    p_paramsplit_1: '每个 Block 里，注意力有四个 d × d 矩阵（4·d²，另加偏置），FFN 有两个 d × d_ff 矩阵（2·d·d_ff）。当 d_ff = 4·d 时，FFN 的权重是注意力的两倍，占一个 Block 的三分之二。门控 FFN 有三个矩阵，所以 Llama 把 d_ff 缩到约 8/3·d，使参数量基本不变。',
    p_paramsplit_2: '看整个模型时，还要算上词嵌入。以 BERT-base 为例：FFN 占各层内部权重的 2/3，但只占全部 109,482,240 个参数的约 52%。下表的总数由引擎精确计算，旁边列出论文或模型卡给出的约数。',
    splitTitle: '一个 Block，d_model = {d}，d_ff = {f}（含偏置；头数不影响参数量）：',
    splitRatio: 'FFN 的参数是注意力的 {r} 倍，占这个 Block 的 {share}。',
    presetsCaption: '真实模型：按部分精确统计的参数量',
    colModel: '模型', colSplit: '构成', colTotal: '精确总数', colPrinted: '公开数字',
    colFfnShare: 'FFN / 全部', colFfnLayer: 'FFN / (FFN + 注意力)',
    activeNote: '每个 token 激活 {n}',
    'preset_transformer-base': '原始 Transformer base（2017）', 'preset_transformer-big': '原始 Transformer big（2017）',
    'preset_bert-base': 'BERT-base', preset_gpt2: 'GPT-2（small）', 'preset_llama-2-7b': 'Llama-2-7B（SwiGLU）',
    'preset_mixtral-8x7b': 'Mixtral-8x7B（8 个专家，选 2 个）',
    'preset_qwen2-0.5b': 'Qwen2-0.5B（q/k/v 带偏置）', preset_poems: '唐诗模型（本页）',
    presetsNote: '公开数字都是约数；2017 年原始 Transformer 的 65M 和 213M，按论文的任何一种读法都算不出完全相同的数。“精确总数”一列按各模型的结构描述计算。',
    presetsTwoThirds: '{names}的 FFN / (FFN + 注意力) 是 2/3（误差不到半个百分点）：它们每一层都是一个 4·d² 权重的注意力加一个约 8·d² 权重的 FFN。',
    presetsOtherShares: '2017 年原始 Transformer 是 {tr}：它的解码器层在同样的 FFN 之外还多一个注意力（交叉注意力）；Qwen2-0.5B 是 {qwen}：{heads} 个查询头共用 {kv} 个键/值头，注意力更小，门控 FFN 又宽到 {wide}·d；Mixtral 是 {mix}：每层有 {experts} 个完整的 FFN，一个专家一个。',
    presetsOutside: '每一行的 FFN / 全部 都比这个比例低：词嵌入、各个归一化层，以及不共享的输出层或 pooler 都不在层内，占全部参数的比例从 {least}的 {leastShare} 到 {most}的 {mostShare}。'
  }
};
