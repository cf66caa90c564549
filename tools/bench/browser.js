'use strict';
/* tools/bench/browser.js - how the benches start Debian's Chromium (playwright-core), so they all
   measure the same browser: the executable ($CHROMIUM, default /usr/bin/chromium) with the
   switches of tools/screenshot.js (headless, no sandbox as root, no network chatter to a closed
   network), the page of a web/ tree from file:// or served by tools/serve.js, and a page's
   uncaught errors and crash reported. */
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { CHROMIUM_ARGS } = require('../screenshot.js');
const { start } = require('../serve.js');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const WEB = path.resolve(__dirname, '..', '..', 'web');
const DESKTOP = { width: 1280, height: 900 };   // the width the page benches measure at
const ORIGIN = 'http://bench.invalid';
const NM = path.resolve(__dirname, '..', '..', 'node_modules');
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

// A browser with a fresh temporary profile that playwright removes on close; with
// { profile: dir } a persistent context in dir instead (its own HTTP cache across pages).
async function launch(opts = {}) {
  const { chromium } = require('playwright-core');
  const o = { executablePath: CHROMIUM, args: CHROMIUM_ARGS };
  return opts.profile ? chromium.launchPersistentContext(opts.profile, o) : chromium.launch(o);
}

// web/index.html of a web/ tree as a file:// URL (how a visitor double-clicks it).
function fileUrl(web = WEB) {
  return pathToFileURL(path.join(web, 'index.html')).href;
}

// tools/serve.js for a web/ tree on a free loopback port: { url, close() }.
async function serve(web = WEB) {
  const srv = await start({ port: 0, root: web });
  return { url: srv.url, close: () => new Promise((r) => srv.server.close(r)) };
}

// Calls report(text) on each uncaught error of the page and on its crash.
function watch(page, report) {
  page.on('pageerror', (e) => report(`page error: ${e.message}`));
  page.on('crash', () => report('the page crashed'));
}

// An async clock of the page's renderer main thread's CPU time in ms (the DevTools protocol's
// ThreadTime): what a page's wasm costs, without the waits a busy host adds to wall time.
async function cpuClock(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return async () => 1000 * (await cdp.send('Performance.getMetrics')).metrics.find((x) => x.name === 'ThreadTime').value;
}

// A blank page at ORIGIN whose requests are all answered from disk by interception (no
// network): `files` ({ '/path': file }), dynamic(pathname) (a Buffer, or null), and with
// peers tfjs-backend-wasm and onnxruntime-web from node_modules, loaded and set to one thread
// on the main thread (self.tf, self.ort). Returns the page.
async function peerPage(browser, { files = {}, dynamic = () => null, peers = true } = {}) {
  const page = await browser.newPage();
  const scripts = { '/tf-core.min.js': path.join(NM, '@tensorflow/tfjs-core/dist/tf-core.min.js'),
    '/tfwasm/tf-backend-wasm.min.js': path.join(NM, '@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js'),
    '/ort.wasm.min.js': path.join(NM, 'onnxruntime-web/dist/ort.wasm.min.js') };
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== ORIGIN) return route.abort();
    const p = url.pathname;
    if (p === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>bench</title>' });
    const body = dynamic(p);
    if (body) return route.fulfill({ contentType: 'application/octet-stream', body });
    let file = files[p] || scripts[p];
    if (!file && p.startsWith('/tfwasm/')) file = path.join(NM, '@tensorflow/tfjs-backend-wasm/dist', path.basename(p));
    if (!file && /^\/ort-wasm[\w.-]*\.(mjs|wasm)$/.test(p)) file = path.join(NM, 'onnxruntime-web/dist', p);
    if (!file || !fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ contentType: TYPES[path.extname(file)] || 'application/octet-stream', body: fs.readFileSync(file) });
  });
  await page.goto(ORIGIN + '/');
  if (!peers) return page;
  for (const s of Object.keys(scripts)) await page.addScriptTag({ url: s });
  await page.evaluate(async (origin) => {
    tf.wasm.setWasmPaths(origin + '/tfwasm/');
    tf.wasm.setThreadsCount(1);
    await tf.setBackend('wasm');
    await tf.ready();
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    ort.env.wasm.wasmPaths = origin + '/';
    ort.env.logLevel = 'error';
  }, ORIGIN);
  return page;
}

module.exports = { launch, fileUrl, serve, watch, cpuClock, peerPage, ORIGIN, CHROMIUM, CHROMIUM_ARGS, DESKTOP, WEB };
