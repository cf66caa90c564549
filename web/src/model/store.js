/* store.js - an opened model folder kept in the origin's private file system (OPFS) on a served
   page, so that a reload opens it without asking: one folder per model under blocklens-models/,
   its files copied as streams (never a whole file in memory), a marker written last (a copy
   without it is never taken for a whole one). No DOM; storage I/O only (dom/opener.js tells it). */

const ROOT = 'blocklens-models', MARKER = 'blocklens-kept.json';
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'vocab.json', 'merges.txt',
  'special_tokens_map.json'];
const INDEX = 'model.safetensors.index.json', SINGLE = 'model.safetensors';
const BATCH = 8 << 20;   // bytes per write: ~35 MB/s one write per stream piece, ~60 MB/s in 8 MB ones

// An Error with a code the page words: 'quota' (the estimate says it does not fit: vars need,
// free), 'write' (a write failed midway: vars message), 'cancelled'.
function storeError(code, message, vars) {
  const e = new Error('BlockLens: ' + message);
  e.code = code;
  e.vars = vars || {};
  return e;
}

// A folder name OPFS accepts for any model name (no '/', '\', '.', '..', bounded length); the
// marker holds the name itself, so two names on one folder never pass for each other.
function folderOf(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return 'm-' + h.toString(16).padStart(8, '0') + '-' + name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
}

// named: { name: File } (model/folder.js byName) -> the File[] the loader reads: config.json, the
// index and the shards it names (else model.safetensors), the tokenizer's files. A shard the
// index names but the folder lacks is left to the loader, whose refusal came first.
export async function neededFiles(named) {
  const out = ['config.json'].concat(TOKENIZER_FILES).filter((n) => named[n]);
  if (named[INDEX]) {
    out.push(INDEX);
    const map = JSON.parse(await named[INDEX].text()).weight_map || {};
    new Set(Object.values(map)).forEach((n) => { if (typeof n === 'string' && named[n]) out.push(n); });
  } else if (named[SINGLE]) out.push(SINGLE);
  return out.map((n) => named[n]);
}

// storage: navigator.storage (tests may stub its estimate). Returns null where OPFS cannot be
// used: a file:// page (Chromium's getDirectory rejects with a SecurityError there), a browser
// without OPFS or without createWritable (Safari's main thread).
export function createStore(storage, protocol) {
  const ok = /^https?:$/.test(protocol || '') && storage && typeof storage.getDirectory === 'function' &&
    typeof FileSystemFileHandle === 'function' && typeof FileSystemFileHandle.prototype.createWritable === 'function';
  if (!ok) return null;
  let asked = false;   // persist() is asked once per page
  const writing = new Set();   // the folders this page is copying into now

  async function root(create) {
    const top = await storage.getDirectory();
    return top.getDirectoryHandle(ROOT, { create });
  }
  async function dirOf(name, create) {
    try {
      return await (await root(create)).getDirectoryHandle(folderOf(name), { create });
    } catch (e) {
      if (!create && e && (e.name === 'NotFoundError' || e.name === 'TypeMismatchError')) return null;
      throw e;
    }
  }
  async function drop(name) {
    try {
      await (await root(false)).removeEntry(folderOf(name), { recursive: true });
    } catch (e) {
      if (!e || e.name !== 'NotFoundError') throw e;
    }
  }

  // A folder's model when it is whole (its marker, each file at its size): { name, files: File[],
  // bytes, from: the marker's [{ name, size, lastModified }] of the files copied }, else null.
  // name: the one it must hold (any when absent).
  async function whole(dir, name) {
    try {
      const mark = JSON.parse(await (await (await dir.getFileHandle(MARKER)).getFile()).text());
      if (!mark || typeof mark.name !== 'string' || name !== undefined && mark.name !== name ||
        !Array.isArray(mark.files)) return null;
      const files = [];
      for (const f of mark.files) {
        const file = await (await dir.getFileHandle(f.name)).getFile();
        if (file.size !== f.size) return null;
        files.push(file);
      }
      return { name: mark.name, files, bytes: mark.bytes, from: mark.files };
    } catch (e) {
      return null;   // no marker or a file missing: not kept whole
    }
  }
  // name -> { name, files, bytes } when that model is kept whole, else null.
  async function find(name) {
    const dir = await dirOf(name, false).catch(() => null);
    return dir ? whole(dir, name) : null;
  }

  // Every copy but model `name`'s: [{ name (null: a copy left unfinished, e.g. by a closed tab), bytes }].
  async function others(name) {
    const out = [];
    let top;
    try { top = await root(false); } catch (e) { return out; }
    for await (const [folder, h] of top.entries()) {
      if (h.kind !== 'directory' || folder === folderOf(name) || writing.has(folder)) continue;
      const w = await whole(h);
      let bytes = 0;
      if (!w) for await (const [, f] of h.entries()) if (f.kind === 'file') bytes += (await f.getFile()).size;
      out.push({ name: w ? w.name : null, bytes: w ? w.bytes : bytes, folder });
    }
    return out;
  }
  // Removes the copies others(name) lists.
  async function forgetOthers(name) {
    const top = await root(false).catch(() => null);
    if (!top) return;
    for (const o of await others(name)) await top.removeEntry(o.folder, { recursive: true });
  }

  // Copies files (File[]) in as model `name`. opts: { signal, onProgress(written, total) }.
  // -> { bytes }; throws a storeError ('quota' before any write, 'write', 'cancelled'), after
  // removing what it had written. A whole copy of the same files (names, sizes and times: a
  // folder retrained in place is copied again) is not written again.
  async function keep(name, files, opts) {
    const o = opts || {}, total = files.reduce((n, f) => n + f.size, 0);
    const have = await find(name);
    const same = (f, i) => f.name === files[i].name && f.size === files[i].size &&
      f.lastModified === files[i].lastModified;
    if (have && have.from.length === files.length && have.from.every(same)) return { bytes: have.bytes };
    if (typeof storage.estimate === 'function') {
      const est = await storage.estimate();
      const free = Math.max(0, (est.quota || 0) - (est.usage || 0)) + (have ? have.bytes : 0);
      if (total > free) {
        throw storeError('quota', 'the browser\'s storage has room for ' + free + ' bytes, not ' + total,
          { need: total, free });
      }
    }
    if (!asked && typeof storage.persist === 'function') {
      asked = true;   // (Firefox may show a prompt: not again on this page, and not once granted)
      try {
        if (!(typeof storage.persisted === 'function' && await storage.persisted())) await storage.persist();
      } catch (e) { /* best-effort: the copy works without it */ }
    }
    let written = 0, w = null;
    const batch = new Uint8Array(Math.min(BATCH, Math.max(total, 1)));
    writing.add(folderOf(name));
    try {
      await drop(name);   // an older copy of that name goes first, marker included
      const dir = await dirOf(name, true);
      for (const f of files) {
        w = await (await dir.getFileHandle(f.name, { create: true })).createWritable();
        const reader = f.stream().getReader();
        let n = 0;
        for (;;) {
          if (o.signal && o.signal.aborted) {
            reader.cancel().catch(() => {});
            throw storeError('cancelled', 'keeping was cancelled');
          }
          const { done, value } = await reader.read();
          // The stream's pieces (64 kB in Chromium) gathered into one write of up to BATCH bytes.
          if (!done && n + value.byteLength <= batch.length) { batch.set(value, n); n += value.byteLength; continue; }
          if (n) await w.write(batch.subarray(0, n));
          written += n;
          n = 0;
          if (o.onProgress) o.onProgress(written, total);
          if (done) break;
          if (value.byteLength > batch.length) { await w.write(value); written += value.byteLength; } else {
            batch.set(value, 0);
            n = value.byteLength;
          }
        }
        await w.close();
        w = null;
      }
      const mark = { name, bytes: total,
        files: files.map((f) => ({ name: f.name, size: f.size, lastModified: f.lastModified })) };
      w = await (await dir.getFileHandle(MARKER, { create: true })).createWritable();
      await w.write(JSON.stringify(mark));
      await w.close();
      w = null;
      return { bytes: total };
    } catch (e) {
      if (w) await w.abort().catch(() => {});
      await drop(name).catch(() => {});
      if (e && e.code === 'cancelled') throw e;
      const message = String((e && e.message) || e);   // QuotaExceededError midway included
      throw storeError('write', 'keeping the model failed after ' + written + ' bytes: ' + message, { message });
    } finally {
      writing.delete(folderOf(name));
    }
  }

  return { find, keep, forget: drop, others, forgetOthers };
}
