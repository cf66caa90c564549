/* figure-view.js - one figure on the page: its in-figure controls (token buttons, a mode
   switch, a number field) above its blocks. The same figure object is drawn for export by
   core/compose.js. ctx: { t, lang, scheme, state, set(patch), setRaw(key, text, input), defer }. */
import { blockList, setData } from './blocks.js';
import { el } from './el.js';
import { numberField, segmented, tokenBar } from './widgets.js';

// The index a token control shows: the state's value within the current tokens.
const clampIndex = (v, L) => Math.min(v, L - 1);

export function mount(root, fig, host) {
  const bar = fig.controls ? el('div', 'fig-bar fig-controls') : null;
  if (bar) root.appendChild(bar);
  const body = el('div', 'fig-body');
  root.appendChild(body);
  const controls = (fig.controls || []).map((c) => {
    if (c.type === 'tokens') {
      const onPick = { current: () => {} }, update = tokenBar(bar, c.aria);
      return (res, ctx) => {
        onPick.current = (i) => host.set({ [c.key]: i });
        update(res.tokens, clampIndex(ctx.state[c.key], res.L), onPick, ctx.t);
      };
    }
    if (c.type === 'segment') {
      const update = segmented(bar, c.options, c.label, c.aria);
      return (res, ctx) => update(ctx.state[c.key], ctx.t, (v) => host.set({ [c.key]: v }));
    }
    if (c.type === 'number') {
      const update = numberField(bar, c.key, c.label, (text, input) => host.setRaw(c.key, text, input));
      return (res, ctx) => update(ctx.state[c.key], ctx.t);
    }
    throw new Error('BlockLens: unknown control "' + c.type + '"');
  });
  const blocks = blockList(body);

  return {
    update(res, ctx) {
      const out = fig.build(res, Object.assign({}, ctx, { set: host.set }));
      setData(root, out.data);
      controls.forEach((u) => u(res, ctx));
      blocks(out.blocks, ctx, res);
    }
  };
}
