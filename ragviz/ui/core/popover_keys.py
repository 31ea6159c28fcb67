"""Keyboard for Streamlit's popovers. A popover's body is drawn at the end of the page, so after Enter on its button
the next Tab went through the whole page before it reached the controls inside (the Review sidebar's Queue and filters
waited in one, before they moved to a disclosure whose panel is drawn right under its button: issue 38). This page-wide
script moves the focus into a popover when it opens, and back to its button on Escape or on a Tab past its first or
last control. It also gives a disclosure's button (:mod:`ragviz.ui.core.disclosure`) ``aria-expanded``, as its chevron
says, scrolls the panel it opens into view (under the button, it may start past the window's edge), and gives the
focus back to a button that the run after its press drew anew (the presentation button, filled while on)."""

from __future__ import annotations

__all__ = ["POPOVER_KEYS_HTML"]

_CODE = """(() => {
  if (window.rvPopoverKeys) return;
  window.rvPopoverKeys = true;
  const FOCUSABLE = 'input:not([disabled]),button:not([disabled]),select,textarea,a[href],[tabindex]:not([tabindex="-1"])';
  const body = () => document.querySelector('[data-testid="stPopoverBody"]');
  const controls = b => [...b.querySelectorAll(FOCUSABLE)].filter(
    e => e.getAttribute('tabindex') !== '-1' && e.getClientRects().length > 0);
  let opener = null;
  /* a disclosure's button (ragviz.ui.core.disclosure) says whether it is open as its chevron does */
  const DISCLOSE = '.stElementContainer[class*="-rv_disclose"] button';
  const shown = new Map();  /* a disclosure's element key: whether it was open when last looked at */
  const expanded = () => {
    for (const b of document.querySelectorAll(DISCLOSE)) {
      const icon = b.querySelector('[data-testid="stIconMaterial"]');
      const open = String(!!icon && icon.textContent === 'expand_less');
      if (b.getAttribute('aria-expanded') !== open) b.setAttribute('aria-expanded', open);
      const own = b.closest('.stElementContainer');
      const key = own && [...own.classList].find(c => c.startsWith('st-key-'));
      if (key && shown.get(key) === 'false' && open === 'true') reveal(key);
      if (key) shown.set(key, open);
    }
  };
  /* a panel opened under its button past the window's edge (the Review sidebar's Queue at 1280x800) is scrolled into
     view, its button kept in sight; again while its widgets mount (their scripts arrive one by one) */
  const reveal = key => {
    let times = 0;
    const step = () => {
      const own = document.querySelector(`.stElementContainer.${CSS.escape(key)}`);
      const panel = own && own.nextElementSibling;
      if (panel) {
        panel.scrollIntoView({block: 'nearest'});
        own.scrollIntoView({block: 'nearest'});
      }
      if (++times < 5) setTimeout(step, 300);
    };
    step();
  };
  /* a button the run after its press draws as another kind (the presentation button turns primary) is a new
     element: the focus, dropped to the page, goes back to it */
  let pressed = null;  /* until the person does anything else (or a minute: a busy server may take seconds to answer) */
  document.addEventListener('click', e => {
    const held = e.target.closest && e.target.closest('[data-testid="stSidebar"] [class*="st-key-"]:has(> * > button)');
    pressed = held ? {key: [...held.classList].find(c => c.startsWith('st-key-')), at: Date.now()} : null;
  }, true);
  for (const kind of ['mousedown', 'keydown']) document.addEventListener(kind, () => { pressed = null; }, true);
  const refocus = () => {
    if (!pressed || Date.now() - pressed.at > 60000) { pressed = null; return; }
    if (document.activeElement && document.activeElement !== document.body) return;
    const again = document.querySelector(`.${CSS.escape(pressed.key)} button`);
    if (again) { again.focus(); pressed = null; }
  };
  /* a few times a second, not on every change of the page: an observer of the whole page would be called for every
     node a J replaces */
  expanded();
  setInterval(() => { expanded(); refocus(); }, 200);
  document.addEventListener('click', e => {
    const button = e.target.closest && e.target.closest('[data-testid="stPopoverButton"]');
    if (!button) return;
    opener = button;
    let frames = 0, still = 0, ours = null;
    /* the body mounts after React's render and each widget after its script arrives (a radio may come after a
       toggle drawn below it): keep the focus on the first control until the body has been still for a while,
       unless the person moved it */
    const into = () => {
      frames += 1;
      const open = button.getAttribute('aria-expanded') === 'true';
      if (!open && frames > 2) return;
      const here = document.activeElement;
      if (ours !== null && here !== ours && here !== document.body) return;  /* the body: a redraw dropped it */
      const b = open && body();
      const all = b ? controls(b) : [];  /* a label's help button comes before its control: the control first */
      const first = all.find(e => !(e.getAttribute('aria-label') || '').startsWith('Help for ')) || all[0];
      /* a widget whose script is still on its way (its skeleton) may come before the one focused: not still yet */
      const loading = !!b && !!b.querySelector('[data-testid="stSkeleton"]');
      if (first && first !== here) { first.focus(); ours = first; still = 0; } else if (first && !loading) still += 1;
      if (still < 20 && frames < 300) requestAnimationFrame(into);
    };
    requestAnimationFrame(into);
  }, true);
  document.addEventListener('keydown', e => {
    const b = body();
    if (!b || !opener || !opener.isConnected || !b.contains(document.activeElement)) return;
    if (e.key === 'Escape') {
      const back = opener;
      setTimeout(() => back.isConnected && back.focus(), 0);
      return;
    }
    if (e.key !== 'Tab') return;
    const all = controls(b);
    if (document.activeElement === (e.shiftKey ? all[0] : all[all.length - 1])) {
      e.preventDefault();
      opener.focus();
    }
  }, true);
})();"""

#: The script, hidden with its element (app.py draws it with the theme's rules on every page; constant text of
#: ragviz's own, nothing from data).
POPOVER_KEYS_HTML = (
    f"<script data-rv-popover-keys>{_CODE}</script>"
    '<style>[data-testid="stElementContainer"]:has(script[data-rv-popover-keys]){display:none}</style>'
)
