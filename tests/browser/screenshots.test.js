/* screenshots.test.js - keeps screenshots of the default view (中文 and English, dark mode, 360 px)
   in tests/artifacts/ for people to look at; checks each is a real, full-width PNG. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { launch, capture, DEFAULT_SHOTS } = require('../../tools/screenshot.js');

const OUT = path.resolve(__dirname, '..', 'artifacts');

test('default_view_screenshots_in_both_languages_dark_and_narrow', async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const b = await launch();
  try {
    for (const shot of DEFAULT_SHOTS) {
      const file = await capture(b.browser, OUT, shot);
      const png = fs.readFileSync(file);
      assert.strictEqual(png.toString('latin1', 1, 4), 'PNG', shot.name);
      const width = png.readUInt32BE(16), height = png.readUInt32BE(20);
      assert.strictEqual(width, (shot.width || 1440) * (shot.dpr || 1), `${shot.name} width`);
      assert.ok(height > 2000, `${shot.name} is the full page (${height} px tall)`);
    }
  } finally { await b.close(); }
});
