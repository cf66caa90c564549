/* engine-vocab.js - a model's vocabulary (one string per token id) and its character-level
   tokenizer: encode (text -> "<s>" and one id per character), decode, and the check of an id
   list; or the tokenizer module's tokenizer (blocklens-tokenizers.js, looked up when a folder
   needs it) behind the same interface. Knows no architecture. */
  /* global require, __dirname */
  /* global cut, fail, q, rethrow, show, TA_LENGTH, TA_TAG */
  /* exported readVocab, tokenizerOf, Vocab */

  /* The vocabulary: vocab_size distinct strings; id = index. */
  function readVocab(v, size) {
    const list = new Array(size), ids = new Map();
    try {
      if (!Array.isArray(v)) fail('vocab must be an array of strings (token i is vocab[i]), not ' + show(v));
      if (v.length !== size) fail('vocab has ' + v.length + ' entries, config.vocab_size is ' + size);
      for (let i = 0; i < size; i++) {
        const s = v[i];
        if (typeof s !== 'string') fail('vocab[' + i + '] is ' + show(s) + ', not a string');
        if (ids.has(s)) fail('vocab[' + i + '] ' + q(s) + ' repeats vocab[' + ids.get(s) + ']');
        ids.set(s, i);
        list[i] = s;
      }
    } catch (e) {
      rethrow(e, 'loadModel');
    }
    return { list: list, ids: ids };
  }

  /* A vocabulary read by readVocab; bos / unk: the config's bos_token_id and unk_token_id, used
     where the vocabulary has no "<s>" / "<unk>". */
  function Vocab(read, bos, unk) {
    this.list = read.list;
    this.ids = read.ids;
    this.bosId = special(read.ids, '<s>', bos, read.list.length);
    this.unkId = special(read.ids, '<unk>', unk, read.list.length);
  }

  /* The id of a special token: the vocabulary's `text`, else the config's id, else -1. */
  function special(ids, text, id, n) {
    if (ids.has(text)) return ids.get(text);
    return Number.isInteger(id) && id >= 0 && id < n ? id : -1;
  }

  /* "<s>" then one id per character (code point); "<unk>" for characters not in the vocabulary
     (without those strings in the vocabulary: config.bos_token_id, config.unk_token_id). */
  Vocab.prototype.encode = function (text) {
    if (typeof text !== 'string') fail('encode expects a string, not ' + show(text));
    if (this.bosId < 0) fail('encode: the vocabulary has no "<s>" (nor the config a bos_token_id)');
    const chars = Array.from(text), out = new Int32Array(chars.length + 1);
    out[0] = this.bosId;
    for (let i = 0; i < chars.length; i++) {
      let id = this.ids.get(chars[i]);
      if (id === undefined) {
        if (this.unkId < 0) fail('encode: ' + q(chars[i]) + ' is not in the vocabulary, which has no "<unk>"');
        id = this.unkId;
      }
      out[i + 1] = id;
    }
    return out;
  };

  /* The vocabulary's strings of ids, joined (special tokens as the vocabulary writes them). */
  Vocab.prototype.decode = function (ids) {
    const list = this.idList(ids, 'decode', 0);
    let s = '';
    for (let i = 0; i < list.length; i++) s += this.list[list[i]];
    return s;
  };

  /* ids as an Int32Array of values in [0, vocabSize), read once; max > 0 bounds the length
     (the model's n_positions). */
  Vocab.prototype.idList = function (ids, fn, max) {
    const size = this.list.length;
    let tag = TA_TAG.call(ids), n;
    try {
      if (tag && tag !== 'Float32Array' && tag !== 'Float64Array' && tag !== 'BigInt64Array' &&
          tag !== 'BigUint64Array') n = TA_LENGTH.call(ids);
      else if (Array.isArray(ids)) n = ids.length;
      else fail(fn + ' expects ids: an Int32Array or an array of token ids, not ' + show(ids));
      if (max && (n < 1 || n > max))
        fail(fn + ': ids has ' + n + ' tokens; the model reads 1 to ' + max + ' (n_positions)');
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = ids[i];
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= size)
          fail(fn + ': ids[' + i + '] (' + (typeof v === 'number' ? v : show(v)) + ') must be in [0, vocab ' +
            size + ')');
        out[i] = v;
      }
      return out;
    } catch (e) {
      rethrow(e, fn);
    }
  };

  /* ---- the tokenizer module (web/dist/blocklens-tokenizers.js, built from web/src/tokenizer/) ----
     It registers itself at globalThis[Symbol.for('blocklens.tokenizers')] (a browser: a <script>
     before the load) or is require()d from beside this file (Node), on first need only. Its
     fromFiles(files) (file name -> Uint8Array) returns { encode(text) -> ids, decode(ids) -> string,
     piece(id) -> { text, bytes } } or throws. */
  const TOKENIZERS = Symbol.for('blocklens.tokenizers');
  function tokenizerModule() {
    const g = typeof globalThis === 'object' ? globalThis : root;
    if (g[TOKENIZERS]) return g[TOKENIZERS];
    if (typeof require !== 'function' || typeof __dirname !== 'string') return null;
    let file = null;
    try {
      file = require('path').join(__dirname, 'blocklens-tokenizers.js');
    } catch (e) { /* no Node path module: a bundle for a browser */ }
    if (!file) return null;
    try {
      return require(file);
    } catch (e) {
      if (!e || e.code !== 'MODULE_NOT_FOUND' || String(e.message).indexOf(file) < 0) throw e;
    }
    return null;
  }

  /* The vocabulary of a tokenizer the module makes of `files` (what makes the folder need it:
     `why`), for a model of `size` token ids; bos / unk: the config's ids. */
  function tokenizerOf(files, why, size, bos, unk) {
    const mod = tokenizerModule();
    if (!mod || typeof mod.fromFiles !== 'function')
      fail('the folder\'s tokenizer (' + why + ') needs the tokenizer module: load blocklens-tokenizers.js first ' +
        '(a <script> before this one in a page; in Node it is found beside blocklens.js)');
    let tok;
    try {
      tok = mod.fromFiles(files);
    } catch (e) {
      const err = new Error('BlockLens: the tokenizer module refused the folder\'s tokenizer (' + why + '): ' +
        cut(String(e && e.message)));
      err.cause = e;
      throw err;
    }
    if (!tok || typeof tok.encode !== 'function' || typeof tok.decode !== 'function' || typeof tok.piece !== 'function')
      fail('internal: the tokenizer module\'s fromFiles gave no { encode, decode, piece }');
    return new TokenizerVocab(tok, size, bos, unk);
  }

  /* A tokenizer behind Vocab's interface: list[i] is piece i's text ('' past the tokenizer's own
     vocabulary, where a model pads its embeddings); encode gives the tokenizer's ids as they are. */
  function TokenizerVocab(tok, size, bos, unk) {
    const list = new Array(size);
    for (let i = 0; i < size; i++) {
      let p = null;
      try {
        p = tok.piece(i);
      } catch (e) { /* an id the tokenizer has not */ }
      list[i] = p && typeof p.text === 'string' ? p.text : '';
    }
    this.tok = tok;
    this.list = list;
    this.bosId = Number.isInteger(bos) && bos >= 0 && bos < size ? bos : -1;
    this.unkId = Number.isInteger(unk) && unk >= 0 && unk < size ? unk : -1;
  }
  TokenizerVocab.prototype.idList = Vocab.prototype.idList;
  TokenizerVocab.prototype.encode = function (text) {
    if (typeof text !== 'string') fail('encode expects a string, not ' + show(text));
    return this.idList(this.tok.encode(text), 'encode (the tokenizer\'s ids)', 0);
  };
  TokenizerVocab.prototype.decode = function (ids) {
    return String(this.tok.decode(Array.from(this.idList(ids, 'decode', 0))));
  };
