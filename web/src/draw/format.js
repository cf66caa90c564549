/* format.js - numbers as text: exact float32 values for hover, short ones for tables and counts.
   Shared by every view so the same value reads the same everywhere. */

const MINUS = '\u2212';

function sign(s) { return s.charAt(0) === '-' ? MINUS + s.slice(1) : s; }

// The shortest decimal that reads back as the same float32: "exact" without noise digits.
function f32(v) {
  if (!isFinite(v)) return String(v);
  if (v === 0) return Object.is(v, -0) ? MINUS + '0' : '0';
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return sign(String(Number(s)));
  }
  return sign(String(v));
}

// Compact value for table cells and legends: 4 significant digits, exponent when far from 1.
function short(v) {
  if (!isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = (a >= 1e5 || a < 1e-3) ? v.toExponential(2) : String(Number(v.toPrecision(4)));
  return sign(s);
}

// Integer with thousands separators (both languages use the comma grouping here).
function int(n) {
  return sign(String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ','));
}

// 109482240 -> "109.5M": the unit words are the same in Chinese technical writing.
function big(n) {
  const a = Math.abs(n), trim = function (s) { return s.replace(/\.?0+$/, ''); };
  if (a >= 1e9) return trim((n / 1e9).toFixed(2)) + 'B';
  if (a >= 1e6) return trim((n / 1e6).toFixed(1)) + 'M';
  if (a >= 1e3) return trim((n / 1e3).toFixed(1)) + 'k';
  return String(n);
}

function pct(x, digits) { return (100 * x).toFixed(digits === undefined ? 1 : digits) + '%'; }

// Long tokens are cut for axis labels; the full text stays in tables and tooltips.
function label(tok, max) {
  const chars = Array.from(tok);
  max = max || 8;
  return chars.length > max ? chars.slice(0, max - 1).join('') + '\u2026' : tok;
}

export { f32, short, int, big, pct, label, MINUS };
