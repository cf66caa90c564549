/* i18n/positionwise.js - the `positionwise` figure's strings (position-wise experiment), English and 中文 (same keys). */
export default {
  en: {
    h_positionwise: 'The position-wise experiment',
    p_positionwise_1: 'Set one token\'s whole input vector to a large value and run both sublayers again. The heatmaps show |new − old|. For the FFN, only that row changes, and every other row is exactly the same.',
    p_positionwise_2: 'For attention, every row that can see the changed token moves: all rows when bidirectional, that row and the ones after it under the causal mask. W_O itself is applied to each token separately. The mixing happens earlier, in the weighted sum of V.',
    pertSummary: 'Token "{tok}" set to {v}: the FFN output changed in {nf} of {L} rows, the attention output in {na} of {L} rows ({rows}).',
    diffFfnTitle: '|Δ FFN output|', diffAttnTitle: '|Δ attention output|'
  },
  zh: {
    h_positionwise: '逐位置实验',
    p_positionwise_1: '把某个 token 的整条输入向量改成一个很大的数，再把两个子层各算一遍。热力图画的是 |新值 − 旧值|：FFN 的输出只有那一行变了，其余每一行与原来完全相同。',
    p_positionwise_2: '注意力的输出里，所有能看到这个 token 的行都会变：双向时是全部行，因果掩码下是它自己和它后面的行。W_O 本身也是逐 token 作用的；行与行的混合发生在它之前，即对 V 的加权求和。',
    pertSummary: '把“{tok}”设为 {v}：FFN 输出有 {nf}/{L} 行变化，注意力输出有 {na}/{L} 行变化（{rows}）。',
    diffFfnTitle: '|Δ FFN 输出|', diffAttnTitle: '|Δ 注意力输出|'
  }
};
