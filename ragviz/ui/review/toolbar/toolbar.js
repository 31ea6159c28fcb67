// The Review page's navigation bar (drawn by ragviz/ui/review/toolbar.py through st.components.v2):
// Previous / Next / Next unreviewed / Accept / Undo / Reset as native buttons, and the line saying what Z undoes.
// A click, or a button's shortcut pressed on the page, goes back to Python as the trigger "press" ({id}).
//
// Shortcuts as Streamlit's own: a key typed into a text field (input, textarea, select, contenteditable) or pressed
// with Ctrl / Alt / Meta is not a shortcut. Every text from data enters the page through textContent or
// setAttribute: nothing is parsed as HTML.

const bar = { data: null, send: null, listening: false };

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

function onKey(e) {
  if (!bar.data || e.defaultPrevented) return;
  if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || typing(e)) return;
  if (typeof e.key !== "string" || e.key.length !== 1) return;
  const key = e.key.toUpperCase();
  const button = bar.data.buttons.find((b) => b.shortcut && b.shortcut.toUpperCase() === key);
  if (!button || button.disabled) return;
  const node = document.querySelector(`.rv-toolbar button[data-id="${button.id}"]`);
  if (!node || !node.isConnected) return;  // the bar is not on this page (another page of the app)
  e.preventDefault();
  bar.send(button.id);
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
  const drawn = b.label + "\u0000" + (b.shortcut || "");
  if (node.dataset.drawn === drawn) return node;  // the same label and key as drawn: nothing to rebuild
  node.dataset.drawn = drawn;
  const label = el("span", "rv-tb-label", b.label);
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

// One row: the buttons with a shortcut and Reset, then a tail (what Z undoes, and at the right end the actions
// used now and then: Normalize, Re-judge) that wraps to a row of its own where the window is narrow. Buttons are
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
  const old = new Map([...row.querySelectorAll("button[data-id]")].map((n) => [n.dataset.id, n]));
  const main = data.buttons.filter((b) => !b.aside).map((b) => button(b, old));
  const aside = data.buttons.filter((b) => b.aside).map((b) => button(b, old));
  if (aside.length) aside[0].classList.add("rv-tb-aside");
  arrange(tail, hint.textContent ? [hint, ...aside] : aside);
  arrange(row, tail.children.length ? [...main, tail] : main);
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
  bar.send = (id) => setTriggerValue("press", { id });
  draw(root, data);
  if (!bar.listening) {
    document.addEventListener("keydown", onKey);
    bar.listening = true;
  }
}
