/* assets.js - trained weights, loaded only when a state asks for them. No DOM: the host (page,
   embed, element) fetches the files (dom/assets.js) and hands them here, in the Worker and on
   the page alike; the engine's model object is made once per engine, on first use. */

export function createAssets() {
  const files = new Map(), models = new Map();
  return {
    has: (name) => files.has(name),
    file: (name) => files.get(name) || null,   // (the poem model's held-out poems: stages/neurons.js)
    // files: { weights: Uint8Array (safetensors), config: object, vocab: string[] }
    add(name, f) { files.set(name, f); models.delete(name); },
    // A model loaded elsewhere (a folder the reader opened): the one before it is freed.
    put(name, m) {
      const old = models.get(name);
      models.set(name, m);
      if (old && old !== m) old.free();
    },
    model(engine, name) {
      let m = models.get(name);
      if (!m) {
        const f = files.get(name);
        if (!f) throw new Error('BlockLens: the "' + name + '" weights are not loaded yet');
        m = engine.loadModel({ weights: f.weights, config: f.config, vocab: f.vocab });
        models.set(name, m);
      }
      return m;
    }
  };
}
