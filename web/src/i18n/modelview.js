/* i18n/modelview.js - figure 12, the model view (every layer x head), English and 中文. */
export default {
  en: {
    h_heads: 'The model view: every head of every layer',
    p_heads_1: 'Figure 4 shows the heads of one block. Here are all of them at once, for the text on the page: a row per layer, a column per head, each cell that head\u2019s attention weights (rows are queries, columns keys; the grey triangle is what the causal mask hides). Reading down a column is not meaningful (head 2 of layer 1 and head 2 of layer 2 are unrelated); reading across a row shows how differently the heads of one block look at the same text.',
    p_heads_2: 'Choose a measure to frame and badge every cell by it: how much of its weight a head puts on the previous token, on the first token (the "attention sink"), on the token itself, on the character one line up in a poem, or how spread out its rows are (entropy, in bits). The table below lists every head sorted by that measure. Hover over or focus a cell to read its largest weights; press it to open that layer and head in figure 4.',
    ctl_hmeasure: 'Measure', mvMeasureAria: 'Measure the cells are framed by',
    mv_prev: 'previous token', mv_sink: 'first token', mv_self: 'itself', mv_up: 'one line up', mv_entropy: 'entropy, bits',
    mvRandom: 'Random weights have a single block, so there is no model to view layer by layer. Switch to the trained poem model (or open a model folder) to see every head of every layer.',
    mvTitle: 'All {n} layers \u00d7 {h} heads on this text, framed by: {what} (the darkest frame: the most of it).',
    mvGridLabel: 'Attention weights of {n} layers by {h} heads',
    mvPress: 'Hover or focus a cell for its largest weights; press it to open it in figure 4.',
    mvLayer: 'L{l}', mvHead: 'H{h}', mvCell: 'Layer {l}, head {h}',
    mvCellLabel: '{name}: {what} {v}',
    mvPooled: 'In this picture each map shows the largest weight of every {w} \u00d7 {w} block of cells (the page shows every cell).',
    mvHint: '{name} \u00b7 {what}: {v} \u00b7 largest weights (query \u2192 key): {top}',
    mvPair: '\u201c{q}\u201d \u2192 \u201c{k}\u201d {w}',
    mvCaption: 'Every head, sorted by {what} (weights: mean over queries from the third token on; entropy of an even row: {u} bits)',
    mvNoLines: 'This text has no lines of 5 or 7 characters closed by \uff0c or \u3002, so "one line up" is not measured (\u2014): load the quatrain to see the head that reads it.',
    mvNoLinesModel: '"One line up" is measured on the poem model\u2019s quatrains only (\u2014 here).'
  },
  zh: {
    h_heads: '模型全景：每一层的每一个头',
    p_heads_1: '图 4 展示的是一个 Block 里的头。这里把所有头一次摆出来，输入就是页面上的文字：每一行是一层，每一列是一个头，每个格子是这个头的注意力权重（行为查询，列为键；灰色三角是因果掩码遮住的部分）。竖着比较没有意义（第 1 层的第 2 头和第 2 层的第 2 头毫无关系）；横着看一行，能看出同一个 Block 里的几个头对同一段文字的关注有多不同。',
    p_heads_2: '选一个指标，每个格子的边框和角标就按它显示：一个头把多少权重放在前一个 token 上、放在第一个 token 上（所谓“注意力汇点”）、放在自己身上、放在诗中上一行同一位置的字上，或者它的每一行有多分散（熵，单位为比特）。下面的表格按这个指标列出所有头。把鼠标移到格子上或用键盘聚焦，可以看到它最大的几个权重；点一下，图 4 就切换到这一层、这个头。',
    ctl_hmeasure: '指标', mvMeasureAria: '格子边框所依据的指标',
    mv_prev: '前一个 token', mv_sink: '第一个 token', mv_self: '自己', mv_up: '上一行', mv_entropy: '熵（比特）',
    mvRandom: '随机权重只有一个 Block，没有可以逐层查看的模型。换成训练好的唐诗模型（或打开一个模型文件夹），就能看到每一层的每一个头。',
    mvTitle: '这段文字上的全部 {n} 层 × {h} 个头，边框表示：{what}（边框最深的，数值最大）。',
    mvGridLabel: '{n} 层 × {h} 个头的注意力权重',
    mvPress: '鼠标移到格子上或聚焦它，看它最大的几个权重；点一下，在图 4 中打开它。',
    mvLayer: '第{l}层', mvHead: '头{h}', mvCell: '第 {l} 层第 {h} 头',
    mvCellLabel: '{name}：{what} {v}',
    mvPooled: '这张图里，每个小图的一格是原来 {w} × {w} 格中最大的权重（页面上显示每一格）。',
    mvHint: '{name} · {what}：{v} · 最大的权重（查询 → 键）：{top}',
    mvPair: '“{q}” → “{k}” {w}',
    mvCaption: '所有头，按“{what}”排序（权重：从第三个 token 起各查询的平均；均匀一行的熵：{u} 比特）',
    mvNoLines: '这段文字没有以 ， 或 。 结尾的五字或七字句，所以不计算“上一行”（—）：载入那首绝句，就能看到读上一行的那个头。',
    mvNoLinesModel: '“上一行”只在唐诗模型的绝句上计算（这里为 —）。'
  }
};
