/* recorder.js - a small CanvasRenderingContext2D look-alike that records what is drawn, so the
   same drawing code yields an SVG (text as <text>, crisp at any size) and, replayed onto a real
   canvas, a PNG. Text widths come from a fixed table (Arial / Helvetica / Liberation Sans
   metrics, CJK one em), never from the platform: Node and every browser lay out the same bytes. */

// The family exported figures name: metric-compatible fonts first, then CJK fallbacks. A
// browser (and tools/render.js's PNG) takes each character from the first of these that has it.
const FAMILY = 'Arial, Helvetica, "Liberation Sans", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", ' +
  '"DejaVu Sans", sans-serif';

// Advance widths of ' ' .. '~' in 1/1000 em, regular and bold (Helvetica and Helvetica-Bold
// AFM; Arial and Liberation Sans agree, measured from Debian's LiberationSans-*.ttf).
const ASCII = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667,
  722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722,
  667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556,
  222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
  260, 334, 584];
const ASCII_BOLD = [278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722,
  722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722,
  667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611,
  278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389,
  280, 389, 584];
// Other characters the figures write, [regular, bold], from the face that draws them: Liberation
// Sans where it has the glyph; it has no subscript digits and no superscript T, which come from
// DejaVu Sans (Noto Sans CJK SC, named before it, has neither), and no circled dot, which Noto
// Sans CJK SC draws one em wide.
const OTHER = { '\u00d7': [584, 584], '\u2212': [584, 584], '\u00b7': [278, 278], '\u221a': [549, 549],
  '\u2026': [1000, 1000], '\u2192': [1000, 1000], '\u2191': [500, 500], '\u0394': [668, 719],
  '\u25cf': [604, 604], '\u2014': [1000, 1000], '\u00f7': [549, 549], '\u00b2': [333, 333],
  '\u201c': [333, 500], '\u201d': [333, 500], '\u2018': [222, 278], '\u2019': [222, 278],
  '\u1d40': [385, 430], '\u2080': [401, 438], '\u2081': [401, 438], '\u2082': [401, 438],
  '\u2083': [401, 438], '\u2299': [1000, 1000] };
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

// "600 12px ..." -> { size, bold }
function parseFont(font) {
  const m = /(\d+(?:\.\d+)?)px/.exec(font || '');
  return { size: m ? Number(m[1]) : 12, bold: /\b(bold|[6-9]00)\b/.test(font || '') };
}

function textWidth(text, font) {
  const f = parseFont(font), ascii = f.bold ? ASCII_BOLD : ASCII, b = f.bold ? 1 : 0;
  let w = 0;
  Array.from(String(text)).forEach(function (ch) {
    const c = ch.codePointAt(0);
    if (c >= 32 && c <= 126) w += ascii[c - 32];
    else if (OTHER[ch]) w += OTHER[ch][b];
    else if (WIDE.test(ch)) w += 1000;
    else w += f.bold ? 640 : 600;
  });
  return w / 1000 * f.size;
}

function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
  // Characters XML 1.0 cannot carry at all (controls, lone surrogates) become U+FFFD.
  // eslint-disable-next-line no-control-regex
  }).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/g,
    function (m, pre) { return (pre || '') + '\ufffd'; });
}

function num(v) { const r = Math.round(v * 100) / 100; return String(Object.is(r, -0) ? 0 : r); }

// A colour as the canvas states hold it; 'rgb(a,b,c)' becomes #rrggbb in the SVG.
function hexColor(c) {
  if (c && typeof c === 'object') return c;   // a gradient
  const m = /^rgb\((\d+),\s*(\d+),\s*(\d+)\)$/.exec(c);
  if (!m) return String(c);
  return '#' + [m[1], m[2], m[3]].map(function (v) { return (256 + Number(v)).toString(16).slice(1); }).join('');
}

function Gradient(x0, y0, x1, y1) { this.coords = [x0, y0, x1, y1]; this.stops = []; }
Gradient.prototype.addColorStop = function (at, color) { this.stops.push([at, hexColor(color)]); };

// width x height in CSS pixels; ops are kept in user units with the transform applied.
function Recorder(width, height) {
  this.width = width; this.height = height;
  this.ops = [];
  this.isRecorder = true;
  this._stack = [];
  this._path = [];
  this._m = [1, 0, 0, 1, 0, 0];
  this.fillStyle = '#000'; this.strokeStyle = '#000'; this.lineWidth = 1;
  this.font = '12px sans-serif'; this.textAlign = 'start'; this.textBaseline = 'alphabetic';
  this.globalAlpha = 1;
}
const R = Recorder.prototype;
const STATE = ['fillStyle', 'strokeStyle', 'lineWidth', 'font', 'textAlign', 'textBaseline', 'globalAlpha'];

R.save = function () {
  const s = { m: this._m.slice() };
  STATE.forEach(function (k) { s[k] = this[k]; }, this);
  this._stack.push(s);
};
R.restore = function () {
  const s = this._stack.pop();
  if (!s) return;
  this._m = s.m;
  STATE.forEach(function (k) { this[k] = s[k]; }, this);
};
R.setTransform = function (a, b, c, d, e, f) { this._m = [a, b, c, d, e, f]; };
R.translate = function (x, y) {
  const m = this._m;
  m[4] += m[0] * x + m[2] * y; m[5] += m[1] * x + m[3] * y;
};
R.rotate = function (a) {
  const m = this._m, c = Math.cos(a), s = Math.sin(a);
  this._m = [m[0] * c + m[2] * s, m[1] * c + m[3] * s, m[2] * c - m[0] * s, m[3] * c - m[1] * s, m[4], m[5]];
};
R._pt = function (x, y) {
  const m = this._m;
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
};
R._plain = function () { const m = this._m; return m[1] === 0 && m[2] === 0; };
R.measureText = function (text) { return { width: textWidth(text, this.font) }; };
R.createLinearGradient = function (x0, y0, x1, y1) {
  const a = this._pt(x0, y0), b = this._pt(x1, y1);
  return new Gradient(a[0], a[1], b[0], b[1]);
};

// Rectangles (only under translation and scaling, which is all the figures use).
R.fillRect = function (x, y, w, h) {
  const a = this._pt(x, y), b = this._pt(x + w, y + h);
  this.ops.push({ op: 'rect', x: Math.min(a[0], b[0]), y: Math.min(a[1], b[1]), w: Math.abs(b[0] - a[0]),
    h: Math.abs(b[1] - a[1]), fill: hexColor(this.fillStyle), alpha: this.globalAlpha });
};
R.strokeRect = function (x, y, w, h) {
  this.beginPath(); this.moveTo(x, y); this.lineTo(x + w, y); this.lineTo(x + w, y + h);
  this.lineTo(x, y + h); this.closePath(); this.stroke();
};
R.clearRect = function () {};

// Paths: kept as SVG path commands in final coordinates.
R.beginPath = function () { this._path = []; };
R.moveTo = function (x, y) { const p = this._pt(x, y); this._path.push(['M', p]); };
R.lineTo = function (x, y) { const p = this._pt(x, y); this._path.push(['L', p]); };
R.bezierCurveTo = function (a, b, c, d, x, y) {
  this._path.push(['C', this._pt(a, b), this._pt(c, d), this._pt(x, y)]);
};
R.closePath = function () { this._path.push(['Z']); };
// Full circles only (dots); the radius follows the transform's x scale.
R.arc = function (x, y, r) {
  const p = this._pt(x, y), k = Math.sqrt(this._m[0] * this._m[0] + this._m[1] * this._m[1]);
  this._path.push(['O', p, r * k]);
};
R._pathOp = function (kind) {
  if (!this._path.length) return;
  const k = Math.sqrt(this._m[0] * this._m[0] + this._m[1] * this._m[1]);
  this.ops.push({ op: 'path', kind: kind, segs: this._path.slice(),
    color: hexColor(kind === 'fill' ? this.fillStyle : this.strokeStyle),
    width: this.lineWidth * k, alpha: this.globalAlpha });
};
R.fill = function () { this._pathOp('fill'); };
R.stroke = function () { this._pathOp('stroke'); };

R.fillText = function (text, x, y) {
  if (text === '' || text === null || text === undefined) return;
  this.ops.push({ op: 'text', text: String(text), x: x, y: y, m: this._m.slice(), font: this.font,
    align: this.textAlign, baseline: this.textBaseline, fill: hexColor(this.fillStyle), alpha: this.globalAlpha });
};

// ---- SVG -----------------------------------------------------------------------------
const ANCHOR = { left: 'start', start: 'start', center: 'middle', right: 'end', end: 'end' };
// Baselines as a dy in em: SVG's dominant-baseline is unevenly supported, a dy is not.
const DY = { top: 0.8, hanging: 0.8, middle: 0.35, alphabetic: 0, bottom: -0.2, ideographic: -0.2 };

function segsToD(segs) {
  return segs.map(function (s) {
    if (s[0] === 'Z') return 'Z';
    if (s[0] === 'O') {
      const x = s[1][0], y = s[1][1], r = s[2];
      return 'M' + num(x - r) + ' ' + num(y) + 'a' + num(r) + ' ' + num(r) + ' 0 1 0 ' + num(2 * r) +
        ' 0a' + num(r) + ' ' + num(r) + ' 0 1 0 ' + num(-2 * r) + ' 0';
    }
    return s[0] + s.slice(1).map(function (p) { return num(p[0]) + ' ' + num(p[1]); }).join(' ');
  }).join('');
}

function alphaAttr(a, name) { return a < 1 ? ' ' + name + '="' + num(a) + '"' : ''; }

function paintAttr(color, defs) {
  if (typeof color === 'string') return color;
  const id = 'g' + defs.length;
  const c = color.coords;
  defs.push('<linearGradient id="' + id + '" gradientUnits="userSpaceOnUse" x1="' + num(c[0]) + '" y1="' + num(c[1]) +
    '" x2="' + num(c[2]) + '" y2="' + num(c[3]) + '">' + color.stops.map(function (s) {
    return '<stop offset="' + num(s[0]) + '" stop-color="' + s[1] + '"/>';
  }).join('') + '</linearGradient>');
  return 'url(#' + id + ')';
}

function textSVG(o) {
  const f = parseFont(o.font), m = o.m;
  let attrs = ' font-size="' + num(f.size) + '"' + (f.bold ? ' font-weight="600"' : '');
  const anchor = ANCHOR[o.align] || 'start';
  if (anchor !== 'start') attrs += ' text-anchor="' + anchor + '"';
  const dy = DY[o.baseline] || 0;
  let x = o.x, y = o.y + dy * f.size, pos;
  if (m[1] === 0 && m[2] === 0 && m[0] === 1 && m[3] === 1) {
    pos = ' x="' + num(x + m[4]) + '" y="' + num(y + m[5]) + '"';
  } else {
    pos = ' x="' + num(x) + '" y="' + num(y) + '" transform="matrix(' +
      m.map(function (v) { return num(Math.round(v * 1e6) / 1e6); }).join(' ') + ')"';
  }
  return '<text' + pos + attrs + ' fill="' + o.fill + '"' + alphaAttr(o.alpha, 'fill-opacity') + '>' +
    esc(o.text) + '</text>';
}

// opts: { title, desc, lang }. Runs of rectangles share one crisp-edged group.
R.toSVG = function (opts) {
  opts = opts || {};
  let defs = [], body = [], inRects = false;
  this.ops.forEach(function (o) {
    if ((o.op === 'rect') !== inRects) {
      body.push(inRects ? '</g>' : '<g shape-rendering="crispEdges">'); inRects = !inRects;
    }
    if (o.op === 'rect') {
      body.push('<rect x="' + num(o.x) + '" y="' + num(o.y) + '" width="' + num(o.w) + '" height="' + num(o.h) +
        '" fill="' + paintAttr(o.fill, defs) + '"' + alphaAttr(o.alpha, 'fill-opacity') + '/>');
    } else if (o.op === 'path') {
      const d = segsToD(o.segs);
      body.push(o.kind === 'fill'
        ? '<path d="' + d + '" fill="' + o.color + '"' + alphaAttr(o.alpha, 'fill-opacity') + '/>'
        : '<path d="' + d + '" fill="none" stroke="' + o.color + '" stroke-width="' + num(o.width) + '"' +
          alphaAttr(o.alpha, 'stroke-opacity') + '/>');
    } else {
      body.push(textSVG(o));
    }
  });
  if (inRects) body.push('</g>');
  const w = num(this.width), h = num(this.height);
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + ' ' + h + '"' +
    (opts.lang ? ' xml:lang="' + esc(opts.lang) + '"' : '') + ' font-family="' + esc(FAMILY) + '">\n' +
    (opts.title ? '<title>' + esc(opts.title) + '</title>\n' : '') +
    (opts.desc ? '<desc>' + esc(opts.desc) + '</desc>\n' : '') +
    (defs.length ? '<defs>' + defs.join('') + '</defs>\n' : '') +
    body.join('\n') + '\n</svg>\n';
};

// ---- replay onto a real canvas (the PNG export) ------------------------------------------
R.replay = function (g, scale) {
  const k = scale || 1;
  function paint(c) {
    if (typeof c === 'string') return c;
    const gr = g.createLinearGradient(c.coords[0], c.coords[1], c.coords[2], c.coords[3]);
    c.stops.forEach(function (s) { gr.addColorStop(s[0], s[1]); });
    return gr;
  }
  this.ops.forEach(function (o) {
    g.setTransform(k, 0, 0, k, 0, 0);
    g.globalAlpha = o.alpha;
    if (o.op === 'rect') {
      g.fillStyle = paint(o.fill);
      g.fillRect(o.x, o.y, o.w, o.h);
    } else if (o.op === 'path') {
      g.beginPath();
      o.segs.forEach(function (s) {
        if (s[0] === 'M') g.moveTo(s[1][0], s[1][1]);
        else if (s[0] === 'L') g.lineTo(s[1][0], s[1][1]);
        else if (s[0] === 'C') g.bezierCurveTo(s[1][0], s[1][1], s[2][0], s[2][1], s[3][0], s[3][1]);
        else if (s[0] === 'Z') g.closePath();
        else { g.moveTo(s[1][0] + s[2], s[1][1]); g.arc(s[1][0], s[1][1], s[2], 0, 2 * Math.PI); }
      });
      if (o.kind === 'fill') { g.fillStyle = o.color; g.fill(); }
      else { g.strokeStyle = o.color; g.lineWidth = o.width; g.stroke(); }
    } else {
      const f = parseFont(o.font), m = o.m;
      g.setTransform(k * m[0], k * m[1], k * m[2], k * m[3], k * m[4], k * m[5]);
      g.font = (f.bold ? '600 ' : '') + f.size + 'px ' + FAMILY;
      g.textAlign = o.align; g.textBaseline = 'alphabetic';
      g.fillStyle = o.fill;
      g.fillText(o.text, o.x, o.y + (DY[o.baseline] || 0) * f.size);
    }
  });
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.globalAlpha = 1;
};

function create(w, h) { return new Recorder(w, h); }

export { create, textWidth, FAMILY };
