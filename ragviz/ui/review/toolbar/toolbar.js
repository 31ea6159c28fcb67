// The Review page's navigation bar (drawn by ragviz/ui/review/toolbar.py through st.components.v2):
// Previous / Next / Next unreviewed / Accept / Undo / Reset as native buttons, and the line saying what Z undoes.
// A click, or a button's shortcut pressed on the page, goes back to Python as the trigger "press" ({id}).
//
// Shortcuts as Streamlit's own: a key typed into a text field (input, textarea, select, contenteditable) or pressed
// with Ctrl / Alt / Meta is not a shortcut. Every text from data enters the page through textContent or
// setAttribute: nothing is parsed as HTML.
//
// Loaded early too (toolbar.py's early_html: the page's first element asks for this script long before Streamlit
// mounts the bar): it then listens for the bar's shortcuts before the bar is drawn, queues those pressed meanwhile
// and presses them once it is (a J pressed as the page opens is not lost).

const bar = { data: null, send: null, listening: false, queued: [] };
const QUEUED_MAX = 8;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function typing(e) {
  for (const t of e.composedPath ? e.composedPath() : [e.target]) {
    if (!t || !t.tagName) continue;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName) || t.isContentEditable) return true;
  }
  return false;
}

// The enabled button of the drawn bar whose shortcut is *key*, else null (also when the bar is not on this page).
function shortcutButton(key) {
  if (!bar.data) return null;
  const button = bar.data.buttons.find((b) => b.shortcut && b.shortcut.toUpperCase() === key);
  if (!button || button.disabled) return null;
  const node = document.querySelector(`.rv-toolbar button[data-id="${button.id}"]`);
  return node && node.isConnected ? button : null;  // not connected: another page of the app
}

// The page's early element (toolbar.py's early_html), while on the Review page.
function earlyElement() {
  return document.querySelector("script[data-rv-early]");
}

// The early element is there but the bar's buttons are not drawn yet: the Review page is still opening.
function waiting() {
  return !!earlyElement() && !document.querySelector(".rv-toolbar button[data-id]");
}

function onKey(e) {
  if (e.defaultPrevented) return;
  if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || typing(e)) return;
  if (typeof e.key !== "string" || e.key.length !== 1) return;
  const key = e.key.toUpperCase();
  if (waiting()) {
    const shortcuts = (earlyElement().dataset.shortcuts || "").toUpperCase();
    if (!shortcuts.includes(key) || bar.queued.length >= QUEUED_MAX) return;
    e.preventDefault();
    bar.queued.push(key);
    return;
  }
  const button = shortcutButton(key);
  if (!button) return;
  e.preventDefault();
  bar.send(button.id);
}

function listen() {
  if (!bar.listening) {
    document.addEventListener("keydown", onKey);
    bar.listening = true;
  }
}

// The keys pressed while the page opened, pressed now that the bar is drawn (one that is disabled now: dropped).
function pressQueued() {
  const keys = bar.queued.splice(0);
  for (const key of keys) {
    const button = shortcutButton(key);
    if (button) bar.send(button.id);
  }
}

function button(b, old) {
  let node = old.get(b.id);
  old.delete(b.id);
  if (!node) {
    node = el("button");
    node.type = "button";
    node.dataset.id = b.id;
    node.addEventListener("click", () => {
      if (!node.disabled) bar.send(node.dataset.id);
    });
  }
  node.className = "rv-tb" + (b.primary ? " rv-tb-primary" : "");
  node.disabled = !!b.disabled;
  if (b.help) node.title = b.help;
  else node.removeAttribute("title");
  const drawn = b.label + "\u0000" + (b.short || "") + "\u0000" + (b.shortcut || "");
  if (node.dataset.drawn === drawn) return node;  // the same label and key as drawn: nothing to rebuild
  node.dataset.drawn = drawn;
  const label = el("span", "rv-tb-label");
  if (b.short) {
    // the whole label, or the short one where the bar is narrow (toolbar.css); the button's name is the whole one
    label.replaceChildren(el("span", "rv-tb-long", b.label), el("span", "rv-tb-short", b.short));
    node.setAttribute("aria-label", b.label);
  } else {
    label.textContent = b.label;
    node.removeAttribute("aria-label");
  }
  if (b.shortcut) {
    node.setAttribute("aria-keyshortcuts", b.shortcut);
    const kbd = el("kbd", "rv-tb-kbd", b.shortcut);
    kbd.setAttribute("aria-label", "Shortcut " + b.shortcut);
    node.replaceChildren(label, kbd);
  } else {
    node.removeAttribute("aria-keyshortcuts");
    node.replaceChildren(label);
  }
  return node;
}

// Put *nodes* in *box* in order, moving only what is out of place (a moved node loses the focus).
function arrange(box, nodes) {
  nodes.forEach((n, i) => {
    if (box.children[i] !== n) box.insertBefore(n, box.children[i] || null);
  });
  while (box.children.length > nodes.length) box.lastChild.remove();
}

// One row: the buttons with a shortcut and Reset, then a tail (what Z undoes, cut with "…" where room is short, and
// at the right end the actions used now and then: Normalize, Re-judge, in short words where the bar is narrow) that
// wraps to a row of its own only where the window is narrower still. Buttons are
// updated in place (one node per id across redraws): one focused with the keyboard keeps the focus as the page
// moves on, as a Streamlit button does.
function draw(root, data) {
  let row = root.querySelector(":scope > .rv-toolbar-row");
  if (!row) {
    row = el("div", "rv-toolbar-row");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", "Example navigation");
    root.replaceChildren(row);
  }
  let tail = row.querySelector(":scope > .rv-toolbar-tail");
  if (!tail) tail = el("div", "rv-toolbar-tail");
  let hint = tail.querySelector(":scope > .rv-undo-hint");
  if (!hint) hint = el("div", "rv-undo-hint");
  hint.textContent = data.hint === null || data.hint === undefined ? "" : data.hint;
  hint.title = hint.textContent;  // cut with "…" where the row is narrow: the whole line on hover
  const old = new Map([...row.querySelectorAll("button[data-id]")].map((n) => [n.dataset.id, n]));
  const main = data.buttons.filter((b) => !b.aside).map((b) => button(b, old));
  const aside = data.buttons.filter((b) => b.aside).map((b) => button(b, old));
  if (aside.length) aside[0].classList.add("rv-tb-aside");
  arrange(tail, hint.textContent ? [hint, ...aside] : aside);
  arrange(row, tail.children.length ? [...main, tail] : main);
}

// A move (the example's fragment ran alone): the URL names the example shown, as a new history entry (Back returns to
// the example before; Streamlit reruns the page with the URL it went to). Set here, where a query-parameter change
// from Python would cost a message and a redraw of the whole app on every J (issue 38). The other parameters stay.
function showInUrl(uid) {
  const url = new URL(window.location.href);
  if (url.searchParams.get("uid") === uid) return;
  url.searchParams.set("uid", uid);
  window.history.pushState({}, "", url);
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(":scope > .rv-toolbar");
  if (!root) {
    root = el("div", "rv-toolbar");
    parentElement.append(root);
  }
  bar.data = data;
  // the browser tab says where the person is: set here on a move, where st.set_page_config would cost a message
  if (typeof data.title === "string" && data.title && document.title !== data.title) document.title = data.title;
  if (typeof data.uid === "string" && data.uid) showInUrl(data.uid);
  bar.send = (id) => setTriggerValue("press", { id });
  draw(root, data);
  listen();
  if (bar.queued.length) pressQueued();
}

// Asked for by the page's early element: listen from now on.
if (earlyElement()) listen();
