/* train/zip.js - a trained model's Hugging Face folder as one zip file (fflate: 8 kB, no
   dependencies), and the same files as File objects for the page's "open a model" path. */
import { zipSync } from 'fflate';

// files: { 'config.json': Uint8Array, ... } -> the zip's bytes, every file under folder/.
export function zipFolder(folder, files) {
  const tree = {};
  Object.keys(files).forEach((k) => { tree[folder + '/' + k] = [files[k], { level: /\.json$/.test(k) ? 9 : 6 }]; });
  return zipSync(tree, { mtime: new Date(2026, 0, 1) });
}

// config.json with the folder's name as _name_or_path (what the page names an opened model by).
export function named(files, name) {
  const cfg = JSON.parse(new TextDecoder().decode(files['config.json']));
  cfg._name_or_path = name;
  return Object.assign({}, files, { 'config.json': new TextEncoder().encode(JSON.stringify(cfg, null, 2) + '\n') });
}

export const asFiles = (files) => Object.keys(files).map((k) => new File([files[k]], k));
