/* i18n/pipeline.js - the `pipeline` figure's strings (FFN pipeline), English and 中文 (same keys). */
export default {
  en: {
    h_pipeline: 'The FFN, step by step',
    p_pipeline_1: 'The feed-forward network is two linear layers with an activation between them: `x · W₁ + b₁` widens every token from d_model to d_ff values, the activation bends them, and `· W₂ + b₂` brings them back to d_model. The output has the same shape as the input, which is what lets a block be stacked.',
    p_pipeline_2: 'Without the activation the two layers would multiply out into one d_model × d_model matrix. Pick "identity" to see the engine confirm it. Gated variants (SwiGLU, GeGLU) use a third matrix: the gate branch x · W₁ + b₁ goes through SiLU or GELU, the up branch x · W₃ + b₃ does not, and their element-by-element product goes into W₂. Three matrices hold 3·d·d_ff weights, so d_ff = 8/3·d costs what two do at 4·d.',
    p_pipeline_2_trained: 'Without the activation the two layers would multiply out into one d_model × d_model matrix. With random weights, pick "identity" to see the engine confirm it (the trained model\'s activation is its own ReLU). Gated variants (SwiGLU, GeGLU) use a third matrix: the gate branch x · W₁ + b₁ goes through SiLU or GELU, the up branch x · W₃ + b₃ does not, and their element-by-element product goes into W₂. Three matrices hold 3·d·d_ff weights, so d_ff = 8/3·d costs what two do at 4·d.',
    thumbLabel: '{name}: {r} × {c} values', nValues: '{n} values', nValues_one: '1 value',
    weightShape: '{name} {shape} + bias: {n} parameters',
    elementwise: 'element by element, shape unchanged',
    negCount: 'negatives: {n} before, {m} after', sameShape: 'same shape as x',
    pipelineStats: 'FFN parameters in this block: {total}. d_ff is {ratio} × d_model.',
    collapseNote: 'With the identity, W₁ · W₂ is a single d_model × d_model matrix.',
    collapseCheck: 'With the identity the FFN equals one linear layer x · (W₁W₂) + (b₁W₂ + b₂): largest relative difference {gap}, float32 rounding only.',
    gateActNote: 'how much of each up value passes', upNote: 'no activation', productOp: 'element by element',
    parityLine: 'Parity (matrices only, biases aside): an ungated FFN at d_ff = 4·d = {f4} has 2·d·d_ff = {n4} weights; a gated one has 3·d·d_ff, which at d_ff = 8/3·d {at} gives {nat}.',
    parityPlain: 'This ungated FFN, d_ff = {f}: {n} weights ({r} × the 4·d count).',
    parityGatedAt: 'This gated FFN, d_ff = {f}: {n} weights, at parity.',
    parityGatedOff: 'This gated FFN, d_ff = {f}: {n} weights, {r} × the ungated 4·d count; at parity d_ff would be {at}.',
    exp_ownScale: 'each matrix on its own scale: blue negative, red positive'
  },
  zh: {
    h_pipeline: 'FFN 的每一步',
    p_pipeline_1: '前馈网络（FFN）就是两个线性层中间夹一个激活函数：`x · W₁ + b₁` 把每个 token 从 d_model 维展开到 d_ff 维，激活函数做非线性变换，`· W₂ + b₂` 再压回 d_model 维。输出和输入形状相同，所以 Block 才能一层层叠起来。',
    p_pipeline_2: '如果去掉激活函数，两层矩阵相乘会合并成一个 d_model × d_model 的矩阵。把激活函数选成“恒等”，就能看到引擎的验证。门控变体（SwiGLU、GeGLU）多用一个矩阵：gate 分支 x · W₁ + b₁ 经过 SiLU 或 GELU，up 分支 x · W₃ + b₃ 不经过激活，两者逐元素相乘后再进入 W₂。三个矩阵共有 3·d·d_ff 个权重，所以 d_ff = 8/3·d 时的权重数与两个矩阵、d_ff = 4·d 时相同。',
    p_pipeline_2_trained: '如果去掉激活函数，两层矩阵相乘会合并成一个 d_model × d_model 的矩阵。在随机权重下把激活函数选成“恒等”，就能看到引擎的验证（训练好的模型的激活函数是它自己的 ReLU）。门控变体（SwiGLU、GeGLU）多用一个矩阵：gate 分支 x · W₁ + b₁ 经过 SiLU 或 GELU，up 分支 x · W₃ + b₃ 不经过激活，两者逐元素相乘后再进入 W₂。三个矩阵共有 3·d·d_ff 个权重，所以 d_ff = 8/3·d 时的权重数与两个矩阵、d_ff = 4·d 时相同。',
    thumbLabel: '{name}：{r} × {c} 个值', nValues: '{n} 个值', nValues_one: '1 个值',
    weightShape: '{name} {shape} + 偏置：{n} 个参数',
    elementwise: '逐元素计算，形状不变',
    negCount: '负数：激活前 {n} 个，激活后 {m} 个', sameShape: '与 x 形状相同',
    pipelineStats: '这个 Block 的 FFN 参数：{total} 个。d_ff 是 d_model 的 {ratio} 倍。',
    collapseNote: '激活函数为恒等时，W₁ · W₂ 就是一个 d_model × d_model 的矩阵。',
    collapseCheck: '激活函数为恒等时，FFN 等于一个线性层 x · (W₁W₂) + (b₁W₂ + b₂)：最大相对误差 {gap}，仅为 float32 舍入。',
    gateActNote: '决定每个 up 值通过多少', upNote: '不经过激活函数', productOp: '逐元素相乘',
    parityLine: '参数对等（只算矩阵，不计偏置）：不带门控的 FFN 在 d_ff = 4·d = {f4} 时有 2·d·d_ff = {n4} 个权重；门控 FFN 有 3·d·d_ff 个，在 d_ff = 8/3·d {at} 时为 {nat}。',
    parityPlain: '当前这个不带门控的 FFN，d_ff = {f}：{n} 个权重（4·d 时的 {r} 倍）。',
    parityGatedAt: '当前这个门控 FFN，d_ff = {f}：{n} 个权重，正好对等。',
    parityGatedOff: '当前这个门控 FFN，d_ff = {f}：{n} 个权重，是不带门控、4·d 时的 {r} 倍；要对等，d_ff 应为 {at}。',
    exp_ownScale: '每个矩阵各用自己的色标：蓝为负，红为正'
  }
};
