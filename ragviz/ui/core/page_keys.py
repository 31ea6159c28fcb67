"""The page's keyboard and focus script for ragviz's disclosures and redrawn buttons (app.py draws it on every page
with the theme's rules). It gives a disclosure's button (:mod:`ragviz.ui.core.disclosure`) ``aria-expanded``, as its
chevron says; scrolls the panel it opens into view (under the button, it may start past the window's edge: the Review
sidebar's Queue at 1280x800) until the person scrolls, clicks or types; and gives the focus back to a button that the
run after its press drew anew (the presentation button, filled while on). It once moved the focus into Streamlit's
popovers, whose body is drawn at the end of the page; ragviz has none since the Queue became a disclosure (issue
38)."""

from __future__ import annotations

__all__ = ["PAGE_KEYS_HTML"]

_CODE = """(() => {
  if (window.rvPageKeys) return;
  window.rvPageKeys = true;
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
     view, its button kept in sight; again while its widgets mount (their scripts arrive one by one), until the person
     scrolls, clicks or types (the page is theirs then: a scroll back up was undone) */
  const USED = ['wheel', 'touchmove', 'pointerdown', 'keydown'];
  const reveal = key => {
    let times = 0;
    let used = false;
    const use = () => { used = true; };
    for (const kind of USED) document.addEventListener(kind, use, {capture: true, passive: true});
    const step = () => {
      const own = used ? null : document.querySelector(`.stElementContainer.${CSS.escape(key)}`);
      const panel = own && own.nextElementSibling;
      if (panel) {
        panel.scrollIntoView({block: 'nearest'});
        own.scrollIntoView({block: 'nearest'});
      }
      if (!used && ++times < 5) setTimeout(step, 300);
      else for (const kind of USED) document.removeEventListener(kind, use, {capture: true});
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
})();"""

#: The script, hidden with its element (app.py draws it with the theme's rules on every page; constant text of
#: ragviz's own, nothing from data), by a rule of fixed depth: ``:has()`` over every descendant would be re-checked for
#: each node a redraw inserts anywhere on the page.
PAGE_KEYS_HTML = (
    f"<script data-rv-page-keys>{_CODE}</script>"
    '<style>[data-testid="stElementContainer"]:has(> .stHtml > script[data-rv-page-keys]){display:none}</style>'
)
