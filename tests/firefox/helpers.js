/* helpers.js - for firefox.test.js: Debian's firefox-esr driven by puppeteer-core over WebDriver
   BiDi (no browser download), one fresh temporary profile per browser, no way out to the
   network, the page over http (tools/serve.js) or from file://, and pixel probes of canvases.
   Kept apart from tests/browser/ (Chromium through playwright-core) on purpose: this folder is
   not matched by the Chromium step's tests/browser/*.test.js. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { pathToFileURL } = require('url');
const puppeteer = require('puppeteer-core');
const { start } = require('../../tools/serve.js');

const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
const WEB = path.resolve(__dirname, '..', '..', 'web');
const FIXTURES = path.resolve(__dirname, '..', 'browser', 'fixtures');
const FILE_BASE = pathToFileURL(WEB).href + '/';          // file:///.../web/

// Preferences on top of puppeteer's own test profile and Firefox's Remote Agent's recommended
// preferences (both already turn most of these off; set here so that no Firefox release that
// drops one of them starts phoning home in the middle of a test run).
const PREFS = {
  // Remote Settings (blocklists, CRLite, experiments...): a release build honours this override
  // only with MOZ_DISABLE_NONLOCAL_CONNECTIONS=1 in the environment (see ENV below); without it
  // Firefox 153 looked up firefox.settings.services.mozilla.com a few seconds after start.
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'security.remote_settings.crlite_filters.enabled': false,
  'security.remote_settings.intermediates.enabled': false,
  // Telemetry, data reporting, studies
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': 'data:,',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'datareporting.usage.uploadEnabled': false,
  'app.normandy.enabled': false,
  'app.normandy.api_url': '',
  'app.shield.optoutstudies.enabled': false,
  'browser.discovery.enabled': false,
  // Updates of Firefox, add-ons, system add-ons, plugins, the add-on blocklist
  'app.update.disabledForTesting': true,
  'app.update.auto': false,
  'extensions.update.enabled': false,            // Debian's /etc/firefox-esr turns it on
  'extensions.systemAddon.update.enabled': false,
  'extensions.blocklist.enabled': false,
  'media.gmp-manager.updateEnabled': false,
  // Connectivity probes: captive portal, network link, push, region, geolocation, DoH
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'captivedetect.canonicalURL': '',
  'dom.push.connection.enabled': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'geo.provider.network.url': '',
  'network.trr.mode': 5,                          // DNS over HTTPS off
  // No speculative traffic
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.http.speculative-parallel-limit': 0,
  // Safe Browsing lists and the new-tab page's feeds
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.newtabpage.enabled': false,
  'browser.topsites.contile.enabled': false,
  // Translations and local ML models download their files on demand
  'browser.translations.enable': false,
  'browser.ml.enable': false,
  // Back to Firefox's real default: puppeteer and the Remote Agent both set it to false, which
  // would give file:// pages more than a reader's Firefox allows them.
  'security.fileuri.strict_origin_policy': true
};

// MOZ_DISABLE_NONLOCAL_CONNECTIONS=1: Firefox refuses (and a release build aborts on) any
// connection to an address that is not loopback, printing "FATAL ERROR: Non-local network
// connections are disabled ..." on stderr. A page or a browser service that reaches outside
// fails the test instead of waiting on the network.
const ENV = { MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1', MOZ_CRASHREPORTER_DISABLE: '1' };
const FATAL = /FATAL ERROR: Non-local network connections[^\n]*/;

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

// A fresh Firefox in a fresh profile; with { server: true } also tools/serve.js on a free port.
// close() always ends the browser (SIGKILL to the process we started if it does not quit),
// stops the server and removes the profile.
async function setup(opts = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-firefox-'));
  const env = { browser: null, url: null, profile, stderr: [], servers: [], closed: false };
  let proc = null;
  const killNow = () => { if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL'); };
  const onExit = () => { killNow(); fs.rmSync(profile, { recursive: true, force: true }); };
  process.on('exit', onExit);   // last resort if close() never runs

  env.close = async () => {
    if (env.closed) return;
    env.closed = true;
    try {
      if (env.browser) await withTimeout(env.browser.close(), 15000, 'browser.close');
    } catch (e) {
      killNow();
    }
    for (const s of env.servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    fs.rmSync(profile, { recursive: true, force: true });
    process.removeListener('exit', onExit);
  };

  try {
    env.browser = await puppeteer.launch({
      browser: 'firefox', protocol: 'webDriverBiDi', executablePath: FIREFOX, headless: true,
      userDataDir: profile, extraPrefsFirefox: PREFS, env: Object.assign({}, process.env, ENV),
      timeout: 30000
    });
    proc = env.browser.process();
    let tail = '';
    proc.stderr.on('data', (d) => {
      const lines = (tail + d).split('\n');
      tail = lines.pop();
      env.stderr.push(...lines);
    });
    if (opts.server) {
      const srv = await start({ port: 0 });
      env.servers.push(srv.server);
      env.url = srv.url;
    }
  } catch (e) {
    await env.close();
    throw e;
  }
  // The line Firefox printed before aborting on a connection to the outside, if any.
  env.fatal = () => { const l = env.stderr.find((s) => FATAL.test(s)); return l ? l.match(FATAL)[0] : null; };
  return env;
}

// Runs a test body; if Firefox aborted on an outside connection, that is the error to see
// (the test's own error is then only "Target closed").
async function guard(env, fn) {
  try {
    await fn();
  } catch (e) {
    if (env && env.fatal()) throw new Error('Firefox tried to reach the network: ' + env.fatal(), { cause: e });
    throw e;
  }
  if (env && env.fatal()) throw new Error('Firefox tried to reach the network: ' + env.fatal());
}

// A tab that records what went wrong and every request. Besides the WebDriver BiDi console and
// error events, Firefox prints content-script errors on stderr ("JavaScript error: <url>, line
// N: ..."): the lines from the page's own origin are counted too. Content-Security-Policy
// refusals are recorded from the page's securitypolicyviolation events (all frames).
async function open(env, url, opts = {}) {
  const page = await env.browser.newPage();
  const from = env.stderr.length;
  const origin = /^file:/.test(url) ? 'file://' : new URL(url).origin;
  const log = { console: [], errors: [], requests: [], dialogs: [] };
  page.on('console', (m) => {
    log.console.push(m.type() + ': ' + m.text());
    if (m.type() === 'error' || m.type() === 'warn' || m.type() === 'assert') log.errors.push(m.type() + ': ' + m.text());
  });
  page.on('pageerror', (e) => log.errors.push('pageerror: ' + (e && e.message || e)));
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.evaluateOnNewDocument(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(e.effectiveDirective + ' ' + String(e.blockedURI).slice(0, 40));
    });
  });
  await page.setViewport(opts.viewport || { width: 1280, height: 900 });
  await page.goto(url, { waitUntil: 'load', timeout: 30000 });
  const stderrErrors = () => env.stderr.slice(from)
    .filter((l) => /^JavaScript (error|warning): /.test(l) && l.includes(origin));
  return {
    page, log,
    errors: () => log.errors.concat(stderrErrors().map((l) => 'stderr: ' + l)),
    close: () => page.close().catch(() => {})
  };
}

// <body data-status> is "ready" once every figure is drawn, "error" when a message is shown.
async function ready(target, want) {
  await target.waitForFunction((w) => {
    const s = document.body && document.body.dataset.status;
    return w ? s === w : (s === 'ready' || s === 'error');
  }, { timeout: 30000, polling: 50 }, want || null);
  return target.evaluate(() => document.body.dataset.status);
}

// Change a control as a person would (focus, type), then wait for the debounce and the redraw.
async function setField(page, name, value) {
  await page.locator(`#controls [name="${name}"]`).fill(String(value));
  return settle(page);
}

async function settle(page) {
  await new Promise((r) => setTimeout(r, 400));
  return ready(page);
}

// Every canvas matched by sel (in hostSel's shadow root when given), read back from its backing
// store: data-rows/-cols, backing and CSS size, number of distinct colours, share of the most
// common colour, share of opaque pixels, an FNV-1a hash of the pixels and a 5 x 5 grid of
// sampled RGBA values.
function inspectCanvases(target, sel, hostSel) {
  return target.evaluate((s, host) => {
    const root = host ? document.querySelector(host).shadowRoot : document;
    return Array.from(root.querySelectorAll(s)).map((c) => {
      const img = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const counts = new Map();
      let opaque = 0, hash = 2166136261;
      for (let i = 0; i < img.length; i += 4) {
        const rgb = (img[i] << 16) | (img[i + 1] << 8) | img[i + 2];
        counts.set(rgb, (counts.get(rgb) || 0) + 1);
        if (img[i + 3] === 255) opaque++;
        for (let k = 0; k < 4; k++) hash = Math.imul(hash ^ img[i + k], 16777619) >>> 0;
      }
      const n = img.length / 4, grid = [];
      for (let gy = 1; gy <= 5; gy++) for (let gx = 1; gx <= 5; gx++) {
        const x = Math.floor(c.width * gx / 6), y = Math.floor(c.height * gy / 6), i = (y * c.width + x) * 4;
        grid.push([img[i], img[i + 1], img[i + 2], img[i + 3]]);
      }
      const r = c.getBoundingClientRect();
      return { rows: +c.dataset.rows, cols: +c.dataset.cols, w: c.width, h: c.height, cssW: r.width, cssH: r.height,
        colours: counts.size, top: Math.max(0, ...counts.values()) / n, opaque: opaque / n,
        hash: hash.toString(16), grid };
    });
  }, sel, hostSel || null);
}

// A small HTTP server of its own for the blog fixture: blog.* from tests/browser/fixtures, the
// rest from web/, every HTML document with the given Content-Security-Policy header.
const TYPES = { html: 'text/html', css: 'text/css', js: 'text/javascript', svg: 'image/svg+xml' };
async function blogServer(env, csp) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname).slice(1);
    const file = path.normalize(/^blog(\.|-listener)/.test(rel) ? path.join(FIXTURES, rel) : path.join(WEB, rel));
    if (!(file.startsWith(FIXTURES + path.sep) || file.startsWith(WEB + path.sep)) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('not found');
    }
    const ext = rel.split('.').pop();
    res.writeHead(200, Object.assign({ 'Content-Type': (TYPES[ext] || 'application/octet-stream') + '; charset=utf-8', 'Cache-Control': 'no-store' },
      ext === 'html' ? { 'Content-Security-Policy': csp } : {}));
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve); });
  env.servers.push(server);
  return `http://127.0.0.1:${server.address().port}/`;
}

module.exports = { setup, guard, open, ready, setField, settle, inspectCanvases, blogServer, withTimeout,
  PREFS, ENV, WEB, FILE_BASE, FIREFOX };
