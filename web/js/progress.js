/* progress.js - "Computing… 0.8 s · attention" with a bar, shown when a computation has run
   for a moment (quick ones never flash it) and updated while it runs. Its strings live here
   (both languages) because only this indicator uses them. */
(function (ui) {
  'use strict';
  var DELAY = 250, TICK = 100;   // ms before it appears; how often the seconds move

  ui.i18n.add('en', { progress_computing: 'Computing… {s} s', progress_weights: 'drawing the weights',
    progress_ffn: 'feed-forward', progress_attn: 'attention', progress_pert: 'position-wise experiment',
    progress_split: 'parameter counts', progress_presets: 'parameter counts' });
  ui.i18n.add('zh', { progress_computing: '计算中… {s} 秒', progress_weights: '生成权重',
    progress_ffn: '前馈网络', progress_attn: '注意力', progress_pert: '逐位置实验',
    progress_split: '参数统计', progress_presets: '参数统计' });

  // before: the element it is inserted ahead of; t: () => the page's translate function.
  function mount(before, t) {
    var box = document.createElement('div'), bar = document.createElement('progress'), text = document.createElement('span');
    box.id = 'progress';
    box.className = 'fig-note progress-note';
    box.setAttribute('role', 'status');
    box.hidden = true;
    bar.max = 1;
    box.appendChild(bar);
    box.appendChild(document.createTextNode(' '));
    box.appendChild(text);
    before.parentNode.insertBefore(box, before);

    var t0 = 0, timer = 0, info = null;

    function draw() {
      var s = ((Date.now() - t0) / 1000).toFixed(1), tr = t();
      text.textContent = tr('progress_computing', { s: s }) + (info ? ' · ' + tr('progress_' + info.stage) : '');
      if (info) bar.value = info.fraction; else bar.removeAttribute('value');
      box.dataset.stage = info ? info.stage : '';
      box.hidden = false;
    }

    // A new computation: the clock restarts only if none was showing.
    function start() {
      if (timer) return;
      t0 = Date.now();
      info = null;
      timer = setInterval(function () { if (Date.now() - t0 >= DELAY) draw(); }, TICK);
    }

    function update(next) {
      info = next;
      if (!box.hidden) draw();
    }

    function stop() {
      clearInterval(timer);
      timer = 0;
      box.hidden = true;
    }

    return { start: start, update: update, stop: stop, root: box };
  }

  ui.progress = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
