/* compose.js - one figure as a static picture: title, the state it shows, the figure's blocks
   and a credit line, laid out at a fixed width into a recorder. No DOM: the page's SVG/PNG
   export and tools/render.js (Node) run this same code, so the same state gives the same bytes. */
import { figure } from './index.js';
import * as format from '../draw/format.js';
import { toHash } from '../model/params.js';
import { create as recorder } from '../draw/recorder.js';
import { drawBlocks } from '../draw/svg/index.js';
import { Sheet, font } from '../draw/svg/sheet.js';

export const WIDTH = 760;
const PAD = 18;

function stateLine(res, t, fig) {
  const joined = res.tokens.join(res.tokens.some((x) => x.length > 1) ? ' ' : '');
  const vars = { tokens: format.label(joined, 48), L: res.L, d: res.d, dff: res.dff, heads: res.heads,
    act: t('act_' + res.act) };
  // A trained model's numbers depend on its block (not on the seed), if the figure shows one.
  if (!res.trained) return t('exp_state', Object.assign(vars, { seed: res.seed }));
  const key = fig.reads.includes('layer') ? 'exp_state_trained' : 'exp_state_model';
  // (An opened model folder is named, not taken for the poem model.)
  return t(key + (res.trained === 'model' ? '_opened' : ''), Object.assign(vars, { layer: res.layer, n: res.layers,
    name: res.modelName }));
}

// view, res (model result), opts { t, lang, scheme, state, width } -> { rec, svg(), title, ... }
export function compose(view, res, opts) {
  const fig = figure(view), t = opts.t, sc = opts.scheme, w = opts.width || WIDTH;
  const rec = recorder(w, 100), sheet = new Sheet(rec, sc, w);
  rec.fillStyle = sc.css.bg; rec.fillRect(0, 0, w, 100);   // resized below
  const bg = rec.ops[0], own = 'h_' + view + '_model';
  const title = t(res.trained === 'model' && t(own) !== own ? own : 'h_' + view);
  sheet.para(title, 17, sc.css.fg, true, 2);
  sheet.para(stateLine(res, t, fig), 12, sc.css.muted, false, 14);
  drawBlocks(sheet, fig.build(res, opts).blocks, res, opts);
  rec.font = font(10.5); rec.fillStyle = sc.css.muted; rec.textAlign = 'right'; rec.textBaseline = 'alphabetic';
  rec.fillText(t('exp_credit'), w - PAD, sheet.y + 6);
  rec.height = Math.ceil(sheet.y + 6 + PAD);
  bg.h = rec.height;
  const desc = 'BlockLens view=' + view + '&' + toHash(opts.state);
  return { rec, title, desc, width: w, height: rec.height,
    svg: () => rec.toSVG({ title: 'BlockLens: ' + title, desc, lang: opts.lang === 'zh' ? 'zh-CN' : 'en' }) };
}
