#!/usr/bin/env node
/* relax.js - rewrite clang 14's pre-standard ("prototype") relaxed-SIMD FMA opcodes to the
   standardized encodings that current V8 (Chromium >= 114, Node 20 with
   --experimental-wasm-relaxed-simd) accepts.

   Run by the wasm build (cmake/wasm.cmake) on the FMA build after linking: Debian's clang 14
   and binaryen 108 only know the prototype encoding, which every current engine rejects.

   Usage:  node tools/relax.js in.wasm out.wasm   # a plain module
           node tools/relax.js in.js out.js       # emcc -sSINGLE_FILE=1 output: every embedded
                                                  # data:application/octet-stream;base64 module
           node tools/relax.js --check in.wasm    # decode only; print the counts, write nothing
           node tools/relax.js --sites in.wasm    # JSON byte offsets of the FMA sites (the 0xfd)
           node tools/relax.js --fill-sites in.js out.js
                        # as in.js out.js, and writes the FMA sites of the one module that has
                        # them into the file's FMA_SITES placeholder (the build of
                        # blocklens.js: its loader patches those sites where relaxed SIMD is
                        # missing; see web/src/engine/engine-load.js). Safe to run twice.

   Mapping (0xfd prefix, LEB128 sub-opcode; WebAssembly/relaxed-simd Overview.md "Binary format"):
     0xaf f32x4.fma -> 0x105 f32x4.relaxed_madd    0xb0 f32x4.fms -> 0x106 f32x4.relaxed_nmadd
     0xcf f64x2.fma -> 0x107 f64x2.relaxed_madd    0xd0 f64x2.fms -> 0x108 f64x2.relaxed_nmadd
   Operand order is kept, so after the rewrite __builtin_wasm_fma_f32x4(a, b, c) computes
   a*b + c and __builtin_wasm_fms_f32x4(a, b, c) computes c - a*b (the standard semantics).
   Hazard: binaryen 108 (emcc's optimiser, before this rewrite) folds an FMA whose three
   operands are all constants with the prototype meaning a + b*c; keep FMA on runtime data.
   The code section is decoded instruction by instruction (MVP, sign-ext, saturating
   conversions, bulk memory, reference types, SIMD, standard relaxed SIMD); any opcode not in
   those tables (threads, exceptions, GC, other prototype relaxed opcodes) is a hard error. */
'use strict';
const fs = require('fs');

const MAP = new Map([[0xaf, 0x105], [0xb0, 0x106], [0xcf, 0x107], [0xd0, 0x108]]);

// Standard SIMD sub-opcodes with no immediate: 0x0e-0x14, 0x23-0x53, 0x5e-0xff minus holes,
// and the standard relaxed opcodes 0x100-0x113. Holes (0x9a, 0xa2, ...) are the prototype
// relaxed / removed opcodes: invalid in a standard module.
const SIMD_HOLES = new Set([0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2,
  0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);
const VALTYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f]);

function fail(msg, pos) { throw new Error(`relax.js: ${msg} at byte offset 0x${pos.toString(16)}`); }

function rewriteModule(buf, stats) {
  let p = 0;
  const u8 = () => { if (p >= buf.length) fail('unexpected end of input', p); return buf[p++]; };
  const leb = (signed, maxBits) => {   // returns a Number (or BigInt-free approximation for i64)
    let result = 0, shift = 0, b, n = 0;
    do {
      b = u8(); n++;
      if (n > Math.ceil(maxBits / 7)) fail('LEB128 too long', p - 1);
      if (shift < 48) result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    if (signed && shift < 53 && (b & 0x40)) result -= 2 ** shift;
    return result;
  };
  const u32 = () => leb(false, 32);
  const memarg = () => { const align = u32(); if (align & 0x40) u32(); leb(false, 64); };
  const encU32 = (v) => { const o = []; do { let b = v & 0x7f; v >>>= 7; if (v) b |= 0x80; o.push(b); } while (v); return o; };

  if (buf.readUInt32LE(0) !== 0x6d736100 || buf.readUInt32LE(4) !== 1) fail('not a wasm v1 module', 0);
  p = 8;
  const out = [buf.subarray(0, 8)];
  let sawCode = false;
  while (p < buf.length) {
    const secStart = p, id = u8(), size = u32(), end = p + size;
    if (end > buf.length) fail(`section ${id} overruns the file`, secStart);
    if (id !== 10) { out.push(buf.subarray(secStart, end)); p = end; continue; }
    if (sawCode) fail('second code section', secStart);
    sawCode = true;
    const nfuncs = u32(), funcs = [];
    for (let f = 0; f < nfuncs; f++) {
      const hdr = p, bsize = u32(), bstart = p, bend = p + bsize;
      if (bend > end) fail(`function ${f} overruns the code section`, bstart);
      const nlocals = u32();
      for (let i = 0; i < nlocals; i++) { u32(); const t = u8(); if (!VALTYPES.has(t)) fail(`unknown local type 0x${t.toString(16)}`, p - 1); }
      const pieces = []; let copyFrom = bstart, depth = 0, changed = false;
      while (true) {
        const ip = p, op = u8();
        if (op === 0x0b) { if (depth-- === 0) break; continue; }                  // end
        if (op === 0x02 || op === 0x03 || op === 0x04) {                          // block loop if
          depth++;
          const bt = buf[p];
          if (bt === 0x40 || VALTYPES.has(bt)) p++; else leb(true, 33);
        } else if (op <= 0x01 || op === 0x05 || op === 0x0f || op === 0x1a || op === 0x1b || op === 0xd1) {
          // unreachable nop else return drop select ref.is_null: no immediate
        } else if (op === 0x0c || op === 0x0d || op === 0x10 || (op >= 0x20 && op <= 0x26) || op === 0xd2) {
          u32();                                                                 // br br_if call local/global/table.get/set ref.func
        } else if (op === 0x0e) { const n = u32(); for (let i = 0; i <= n; i++) u32(); }   // br_table
        else if (op === 0x11) { u32(); u32(); }                                  // call_indirect
        else if (op === 0x1c) { const n = u32(); for (let i = 0; i < n; i++) u8(); }       // select t*
        else if (op >= 0x28 && op <= 0x3e) memarg();                             // loads, stores
        else if (op === 0x3f || op === 0x40) u32();                              // memory.size/grow
        else if (op === 0x41) leb(true, 32);
        else if (op === 0x42) leb(true, 64);
        else if (op === 0x43) p += 4;
        else if (op === 0x44) p += 8;
        else if (op >= 0x45 && op <= 0xc4) { /* numeric, incl. sign-extension 0xc0-0xc4 */ }
        else if (op === 0xd0) leb(true, 33);                                     // ref.null t
        else if (op === 0xfc) {
          const sub = u32();
          if (sub <= 7) { /* saturating truncations */ }
          else if (sub === 8) { u32(); u32(); }                                  // memory.init data mem
          else if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) u32();
          else if (sub === 10 || sub === 12 || sub === 14) { u32(); u32(); }     // memory.copy table.init table.copy
          else fail(`unknown 0xfc sub-opcode ${sub}`, ip);
        } else if (op === 0xfd) {
          const subAt = p, sub = u32();
          if (MAP.has(sub)) {                                                    // the rewrite
            pieces.push(buf.subarray(copyFrom, subAt), Buffer.from(encU32(MAP.get(sub))));
            copyFrom = p; changed = true;
            stats[sub] = (stats[sub] || 0) + 1; (stats.sites ||= []).push(ip);
          } else if (sub <= 0x0b || sub === 0x5c || sub === 0x5d) memarg();      // v128 loads/stores
          else if (sub === 0x0c || sub === 0x0d) p += 16;                        // v128.const, i8x16.shuffle
          else if (sub >= 0x15 && sub <= 0x22) u8();                             // extract/replace_lane
          else if (sub >= 0x54 && sub <= 0x5b) { memarg(); u8(); }               // load/store_lane
          else if ((sub >= 0x0e && sub <= 0x14) || (sub >= 0x23 && sub <= 0x53) ||
                   (sub >= 0x5e && sub <= 0xff && !SIMD_HOLES.has(sub))) { /* no immediate */ }
          else if (sub >= 0x100 && sub <= 0x113) {                              // already standard relaxed
            stats.std = (stats.std || 0) + 1;
            if (sub >= 0x105 && sub <= 0x108) (stats.sites ||= []).push(ip);
          }
          else fail(`unknown SIMD sub-opcode 0x${sub.toString(16)} (prototype relaxed op without a mapping?)`, ip);
        } else fail(`unknown opcode 0x${op.toString(16)} in function ${f}`, ip);
        if (p > bend) fail(`function ${f}: instruction runs past the body end`, ip);
      }
      if (p !== bend) fail(`function ${f}: final end at 0x${p.toString(16)}, body ends at 0x${bend.toString(16)}`, p);
      if (!changed) funcs.push(buf.subarray(hdr, bend));               // verbatim
      else {
        pieces.push(buf.subarray(copyFrom, bend));
        const nb = Buffer.concat(pieces);
        if (nb.length !== bsize) stats.resized = (stats.resized || 0) + 1;
        funcs.push(Buffer.concat([Buffer.from(encU32(nb.length)), nb]));
      }
    }
    if (p !== end) fail('code section has trailing bytes', p);
    const sec = Buffer.concat([Buffer.from(encU32(nfuncs)), ...funcs]);
    out.push(Buffer.from([10, ...encU32(sec.length)]), sec);
    stats.functions = nfuncs;
  }
  const res = Buffer.concat(out);
  if (stats.resized && /\.debug_|sourceMappingURL/.test(res.toString('latin1')))
    console.warn('relax.js: warning: function sizes changed; DWARF / source-map offsets are now stale');
  return res;
}

function describe(stats) {
  const names = { 0xaf: 'f32x4.fma->relaxed_madd', 0xb0: 'f32x4.fms->relaxed_nmadd',
                  0xcf: 'f64x2.fma->relaxed_madd', 0xd0: 'f64x2.fms->relaxed_nmadd' };
  const parts = Object.keys(names).filter((k) => stats[k]).map((k) => `${names[k]} x${stats[k]}`);
  return `${stats.functions || 0} functions; ${parts.join(', ') || 'no prototype FMA'}` +
    (stats.std ? `; ${stats.std} standard relaxed ops already present` : '');
}

function main() {
  const args = process.argv.slice(2), sites = args[0] === '--sites', check = args[0] === '--check' || sites;
  const fill = args[0] === '--fill-sites';
  if (check || fill) args.shift();
  if (args.length !== (check ? 1 : 2)) {
    console.error('usage: node relax.js in.wasm|in.js out.wasm|out.js   |   node relax.js --check in.wasm');
    process.exit(2);
  }
  const input = fs.readFileSync(args[0]);
  let output;
  if (input.readUInt32LE(0) === 0x6d736100) {
    const stats = {};
    output = rewriteModule(input, stats);
    if (sites) {
      if (stats.resized) { console.error('relax.js: --sites: function sizes changed, offsets invalid'); process.exit(1); }
      console.log(JSON.stringify(stats.sites || []));
    } else console.log(`${args[0]}: ${describe(stats)}`);
  } else {                                        // emcc SINGLE_FILE .js: base64 data URIs
    let n = 0;
    const found = [];
    output = Buffer.from(input.toString('latin1').replace(
      /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/g, (all, b64) => {
        const wasm = Buffer.from(b64, 'base64');
        if (wasm.length < 8 || wasm.readUInt32LE(0) !== 0x6d736100) return all;
        const stats = {};
        const res = rewriteModule(wasm, stats);
        console.log(`${args[0]}: embedded module ${++n}: ${describe(stats)}`);
        if (fill && stats.resized) fail('--fill-sites: function sizes changed, the offsets would be wrong', 0);
        if (stats.sites && stats.sites.length) found.push(stats.sites);
        return 'data:application/octet-stream;base64,' + res.toString('base64');
      }), 'latin1');
    if (!n) { console.error(`relax.js: ${args[0]}: no embedded wasm module found`); process.exit(1); }
    if (fill) {
      const slot = /\/\*@FMA_SITES\*\/\[[\d,]*\]\/\*@\*\//g, text = output.toString('latin1');
      if ((text.match(slot) || []).length !== 1) fail('--fill-sites: expected one /*@FMA_SITES*/[...]/*@*/ placeholder', 0);
      if (found.length > 1) fail('--fill-sites: more than one module has FMA sites', 0);
      const list = found[0] || [];
      output = Buffer.from(text.replace(slot, `/*@FMA_SITES*/[${list.join(',')}]/*@*/`), 'latin1');
      console.log(`${args[0]}: ${list.length} FMA sites written for the loader`);
    }
  }
  if (!check) fs.writeFileSync(args[1], output);
}

if (require.main === module) {
  try { main(); } catch (e) { console.error(e.message); process.exit(1); }
}
module.exports = { rewriteModule };
