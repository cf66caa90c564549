/* phone.test.js - the page in a reader's hands at 390 x 844 with touch (and at 1280 px): a
   heatmap's tooltip goes away on a scroll, a tap elsewhere and Escape; the table of contents is
   on the first screen and the quick-settings bar changes a setting from the fifth figure
   without a trip to the top; links to figures keep the settings; text fields are 16 px (iOS
   zooms into smaller ones) and press targets at least 24 px (WCAG 2.2); the parameter table
   fits at 1280 px in both languages and, on a phone, says that it scrolls. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, ready, settle, FILE_URL, WEB } = require('./helpers.js');
const { VIEWS } = require(require('path').join(WEB, 'src', 'figures', 'index.js'));

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };
const tipShown = (page) => page.evaluate(() => { const t = document.querySelector('.bl-tip'); return !!t && !t.hidden && t.textContent.length > 0; });
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// Centre of cell (r, c) of a heatmap canvas, relative to the canvas (for tap/hover positions).
async function cellPos(page, sel, r, c) {
  return page.$eval(sel, (cv, rc) => {
    const d = cv.dataset;
    return { x: +d.plotX + (rc[1] + 0.5) * +d.cellW, y: +d.plotY + (rc[0] + 0.5) * +d.cellH };
  }, [r, c]);
}

test('tooltip_of_a_tapped_cell_goes_away_on_scroll_and_on_a_tap_elsewhere', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en', PHONE);
  try {
    const canvas = '#fig-activation canvas.hm';
    await page.$eval(canvas, (c) => c.scrollIntoView({ block: 'center' }));
    await frames(page);   // let the scroll event pass before the tap (it hides tooltips)
    const at = await cellPos(page, canvas, 1, 2);
    const tap = async () => {
      await page.tap(canvas, { position: at });
      assert.ok(await tipShown(page), 'a tapped cell shows its value');
    };

    await tap();
    await page.evaluate(() => window.scrollBy(0, 120));
    await frames(page);
    assert.ok(!(await tipShown(page)), 'scrolling the page hides the tooltip');

    await page.$eval(canvas, (c) => c.scrollIntoView({ block: 'center' }));
    await frames(page);
    await tap();
    await page.tap('#s-activation .explain p');
    assert.ok(!(await tipShown(page)), 'a tap elsewhere hides the tooltip');
    // Safari does not focus a tapped canvas, so no blur ends its tooltip: a click that leaves
    // the focus where it was stands for that tap.
    await page.$eval(canvas, (c, p) => {
      const r = c.getBoundingClientRect();
      c.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: r.left + p.x, clientY: r.top + p.y }));
    }, at);
    assert.ok(await tipShown(page), 'the click showed the value');
    assert.notStrictEqual(await page.evaluate(() => document.activeElement.tagName), 'CANVAS');
    await page.tap('#s-activation .explain p');
    assert.ok(!(await tipShown(page)), 'a tap elsewhere hides a tooltip whose heatmap never had focus');

    // A scroll inside any scroller (here the parameter table, sideways) counts too.
    await tap();
    await page.$eval('table.presets', (t) => { t.parentNode.scrollLeft = 80; });
    await frames(page);
    assert.ok(!(await tipShown(page)), 'scrolling the table hides the tooltip');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('escape_hides_a_hovered_cells_tooltip', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en', { viewport: { width: 1280, height: 800 } });
  try {
    const canvas = '#fig-activation canvas.hm';
    await page.$eval(canvas, (c) => c.scrollIntoView({ block: 'center' }));
    await frames(page);   // the scroll event (which hides tooltips) comes a frame later: let it pass first
    const at = await cellPos(page, canvas, 2, 3), box = await page.$eval(canvas, (c) => c.getBoundingClientRect().toJSON());
    await page.mouse.move(box.x + at.x, box.y + at.y);
    assert.ok(await tipShown(page), 'hovering a cell shows its value');
    assert.notStrictEqual(await page.evaluate(() => document.activeElement.tagName), 'CANVAS', 'the heatmap is only hovered');
    await page.keyboard.press('Escape');
    assert.ok(!(await tipShown(page)), 'Escape hides the tooltip');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('phone_shows_the_table_of_contents_on_the_first_screen', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=zh', PHONE);
  try {
    const links = await page.$$eval('nav.toc a', (as) => as.map((a) => {
      const r = a.getBoundingClientRect();
      return { text: a.textContent.trim(), top: r.top, bottom: r.bottom, h: r.height, visible: r.width > 0 && getComputedStyle(a).visibility !== 'hidden' };
    }));
    assert.strictEqual(links.length, VIEWS.length);
    for (const l of links) {
      assert.ok(l.visible && l.text, `link "${l.text}" is shown`);
      assert.ok(l.top >= 0 && l.bottom <= 844, `link "${l.text}" is on the first screen (${Math.round(l.top)}..${Math.round(l.bottom)})`);
    }
  } finally { await close(); }
});

test('from_a_figure_far_down_a_setting_changes_without_scrolling_to_the_top', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en', PHONE);
  try {
    await page.$eval('#s-positionwise', (s) => s.scrollIntoView());
    await frames(page);
    const y0 = await page.evaluate(() => scrollY);
    assert.ok(y0 > 3000, `the position-wise figure is far down (${y0} px)`);
    const bar = await page.$eval('#quickbar', (b) => b.getBoundingClientRect().toJSON());
    assert.ok(bar.top >= 0 && bar.bottom <= 844 && bar.height > 30 && bar.height < 120, `the bar is in view: ${JSON.stringify(bar)}`);
    assert.strictEqual(await page.textContent('.qb-menu-num'), (VIEWS.indexOf('positionwise') + 1) + ' / ' + VIEWS.length, 'the bar says which figure is on screen');

    // heads 2 -> 4 from the bar: the attention figure redraws with four heads, the URL and the
    // settings form follow, and the page has not moved to the top.
    await page.tap('#qb-heads');
    await page.fill('#qb-heads', '4');
    await settle(page);
    await ready(page, 'ready');
    assert.match(page.url(), /[#&]heads=4(&|$)/);
    assert.strictEqual(await page.inputValue('#ctl-heads'), '4', 'the settings form shows the new value');
    assert.strictEqual(await page.$$eval('#fig-attention .heads > .panel', (p) => p.length), 4);
    // (Figure 4 above grew by two heads; the browser keeps the reader where they were.)
    const top5 = await page.$eval('#s-positionwise', (s) => s.getBoundingClientRect().top);
    assert.ok(top5 > -400 && top5 < 844, `the position-wise figure is still on screen (top at ${Math.round(top5)} px)`);

    await page.selectOption('#qb-act', 'gelu');
    await settle(page);
    assert.match(page.url(), /[#&]act=gelu(&|$)/);
    await page.tap('#qb-causal');
    await settle(page);
    await ready(page, 'ready');
    assert.match(page.url(), /[#&]causal=1(&|$)/);
    assert.strictEqual(await page.isChecked('#ctl-causal'), true);

    // A bad value from the bar is said under the bar, and the field is marked.
    await page.fill('#qb-d', 'abc');
    await settle(page);
    assert.strictEqual(await page.getAttribute('#qb-d', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#qb-err'), /abc/);
    assert.ok(await page.isVisible('#qb-err'));
    await page.fill('#qb-d', '16');
    await settle(page);
    await ready(page, 'ready');
    assert.strictEqual(await page.getAttribute('#qb-d', 'aria-invalid'), null);
    assert.match(page.url(), /[#&]d=16(&|$)/);

    // The bar's menu goes to the last figure and keeps the settings.
    await page.tap('.qb-menu-btn');
    await page.tap('.qb-menu-list a[href="#s-paramsplit"]');
    await page.waitForFunction(() => { const r = document.getElementById('s-paramsplit').getBoundingClientRect(); return Math.abs(r.top - document.getElementById('quickbar').offsetHeight) < 30; }, null, { timeout: 5000 });
    assert.strictEqual(await page.evaluate(() => document.querySelector('.qb-menu').open), false, 'the menu closes after a pick');
    assert.match(page.url(), /[#&]heads=4&/, 'the settings stay in the URL');
    assert.strictEqual(await page.inputValue('#ctl-d'), '16');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('table_of_contents_and_skip_links_keep_the_settings', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&d=16&heads=4', { viewport: { width: 1280, height: 800 } });
  try {
    await page.click('nav.toc a[href="#s-attention"]');
    await page.waitForFunction(() => Math.abs(document.getElementById('s-attention').getBoundingClientRect().top) < 40, null, { timeout: 5000 });
    await page.waitForTimeout(300);
    assert.match(page.url(), /[#&]d=16&/);
    assert.match(page.url(), /lang=en/);
    assert.strictEqual(await page.inputValue('#ctl-d'), '16');
    assert.strictEqual(await page.isVisible('#quickbar'), false, 'no quick bar beside the settings column');
    // The skip link too.
    await page.evaluate(() => scrollTo(0, 0));
    await page.focus('.skip');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    assert.strictEqual(await page.evaluate(() => document.activeElement.id), 'figures', 'focus moves to the figures');
    assert.match(page.url(), /[#&]d=16&/);
    assert.strictEqual(await page.inputValue('#ctl-d'), '16');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// Every text field, select and press target that is on the page (details opened).
async function targets(page) {
  await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
  await frames(page);
  return page.evaluate(() => {
    const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
    const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '') + ' "' + (e.textContent || e.name || '').trim().slice(0, 20) + '"';
    const out = { fields: [], targets: [] };
    for (const e of document.querySelectorAll('input:not([type=checkbox]), select, textarea')) {
      if (shown(e)) out.fields.push({ name: name(e), font: parseFloat(getComputedStyle(e).fontSize) });
    }
    // Links inside running text are exempt (WCAG 2.5.8 "inline"); listed links are not.
    for (const e of document.querySelectorAll('button, summary, select, input, textarea, nav a, .qb-menu-list a')) {
      if (!shown(e) || e.closest('.skip')) continue;
      // A checkbox is pressed through its label too: the target is the two together.
      const box = e.type === 'checkbox' ? (e.closest('label') || document.querySelector(`label[for="${e.id}"]`)) : e;
      const r = e.getBoundingClientRect(), b = box.getBoundingClientRect();
      out.targets.push({ name: name(e), h: Math.max(r.height, b.height), w: Math.max(r.width, b.width) });
    }
    return out;
  });
}

test('phone_text_fields_are_16px_and_targets_at_least_24px', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en', PHONE);
  try {
    const t = await targets(page);
    assert.ok(t.fields.length >= 12, `fields found: ${t.fields.length}`);
    const small = t.fields.filter((f) => f.font < 16);
    assert.deepStrictEqual(small, [], 'text fields under 16 px (iOS zooms into them)');
    assert.ok(t.targets.length >= 40, `targets found: ${t.targets.length}`);
    const tiny = t.targets.filter((x) => x.h < 24 || x.w < 24);
    assert.deepStrictEqual(tiny, [], 'targets under 24 x 24 px');
  } finally { await close(); }
});

test('desktop_targets_at_least_24px', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=zh', { viewport: { width: 1280, height: 800 } });
  try {
    const t = await targets(page);
    assert.ok(t.targets.length >= 40, `targets found: ${t.targets.length}`);
    assert.deepStrictEqual(t.targets.filter((x) => x.h < 24 || x.w < 24), [], 'targets under 24 x 24 px');
  } finally { await close(); }
});

// The parameter table's scroller and its cue, as a reader would find them.
function tableState(page) {
  return page.$eval('table.presets', (t) => {
    const s = t.closest('.table-scroll'), cue = t.closest('.scroll-cue'), hint = cue && cue.querySelector('.scroll-hint');
    const hr = hint ? hint.getBoundingClientRect() : { width: 0, height: 0 }, frame = cue && cue.querySelector('.scroll-frame');
    return { sw: s.scrollWidth, cw: s.clientWidth, more: (cue && cue.dataset.more) || '', hint: !!hint && !hint.hidden && hr.height > 0 && hr.width > 0,
      hintText: hint ? hint.textContent : '', fade: frame ? getComputedStyle(frame, '::after').opacity : '',
      first: t.querySelector('tbody th').getBoundingClientRect().left - s.getBoundingClientRect().left };
  });
}

function fadeSettles(page, opacity) {
  return page.waitForFunction((o) => getComputedStyle(document.querySelector('.scroll-cue:has(table.presets) .scroll-frame'), '::after').opacity === o,
    opacity, { timeout: 5000 }).catch(() => assert.fail(`the right edge's fade never reaches opacity ${opacity}`));
}

for (const lang of ['en', 'zh']) {
  test(`parameter_table_fits_at_1280px_${lang}`, async () => {
    const { page, close } = await open(env.browser, FILE_URL, 'lang=' + lang, { viewport: { width: 1280, height: 800 } });
    try {
      await page.$eval('table.presets', (t) => t.scrollIntoView());
      await frames(page);
      const s = await tableState(page);
      assert.ok(s.sw <= s.cw, `every column shows: scrollWidth ${s.sw} <= clientWidth ${s.cw}`);
      assert.strictEqual(s.hint, false, 'no scroll hint on a table that fits');
      assert.strictEqual(s.more, '');
    } finally { await close(); }
  });

  test(`parameter_table_on_a_phone_fits_or_says_it_scrolls_${lang}`, async () => {
    const { page, close } = await open(env.browser, FILE_URL, 'lang=' + lang, PHONE);
    try {
      await page.$eval('table.presets', (t) => t.scrollIntoView({ block: 'center' }));
      await frames(page);
      const s = await tableState(page);
      if (s.sw <= s.cw) return assert.strictEqual(s.hint, false);
      assert.ok(s.hint && s.hintText.length > 4, `a visible line says the table scrolls ("${s.hintText}")`);
      assert.strictEqual(s.more, 'right');
      // The fade eases in over 0.15 s: wait for its end value (a timeout fails the test).
      await fadeSettles(page, '1');
      // Scrolled to the end: no more fade on the right, and the model names stay in view.
      await page.$eval('table.presets', (t) => { t.parentNode.scrollLeft = t.parentNode.scrollWidth; });
      await page.waitForFunction(() => document.querySelector('.scroll-cue:has(table.presets)').dataset.more === 'left', null, { timeout: 5000 });
      await fadeSettles(page, '0');
      const e = await tableState(page);
      assert.strictEqual(e.more, 'left');
      assert.ok(Math.abs(e.first) <= 1, `the model column stays put (${e.first} px from the edge)`);
    } finally { await close(); }
  });
}

// In trained mode the model fixes d_model, heads, the activation and the mask: the bar carries
// what can change there (weights, layer, the text), nothing disabled, and works from figure 11.
test('quick_bar_in_trained_mode_carries_what_can_change_and_nothing_disabled', async () => {
  const poem = '床前明月光，疑是地上霜。举头望明月，低头思故乡。';
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems&tokens=' + encodeURIComponent(poem), PHONE);
  const shown = () => page.$$eval('#quickbar .qb-fields .qb-field', (fs) => fs.filter((f) => f.offsetParent)
    .map((f) => { const i = f.querySelector('input, select'); return { id: i.id, disabled: i.disabled }; }));
  try {
    await page.$eval('#s-next', (s) => s.scrollIntoView());
    await frames(page);
    let fields = await shown();
    assert.deepStrictEqual(fields.map((x) => x.id), ['qb-weights', 'qb-layer', 'qb-tokens']);
    assert.ok(fields.every((x) => !x.disabled), JSON.stringify(fields));
    const bar = await page.$eval('#quickbar', (b) => b.getBoundingClientRect().toJSON());
    assert.ok(bar.top >= 0 && bar.height < 120, `the bar is in view and short: ${JSON.stringify(bar)}`);
    assert.strictEqual(await page.inputValue('#qb-tokens'), poem);
    // Layer 2 from the bar.
    await page.fill('#qb-layer', '2');
    await settle(page);
    await ready(page, 'ready');
    assert.match(await page.textContent('#weights-note'), /block 2 of 2/);
    assert.strictEqual(await page.inputValue('#ctl-layer'), '2', 'the form follows');
    // The text from the bar: figure 11 predicts after the new text.
    await page.fill('#qb-tokens', '白日依山尽');
    await settle(page);
    await ready(page, 'ready');
    assert.match(await page.textContent('#fig-next'), /白日依山尽/);
    assert.strictEqual(await page.inputValue('#ctl-tokens'), '白日依山尽');
    // Back to random weights from the bar: the sizes come back, enabled.
    await page.selectOption('#qb-weights', 'random');
    await settle(page);
    fields = await shown();
    assert.deepStrictEqual(fields.map((x) => x.id), ['qb-weights', 'qb-d', 'qb-heads', 'qb-act', 'qb-causal']);
    assert.ok(fields.every((x) => !x.disabled));
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// Figure 11 on a phone, for a folder of the SmolLM2 shape (30 layers; tools/shots.js's synthetic
// folder, with whole-word pieces as a real vocabulary has) and a text of one long word: the page
// does not scroll sideways, the headline wraps the quoted text, and no piece runs into its bar.
test('phone_next_token_figure_of_a_30_layer_model_fits_390px_in_both_languages', async () => {
  const { manyHeadsFolder } = require('../../tools/shots.js');
  const dir = manyHeadsFolder(14, 30, { longPieces: true });
  try {
    for (const lang of ['en', 'zh']) {
      const { page, log, close } = await open(env.browser, FILE_URL, 'lang=' + lang, PHONE);
      try {
        await page.setInputFiles('#open-dir-input', dir);
        await page.waitForFunction(() => document.body.dataset.open && document.body.dataset.open !== 'opening', null,
          { timeout: 60000 });
        assert.strictEqual(await page.evaluate(() => document.body.dataset.open), 'opened');
        await page.fill('#ctl-tokens', 'Onceuponatime'.repeat(4));
        await page.waitForTimeout(400);
        await ready(page);
        await page.waitForFunction(() => document.querySelector('#fig-next').dataset.trained === 'model', null, { timeout: 30000 });
        const r = await page.evaluate(() => {
          const fig = document.getElementById('fig-next'), right = fig.getBoundingClientRect().right;
          const wide = Array.from(fig.querySelectorAll('*')).filter((e) => e.offsetParent && getComputedStyle(e).overflowX === 'visible' &&
            (e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > right + 0.5)).map((e) => e.tagName + '.' + e.className);
          const items = Array.from(fig.querySelectorAll('.next-item'), (b) => ({ ch: b.querySelector('.next-ch').textContent,
            chRight: b.querySelector('.next-ch').getBoundingClientRect().right, barLeft: b.querySelector('.next-bar').getBoundingClientRect().left }));
          return { sw: document.documentElement.scrollWidth, wide, items };
        });
        assert.strictEqual(r.sw, 390, lang + ': the page scrolls sideways');
        assert.deepStrictEqual(r.wide, [], lang + ': wider than their box or the figure');
        assert.strictEqual(r.items.length, 10);
        assert.ok(r.items.some((it) => it.ch.length > 8), lang + ': some whole-word piece is in the list: ' + r.items.map((it) => it.ch));
        assert.deepStrictEqual(r.items.filter((it) => it.chRight > it.barLeft), [], lang + ': pieces running into their bars');
        assert.deepStrictEqual(log.errors, []);
      } finally { await close(); }
    }
  } finally { require('fs').rmSync(dir, { recursive: true, force: true }); }
});
