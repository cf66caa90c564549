/* i18n/saturation.js - the `saturation` figure's strings, English and 中文 (same keys). */
export default {
  en: {
    h_saturation: 'Why divide by √d_k: softmax saturation',
    p_saturation_1: 'The dot product q · k of two random vectors with unit-variance entries is a sum of d_k products, so its variance is d_k. The wider the head, the further apart the scores of different keys. Softmax turns large gaps into near-certainty: one key gets almost all the weight, and the gradients that would adjust the other keys all but vanish.',
    p_saturation_2: 'Dividing by √d_k brings the variance back to 1 at every width. Below, the engine scores random queries against random keys for d_k from 1 to 1024, with and without the scaling. This is what the "Divide scores by √d_k" switch changes in the attention figure.',
    progress_saturation: 'softmax saturation',
    sat_raw: 'q · k (unscaled)', sat_scaled: 'q · k / √d_k (scaled)',
    satYourDk: 'your d_k = {dk}',
    satVarTitle: 'Variance of the scores',
    satPeakTitle: 'Average largest softmax weight over L = {L} keys',
    satAxisDk: 'd_k (log scale) →', satAxisVar: '↑ variance (log scale)', satAxisPeak: '↑ largest weight',
    satUniform: 'uniform: 1/{L} = {u}',
    satVarLabel: 'Line plot: variance of q · k against d_k from 1 to 1024, on log scales. It grows with d_k without the scaling and stays near 1 with it. At your d_k = {dk}: {raw} unscaled, {scaled} scaled.',
    satPeakLabel: 'Line plot: the average largest softmax weight over {L} keys against d_k. Without the scaling it climbs towards 1 (one-hot); with it, it stays flat. At your d_k = {dk}: {raw} unscaled, {scaled} scaled.',
    satHeadline: 'At your d_k = {dk} (d_model {d} \u00f7 heads {h}) and L = {L} (keys per query): without the scaling, q · k has variance {vr} and a row\'s largest weight is {pr} on average; with it, {vs} and {ps}.',
    satSample: 'q and k are rows of randn (seed {seed}), fresh for every d_k: {n} scores per point at d_k = 1 down to {m} at d_k = 1024; the largest weights are averaged over {r} query rows there, each over its own L = {L} keys. The scores are the engine\'s matrix product, the weights its softmax.',
    satTable: 'Every point of both plots (L = {L} keys)',
    satColPairs: 'scores', satColRows: 'softmax rows', satColVar: 'variance', satColPeak: 'largest weight',
    satSwitchOn: 'The scaling is on in the settings, so the attention figure above is on the scaled series: at d_k = {dk}, rows of random q and k peak at {ps} on average. Turn it off and it moves to the unscaled series ({pr} here). Its own peak differs a little: its q and k are only close to unit variance.',
    satSwitchOff: 'The scaling is off in the settings, so the attention figure above is on the unscaled series: at d_k = {dk}, rows of random q and k peak at {pr} on average. Turn it on and it drops to the scaled series ({ps} here). Its own peak differs a little: its q and k are only close to unit variance.'
  },
  zh: {
    h_saturation: '为什么要除以 √d_k：softmax 饱和',
    p_saturation_1: '两个各分量方差为 1 的随机向量，点积 q · k 是 d_k 个乘积之和，所以方差是 d_k。头越宽，不同键的分数拉得越开。softmax 会把大的差距变成近乎确定：一个键拿走几乎全部权重，其余键的梯度几乎消失。',
    p_saturation_2: '除以 √d_k 后，无论多宽，方差都回到 1。下图由引擎在 d_k 从 1 到 1024 的每个宽度上，用随机查询给随机键打分，缩放与不缩放各算一遍。注意力图里的“分数除以 √d_k”开关，改变的正是这一点。',
    progress_saturation: 'softmax 饱和',
    sat_raw: 'q · k（不缩放）', sat_scaled: 'q · k / √d_k（缩放）',
    satYourDk: '当前 d_k = {dk}',
    satVarTitle: '分数的方差',
    satPeakTitle: '在 L = {L} 个键上，softmax 最大权重的平均值',
    satAxisDk: 'd_k（对数刻度）→', satAxisVar: '↑ 方差（对数刻度）', satAxisPeak: '↑ 最大权重',
    satUniform: '均匀：1/{L} = {u}',
    satVarLabel: '折线图：q · k 的方差随 d_k（1 到 1024）的变化，两轴均为对数刻度。不缩放时随 d_k 增长，缩放后保持在 1 附近。当前 d_k = {dk}：不缩放 {raw}，缩放 {scaled}。',
    satPeakLabel: '折线图：在 {L} 个键上 softmax 最大权重的平均值随 d_k 的变化。不缩放时向 1（one-hot）爬升，缩放后基本持平。当前 d_k = {dk}：不缩放 {raw}，缩放 {scaled}。',
    satHeadline: '当前 d_k = {dk}（d_model {d} / {h} 个头），L = {L} 个键：不缩放时 q · k 的方差为 {vr}，每行最大权重平均为 {pr}；缩放后分别为 {vs} 和 {ps}。',
    satSample: 'q 和 k 是 randn 的行（种子 {seed}），每个 d_k 重新抽取：d_k = 1 时每个点有 {n} 个分数，d_k = 1024 时为 {m} 个；那里的最大权重是 {r} 个查询行的平均，每行在自己的 L = {L} 个键上做 softmax。分数由引擎的矩阵乘法算出，权重由它的 softmax 算出。',
    satTable: '两张图的每个点（L = {L} 个键）',
    satColPairs: '分数个数', satColRows: 'softmax 行数', satColVar: '方差', satColPeak: '最大权重',
    satSwitchOn: '设置里开着缩放，所以上面的注意力图处在缩放的那条线上：d_k = {dk} 时，随机 q、k 的每行最大权重平均为 {ps}。关掉缩放，它会移到不缩放的那条线（这里为 {pr}）。注意力图自己的峰值会略有不同，因为它的 q、k 只是接近单位方差。',
    satSwitchOff: '设置里关着缩放，所以上面的注意力图处在不缩放的那条线上：d_k = {dk} 时，随机 q、k 的每行最大权重平均为 {pr}。打开缩放，它会降到缩放的那条线（这里为 {ps}）。注意力图自己的峰值会略有不同，因为它的 q、k 只是接近单位方差。'
  }
};
