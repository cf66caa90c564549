/* tokenizer/split.js - how the Rust library cuts a piece of text (NormalizedString::split and its
   Pattern impls): the pattern's matches and the text between them, each flagged, then one of
   five behaviours. The pre-tokenizers of fixes.js (Split, Digits, Punctuation, Metaspace) use it
   where @huggingface/tokenizers has its own shortcuts. Offsets are UTF-16 indices. */

// [start, end, isMatch] for every match of a global regex and every gap between (Pattern for &Regex).
export function regexMatches(text, re) {
  if (!text) return [[0, 0, false]];
  const out = [];
  let prev = 0;
  for (const m of text.matchAll(re)) {
    if (prev !== m.index) out.push([prev, m.index, false]);
    out.push([m.index, m.index + m[0].length, true]);
    prev = m.index + m[0].length;
  }
  if (prev !== text.length) out.push([prev, text.length, false]);
  return out;
}

// The same for a per-character predicate: each matching character is one match (Pattern for Fn(char)).
export function charMatches(text, test) {
  if (!text) return [[0, 0, false]];
  const out = [];
  let last = 0, at = 0;
  for (const c of text) {
    if (test(c)) {
      if (last < at) out.push([last, at, false]);
      out.push([at, at + c.length, true]);
      last = at + c.length;
    }
    at += c.length;
  }
  if (at > last) out.push([last, at, false]);
  return out;
}

export const invert = (matches) => matches.map(([a, b, m]) => [a, b, !m]);

/* matches -> the pieces' [start, end] under behaviour (Removed, Isolated, MergedWithPrevious,
   MergedWithNext, Contiguous; any case), as SplitDelimiterBehavior does it. */
export function splitBy(matches, behavior) {
  const b = String(behavior || 'Isolated').toLowerCase().replace(/_/g, '');
  if (b === 'removed') return matches.filter((m) => !m[2]).map(([s, e]) => [s, e]);
  if (b === 'isolated') return matches.map(([s, e]) => [s, e]);
  const merge = (list, joins) => {
    const acc = [];
    let previous = false;
    for (const [s, e, m] of list) {
      if (joins(m, previous) && acc.length) {
        const last = acc[acc.length - 1];
        last[0] = Math.min(last[0], s);
        last[1] = Math.max(last[1], e);
      } else acc.push([s, e]);
      previous = m;
    }
    return acc;
  };
  if (b === 'contiguous') return merge(matches, (m, previous) => m === previous);
  if (b === 'mergedwithprevious') return merge(matches, (m, previous) => m && !previous);
  if (b === 'mergedwithnext') return merge(matches.slice().reverse(), (m, previous) => m && !previous).reverse();
  throw new Error('unknown split behavior ' + JSON.stringify(behavior));
}

// text, matches, behaviour -> the non-empty pieces' strings (PreTokenizedString drops empty ones).
export const cut = (text, matches, behavior) =>
  splitBy(matches, behavior).map(([s, e]) => text.slice(s, e)).filter((s) => s.length > 0);
