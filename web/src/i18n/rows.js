/* i18n/rows.js - the `rows` figure's strings (per-token rows), English and 中文 (same keys). */
export default {
  en: {
    h_rows: 'One token at a time',
    p_rows_1: 'Pick a token. Its row stays coloured through every FFN stage while the others turn grey: row i of the output depends only on row i of the input. The FFN never looks at a neighbour.',
    p_rows_2: 'The inset shows the difference. In attention the chosen token reads every token it may see, with line width showing the weight (averaged over heads). In the FFN it reads only itself.',
    tokensAria: 'Choose a token',
    rowsLabel: '{name}: row of token "{tok}" highlighted, other rows grey.',
    insetAttnCausal: 'Attention: reads only the rows up to its own',
    insetAttn: 'Attention: reads every row', insetFfn: 'FFN: reads its own row',
    insetLabel: 'Links into token "{tok}": attention from every visible token, FFN from itself only.',
    insetNote: 'Line width: the weight "{tok}" gives each token, averaged over heads.',
    insetNoteCausal: 'Line width: the weight "{tok}" gives each token, averaged over heads. Under the causal mask, later tokens get none.',
    insetTable: 'Mean attention weight of "{tok}" on each token', meanWeight: 'mean weight', keyCol: 'key',
    exp_selected: 'Selected token: "{tok}" (row {i})'
  },
  zh: {
    h_rows: '一次只看一个 token',
    p_rows_1: '选一个 token：它那一行在 FFN 的每个阶段都保持彩色，其余行变灰。输出的第 i 行只由输入的第 i 行决定，FFN 从不看相邻的 token。',
    p_rows_2: '右边的小图对比两者：在注意力里，被选中的 token 会读取所有它能看到的 token，线越粗权重越大（各头取平均）；在 FFN 里，它只读取自己。',
    tokensAria: '选择一个 token',
    rowsLabel: '{name}：“{tok}”这一行高亮，其余行为灰色。',
    insetAttnCausal: '注意力：只读到自己为止的各行',
    insetAttn: '注意力：读取每一行', insetFfn: 'FFN：只读自己这一行',
    insetLabel: '流入“{tok}”的连线：注意力来自每个可见的 token，FFN 只来自它自己。',
    insetNote: '线宽：“{tok}”分给每个 token 的权重（各头平均）。',
    insetNoteCausal: '线宽：“{tok}”分给每个 token 的权重（各头平均）。因果掩码下，后面的 token 权重为 0。',
    insetTable: '“{tok}”对每个 token 的平均注意力权重', meanWeight: '平均权重', keyCol: '键',
    exp_selected: '选中的 token：“{tok}”（第 {i} 行）'
  }
};
