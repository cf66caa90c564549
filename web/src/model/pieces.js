/* pieces.js - an opened folder's tokens as the page shows them, made once in the Worker from the
   tokenizer it loaded the model with: every id's label (the token strip's) and text in one
   packed table, so the page never parses tokenizer.json (a several-MB parse, seconds on the
   main thread for Llama-3 or Qwen3). No DOM. */

// A piece as the token strip shows it: its text (spaces as ␣, newlines as ⏎), or its bytes as
// <e5 ba> where they are only part of a UTF-8 character.
export function pieceLabel(p) {
  if (!p) return '?';
  if (typeof p.text === 'string') return p.text.replace(/ /g, '\u2423').replace(/\n/g, '\u23ce').replace(/\t/g, '\u21e5') || '\u2205';
  return '<' + Array.from(p.bytes || [], (b) => b.toString(16).padStart(2, '0')).join(' ') + '>';
}

// tok: the tokenizer module's ({ piece(id) -> { text, bytes } }); size: the model's ids.
// -> { labels, labelAt, texts, textAt, noText }: id i's label is labels.slice(labelAt[i],
// labelAt[i + 1]), its text likewise or null where noText[i] (two strings and typed arrays:
// a message moves them in one copy each, not 150k strings).
export function pieceTable(tok, size) {
  const labels = [], texts = [], labelAt = new Uint32Array(size + 1), textAt = new Uint32Array(size + 1);
  const noText = new Uint8Array(size);
  let nl = 0, nt = 0;
  for (let i = 0; i < size; i++) {
    let p = null, label;
    try {
      p = tok.piece(i);
      label = pieceLabel(p);
    } catch (e) {
      label = '#' + i;   // an id past the tokenizer's own vocabulary (a model pads its embeddings)
    }
    const text = p && typeof p.text === 'string' ? p.text : null;
    labels.push(label);
    nl += label.length;
    labelAt[i + 1] = nl;
    if (text === null) noText[i] = 1; else { texts.push(text); nt += text.length; }
    textAt[i + 1] = nt;
  }
  return { labels: labels.join(''), labelAt, texts: texts.join(''), textAt, noText };
}

// The buffers of a table, for postMessage's transfer list.
export const tableBuffers = (t) => [t.labelAt.buffer, t.textAt.buffer, t.noText.buffer];

// table -> { label(id), text(id) } as the page's tokenizer gives them ('#id' / null outside it).
export function tableReader(t) {
  const n = t.noText.length, ok = (id) => Number.isInteger(id) && id >= 0 && id < n;
  return {
    label: (id) => (ok(id) ? t.labels.slice(t.labelAt[id], t.labelAt[id + 1]) : '#' + id),
    text: (id) => (ok(id) && !t.noText[id] ? t.texts.slice(t.textAt[id], t.textAt[id + 1]) : null)
  };
}
