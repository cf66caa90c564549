/* patching.js - figure 15, activation patching: the clean text (the page's) against a corrupted one
   of the same token length; for every (layer, position) the clean residual entering that block
   patched into the corrupted run, and how much of the logit difference answer - wrong at the last
   position it brings back, (patched - corrupt) / (clean - corrupt) as TransformerLens normalises
   it: a layers x positions heatmap, then the answer and wrong token to pick from each run's top 10. */
import * as F from '../draw/format.js';
import { POEM, getOpened } from '../model/params.js';
import { legendOf, matrixPanel } from './common.js';

// One character changed, for a first corrupted text: a swap the reader can read (月 -> 日, as in
// the classic 床前明月光 / 床前明日光), else the last character of the text replaced.
const SWAPS = { 月: '日', 日: '月', 山: '水', 水: '山', 天: '地', 地: '天', 上: '下', 下: '上', 花: '草', 春: '秋',
  秋: '春', 红: '白', 白: '红', the: 'a', a: 'the', is: 'was', was: 'is' };
export function suggest(text) {
  const chars = Array.from(text);
  const i = chars.findIndex((c) => Object.prototype.hasOwnProperty.call(SWAPS, c));
  if (i >= 0) { chars[i] = SWAPS[chars[i]]; return chars.join(''); }
  const words = text.split(' ');
  const w = words.findIndex((x) => Object.prototype.hasOwnProperty.call(SWAPS, x));
  if (w >= 0) { words[w] = SWAPS[words[w]]; return words.join(' '); }
  let last = chars.length - 1;
  while (last > 0 && /\s/u.test(chars[last])) last--;
  chars[last] = chars[last] === '的' ? '了' : '的';
  return chars.join('');
}

// The token a candidate id is on the page: an opened model's piece (its tokenizer is on the page),
// the poem model's character (the stage's labels).
const labelOf = (res, id) => (res.trained === 'model' && getOpened() ? getOpened().label(id)
  : res.patching.labels[res.patching.cand.indexOf(id)]);

// The headline: where the recovery sits, row by row (block l's best position), and the block where
// it moves from one position to another (the jump); one position throughout: the largest cell.
function headline(rec, NL, L, cols, t) {
  const best = Array.from({ length: NL }, (_, l) => {
    let p = 0;
    for (let q = 1; q < L; q++) if (rec[l * L + q] > rec[l * L + p]) p = q;
    return p;
  });
  const at = (l) => ({ tok: cols[best[l]], i: best[l], v: F.pct(rec[l * L + best[l]]) });
  const jump = best.findIndex((p, l) => l > 0 && p !== best[l - 1]);
  if (jump > 0) {
    const a = at(jump - 1), b = at(jump);
    return t('patchJump', { a: a.tok, ai: a.i, av: a.v, b: b.tok, bi: b.i, bv: b.v, l: jump, l1: jump + 1 });
  }
  let top = 0;
  for (let k = 1; k < NL * L; k++) if (rec[k] > rec[top]) top = k;
  return t('patchOne', { tok: cols[top % L], i: top % L, l: Math.floor(top / L) + 1, v: F.pct(rec[top]) });
}

// A run's top 10 as a row of buttons, the one in use marked; a press picks it as `key`.
function picker(res, ctx, top, key, chosen, caption) {
  const items = top.ids.map((id, i) => {
    const ch = labelOf(res, id);
    return { ch, p: top.probs[i], label: (id === chosen ? '\u2713 ' : '') + F.pct(top.probs[i]),
      hint: ctx.t('patchPick_' + key, { ch }), run: () => ctx.set({ [key]: id }) };
  });
  return { type: 'nextchars', items, caption };
}

export default {
  view: 'patching',
  needs: ['wide', 'patching'],
  reads: ['tokens', 'weights', 'corrupt', 'answer', 'wrong'],
  controls: [{ type: 'text', key: 'corrupt', label: 'ctl_corrupt' }],
  build(res, ctx) {
    const t = ctx.t, v = res.patching;
    if (!res.trained || !v) {
      return { data: { state: 'random' }, blocks: [
        { type: 'note', text: t('patchRandom') },
        { type: 'nextchars', items: [], action: { label: t('patchUsePoems'),
          run: () => ctx.set({ weights: 'poems', tokens: POEM.tokens, sel: POEM.sel }) } }] };
    }
    const text = ctx.state.tokens, fix = { label: t('patchSuggest', { text: suggest(text) }),
      run: () => ctx.set({ corrupt: suggest(text), answer: -1, wrong: -1 }) };
    const offer = (state, note) => ({ data: { state }, blocks: [{ type: 'note', text: note },
      { type: 'nextchars', items: [], action: fix }] });
    if (v.state === 'empty') return offer('empty', t('patchEmpty'));
    if (v.state === 'length') return offer('length', t('patchLength', { L: v.L, Lx: v.Lx }));
    if (!v.differ.length) return offer('same', t('patchSame'));
    const NL = v.layers, L = v.L, C = v.cand.length, tk = res.tokens, xt = v.xTokens;
    // The pair: the reader's, when both are candidates and differ; else the clean run's top and the
    // corrupted run's top; when those are one token, the candidate whose difference to it the
    // corruption moved most (the strongest signal to recover).
    const has = (id) => id >= 0 && v.cand.includes(id);
    const answer = has(ctx.state.answer) ? ctx.state.answer : v.cleanTop.ids[0], a = v.cand.indexOf(answer);
    const moved = (j) => Math.abs(v.clean[a] - v.clean[j] - v.corrupt[a] + v.corrupt[j]);
    const sameTop = v.corruptTop.ids[0] === answer;
    let wrong = has(ctx.state.wrong) && ctx.state.wrong !== answer ? ctx.state.wrong
      : sameTop ? -1 : v.corruptTop.ids[0];
    const chose = wrong < 0;
    for (let j = 0, best = -1; chose && j < v.cand.length; j++) {
      if (j !== a && moved(j) > best) { best = moved(j); wrong = v.cand[j]; }
    }
    const w = v.cand.indexOf(wrong);
    const cd = v.clean[a] - v.clean[w], xd = v.corrupt[a] - v.corrupt[w];
    const pick = [picker(res, ctx, v.cleanTop, 'answer', answer, t('patchAnswerCap', { ch: labelOf(res, answer) })),
      picker(res, ctx, v.corruptTop, 'wrong', wrong, t('patchWrongCap', { ch: labelOf(res, wrong) }))];
    const base = { answer: String(answer), wrong: String(wrong), cleanDiff: F.f32(cd), corruptDiff: F.f32(xd),
      differ: v.differ.join(' ') };
    // Equal differences: nothing to recover, no scale to measure it on.
    if (!(Math.abs(cd - xd) > 1e-6 * Math.max(1, Math.abs(cd)))) {
      return { data: Object.assign({ state: 'flat' }, base), blocks: [{ type: 'note', text: t('patchFlat',
        { a: labelOf(res, answer), w: labelOf(res, wrong), d: F.short(cd) }) }, ...pick] };
    }
    const rec = new Float32Array(NL * L);
    for (let k = 0; k < NL * L; k++) rec[k] = (v.patched[k * C + a] - v.patched[k * C + w] - xd) / (cd - xd);
    // Columns: the clean token, "clean→corrupted" where they differ.
    const cols = tk.map((c, p) => (v.differ.includes(p) ? c + '\u2192' + xt[p] : c));
    const rows = Array.from({ length: NL }, (_, l) => t('patchBlock', { l: l + 1 }));
    let max = 1;
    for (const r of rec) max = Math.max(max, Math.abs(r));
    const what = t('patchWhat');
    const p = matrixPanel(what, rec, NL, L, rows, ctx, { kind: 'diverging', max, colLabels: cols, maxCell: 40,
      title: t('patchTitle', { a: labelOf(res, answer), w: labelOf(res, wrong) }), shape: NL + ' \u00d7 ' + L,
      label: t('patchLabel', { n: NL, L }), corner: t('patchCorner'), tableCaption: what,
      cell: (r, c) => rec[r * L + c].toFixed(3) });
    p.spec.describe = (r, c) => t('patchDescribe', { l: r + 1, tok: cols[c], i: c, v: rec[r * L + c].toFixed(3),
      d: F.short(v.patched[(r * L + c) * C + a] - v.patched[(r * L + c) * C + w]) });
    return {
      data: Object.assign({ state: 'ok', cells: Array.from(rec, (x) => x.toFixed(4)).join(' ') }, base),
      blocks: [
        { type: 'headline', text: headline(rec, NL, L, cols, t) },
        { type: 'panels', layout: 'one', panels: [Object.assign(p, { cls: 'head-large' })],
          legend: legendOf('diverging', max, t('patchLegend')) },
        ...pick,
        ...(chose ? [{ type: 'note', text: t('patchSameTop', { a: labelOf(res, answer), w: labelOf(res, wrong) }) }]
          : []),
        { type: 'note', text: t('patchNote', { a: labelOf(res, answer), w: labelOf(res, wrong), cd: F.short(cd),
          xd: F.short(xd), n: v.reran, all: NL * L }) }
      ]
    };
  }
};
