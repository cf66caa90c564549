/* index.js - the figures, in page order. A figure is { view, needs, reads, controls?, build(res, ctx) ->
   { blocks, data? } }: the blocks are drawn as elements on the page (dom/blocks/) and into a
   recorder for SVG/PNG (draw/svg/), so each figure is written once. needs: the model's
   stages it draws from (an answer comes stage by stage: the figure is drawn once these are in).
   reads: the settings its numbers depend on (a bad one blocks only the figures that read it;
   tests/node/reads.test.js checks that no other setting changes a figure); the attention weights
   come after W1..b2 in the one random stream, so attention figures read d_ff and act too
   (listed in `stream`: they redraw the figure only when the weights changed). The figures of
   one block also read `layer`, the trained model's block they show. */
import ablation from './ablation.js';
import activation from './activation.js';
import attention from './attention.js';
import block from './block.js';
import heads from './heads.js';
import moe from './moe.js';
import lens from './lens.js';
import next from './next.js';
import neurons from './neurons.js';
import norms from './norms.js';
import paramsplit from './paramsplit.js';
import patching from './patching.js';
import pipeline from './pipeline.js';
import positionwise from './positionwise.js';
import rows from './rows.js';
import saturation from './saturation.js';

// Every figure's numbers follow the weights (random, or a trained model's).
const TRAINED = ['weights'];
const ORDER = [pipeline, activation, rows, attention, saturation, positionwise, norms, block, moe, paramsplit, next,
  heads, lens, ablation, patching, neurons];
// The figures drawn from an opened model folder's forward pass (model/stages/opened.js); the
// others say why they do not apply to it instead of drawing random numbers.
const ON_MODEL = ['pipeline', 'activation', 'rows', 'attention', 'positionwise', 'norms', 'block', 'paramsplit',
  'next', 'heads', 'lens', 'ablation', 'patching', 'neurons'];
// (data-applies on the figure says which: tests and readers of the page's state.)
const onModel = (f) => (res, ctx) => {
  if (res.trained === 'model' && !ON_MODEL.includes(f.view)) {
    return { data: { applies: 'no' }, blocks: [{ type: 'note', text: ctx.t('notOnModel_' + f.view) }] };
  }
  const out = f.build(res, ctx);
  return Object.assign({}, out, { data: Object.assign({}, out.data, { applies: 'yes' }) });
};
export const FIGURES = new Map(ORDER
  .map((f) => [f.view, Object.assign({}, f, { reads: [...new Set([...f.reads, ...TRAINED])], build: onModel(f) })]));
export const VIEWS = Array.from(FIGURES.keys());

export function figure(view) {
  const f = FIGURES.get(view);
  if (!f) {
    throw new Error('BlockLens: unknown view "' + String(view).slice(0, 40) + '" (one of ' + VIEWS.join(', ') + ')');
  }
  return f;
}

// Can this answer (model/model.js result, perhaps partial) draw the figure?
export function ready(view, res) {
  return !!res && !FIGURES.get(view).needs.some((n) => res.missing.includes(n));
}
