/* engine-train-text.js - what bl.trainer (engine-train.js) makes of text and gives back as files: a
   text's lines, its character vocabulary and token rows; the tokenizer.json and safetensors bytes of
   a trained model's folder. No heap access. */
  /* exported buildVocab, linesOf, rowOf, safetensorsBytes, tokenizerJson, UTF8_OUT */

  const BOS = '<s>', UNK = '<unk>';
  // Made on first use: the engine also loads where TextEncoder is missing (old runtimes, bare
  // vm contexts) and only a trained model's save needs it.
  const UTF8_OUT = { encode: function (str) { return new TextEncoder().encode(str); } };

  /* The text's lines (split on \n, a trailing \r dropped, empty ones skipped), each cut to n
     characters (code points), and which are held out. */
  function linesOf(text, n) {
    return text.split('\n').map(function (s) {
      return Array.from(s.endsWith('\r') ? s.slice(0, -1) : s).slice(0, n);
    }).filter(function (cs) { return cs.length > 0; });
  }

  /* "<s>", "<unk>", then the training lines' most frequent characters (ties by code point) until
     they cover `coverage` of the lines' characters (tools/train/train.py's cut; 1: all of them).
     -> { list, covered (the share they cover) } */
  function buildVocab(lines, coverage) {
    const counts = new Map();
    let total = 0;
    lines.forEach(function (cs) {
      cs.forEach(function (ch) { counts.set(ch, (counts.get(ch) || 0) + 1); });
      total += cs.length;
    });
    const chars = Array.from(counts.keys()).filter(function (ch) { return ch !== BOS && ch !== UNK; });
    chars.sort(function (a, b) {
      return counts.get(b) - counts.get(a) || a.codePointAt(0) - b.codePointAt(0);
    });
    let seen = 0, k = 0;
    while (k < chars.length && seen < coverage * total) seen += counts.get(chars[k++]);
    return { list: [BOS, UNK].concat(chars.slice(0, k)), covered: total ? seen / total : 1 };
  }

  /* A line as token ids: <s>, then one id per character (<unk> where unknown). */
  function rowOf(ids, cs) {
    const row = new Int32Array(cs.length + 1);
    for (let i = 0; i < cs.length; i++) {
      const id = ids.get(cs[i]);
      row[i + 1] = id === undefined ? 1 : id;
    }
    return row;
  }

  /* The HF tokenizer.json of a character vocabulary: tools/tokenizer/poems.js's format (a BPE with
     no merges, no normalizer or pre-tokenizer, unk "<unk>" unfused, "<s> $A", the Fuse decoder),
     whose ids are the engine's character-level encode exactly. */
  function tokenizerJson(list) {
    const vocab = {};
    list.forEach(function (s, i) { vocab[s] = i; });
    const bos = { id: BOS, type_id: 0 };
    return {
      version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
      post_processor: { type: 'TemplateProcessing',
        single: [{ SpecialToken: bos }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [{ SpecialToken: bos }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: { '<s>': { id: BOS, ids: [0], tokens: [BOS] } } },
      decoder: { type: 'Fuse' },
      model: { type: 'BPE', dropout: null, unk_token: UNK, continuing_subword_prefix: null, end_of_word_suffix: null,
        fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab: vocab, merges: [] }
    };
  }

  /* safetensors bytes of tensors [{ name, shape, data (Float32Array) }] as F32. */
  function safetensorsBytes(list) {
    const header = { __metadata__: { format: 'pt' } };
    let off = 0;
    list.forEach(function (t) {
      header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [off, off + t.data.length * 4] };
      off += t.data.length * 4;
    });
    let h = JSON.stringify(header);
    h += ' '.repeat((8 - UTF8_OUT.encode(h).length % 8) % 8);
    const hb = UTF8_OUT.encode(h), out = new Uint8Array(8 + hb.length + off), dv = new DataView(out.buffer);
    dv.setUint32(0, hb.length, true);
    out.set(hb, 8);
    let at = 8 + hb.length;
    list.forEach(function (t) {
      out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.length * 4), at);
      at += t.data.length * 4;
    });
    return out;
  }
