/* next.js - the trained model's next character after the text: the top 10 at the chosen
   temperature, each a button that appends it, and "append a draw" to write on one character at
   a time. With random weights there is nothing to predict: the figure says so and offers the
   trained model. */
import * as F from '../draw/format.js';
import { probabilities, sample, top } from '../model/nextchar.js';
import { POEM, getOpened } from '../model/params.js';

const K = 10;

// A probability as the list shows it: small ones keep two significant digits ("0.024%"), not "0.0%".
const prob = (p) => (p >= 0.001 ? F.pct(p) : p >= 1e-6 ? (100 * p).toPrecision(2) + '%' : '<0.0001%');

// An opened model's next token: its tokenizer's pieces (bytes shown as <e5 ba> where a piece is
// part of a character); pressing one appends its text (a partial character cannot be typed).
function opened(res, ctx) {
  const t = ctx.t, m = getOpened(), T = ctx.state.temp, p = probabilities(res.weights.next.logits, T), ids = top(p, K);
  const text = ctx.state.tokens;
  const items = ids.map((id) => {
    const piece = m.text(id), label = m.label(id);
    return { ch: label, p: p[id], label: prob(p[id]), hint: t('nextAppend', { ch: label }),
      run: piece ? () => ctx.set({ tokens: text + piece }) : null };
  });
  const covered = ids.reduce((a, id) => a + p[id], 0);
  return {
    data: { trained: 'model', top: String(ids[0]), topP: p[ids[0]].toFixed(6), ids: ids.join(' ') },
    blocks: [
      { type: 'headline', text: t('nextTitle', { text: text, T: F.short(T) }) },
      { type: 'nextchars', items, caption: t('nextCaption_model', { k: K, share: F.pct(covered) }),
        hint: t('nextPress_model'),
        action: { label: t('nextDraw_model', { T: F.short(T) }), run: (u) => {
          const piece = m.text(sample(p, u));
          if (piece) ctx.set({ tokens: text + piece });
        } } }
    ]
  };
}

export default {
  view: 'next',
  needs: ['weights'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'weights', 'temp'],
  controls: [{ type: 'number', key: 'temp', label: 'ctl_temp' }],
  build(res, ctx) {
    const t = ctx.t;
    if (!res.trained) {
      return { data: { trained: 'no' }, blocks: [
        { type: 'note', text: t('nextRandom') },
        { type: 'nextchars', items: [], action: { label: t('nextUsePoems'),
          run: () => ctx.set({ weights: 'poems', tokens: POEM.tokens, sel: POEM.sel }) } }
      ] };
    }
    if (res.trained === 'model') return opened(res, ctx);
    const w = res.weights, T = ctx.state.temp, p = probabilities(w.next.logits, T), ids = top(p, K);
    const text = res.tokens.slice(1).join(''), vocab = w.next.vocab;
    const items = ids.map((id) => ({ ch: vocab[id], p: p[id], label: prob(p[id]),
      hint: t('nextAppend', { ch: vocab[id] }),
      run: vocab[id].length === 1 ? () => ctx.set({ tokens: text + vocab[id] }) : null }));
    const covered = ids.reduce((a, id) => a + p[id], 0);
    return {
      data: { trained: 'yes', top: vocab[ids[0]], topP: p[ids[0]].toFixed(6) },
      blocks: [
        { type: 'headline', text: t('nextTitle', { text, T: F.short(T) }) },
        // (hint: the page's, for its buttons; a picture has none.)
        { type: 'nextchars', items, caption: t('nextCaption', { k: K, share: F.pct(covered) }), hint: t('nextPress'),
          action: { label: t('nextDraw', { T: F.short(T) }), run: (u) => {
            const id = sample(p, u);
            if (vocab[id].length === 1) ctx.set({ tokens: text + vocab[id] });
          } } },
        { type: 'note', text: t(w.unknown ? 'nextUnknown' : 'nextNote', { n: w.unknown, L: res.L }) }
      ]
    };
  }
};
