/* helpers.js - shared by the browser tests: Debian's chromium through playwright-core, the
   page served by tools/serve.js on a free port or opened from file://, and pixel probes. */
'use strict';
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');
const { start } = require('../../tools/serve.js');
const { CHROMIUM_ARGS } = require('../../tools/screenshot.js');

const WEB = path.resolve(__dirname, '..', '..', 'web');
const FILE_URL = pathToFileURL(path.join(WEB, 'index.html')).href;

// A fresh browser (playwright gives it a temporary profile) and, on request, the static server.
async function setup(opts = {}) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const srv = opts.server ? await start({ port: 0 }) : null;
  return {
    browser, url: srv ? srv.url : null,
    async close() {
      await browser.close();
      if (srv) await new Promise((r) => srv.server.close(r));
    }
  };
}

// Opens the page and records everything that went wrong or left the page's own files. The whole
// model's figures (12-15) are computed as if on screen (<html data-wide="eager">), since tests read
// them without scrolling; ctxOpts.lazyWide: as a reader's page, only once scrolled near them.
async function open(browser, base, hash, ctxOpts = {}) {
  const { lazyWide, ...rest } = ctxOpts;
  const context = await browser.newContext(Object.assign({ viewport: { width: 1280, height: 900 } }, rest));
  // (no <html> yet when init scripts run: set before the page's own DOMContentLoaded listener)
  if (!lazyWide) {
    await context.addInitScript(() => document.addEventListener('DOMContentLoaded', () => {
      document.documentElement.dataset.wide = 'eager';
    }, { once: true }));
  }
  const page = await context.newPage();
  const log = { errors: [], requests: [], dialogs: [] };
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.errors.push(m.type() + ': ' + m.text()); });
  page.on('pageerror', (e) => log.errors.push('pageerror: ' + e.message));
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.goto(base + (hash ? '#' + hash : ''));
  await ready(page);
  return { page, log, context, close: () => context.close() };
}

// The page marks <body data-status> ready (figures drawn) or error (message shown).
async function ready(page, status) {
  await page.waitForFunction((want) => {
    const s = document.body.dataset.status;
    return want ? s === want : (s === 'ready' || s === 'error');
  }, status, { timeout: 30000 });
}

// Change a control as a person would, then wait for the debounce and the redraw.
async function setField(page, name, value) {
  const el = page.locator(`#controls [name="${name}"]`);
  const type = await el.evaluate((e) => e.type);
  if (type === 'checkbox') await el.setChecked(!!value);
  else if (type === 'select-one') await el.selectOption(String(value));
  else await el.fill(String(value));
  await settle(page);
}

async function settle(page) {
  await page.waitForTimeout(400);
  await ready(page);
}

// RGB at a CSS-pixel position of a canvas, read back from its backing store.
async function pixels(page, canvasSel, points) {
  return page.$eval(canvasSel, (c, pts) => {
    const k = c.width / c.getBoundingClientRect().width;
    const ctx = c.getContext('2d');
    return pts.map(([x, y]) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data.slice(0, 3)));
  }, points);
}

// Centre of cell (r, c) from the geometry the heatmap publishes on its canvas.
async function cellCenters(page, canvasSel, cells) {
  return page.$eval(canvasSel, (c, list) => {
    const d = c.dataset;
    return list.map(([r, col]) => [+d.plotX + (col + 0.5) * +d.cellW, +d.plotY + (r + 0.5) * +d.cellH]);
  }, cells);
}

async function cellColors(page, canvasSel, cells) {
  return pixels(page, canvasSel, await cellCenters(page, canvasSel, cells));
}

const isGrey = (rgb) => Math.max(...rgb) - Math.min(...rgb) <= 3;

// Text of a figure as a reader sees it: its blocks, not its tables, tooltips, the legend's dot
// (drawn as a shape) or an action button (no part of the picture). The export tests check that
// every one of these is in the figure's SVG.
function figureTexts(page, view) {
  return page.$eval('#fig-' + view, (fig) => {
    const out = [], walk = document.createTreeWalker(fig.querySelector('.fig-body'), NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) {
      const n = walk.currentNode;
      if (!n.textContent.trim() || n.parentElement.closest('details, [hidden], .lg-dot, .next-action, .next-hint')) continue;
      out.push(n.textContent.trim());
    }
    return out;
  });
}

// Page states at BERT-base widths with 64 tokens, and the same tokens at the default widths.
const WORDS64 = Array.from({ length: 64 }, (_, i) => 'tok' + i).join(' ');
const HASH_64_TOKENS = 'lang=en&tokens=' + encodeURIComponent(WORDS64);
const HASH_BERT = 'lang=en&d=768&dff=3072&heads=12&act=gelu&tokens=' + encodeURIComponent(WORDS64);

module.exports = { setup, open, ready, setField, settle, pixels, cellColors, isGrey, figureTexts, FILE_URL, WEB,
  WORDS64, HASH_64_TOKENS, HASH_BERT };
