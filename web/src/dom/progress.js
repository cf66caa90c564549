/* progress.js - "Computing… 0.8 s · attention" with a bar, shown when a computation has run
   for a moment (quick ones never flash it) and updated while it runs. */
const DELAY = 250, TICK = 100;   // ms before it appears; how often the seconds move


// before: the element it is inserted ahead of; t: () => the page's translate function.
function mount(before, t) {
  const box = document.createElement('div'), bar = document.createElement('progress');
  const text = document.createElement('span');
  box.id = 'progress';
  box.className = 'fig-note progress-note';
  box.setAttribute('role', 'status');
  box.hidden = true;
  bar.max = 1;
  box.appendChild(bar);
  box.appendChild(document.createTextNode(' '));
  box.appendChild(text);
  before.parentNode.insertBefore(box, before);

  let t0 = 0, timer = 0, info = null;

  function draw() {
    const s = ((Date.now() - t0) / 1000).toFixed(1), tr = t();
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

export { mount };
