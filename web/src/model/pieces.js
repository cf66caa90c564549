/* pieces.js - an opened folder's tokens as the page shows them, made once in the Worker from the
   tokenizer it loaded the model with: every id's label (the token strip's) and text in one
   packed table, so the page never parses tokenizer.json (a several-MB parse, seconds on the
   main thread for Llama-3 or Qwen3). No DOM. */

const SPACES = /[ \n\t]/;

// A piece as the token strip shows it: its text (spaces as ␣, newlines as ⏎), or its bytes as
// <e5 ba> where they are only part of a UTF-8 character.
export function pieceLabel(p) {
  if (!p) return '?';
  if (typeof p.text === 'string') return textLabel(p.text);
  return '<' + Array.from(p.bytes || [], (b) => b.toString(16).padStart(2, '0')).join(' ') + '>';
}

// (most pieces have no space: the three replaces only where one is)
function textLabel(t) {
  if (!SPACES.test(t)) return t || '\u2205';
  return t.replace(/ /g, '\u2423').replace(/\n/g, '\u23ce').replace(/\t/g, '\u21e5');
}

// tok: the tokenizer module's ({ piece(id) -> { text, bytes } }); size: the ids to cover; known:
// the texts the engine already made of the same pieces (Model.vocab: piece(i).text, '' where it
// is null), so that piece() runs only where that says nothing (a few hundred ids, not 150k).
// -> { labels, labelAt, texts, textAt, noText }: id i's label is labels.slice(labelAt[i],
// labelAt[i + 1]), its text likewise or null where noText[i] (two strings and typed arrays:
// a message moves them in one copy each, not 150k strings).
export function pieceTable(tok, size, known) {
  const labels = [], texts = [], labelAt = new Uint32Array(size + 1), textAt = new Uint32Array(size + 1);
  const noText = new Uint8Array(size);
  let nl = 0, nt = 0;
  for (let i = 0; i < size; i++) {
    let text = known && i < known.length && known[i] !== '' ? known[i] : null, label;
    if (text !== null) label = textLabel(text);
    else {
      try {
        const p = tok.piece(i);
        label = pieceLabel(p);
        text = p && typeof p.text === 'string' ? p.text : null;
      } catch (e) {
        label = '#' + i;   // an id past the tokenizer's own vocabulary (a model pads its embeddings)
      }
    }
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
