/* lens.js - figure 13, the logit lens: every residual point (rows: the embeddings at the bottom,
   after the last block at the top) through the final norm and unembedding, at every position
   (columns, labelled with their tokens). Top panel: each cell the top token, coloured by its
   probability, framed where it is the token that actually comes next; the top 5 on hover. Bottom
   panel: the probability of that actual next token, its rank over the whole vocabulary in the
   cell. Stages wide (the top 5) and lens (the ranks). Random weights: nothing to show. */
import * as F from '../draw/format.js';
import { LENS_K } from '../model/stages/wide.js';
import { POEM, getOpened } from '../model/params.js';
import { matrixPanel } from './common.js';

// A rank short enough for a cell: 1234 -> "1k" (the exact one is in the hover and the table).
const shortRank = (n) => (n < 1000 ? String(n) : n < 1e6 ? Math.round(n / 1e3) + 'k' : Math.round(n / 1e6) + 'M');
const pct = (p) => (p >= 0.001 ? F.pct(p) : p >= 1e-6 ? (100 * p).toPrecision(2) + '%' : '<0.0001%');

// Per position with a next token: the first residual point whose top token is it, -1 if none.
export function firstRight(wide, next) {
  const L = wide.L, out = new Int32Array(Math.max(0, L - 1)).fill(-1);
  for (let i = 0; i + 1 < L; i++) {
    for (let p = 0; p < wide.lens.length; p++) {
      if (wide.lens[p].ids[i * LENS_K] === next[i]) { out[i] = p; break; }
    }
  }
  return out;
}

// "at the embeddings for 3, after block 1 for 9, ..." (of n positions; never for m).
function headline(first, P, unit, t) {
  const counts = new Array(P).fill(0);
  let never = 0;
  first.forEach((p) => { if (p < 0) never++; else counts[p]++; });
  const parts = [];
  counts.forEach((n, p) => {
    if (n) parts.push(t(p === 0 ? 'lensAtEmb' : 'lensAfter', { b: p, n }));
  });
  const n = first.length;
  if (!n) return t('lensNoPositions', { unit });
  if (!parts.length) return t('lensNone', { unit, n });
  const end = never ? t('lensNever', { m: never }) : t('lensEnd');
  return t('lensFinds', { unit, n, parts: parts.join(t('lensSep')) }) + end;
}

function random(t, ctx) {
  return { data: { trained: 'no' }, blocks: [
    { type: 'note', text: t('lensRandom') },
    { type: 'nextchars', items: [], action: { label: t('lensUsePoems'),
      run: () => ctx.set({ weights: 'poems', tokens: POEM.tokens, sel: POEM.sel }) } }
  ] };
}

export default {
  view: 'lens',
  needs: ['wide', 'lens'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'weights'],
  build(res, ctx) {
    const t = ctx.t, W = res.wide, R = res.lens;
    if (!res.trained || !W || !R) return random(t, ctx);
    const L = W.L, P = W.lens.length, tk = res.tokens, opened = res.trained === 'model' ? getOpened() : null;
    const word = opened ? (id) => opened.label(id) : (id) => R.vocab[id];
    const unit = t(opened ? 'lensUnitToken' : 'lensUnitChar');
    const pointOf = (r) => P - 1 - r;   // row 0 at the top: after the last block
    const rowLabels = Array.from({ length: P }, (_, r) => {
      const p = pointOf(r);
      return p === 0 ? t('lensEmb') : t('lensBlock', { b: p });
    });
    const pointName = (p) => (p === 0 ? t('lensEmbLong') : t('lensBlockLong', { b: p }));
    // top (P x L): the top token's probability; nextP: the actual next token's; boxes: the same.
    const top = new Float32Array(P * L), nextP = new Float32Array(P * L), boxes = new Uint8Array(P * L);
    for (let r = 0; r < P; r++) {
      const p = pointOf(r), e = W.lens[p];
      for (let i = 0; i < L; i++) {
        top[r * L + i] = e.probs[i * LENS_K];
        nextP[r * L + i] = i + 1 < L ? R.prob[p * L + i] : 0;
        if (i + 1 < L && e.ids[i * LENS_K] === R.next[i]) boxes[r * L + i] = 1;
      }
    }
    const last = (c) => c + 1 >= L;
    const topFive = (p, c) => Array.from({ length: LENS_K }, (_, j) =>
      word(W.lens[p].ids[c * LENS_K + j]) + ' ' + pct(W.lens[p].probs[c * LENS_K + j])).join(t('listSep'));
    const nextLine = (p, c) => (last(c) ? t('lensNoNext') : t('lensNextLine', { tok: word(R.next[c]),
      rank: F.int(R.rank[p * L + c]), p: pct(R.prob[p * L + c]) }));
    const describe = (r, c) => {
      const p = pointOf(r);
      return t('lensDescribe', { point: pointName(p), i: c, tok: tk[c], top: topFive(p, c), next: nextLine(p, c) });
    };
    const height = P <= 16 ? 22 : 14;
    const common = { kind: 'sequential', max: 1, colLabels: tk, maxCell: 44, cellH: height, corner: t('lensCorner') };
    const topPanel = matrixPanel(t('lensTopName'), top, P, L, rowLabels, ctx, Object.assign({}, common, {
      title: t('lensTopTitle'), shape: (P + ' \u00d7 ' + L), label: t('lensTopLabel', { P, L }),
      boxes, cellText: (r, c) => word(W.lens[pointOf(r)].ids[c * LENS_K]), describe,
      tableCaption: t('lensTopTable'),
      cell: (r, c) => word(W.lens[pointOf(r)].ids[c * LENS_K]) + ' ' + pct(top[r * L + c]) +
        (boxes[r * L + c] ? ' \u2713' : '') }));
    const nextPanel = matrixPanel(t('lensNextName'), nextP, P, L, rowLabels, ctx, Object.assign({}, common, {
      title: t('lensNextTitle'), shape: (P + ' \u00d7 ' + (L - 1)), label: t('lensNextLabel', { P, L }),
      masked: (r, c) => last(c), describe,
      cellText: (r, c) => (last(c) ? null : shortRank(R.rank[pointOf(r) * L + c])), cellTextCut: false,
      tableCaption: t('lensNextTable'),
      cell: (r, c) => (last(c) ? '\u2014' : '#' + F.int(R.rank[pointOf(r) * L + c]) + ' ' +
        pct(R.prob[pointOf(r) * L + c])) }));
    topPanel.data = { panel: 'top' };
    nextPanel.data = { panel: 'next' };
    const first = firstRight(W, R.next);
    return {
      data: { trained: res.trained === 'model' ? 'model' : 'yes', points: String(P), positions: String(L),
        first: Array.from(first).join(' '),
        top: W.lens.map((e) => Array.from({ length: L }, (_, i) => e.ids[i * LENS_K]).join(',')).join(' '),
        rank: Array.from({ length: P }, (_, p) => R.rank.subarray(p * L, p * L + L - 1).join(',')).join(' ') },
      blocks: [
        { type: 'headline', text: headline(first, P, unit, t) },
        { type: 'panels', layout: 'one', panels: [topPanel, nextPanel],
          legend: { type: 'legend', kind: 'sequential', max: 1, note: t('lensLegend') } },
        { type: 'note', text: t('lensNote', { V: F.int(R.vocabSize), unit }) }
      ]
    };
  }
};
