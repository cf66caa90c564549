/* engine-abi.js - the C struct layout the wrapper writes and reads, taken from the wasm module at
   load (bl__abi_layout, src/wasm_abi.c) and checked against the structs and fields it uses. */
  /* global addr, fail, heapAlloc, idx4 */
  /* exported ABI, checkAbi, useAbi */

  /* The C structs the wrapper fills or reads, and the fields of each it names (nested structs
     are one field). Their sizes and byte offsets are not written here: they are read from the
     wasm module at load (bl__abi_layout, src/wasm_abi.c), and a module that lacks one of these
     fails to load. Fields not named stay 0 in what the wrapper writes (C's default). */
  const ABI_USES = {
    bl_error: 'message',
    bl_rng: '',   /* copied whole */
    bl_ffn_desc: 'L d_model d_ff activation x w1 b1 w3 b3 w2 b2',
    bl_ffn_out: 'hidden up activated out',
    bl_attention_desc: 'L d_model n_heads causal no_scale key_mask x wq bq wk bk wv bv wo bo',
    bl_attention_out: 'q k v scores weights context concat out',
    bl_block_desc: 'L d_model n_heads d_ff activation pre_ln causal no_scale key_mask eps x wq bq wk bk ' +
      'wv bv wo bo ln1_gamma ln1_beta ln2_gamma ln2_beta w1 b1 w3 b3 w2 b2',
    bl_block_out: 'attn ffn resid1 norm1 resid2 norm2 out',
    bl_moe_desc: 'L d_model d_ff n_experts top_k activation x wr w1 b1 w3 b3 w2 b2',
    bl_moe_out: 'logits probs top_index top_weight load out',
    bl_decoder_layer: 'ln1_gamma ln1_beta wq bq wk bk wv bv wo bo ln2_gamma ln2_beta w1 b1 w2 b2',
    bl_edit: 'layer site head row values',
    bl_decoder_desc: 'n_layers d_model n_heads d_ff vocab n_positions activation eps L ids wte wpe layers ' +
      'lnf_gamma lnf_beta edits n_edits first_layer start end_layer logits_last',
    bl_lens_target: 'targets rank prob',
    bl_decoder_layer_out: 'norm1 q k v scores weights context concat attn_out resid1 norm2 hidden ' +
      'activated ffn_out resid2 x',
    bl_decoder_out: 'logits embed hidden layers',
    bl_llama_layer: 'attn_norm wq bq wk bk wv bv q_norm k_norm wo bo ffn_norm w_gate b_gate w_up b_up w_down b_down',
    bl_llama_desc: 'n_layers d_model n_heads n_kv_heads head_dim d_ff vocab max_positions eps dtype rope_theta ' +
      'rope_type rope_factor rope_low_freq_factor rope_high_freq_factor rope_original_max_positions L ids embed ' +
      'layers final_norm lm_head edits n_edits first_layer start end_layer logits_last weights_finite',
    bl_llama_layer_out: 'norm1 rstd1 q k v q_rot k_rot scores weights context concat attn_out resid1 norm2 rstd2 ' +
      'gate up activated ffn_out resid2 x',
    bl_llama_out: 'logits embed hidden layers'
  };
  /* The layout: { struct: { sizeof, field: byte offset } }, read from the first module loaded
     (every build in this file is the same C for wasm32; a later one must agree). */
  let ABI = null;

  /* The struct layout module m was built with, as ABI has it: bl__abi_layout's numbers (per
     struct its sizeof, then each field's offsetof) named by bl__abi_layout_names'
     "struct field field;struct ...". Read with malloc / free: the call block needs ABI. */
  function abiOf(m) {
    const n = m._bl__abi_layout(0, 0), p = heapAlloc(m, n * 4), table = {};
    if (!p) fail('out of memory reading the wasm struct layout');
    let nums, at = 0;
    try {
      m._bl__abi_layout(p, n);
      nums = Array.from(m.HEAP32.subarray(idx4(p), idx4(p) + n));
    } finally {
      m._free(p);
    }
    m.UTF8ToString(addr(m._bl__abi_layout_names())).split(';').forEach(function (s) {
      const f = s.split(' '), t = table[f[0]] = { sizeof: nums[at++] };
      for (let i = 1; i < f.length; i++) t[f[i]] = nums[at++];
    });
    if (at !== n)
      fail('the wasm struct layout has ' + n + ' numbers for ' + at + ' names: rebuild web/dist/blocklens.js');
    return table;
  }

  /* Throws unless layout `table` has every struct and field of ABI_USES, each field a 32-bit
     word inside its struct (the wrapper reads and writes words). */
  function checkAbi(table) {
    Object.keys(ABI_USES).forEach(function (s) {
      const t = table[s];
      if (!t || !(t.sizeof > 0) || t.sizeof % 4)
        fail('the wasm module has no struct ' + s + ' (the wrapper uses it): rebuild web/dist/blocklens.js');
      ABI_USES[s].split(' ').forEach(function (f) {
        if (!f) return;
        if (!Object.prototype.hasOwnProperty.call(t, f) || f === 'sizeof')
          fail('the wasm module\'s struct ' + s + ' has no field ' + f +
            ' (the wrapper uses it): rebuild web/dist/blocklens.js');
        if (!(t[f] >= 0 && t[f] + 4 <= t.sizeof) || t[f] % 4)
          fail('the wasm module\'s ' + s + '.' + f + ' is at byte ' + t[f] + ', not a 32-bit word of its ' +
            t.sizeof + ' bytes');
      });
    });
  }

  /* Reads and checks module m's layout; the first one becomes ABI. */
  function useAbi(m) {
    const table = abiOf(m);
    checkAbi(table);
    if (ABI === null) ABI = table;
    else if (JSON.stringify(table) !== JSON.stringify(ABI))
      fail('this build\'s struct layout differs from the one loaded before: rebuild web/dist/blocklens.js');
  }
