/* neurons.js - figure 16, FFN neurons: pick one (each layer's 10 most active on this text, or
   typed as layer.neuron, 1-based: state `neuron`), its activation on every token as bars, and the
   tokens its output row promotes and suppresses straight through the unembedding (weight-only:
   U (g ⊙ w_out), g the final norm's weight, no centring); for the poem model, with `nsearch` on,
   its top 10 of the 300 held-out poems (stage nsearch). Stage neurons. Random weights: a note. */
import * as F from '../draw/format.js';
import { POEM, getOpened } from '../model/params.js';

const MARK_L = '\u3010', MARK_R = '\u3011';   // 【 】 around the character a held-out poem fires on
const LINE_END = /[，。！？；：、,.!?;:]/u;

// The line of a poem around position p (1-based in the ids: chars[p - 1]), the character marked.
export function lineAround(chars, p) {
  const i = p - 1;
  let a = i, b = i;
  while (a > 0 && !LINE_END.test(chars[a - 1])) a--;
  while (b + 1 < chars.length && !LINE_END.test(chars[b])) b++;
  return chars.slice(a, i).join('') + MARK_L + chars[i] + MARK_R + chars.slice(i + 1, b + 1).join('');
}

const name = (l, n) => (l + 1) + '.' + (n + 1);

function random(t, ctx) {
  return { data: { trained: 'no' }, blocks: [
    { type: 'note', text: t('neuRandom') },
    { type: 'nextchars', items: [], action: { label: t('neuUsePoems'),
      run: () => ctx.set({ weights: 'poems', tokens: POEM.tokens, sel: POEM.sel }) } }] };
}

// Each layer's 10 most active neurons as buttons; a press shows that neuron.
function pickers(N, t, ctx) {
  let top = 0;
  N.lists.forEach((x) => x.max.forEach((v) => { top = Math.max(top, Math.abs(v)); }));
  return { type: 'toplists', lists: N.lists.map((x, l) => ({ title: t('neuListTitle', { l: l + 1 }),
    items: Array.from(x.ids, (n, j) => {
      const chosen = l === N.layer && n === N.neuron;
      return { id: name(l, n), ch: name(l, n), p: top > 0 ? Math.max(0, x.max[j]) / top : 0, label: F.short(x.max[j]),
        chosen, hint: t('neuPick', { n: name(l, n), v: F.short(x.max[j]), i: x.at[j] }),
        run: () => ctx.set({ neuron: name(l, n) }) };
    }) })) };
}

// The promoted / suppressed tokens as one table: rank, token, id, value each way.
function directTable(N, word, t) {
  const rows = Array.from(N.promote, (id, i) => ({ key: String(i + 1), cells: [String(i + 1), word(id),
    String(id),
    F.f32(N.promoteV[i]), word(N.suppress[i]), String(N.suppress[i]), F.f32(N.suppressV[i])] }));
  return { type: 'table', caption: t('neuDirectCaption', { n: name(N.layer, N.neuron) }), rows, columns: [
    { label: t('neuColRank') }, { label: t('neuColUp') }, { label: t('neuColId') },
    { label: t('neuColUpV'), num: true },
    { label: t('neuColDown') }, { label: t('neuColId') }, { label: t('neuColDownV'), num: true }] };
}

// The held-out search: off (how to start it), not for this model, or its top 10 poems.
function searchBlocks(res, N, t) {
  if (res.trained === 'model') return [{ type: 'note', text: t('neuSearchOpened') }];
  const S = res.nsearch;
  if (!S) return [{ type: 'note', text: t('neuSearchOff', { n: name(N.layer, N.neuron) }) }];
  const rows = S.hits.map((h, i) => ({ key: String(i + 1), cells: [String(i + 1), String(h.line + 1),
    lineAround(h.chars, h.position), String(h.position), F.f32(h.value)] }));
  // What the ten have in common: their most frequent character, and how many end a line.
  const count = new Map();
  S.hits.forEach((h) => count.set(h.chars[h.position - 1], (count.get(h.chars[h.position - 1]) || 0) + 1));
  const [ch, k] = [...count].sort((a, b) => b[1] - a[1])[0] || ['', 0];
  const ends = S.hits.filter((h) => LINE_END.test(h.chars[h.position] || '')).length;
  return [
    { type: 'headline', text: t('neuSearchTitle', { n: name(S.layer, S.neuron), poems: S.poems, ch, k,
      m: S.hits.length }) + (ends * 2 > S.hits.length ? t('neuSearchEnds', { e: ends, m: S.hits.length }) : '') },
    { type: 'table', caption: t('neuSearchCaption', { n: name(S.layer, S.neuron), poems: S.poems }), rows, columns: [
      { label: t('neuColRank') }, { label: t('neuColLine'), num: true }, { label: t('neuColPoem') },
      { label: t('neuColPos'), num: true }, { label: t('neuColAct'), num: true }] }
  ];
}

export default {
  view: 'neurons',
  needs: ['wide', 'neurons', 'nsearch'],
  reads: ['tokens', 'weights', 'neuron', 'nsearch'],
  controls: [{ type: 'text', key: 'neuron', label: 'ctl_neuron' },
    { type: 'segment', key: 'nsearch', options: ['off', 'on'], label: (m, t) => t('nsearch_' + m),
      aria: 'nsearchAria' }],
  build(res, ctx) {
    const t = ctx.t, N = res.neurons;
    if (!res.trained || !N) return random(t, ctx);
    const opened = res.trained === 'model' ? getOpened() : null;
    const word = opened ? (id) => opened.label(id) : (id) => String(N.vocab[id]);
    const tk = res.tokens, L = N.L, nm = name(N.layer, N.neuron), act = Array.from(N.act);
    const neg = act.some((v) => v < 0);
    const series = [{ key: 'pos', color: 'ffn', label: t('neuBarPos'), values: act.map((v) => Math.max(0, v)) }]
      .concat(neg ? [{ key: 'neg', color: 'attention', label: t('neuBarNeg'),
        values: act.map((v) => Math.max(0, -v)) }] : []);
    const zeros = act.filter((v) => v === 0).length;
    return {
      data: { trained: res.trained === 'model' ? 'model' : 'yes', neuron: nm, picked: N.picked ? 'yes' : 'no',
        act: act.map((v) => v.toFixed(5)).join(' '), promote: Array.from(N.promote).join(' '),
        suppress: Array.from(N.suppress).join(' '),
        lists: N.lists.map((x) => Array.from(x.ids, (n) => n + 1).join(',')).join(' '),
        search: res.nsearch ? res.nsearch.hits.map((h) => h.line).join(' ')
          : (res.trained === 'model' ? 'na' : 'off') },
      blocks: [
        { type: 'headline', text: t('neuTitle', { n: nm, l: N.layer + 1, F: F.int(N.dff), tok: tk[N.peak.at],
          i: N.peak.at, v: F.short(N.peak.v) }) },
        pickers(N, t, ctx),
        { type: 'note', text: N.picked ? t('neuPicked', { n: nm }) : t('neuDefault', { n: nm, l: N.layer + 1 }) },
        { type: 'tokenbars', title: t('neuBarsTitle', { n: nm }), yLabel: t('neuBarsAxis'), tokens: tk, series,
          label: t('neuBarsLabel', { n: nm, L }),
          note: t(neg ? 'neuBarsNoteNeg' : 'neuBarsNote', { z: zeros, L }),
          table: { caption: t('neuBarsTitle', { n: nm }), rows: L, cols: 1, rowLabels: tk,
            colLabels: [t('neuColAct')], corner: t('tokenCol'), cell: (r) => F.f32(act[r]) } },
        { type: 'headline', text: t('neuDirectTitle', { n: nm, up: word(N.promote[0]), down: word(N.suppress[0]) }) },
        directTable(N, word, t),
        { type: 'note', text: t('neuDirectNote') },
        ...searchBlocks(res, N, t)
      ]
    };
  }
};
