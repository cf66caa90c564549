/* attention.js - figure 4, attention: the split into heads, concat and W_O as shapes, and one
   L x L heatmap per head (softmax weights, or the scores before/after the 1/sqrt(d_k)
   scaling), masked cells hatched. More than 4 heads: 8 at a time as small multiples and the
   one picked (setting `head`) large. Setting masks = both: each head (or the picked one) with
   no mask (BERT) and with the causal mask (GPT) side by side, on one scale, and what differs.
   Trained weights: a line per head saying what it does on this text (stage headroles); an
   opened model's heads: a table of their jobs on any text (previous token, sink, itself,
   induction) and their entropy. */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { X, legendOf, matrixPanel } from './common.js';

export const MODES = ['weights', 'scaled', 'raw'], MASKS = ['one', 'both'];
// The order a head's other patterns are listed in after the one that stands out.
const ROLE_ORDER = ['prev', 'up', 'column', 'punct', 'bos'], ANY_ORDER = ['prev', 'sink', 'self', 'induction'];
const pct = (v) => Math.round(100 * v) + '%';
// A lift to one decimal, rounded down: a head at 1.97x an even row must not read "2.0x, spread out".
const lift = (v) => (Math.floor(10 * v) / 10).toFixed(1);

// Trained weights: what the heads of this block do (stage headroles), a line per head naming the
// pattern that stands out (or none: spread out) with its mean weight, then the others'.
function headLines(hr, res, t) {
  const pc = pct, x = lift;
  const rows = hr.heads.map((r, h) => {
    const P = r.patterns, top = P[r.top];
    const main = r.sharp ? t('roleSharp', { w: pc(top.w), what: t('role_' + r.top), x: x(top.lift) })
      : t('roleDiffuse', { w: pc(top.w), what: t('role_' + r.top), x: x(top.lift) });
    const rest = ROLE_ORDER.filter((p) => p !== r.top && P[p]).map((p) => t('roleShort_' + p, { w: pc(P[p].w) }));
    return [t('headTitle', { h: h + 1 }), t('roleLine', { main, rest: rest.join(t('listSep')) })];
  });
  const out = [{ type: 'headline', text: t('rolesTitle', { layer: res.layer }) },
    { type: 'formulas', rows, prose: true }];
  if (!hr.n) out.push({ type: 'note', text: t('rolesNoLines') });
  return out;
}

// An opened model (stage headroles, kind 'any'): a table, a row per head (Qwen2.5 has 14), its
// job or "spread out", its mean weight on each kind of key and its entropy against an even row's.
function jobTable(hr, res, t) {
  const dash = '\u2014';
  // The job's name, its lift under it (the percentages are in the columns: a narrow table).
  const rows = hr.heads.map((r, h) => {
    const P = r.patterns, top = P[r.top];
    return { key: 'head' + (h + 1), cells: [t('headTitle', { h: h + 1 }),
      r.sharp ? t('job_' + r.top) : t(r.focused ? 'jobFocused' : 'jobSpread'),
      ...ANY_ORDER.map((p) => (P[p] ? pct(P[p].w) : dash)), r.entropy.toFixed(2)],
    sub: [null, r.sharp ? t('jobLift', { x: lift(top.lift) })
      : t('jobMost', { what: t('job_' + r.top), x: lift(top.lift) })] };
  });
  const out = [{ type: 'headline', text: t('jobsTitle', { layer: res.layer }) },
    { type: 'table', caption: t('jobsCaption', { layer: res.layer, n: res.heads }), rows,
      columns: [{ label: t('colHead') }, { label: t('colJob') },
        ...ANY_ORDER.map((p) => ({ label: t('col_' + p), num: true })),
        { label: t('colEntropy', { u: hr.uniformEntropy.toFixed(2) }), num: true }] }];
  out.push({ type: 'note', text: hr.repeats ? t('jobsInduction', { r: hr.repeats }) : t('jobsNoRepeat') });
  return out;
}
const ALL_HEADS = 4, PAGE = 8;   // up to 4 heads: all large; more: 8 at a time small, one large

export default {
  view: 'attention',
  needs: ['attn', 'attnstats', 'maskpair', 'headroles'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'layer', 'heads', 'causal', 'scale', 'show', 'head', 'masks'],
  // Read only for where the attention weights start in the random stream: a change of these
  // redraws the figure only when the weights changed (relu -> gelu keeps them, -> swiglu not).
  stream: ['dff', 'act'],
  controls: [{ type: 'segment', key: 'show', options: MODES, label: (m, t) => t('mode_' + m), aria: 'modeAria' },
    { type: 'segment', key: 'masks', options: MASKS, label: (m, t) => t('masks_' + m), aria: 'masksAria' }],
  build(res, ctx) {
    const t = ctx.t, L = res.L, H = res.heads, dk = res.dk, d = res.d, A = res.attn, tk = res.tokens;
    const mode = ctx.state.show, s = 1 / Math.sqrt(dk);   // the 'scaled' view always divides
    // A trained head with a job: its map's title names it ("Head 3 · one line up 29%").
    const hr = res.headroles, roleTag = (h) => {
      const r = hr && hr.heads[h];
      return r && r.sharp ? ' \u00b7 ' + t((hr.kind === 'any' ? 'jobShort_' : 'roleShort_') + r.top,
        { w: pct(r.patterns[r.top].w) }) : '';
    };
    const pair = res.maskpair || null;   // the other mask's run (masks = both)
    // (An opened model's heads may be wider than d / H, and grouped-query attention gives K and V
    // fewer heads than Q: their shapes are then told apart.)
    const kvh = res.kvHeads || H, qc = H * dk, kc = kvh * dk, plain = qc === d && kc === d;
    const flow = [
      { name: 'x', shape: L + X + d },
      { op: '\u00b7 W_Q, W_K, W_V', sub: plain ? t('qkvSub', { shape: d + X + d })
        : t('qkvSubShapes', { q: d + X + qc, kv: d + X + kc }) },
      plain ? { name: 'Q, K, V', shape: t('threeOf', { shape: L + X + d }) }
        : { name: 'Q | K, V', shape: L + X + qc + ' | ' + L + X + kc },
      { op: t(H === 1 ? 'splitOp_one' : 'splitOp', { h: H }),
        sub: dk * H === d ? 'd_k = ' + d + ' / ' + H + ' = ' + dk : 'd_k = ' + dk },
      { name: t('perHead'), shape: H + X + L + X + dk },
      { op: res.scale ? 'softmax(QK\u1d40/\u221a' + dk + ')' : 'softmax(QK\u1d40)',
        sub: t(pair ? 'maskBoth' : res.causal ? 'maskCausal' : 'maskNone') },
      { name: t('weightsName'), shape: H + X + L + X + L, accent: true },
      { op: '\u00b7 V', sub: t('mixOp') },
      { name: t('contextName'), shape: H + X + L + X + dk },
      { op: t('concatOp'), sub: H + X + dk + ' = ' + qc },
      { name: 'concat', shape: L + X + qc },
      // (the Llama family has no o_proj bias, Qwen2 included: its biases are on q, k, v)
      { op: res.oBias === false ? '\u00b7 W_O' : '\u00b7 W_O + b_O', sub: t('woSub', { shape: qc + X + d }) },
      { name: t('outName'), shape: L + X + d }
    ];
    // What a map shows of one run (A or the other mask's): its weights or its scores.
    const shown = (run) => (mode === 'weights' ? run.weights
      : mode === 'raw' ? run.scores : run.scores.map((v) => v * s));
    const kind = mode === 'weights' ? 'sequential' : 'diverging', what = t('mode_' + mode);
    const causalMask = (r, c) => c > r;
    // mine: this page's mask; with both, BERT's (no mask) and GPT's (causal) runs.
    const mine = { data: shown(A), masked: res.causal ? causalMask : null };
    const runs = pair ? [{ data: res.causal ? shown(pair) : mine.data, masked: null, tag: 'bert' },
      { data: res.causal ? mine.data : shown(pair), masked: causalMask, tag: 'gpt' }] : null;
    const max = runs ? Math.max(absMax(runs[0].data), absMax(runs[1].data)) : absMax(mine.data);
    const panel = (h, run) => {
      const data = run.data, masked = run.masked, off = h * L * L;
      const title = t('headTitle', { h: h + 1 }) + (run.tag ? ' \u00b7 ' + t('maskTag_' + run.tag) : '') +
        (run.masked === mine.masked ? roleTag(h) : '');   // (the jobs were measured under the page's mask)
      const p = matrixPanel(what, data, L, L, tk, ctx, { offset: off, kind, max, colLabels: tk, maxCell: 34,
        masked, title, shape: what + ' \u00b7 ' + L + X + L,
        label: t('headLabel', { h: h + 1, what, L }) + (run.tag ? ' ' + t('maskTag_' + run.tag) + '.' : ''),
        tableCaption: title + ' \u00b7 ' + what,
        corner: t('queryKey'), cell: (r, c) => (masked && masked(r, c) ? '\u2014' : F.short(data[off + r * L + c])) });
      p.spec.describe = (r, c) =>
        t('cellDescribe', { h: h + 1, q: tk[r], k: tk[c], what, v: F.f32(data[off + r * L + c]) }) +
        (run.tag ? '  ' + t('maskTag_' + run.tag) : '') + (masked && masked(r, c) ? '  ' + t('maskedCell') : '');
      p.data = run.tag ? { head: h, mask: run.tag } : { head: h };
      return p;
    };
    const legendNote = pair ? t('maskedNote') + ' \u00b7 ' + t('masksScale') : res.causal ? t('maskedNote') : '';
    const legend = legendOf(kind, max, legendNote), heads = [];
    const picked = Math.min(H, Math.max(1, ctx.state.head || 1));
    // One head: a panel, or with both masks a pair of panels (legend under the last block).
    const large = (h) => Object.assign(panel(h, mine), { cls: 'head head-large' });
    const headBlocks = (list) => (runs
      ? list.map((h, i) => ({ type: 'panels', layout: 'pair',
        panels: runs.map((run) => Object.assign(panel(h, run), { cls: 'head head-pair' })),
        legend: i === list.length - 1 ? legend : null }))
      : [{ type: 'panels', layout: list.length === 1 && H > ALL_HEADS ? 'one' : 'heads',
        panels: list.map((h) => (H > ALL_HEADS ? large(h) : panel(h, mine))), legend }]);
    if (H <= ALL_HEADS) {
      heads.push(...headBlocks(Array.from({ length: H }, (_, h) => h)));
    } else {
      // Many heads: a page of up to 8 as small multiples (each picks itself), the picked one large.
      const sel = picked - 1, from = sel - sel % PAGE, to = Math.min(H, from + PAGE);
      let c = 84 / L;
      c = Math.min(12, c >= 4 ? Math.floor(c) : c);
      const small = [];
      for (let h = from; h < to; h++) {
        small.push({ head: h, title: t('headTitle', { h: h + 1 }), hint: t('headShow', { h: h + 1 }),
          spec: { data: mine.data, offset: h * L * L, rows: L, cols: L, kind, max, masked: mine.masked, rowLabels: null,
            colLabels: null, focusRow: -1, maxCell: c, cellH: c, width: Math.ceil(L * c) + 10,
            label: t('headLabel', { h: h + 1, what, L }) } });
      }
      heads.push({ type: 'multiples', value: sel, count: H, panels: small, pick: (h) => ctx.set({ head: h + 1 }),
        label: t('headPick', { n: H }), range: t('headRange', { a: from + 1, b: to, n: H }),
        prev: t('headPrev'), next: t('headNext') });
      heads.push(...headBlocks([sel]));
    }
    const st = res.attnstats;
    // The peak against uniform rows under the same mask (causal: the mean of 1/(i + 1), not 1/L).
    const uniform = t(res.causal ? 'uniformCausal' : 'uniformNone', { u: st.uniform.toFixed(2) });
    const note = [t(res.scale ? 'attnStats' : 'attnStatsOff', { raw: F.short(st.sd), scaled: F.short(st.sd * s),
      peak: st.peak.toFixed(2), uniform })];
    if (pair) {
      const dev = pair.gpt.dev || pair.bert.dev ? Math.max(pair.gpt.dev, pair.bert.dev).toExponential(1) : '0';
      note.push(t(L === 1 ? 'masksNote_one' : 'masksNote', { g0: F.short(pair.gpt.self0),
        b0: pair.bert.self0.toFixed(2), pg: pair.gpt.peak.toFixed(2), pb: pair.bert.peak.toFixed(2), dev,
        ug: pair.gpt.uniform.toFixed(2), ub: pair.bert.uniform.toFixed(2),
        last: F.short(pair.lastDiff), first: tk[0], lastTok: tk[L - 1] }));
    }
    const roles = !hr ? [] : hr.kind === 'any' ? jobTable(hr, res, t) : headLines(hr, res, t);
    // Grouped-query attention: which query heads read the same key/value head.
    const kv = res.kvHeads || H, g = H / kv;
    if (kv < H) {
      note.push(t('gqaNote', { h: H, kv, g, groups: Array.from({ length: kv }, (_, j) =>
        t('gqaGroup', { a: j * g + 1, b: (j + 1) * g, j: j + 1 })).join(ctx.lang === 'zh' ? '；' : '; ') }));
    }
    return {
      data: Object.assign({ mode, causal: String(res.causal), peak: st.peak.toFixed(4), uniform: st.uniform.toFixed(4),
        head: H <= ALL_HEADS ? 'all' : String(picked), masks: pair ? 'both' : 'one' },
        pair ? { selfGpt: pair.gpt.self0.toFixed(4), selfBert: pair.bert.self0.toFixed(4),
          peakGpt: pair.gpt.peak.toFixed(4), peakBert: pair.bert.peak.toFixed(4),
          uniformGpt: pair.gpt.uniform.toFixed(4), uniformBert: pair.bert.uniform.toFixed(4),
          lastDiff: F.f32(pair.lastDiff) } : {},
        hr ? { roles: hr.heads.map((r) => (r.sharp ? r.top : r.focused ? 'focused' : 'diffuse')).join(' ') } : {},
        hr && hr.kind === 'poem' ? { lineLength: String(hr.n) } : {},
        hr && hr.kind === 'any' ? { entropy: hr.heads.map((r) => r.entropy.toFixed(4)).join(' ') } : {}),
      blocks: [
        { type: 'flow', items: flow },
        ...heads,
        ...roles,
        ...note.map((text) => ({ type: 'note', text }))
      ]
    };
  }
};
