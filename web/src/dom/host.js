/* host.js - what the page (entries/page.js) and a single figure (dom/single.js) both write as
   hosts of figures around the one controller: the drawing context, a field's label, the note on
   a figure that shows older settings, and the controller's hooks for figures and the form. */
import * as colors from '../draw/colors.js';
import { PAGE_KEYS } from '../model/controller.js';
import { message, resolve as resolveLang, translator } from '../i18n/index.js';
import { resolve as resolveTheme } from './theme.js';

const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));

// ctl: the controller (model/controller.js). No DOM: Node tests build one too.
export function createHost(ctl) {
  const lang = () => resolveLang(ctl.state.lang);
  const t = (k, v) => translator(lang())(k, v);
  const label = (k) => t(k === 'engine' ? 'lbl_engine' : 'ctl_' + k);

  // The context figures are drawn with (figure-view.js): the latest answer's settings.
  function ctx() {
    return { t, lang: lang(), scheme: colors.scheme(resolveTheme(ctl.state.theme)), state: ctl.shown(),
      set: ctl.set, message: (e) => message(t, e) };
  }

  // The context of a drawing as it is: its own settings, the current language and colours.
  function drawnCtx(d) {
    const c = ctx();
    return Object.assign(c, { state: Object.assign({}, d.state, pick(c.state, PAGE_KEYS)) });
  }

  // '' for a figure reading these settings that shows the latest ones; else why it does not:
  // the bad ones among them, or (none bad now) an answer that has not drawn it yet.
  function staleNote(reads) {
    const bad = ctl.stale(reads) ? ctl.badOf(reads) : null;
    return !bad ? '' : bad.length ? t('figStale', { fields: bad.map(label).join(t('listSep')) }) : t('figUpdating');
  }

  return { lang, t, label, ctx, drawnCtx, staleNote,
    // Every message as { key, text }: a figure shows those of its own fields.
    texts: (errors) => errors.map((e) => ({ key: e.key, text: message(t, e) })),
    // For figure-view.js: a figure's own controls apply at once.
    figure: { set: ctl.set, setRaw: (k, raw) => ctl.setRaw(k, raw, true) },
    // For controls.js: typed text waits for a pause unless `now`.
    form: { get state() { return ctl.state; }, setRaw: (k, raw, input, now) => ctl.setRaw(k, raw, now),
      flush: ctl.flush, setMany: ctl.set } };
}
