/* colors.js - colour scales for the canvases, one palette per colour scheme.
   Diverging blue-red (ColorBrewer RdBu, colour-blind safe) for signed values, single-hue blue
   for 0..max; in dark mode zero is dark so the eye goes to large values, not to empty ones. */

const PALETTES = {
  light: {
    bg: '#ffffff', fg: '#1d2330', muted: '#5b6474', grid: '#ffffff', mask: '#e3e1dc',
    maskInk: '#b9b5ad', focus: '#d55e00', mark: '#1d2330', card: '#f7f6f2', line: '#dedbd3',
    diverging: ['#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7', '#fddbc7', '#f4a582', '#d6604d', '#b2182b'],
    sequential: ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'],
    attention: '#0072b2', ffn: '#e69f00', embeddings: '#cc79a7', norms: '#009e73', other: '#8c8c8c',
    barInk: '#ffffff'
  },
  dark: {
    bg: '#171a21', fg: '#e7eaf0', muted: '#9aa3b2', grid: '#171a21', mask: '#2a2e37',
    maskInk: '#4a505c', focus: '#ffb454', mark: '#f2f4f8', card: '#1d2129', line: '#2c313b',
    diverging: ['#92c5de', '#4f9bcb', '#2c6e9e', '#1f4567', '#22252c', '#6e3328', '#a84b36', '#e07b5f', '#fbb89b'],
    sequential: ['#1c2028', '#1b2d45', '#1d4068', '#22558c', '#2c6cae', '#4b8cca', '#74aee0', '#a5cdf0', '#dbeafb'],
    attention: '#56b4e9', ffn: '#e69f00', embeddings: '#cc79a7', norms: '#2fbf8f', other: '#9a9a9a',
    barInk: '#10131a'   // (white on the light dark-mode parts was 2.1:1; this ink is 8.6:1 on attention's)
  }
};

function hex(h) { return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]; }

// 256-entry RGB lookup table from evenly spaced anchors (linear in sRGB between anchors).
function lut(anchors) {
  const rgb = anchors.map(hex), n = 256, out = new Uint8ClampedArray(n * 3);
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1) * (rgb.length - 1), k = Math.min(Math.floor(t), rgb.length - 2), f = t - k;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(rgb[k][c] + (rgb[k + 1][c] - rgb[k][c]) * f);
  }
  return out;
}

const cache = {};
function scheme(name) {
  if (cache[name]) return cache[name];
  const p = PALETTES[name] || PALETTES.light;
  const s = { name: name, css: p, bgRGB: hex(p.bg), maskRGB: hex(p.mask),
    diverging: lut(p.diverging), sequential: lut(p.sequential) };
  // Greyed rows: the cell's own luminance, pulled towards the background.
  s.grey = function (rgb, out) {
    const y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    for (let c = 0; c < 3; c++) out[c] = Math.round(y * 0.35 + s.bgRGB[c] * 0.65);
    return out;
  };
  cache[name] = s;
  return s;
}

// value -> index into a LUT: signed values around the middle, magnitudes from the start.
function index(kind, v, max) {
  if (!(max > 0) || !isFinite(v)) return kind === 'diverging' ? 128 : 0;
  const t = kind === 'diverging' ? 0.5 + 0.5 * v / max : v / max;
  return Math.max(0, Math.min(255, Math.round(t * 255)));
}

function color(s, kind, v, max, out) {
  const table = s[kind], i = index(kind, v, max) * 3;
  out[0] = table[i]; out[1] = table[i + 1]; out[2] = table[i + 2];
  return out;
}

// CSS gradient for a legend bar drawn as HTML.
function gradient(s, kind) {
  const a = s.css[kind];
  return 'linear-gradient(to right, ' + a.join(', ') + ')';
}


export { scheme, color, gradient, hex };
