/* figure-view.js - one figure on the page: its in-figure controls (token buttons, a mode
   switch, a number field with its own message line) above its blocks, and a note when it still
   shows older settings. The same figure object is drawn for export by figures/compose.js.
   ctx: { t, lang, scheme, state, set(patch), setRaw(key, text, input), defer }. */
import { blockList } from './blocks/index.js';
import { el, setData, setHidden, setText } from './el.js';
import { numberField, segmented, tokenBar } from './widgets.js';

// The index a token control shows: the state's value within the current tokens.
const clampIndex = (v, L) => Math.min(v, L - 1);

export function mount(root, fig, host) {
  const note = el('p', 'fig-stale');
  note.hidden = true;
  root.appendChild(note);
  const bar = fig.controls ? el('div', 'fig-bar fig-controls') : null;
  if (bar) root.appendChild(bar);
  const body = el('div', 'fig-body');
  root.appendChild(body);
  const fields = new Map();   // key -> number field (the controls that can hold a bad value)
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
      // c.model: a trained model fixes this setting (its value is then the model's, in res).
      return (res, ctx) => {
        const fixed = !!(c.model && res.trained);
        update(fixed ? res[c.key] : ctx.state[c.key], ctx.t, (v) => host.set({ [c.key]: v }), fixed);
      };
    }
    if (c.type === 'number' || c.type === 'text') {
      const field = numberField(bar, c.key, c.label, (text, input) => host.setRaw(c.key, text, input), c.type);
      fields.set(c.key, field);
      return (res, ctx) => field.update(ctx.state[c.key], ctx.t);
    }
    throw new Error('BlockLens: unknown control "' + c.type + '"');
  });
  const blocks = blockList(body);
  let drawn = null;   // { res, state } of the last drawing

  function draw(res, ctx) {
    const out = fig.build(res, Object.assign({}, ctx, { set: host.set }));
    setData(root, out.data);
    controls.forEach((u) => u(res, ctx));
    blocks(out.blocks, ctx, res);
    drawn = { res, state: ctx.state, look: ctx.lang + ' ' + ctx.scheme.name };
  }

  return {
    reads: fig.reads,
    update: draw,
    // The last drawing again (language, colours, size), with the settings it was made from.
    redraw(ctx) {
      if (drawn) {
        const state = Object.assign({}, drawn.state, { lang: ctx.state.lang, theme: ctx.state.theme });
        draw(drawn.res, Object.assign({}, ctx, { state }));
      }
    },
    drawn: () => drawn,
    // errors: the messages of bad settings ({ key, text }); stale: '' or the note saying why
    // this figure shows older settings (it is then faded, the note and controls are not).
    status(errors, stale) {
      fields.forEach((field, key) => field.error(errors.filter((e) => e.key === key).map((e) => e.text).join(' ')));
      setText(note, stale);
      setHidden(note, !stale);
      root.classList.toggle('stale', !!stale);
    }
  };
}
