'use strict';
/* tools/bench/browser.js - how the benches start Debian's Chromium (playwright-core), so they all
   measure the same browser: the executable ($CHROMIUM, default /usr/bin/chromium) with the
   switches of tools/screenshot.js (headless, no sandbox as root, no network chatter to a closed
   network), the page of a web/ tree from file:// or served by tools/serve.js, and a page's
   uncaught errors and crash reported. */
const path = require('path');
const { pathToFileURL } = require('url');
const { CHROMIUM_ARGS } = require('../screenshot.js');
const { start } = require('../serve.js');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const WEB = path.resolve(__dirname, '..', '..', 'web');
const DESKTOP = { width: 1280, height: 900 };   // the width the page benches measure at

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

module.exports = { launch, fileUrl, serve, watch, cpuClock, CHROMIUM, CHROMIUM_ARGS, DESKTOP, WEB };
