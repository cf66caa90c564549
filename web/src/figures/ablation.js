/* ablation.js - figure 14, head ablation: a layers x (heads + FFN) grid of switches (state
   `ablate`), the 10 most likely next tokens before and after side by side (a press follows one:
   `abltok`), the KL divergence and the followed token's probability both ways (stage ablation);
   with `sweep` on, each head and each FFN switched off alone as a heatmap of the drop of the
   followed token's log-probability (stage ablsweep). Random weights: one line saying why. */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { POEM, getOpened } from '../model/params.js';
import { ablateText } from '../model/stages/ablation.js';
import { legendOf, matrixPanel, sentences } from './common.js';

const prob = (p) => (p >= 0.001 ? F.pct(p) : p >= 1e-6 ? (100 * p).toPrecision(2) + '%' : '<0.0001%');
const nats = (v) => F.short(v);
const TOP_SWEEP = 3;   // the parts the sweep names

// The list of switched-off parts as a phrase: "head 2.4, the FFN of layer 1".
const setPhrase = (list, t, ctx) => list.map(([l, h]) => (h === 'ffn' ? t('ablSetFfn', { l: l + 1 })
  : t('ablSetHead', { l: l + 1, h: h + 1 }))).join(ctx.lang === 'zh' ? '、' : ', ');

// The grid of switches: rows layers, columns the heads then the FFN; a press writes the canonical set.
function grid(A, NL, H, t, ctx) {
  const off = new Set(A.list.map(([l, h]) => l + '.' + h)), key = (r, c) => r + '.' + (c === H ? 'ffn' : c);
  const toggle = (r, c) => {
    const list = A.list.slice(), k = key(r, c), i = list.findIndex(([l, h]) => l + '.' + h === k);
    if (i >= 0) list.splice(i, 1); else list.push([r, c === H ? 'ffn' : c]);
    list.sort((a, b) => a[0] - b[0] || (a[1] === 'ffn' ? 1 : b[1] === 'ffn' ? -1 : a[1] - b[1]));
    ctx.set({ ablate: ablateText(list) });
  };
  return { type: 'toggles', caption: t('ablGridCaption'), corner: t('ablCorner'),
    rowLabels: Array.from({ length: NL }, (_, l) => t('ablRow', { l: l + 1 })),
    colLabels: [...Array.from({ length: H }, (_, h) => String(h + 1)), t('ablFfnCol')],
    on: (r, c) => off.has(key(r, c)), onMark: '\u25cf', offMark: '\u00d7',
    hint: (r, c) => t(c === H ? 'ablCellFfn' : 'ablCellHead', { l: r + 1, h: c + 1,
      state: t(off.has(key(r, c)) ? 'ablStateOff' : 'ablStateOn') }),
    press: toggle, any: A.list.length > 0, clear: { label: t('ablClear'), run: () => ctx.set({ ablate: '' }) } };
}

// The sweep's heatmaps: heads (NL x H) and FFNs (NL x 1) each on its own scale (an FFN moves
// log p by far more than a head), with their tables and the parts that matter most.
function sweepBlocks(S, ch, t, ctx) {
  const NL = S.layers, H = S.heads, rows = Array.from({ length: NL }, (_, l) => t('ablRow', { l: l + 1 }));
  const cell = (v) => nats(v);
  const heads = matrixPanel('drop', S.drop, NL, H, rows, ctx, { kind: 'diverging', max: absMax(S.drop),
    colLabels: Array.from({ length: H }, (_, h) => String(h + 1)), maxCell: 34, title: t('sweepHeads'),
    label: t('sweepHeadsLabel', { ch, nl: NL, h: H }), corner: t('ablCorner'),
    cell: (r, c) => cell(S.drop[r * H + c]) });
  heads.spec.describe = (r, c) => t('sweepCell', { l: r + 1, h: c + 1, v: F.f32(S.drop[r * H + c]),
    kl: F.short(S.kl[r * H + c]) });
  heads.data = { part: 'heads' };
  const ffn = matrixPanel('drop', S.ffnDrop, NL, 1, rows, ctx, { kind: 'diverging', max: absMax(S.ffnDrop),
    colLabels: [t('ablFfnCol')], maxCell: 34, title: t('sweepFfn'), label: t('sweepFfnLabel', { ch }),
    corner: t('ablCorner'), cell: (r) => cell(S.ffnDrop[r]) });
  ffn.spec.describe = (r) => t('sweepFfnCell', { l: r + 1, v: F.f32(S.ffnDrop[r]), kl: F.short(S.ffnKl[r]) });
  ffn.data = { part: 'ffn' };
  const parts = [];
  for (let i = 0; i < NL * H; i++) {
    parts.push({ v: S.drop[i], text: t('sweepItem', { l: Math.floor(i / H) + 1, h: i % H + 1, v: nats(S.drop[i]) }) });
  }
  for (let l = 0; l < NL; l++) {
    parts.push({ v: S.ffnDrop[l], text: t('sweepItemFfn', { l: l + 1, v: nats(S.ffnDrop[l]) }) });
  }
  parts.sort((a, b) => b.v - a.v);
  return [
    { type: 'headline', text: t('sweepTitle', { ch, base: nats(S.base) }) },
    { type: 'panels', layout: 'pair', panels: [heads, ffn],
      legend: legendOf('diverging', null, t('sweepLegend', { ch })) },
    { type: 'note', text: t('sweepTop', { list: parts.slice(0, TOP_SWEEP).map((p) => p.text)
      .join(ctx.lang === 'zh' ? '、' : ', ') }) }
  ];
}

export default {
  view: 'ablation',
  needs: ['wide', 'ablation', 'ablsweep'],
  // (drawn without the sweep while it runs, so a head toggle is drawn at once; again when it comes)
  later: ['ablsweep'],
  reads: ['tokens', 'weights', 'ablate', 'abltok', 'sweep'],
  controls: [{ type: 'segment', key: 'sweep', options: ['off', 'on'], label: (m, t) => t('sweep_' + m),
    aria: 'sweepAria' }],
  build(res, ctx) {
    const t = ctx.t, A = res.ablation;
    if (!res.trained || !A) {
      return { data: { trained: 'no' }, blocks: [
        { type: 'note', text: t('ablRandom') },
        { type: 'nextchars', items: [], action: { label: t('ablUsePoems'),
          run: () => ctx.set({ weights: 'poems', tokens: POEM.tokens, sel: POEM.sel }) } }
      ] };
    }
    const W = res.wide, NL = W.layers, H = W.heads, opened = res.trained === 'model' ? getOpened() : null;
    const byId = new Map(A.tokens.map((x) => [x.id, x]));
    const labelOf = (id) => (opened ? opened.label(id) : byId.get(id).label);
    const ch = labelOf(A.target), tg = byId.get(A.target);
    const text = opened ? ctx.state.tokens : res.tokens.slice(1).join('');
    const list = (title, ids, side) => ({ title, items: ids.map((id) => {
      const label = labelOf(id), p = byId.get(id)[side];
      return { id, ch: label, p, label: prob(p), chosen: id === A.target,
        hint: t(id === A.target ? 'ablChosen' : 'ablPick', { ch: label }), run: () => ctx.set({ abltok: id }) };
    }) });
    const abltok = ctx.state.abltok, V = W.logits.length;
    const targetNote = abltok >= V ? t('ablTargetOut', { id: abltok, v: V })
      : abltok >= 0 ? t('ablTargetPicked', { ch, id: A.target }) : t('ablTargetTop', { ch });
    const S = res.ablsweep, running = !S && (res.missing || []).includes('ablsweep');
    const blocks = [
      { type: 'headline', text: A.list.length ? t('ablTitle', { text, set: setPhrase(A.list, t, ctx) })
        : t('ablTitleNone', { text }) },
      grid(A, NL, H, t, ctx),
      { type: 'stats', items: [
        { num: A.kl.toFixed(4), label: t('ablStatKl'), cls: 'abl-kl' },
        { num: prob(tg.before), label: t('ablStatBefore', { ch }), cls: 'abl-before' },
        { num: prob(tg.after), label: t('ablStatAfter', { ch }), cls: 'abl-after' },
        { num: F.short(Math.log(tg.after) - Math.log(tg.before)), label: t('ablStatDelta'), cls: 'abl-delta' }] },
      { type: 'toplists', lists: [list(t('ablBefore'), A.top.before, 'before'),
        list(t('ablAfter'), A.top.after, 'after')] },
      { type: 'note', text: targetNote },
      ...(S ? sweepBlocks(S, ch, t, ctx)
        : [{ type: 'note', text: sentences([t(running ? 'sweepRunning' : 'sweepOffNote',
          { n: NL * H, nl: NL, runs: NL * (H + 1) })], ctx) }])
    ];
    return {
      data: { trained: res.trained === 'model' ? 'model' : 'yes', ablate: ablateText(A.list), target: String(A.target),
        kl: A.kl.toFixed(6), pBefore: tg.before.toFixed(6), pAfter: tg.after.toFixed(6),
        top: A.top.before.join(' '), topAfter: A.top.after.join(' '), sweep: S ? 'done' : running ? 'running' : 'off',
        sweepDrop: S ? Array.from(S.drop, (v) => v.toFixed(5)).join(' ') : '',
        sweepFfn: S ? Array.from(S.ffnDrop, (v) => v.toFixed(5)).join(' ') : '' },
      blocks
    };
  }
};
