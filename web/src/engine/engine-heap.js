/* engine-heap.js - addresses in the wasm heap, which grows to 4 GiB: wasm hands JS an i32, so an
   address from 2 GiB on arrives negative, and `p >> 2` of one is negative too. The helpers below
   read addresses as unsigned; heapAlloc is malloc as every engine file calls it. */
  /* exported addr, HEAP_MAX, heapAlloc, idx4, idx8 */

  /* The rules every engine file follows (tests/node/heap_4g.test.js runs the calls with their
     buffers and a model past 2 GiB):
     1. An address C returns (heapAlloc, or a C function returning a pointer) goes through addr()
        at once; addresses are then plain JS numbers in [0, 4 GiB): an address plus byte offsets,
        never cut with `| 0` or `>> 0`.
     2. A typed-array index of a byte address is idx4(p) (HEAP32, HEAPF32) or idx8(p) (HEAPF64),
        never `p >> 2` / `p >> 3`; HEAPU8 takes the address itself. A float index is idx4(p) plus
        a count of floats; idx4(p) * 4 is the address again. (`>> 2` stays right for what is no
        address: a struct's sizeof, a field's offset.)
     3. An address is passed to C as it is, and written into a C struct through HEAP32 (or an
        Int32Array of words) as it is: wasm and Int32Array keep its low 32 bits, the same bits.
        Read back from HEAP32, it goes through addr().
     4. Memory is taken with heapAlloc(m, bytes), after checking bytes <= HEAP_MAX (counted in
        doubles, never cut to 32 bits), and given back with m._free(addr).
     5. The HEAP* views are read from the module again after anything that may take memory
        (heapAlloc, a C call): growing the heap replaces its buffer. */

  /* The most the heap can be: emscripten_get_heap_max with -sMAXIMUM_MEMORY=4294967296
     (cmake/wasm.cmake), 65,535 pages of 64 KiB: 4 GiB less one page. */
  const HEAP_MAX = 4294901760;

  /* An address from C (an i32, negative from 2 GiB on) as the unsigned number it is. */
  function addr(p) { return p >>> 0; }
  /* The HEAP32 / HEAPF32 index of byte address p (4-byte aligned). */
  function idx4(p) { return p >>> 2; }
  /* The HEAPF64 index of byte address p (8-byte aligned). */
  function idx8(p) { return p >>> 3; }

  /* Emscripten's malloc (dlmalloc) grows the heap by less than 2 GiB at a time (one sbrk below
     HALF_MAX_SIZE_T), so a block of 2 GiB or more fails on a heap with less than that free at its
     top; and once a growth has failed it stops growing the heap contiguously, so that no block of
     2 GiB or more can be taken again. So a block larger than all the heap could still give
     (bl__heap_room) is refused without asking malloc, and one of GROW_STEP or more is asked for
     after taking and freeing one of GROW_STEP: freed, that joins the top of the heap, and the
     block then needs less than 2 GiB more. */
  const GROW_STEP = 2147483648 - 1048576;

  /* n bytes (n <= HEAP_MAX, checked by the caller) of module m's heap: their address, 0 when the
     heap cannot provide them. */
  function heapAlloc(m, n) {
    if (n > addr(m._bl__heap_room())) return 0;
    if (n >= GROW_STEP) {
      const q = m._malloc(GROW_STEP);
      if (!q) return 0;
      m._free(q);
    }
    return addr(m._malloc(n));
  }
