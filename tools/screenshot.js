#!/usr/bin/env node
/* tools/screenshot.js - headless screenshots of the page with Debian's chromium (playwright-core).
   Usage: node tools/screenshot.js [outDir] [--hash "lang=en&..."] [--width 1440] [--theme dark]
   With no options it writes the default view in both languages, dark mode and 360 px wide. */
'use strict';
const fs = require('fs');
const path = require('path');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGE = 'file://' + path.resolve(__dirname, '..', 'web', 'index.html');

// One browser; playwright gives every launch() a fresh temporary profile and removes it on close.
async function launch() {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
}

// shot: { name, hash, width, height, scheme, dpr, fullPage }
async function capture(browser, outDir, shot) {
  const ctx = await browser.newContext({ viewport: { width: shot.width || 1440, height: shot.height || 900 },
    deviceScaleFactor: shot.dpr || 1, colorScheme: shot.scheme || 'light' });
  const page = await ctx.newPage();
  await page.goto(PAGE + (shot.hash ? '#' + shot.hash : ''));
  await page.waitForSelector('body[data-status=ready], body[data-status=error]', { timeout: 30000 });
  await page.waitForTimeout(200);
  const file = path.join(outDir, shot.name + '.png');
  await page.screenshot({ path: file, fullPage: shot.fullPage !== false });
  await ctx.close();
  return file;
}

const DEFAULT_SHOTS = [
  { name: 'default-zh-1440', hash: 'lang=zh' },
  { name: 'default-en-1440', hash: 'lang=en' },
  { name: 'default-zh-1440-dark', hash: 'lang=zh&theme=dark', scheme: 'dark' },
  { name: 'default-en-360', hash: 'lang=en', width: 360, height: 740, dpr: 2 },
  { name: 'default-zh-360-dark', hash: 'lang=zh', width: 360, height: 740, dpr: 2, scheme: 'dark' }
];

async function main() {
  const args = process.argv.slice(2);
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : undefined; };
  const hash = opt('--hash'), width = opt('--width'), theme = opt('--theme'), name = opt('--name');
  const outDir = path.resolve(args[0] || path.join(__dirname, '..', 'tests', 'artifacts'));
  fs.mkdirSync(outDir, { recursive: true });
  const shots = hash !== undefined || width || theme
    ? [{ name: name || 'shot', hash: hash || '', width: Number(width) || 1440, scheme: theme === 'dark' ? 'dark' : 'light' }]
    : DEFAULT_SHOTS;
  const b = await launch();
  try {
    for (const s of shots) console.log(await capture(b.browser, outDir, s));
  } finally {
    await b.close();
  }
}

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
module.exports = { launch, capture, DEFAULT_SHOTS, CHROMIUM_ARGS, PAGE };
