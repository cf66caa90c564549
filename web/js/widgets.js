/* widgets.js - small controls that live inside figures: the row of token buttons (per-token rows,
   position-wise experiment). Text goes in with textContent only: tokens are user text. */
(function (ui) {
  'use strict';
  var el = ui.table.el;

  // Token buttons, rebuilt only when the tokens change so keyboard focus survives a redraw.
  function tokenBar(root, label) {
    var bar = el('div', 'tokens');
    bar.setAttribute('role', 'group');
    root.appendChild(bar);
    var key = null;
    bar.addEventListener('keydown', function (e) {
      var b = e.target.closest && e.target.closest('button');
      if (!b) return;
      var next = e.key === 'ArrowRight' ? b.nextElementSibling : e.key === 'ArrowLeft' ? b.previousElementSibling : null;
      if (next) { e.preventDefault(); next.focus(); next.click(); }
    });
    return function update(tokens, sel, onPick, t) {
      bar.setAttribute('aria-label', t(label));
      var k = tokens.join('\u0000');
      if (k !== key) {
        key = k;
        bar.textContent = '';
        tokens.forEach(function (tok, i) {
          var b = el('button', 'tok', tok);
          b.type = 'button';
          b.dataset.index = i;
          b.addEventListener('click', function () { onPick.current(i); });
          bar.appendChild(b);
        });
      }
      Array.prototype.forEach.call(bar.children, function (b, i) {
        b.setAttribute('aria-pressed', String(i === sel));
        b.title = t('tokenTitle', { i: i, tok: tokens[i] });
      });
    };
  }

  ui.widgets = { tokenBar: tokenBar };
})(window.BlockLensUI = window.BlockLensUI || {});
