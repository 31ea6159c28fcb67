// The Review page's text as its editor (drawn by ragviz/ui/review/sentence_editor.py through st.components.v2).
//
// data.kind "context": the documents, folded to their labelled sentences; a click (or Enter / Space on
// a focused sentence) moves a sentence's label one step round none -> relevant -> relevant+utilized ->
// utilized -> none. data.kind "response": the response; a click selects a sentence. Under it the selected
// sentence's explanation and, when editing (data.controls), its verdict, note and supporting keys.
// Python records the actions through the store.
//
// data.kind "toolbar", or data.bar above a response: the page's navigation bar (drawn here, in the text's own
// element, so a J sends one delta and the browser redraws Streamlit's app once where it was two, issue 38).
// Each action goes back to Python as the trigger "edit", each press of the bar as the trigger "press".
//
// Every text from data enters the page through textContent or setAttribute: nothing from data is
// ever parsed as HTML.
//
// One module, no import (Streamlit serves it as a file, or inline as a blob URL where a relative import would
// not resolve). Loaded early too (toolbar.py's early_html: the Review page's first element asks for this script
// long before Streamlit mounts the editor): it then listens for the bar's shortcuts, queues those pressed meanwhile
// and presses them once the bar is drawn (a J pressed as the page opens is not lost).

const CYCLE = ["neither", "relevant", "both", "utilized"];
const memory = { open: new Map(), lastUid: {}, focus: null, nonce: 0, scroll: new Map(), stops: new Map() };

// A pane keeps its scroll position per example across redraws (even when Streamlit remounts it). A new pane is at
// its top already; a position to restore is set just before the next frame, where the browser lays the page out
// anyway (set now, it would force a layout of the half-built page in the middle of the redraw: 11 ms of a J, issue 38).
// The documents' pane that opens at its top lays out only the documents in view (lazy, editor.css): a J lays out the
// new example's first screen, not all of it (issue 38). Its first scroll, click, key or focus lays them all out, once,
// so that every position read afterwards (the one kept across redraws, a jump's) is the real one.
function keepScroll(pane, kind, uid) {
  const id = partKey(kind, uid);
  const y = memory.scroll.get(id) || 0;
  if (kind === "context" && !y) {
    pane.classList.add("rv-pane-lazy");
    for (const type of ["pointerdown", "keydown", "focusin"]) pane.addEventListener(type, () => layOutAll(pane), true);
  }
  pane.addEventListener("scroll", () => {
    layOutAll(pane);
    memory.scroll.set(id, pane.scrollTop);
  }, { passive: true });
  if (y) requestAnimationFrame(() => { if (pane.isConnected) pane.scrollTop = y; });
}

// The key of what is kept per text part ("context" or "response") of an example: its scroll, its keyboard stop.
function partKey(kind, uid) {
  return kind + "\u0000" + uid;
}

function layOutAll(pane) {
  pane.classList.remove("rv-pane-lazy");
}

// About the height (px) of a document showing *chars* characters, before it is laid out: the lazy pane's placeholder,
// so that the pane is about as tall as it will be (a short example's pane does not turn into a scroll box, nor the
// page below it move as it is laid out). The pane is about the window less 460 px wide (the sidebar, the margins), a
// character ~7.8 px. Once laid out, the browser keeps the real height.
function docHeight(chars) {
  if (!chars) return 26;  // its heading alone (the box's padding and border come on top)
  const perLine = Math.max(40, (window.innerWidth - 460) / 7.8);
  return 52 + Math.ceil(chars / perLine) * 27;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A drag that selects text (to copy it) ends in a click too; that click changes nothing.
function selecting() {
  const sel = window.getSelection();
  return sel !== null && !sel.isCollapsed && String(sel).trim().length > 0;
}

function openSet(uid, doc) {
  const id = uid + "\u0000" + doc;
  if (!memory.open.has(id)) memory.open.set(id, new Set());
  return memory.open.get(id);
}

// The containers that scroll the page (Streamlit's, by version), and whether one of them is scrolled down: kept from
// their scroll events, so that a move made at the page's top (most J) reads no scrollTop, which would lay the redrawn
// page out in the middle of its frame (issue 38).
const PAGE_SCROLLERS = ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]', "section.main"];
const pageScroll = { scrolled: false };
document.addEventListener("scroll", (e) => {
  const t = e.target;
  if (t === document || PAGE_SCROLLERS.some((sel) => t.matches && t.matches(sel))) {
    pageScroll.scrolled = PAGE_SCROLLERS.some((sel) => (document.querySelector(sel) || {}).scrollTop > 0) || window.scrollY > 0;
  }
}, { capture: true, passive: true });

// Before the next frame (reading scrollTop now would force a layout in the middle of the redraw).
function scrollToTop() {
  if (!pageScroll.scrolled) return;
  requestAnimationFrame(() => {
    for (const sel of PAGE_SCROLLERS) {
      const c = document.querySelector(sel);
      if (c && c.scrollTop) c.scrollTop = 0;
    }
    window.scrollTo(0, 0);
    pageScroll.scrolled = false;
  });
}

// The highlight is a translucent tint under the page's own text colour (readable in either theme);
// the key chip takes the palette's chip colours (render.CHIP: background and a text colour readable on it).
function paint(span, style) {
  const [bg, border, marker, label, chipBg, chipText] = style;
  span.style.background = bg;
  span.style.borderBottom = "2px solid " + border;
  const badge = span.firstChild;
  badge.style.background = chipBg;
  badge.style.color = chipText;
  badge.textContent = span.dataset.key + " " + marker;
  return label;
}

// A faint "?" after a sentence whose judge label the judge's own samples disagreed on; returns the words for
// the sentence's tooltip ("" when the judge was sure or never sampled).
function unsureMark(span, data, key) {
  const said = data.unsure && data.unsure[key];
  if (!said) return "";
  const mark = el("sup", "rv-unsure", "?");
  mark.title = said;
  mark.setAttribute("aria-label", said);
  span.append(mark);
  span.classList.add("rv-judge-unsure");
  return " \u2014 " + said;
}

function contextSentence(data, key, text, state) {
  const span = el("span", "rv-sent rv-" + state);
  span.dataset.key = key;
  span.dataset.state = state;
  span.append(el("span", "rv-key"));
  const linked = data.linked.includes(key);
  if (linked) {
    span.classList.add("rv-linked");
    span.append(el("span", "rv-link-tag", "\u25c6 support"));
  }
  span.append(document.createTextNode(text));
  const unsure = unsureMark(span, data, key);
  const label = paint(span, data.style[state]);
  const next = data.style[CYCLE[(CYCLE.indexOf(state) + 1) % CYCLE.length]][3];
  span.title = key + ": " + label + unsure + (linked ? " \u2014 supports the selected response sentence" : "") +
    (data.editable ? " \u2014 click: " + next + (data.selected ? "; Shift+click: " + (linked ? "no longer" : "") +
      " support of " + data.selected : "") : "");
  if (data.editable) {
    span.tabIndex = 0;
    span.setAttribute("role", "button");
    span.setAttribute("aria-label", key + ": " + label + ". Activate to make it " + next + ".");
  }
  return span;
}

function gapButton(uid, d, start, stop, keys, rerender) {
  const n = stop - start;
  const b = el("button", "rv-gap", "\u22ef " + n + " sentence" + (n === 1 ? "" : "s") + " (" + keys[start] +
    (n > 1 ? "\u2013" + keys[stop - 1] : "") + ") \u22ef");
  b.type = "button";
  b.title = "Show these sentences";
  b.addEventListener("click", () => { openSet(uid, d).add(start); rerender(); });
  return b;
}

function renderContext(root, data, send) {
  const rerender = () => renderContext(root, data, send);
  root.replaceChildren();
  const pane = el("div", "rv-pane");
  pane.dataset.uid = data.uid;
  if (!data.editable) {  // no sentence to focus (a projector): the pane itself, so that the keyboard scrolls it
    pane.tabIndex = 0;
    pane.setAttribute("role", "region");
    pane.setAttribute("aria-label", "Documents");
  }
  const docs = data.docs;
  if (docs.length > 1) {
    const nav = el("div", "rv-doclist");
    nav.append(el("span", "rv-doclist-label", "Documents:"));
    docs.forEach((doc, d) => {
      const labelled = doc.s.filter(([k]) => data.states[k]).length;
      const b = el("button", "rv-jump" + (labelled ? " rv-jump-labelled" : ""),
        "Doc " + d + (labelled ? ": " + labelled + " of " + doc.s.length + " labelled" : " (" + doc.s.length + ")"));
      b.type = "button";
      b.dataset.doc = String(d);
      b.title = "Jump to document " + d + " (" + doc.s.length + " sentences, " + labelled + " labelled)";
      b.addEventListener("click", () => {
        const target = pane.querySelector('.rv-doc[data-doc="' + d + '"]');
        if (!target) return;
        layOutAll(pane);  // the documents above it at their real heights
        pane.scrollTop = target.offsetTop;
        target.scrollIntoView({ block: "nearest", behavior: "instant" });  // the page too, if the pane is off screen
      });
      nav.append(b);
    });
    root.append(nav);
  }
  docs.forEach((doc, d) => {
    const box = el("div", "rv-doc");
    box.dataset.doc = String(d);
    const keys = doc.s.map(([k]) => k);
    const opened = openSet(data.view || data.uid, d);
    const all = opened.has("all");
    const labelled = keys.filter((k) => data.states[k]).length;
    const head = el("div", "rv-doc-head");
    head.append(el("b", "", doc.title));
    head.append(document.createTextNode(" \u00b7 " + doc.s.length + " sentence" + (doc.s.length === 1 ? "" : "s") +
      " \u00b7 " + labelled + " labelled"));
    const shownCount = doc.show.reduce((a, [s, e]) => a + e - s, 0);
    const foldable = shownCount < doc.s.length;
    const toggle = () => {
      const t = el("button", "rv-showall", all ? "Fold" : "Show all " + doc.s.length);
      t.type = "button";
      t.title = all ? "Fold to the labelled sentences and the sentences around them" : "Show every sentence";
      t.addEventListener("click", () => {
        if (opened.has("all")) opened.clear(); else opened.add("all");
        // the document's top above the pane's (its Fold at the bottom of a long document): the redrawn pane opens at
        // it, where only this document and those after it change; it restores the position kept (keepScroll)
        if (box.offsetTop < pane.scrollTop) memory.scroll.set(partKey("context", data.view || data.uid), box.offsetTop);
        rerender();
      });
      return t;
    };
    if (foldable) head.append(toggle());
    box.append(head);
    if (!all && !doc.show.length) {
      box.style.containIntrinsicSize = "auto " + docHeight(0) + "px";
      pane.append(box);
      return;
    }
    const body = el("div", "rv-doc-body");
    let chars = 0;  // the text shown, for the height the document takes before it is laid out (lazy pane)
    const put = (i) => {
      const [k, text] = doc.s[i];
      chars += text.length + k.length + 4;
      body.append(contextSentence(data, k, text, data.states[k] || "neither"), document.createTextNode(" "));
    };
    if (all) {
      for (let i = 0; i < doc.s.length; i++) put(i);
    } else {
      let at = 0;
      const ranges = doc.show.slice();
      for (const [start, stop] of ranges) {
        if (start > at) {
          if (opened.has(at)) for (let i = at; i < start; i++) put(i);
          else {
            body.append(gapButton(data.view || data.uid, d, at, start, keys, rerender), document.createTextNode(" "));
            chars += 30;
          }
        }
        for (let i = start; i < stop; i++) put(i);
        at = stop;
      }
      if (at < doc.s.length) {
        if (opened.has(at)) for (let i = at; i < doc.s.length; i++) put(i);
        else body.append(gapButton(data.view || data.uid, d, at, doc.s.length, keys, rerender));
      }
    }
    if (!doc.s.length) body.append(el("span", "rv-empty", "(no sentences)"));
    if (all && foldable && doc.s.length > 20) body.append(toggle());
    box.append(body);
    box.style.containIntrinsicSize = "auto " + docHeight(chars) + "px";
    pane.append(box);
  });
  root.append(pane);
  if (data.hint) root.append(el("p", "rv-hint", data.hint));  // how to edit, under the documents
  keepScroll(pane, "context", data.view || data.uid);
  showNotice(pane, data);
  root.onmousedown = (e) => {
    if (e.shiftKey && e.target.closest(".rv-sent")) e.preventDefault();  // Shift+click links; it selects no text
  };
  root.onclick = (e) => {
    const span = e.target.closest(".rv-sent");
    if (!span || !data.editable) return;
    if (e.shiftKey) linkContext(span, data, send, false);
    else if (!selecting()) activateContext(span, data, send, false);
  };
}

// A click the store refused (the labels changed in another tab): said right under the sentence, which shows the
// stored labels now, and brought into view once (a redraw of the same example keeps it, without scrolling again).
function showNotice(pane, data) {
  const notice = data.notice;
  if (!notice) return;
  const note = el("div", "rv-notice", notice.text);
  note.setAttribute("role", "alert");
  const span = [...pane.querySelectorAll(".rv-sent")].find((s) => s.dataset.key === notice.key);
  if (span) span.after(note);
  else pane.prepend(note);
  if (memory.noticeShown !== notice.id) {
    memory.noticeShown = notice.id;
    requestAnimationFrame(() => note.scrollIntoView({ block: "center", behavior: "instant" }));
  }
}

function activateContext(span, data, send, byKey) {
  const seen = span.dataset.state;
  const to = CYCLE[(CYCLE.indexOf(seen) + 1) % CYCLE.length];
  span.dataset.state = to;
  span.classList.remove("rv-" + seen);
  span.classList.add("rv-" + to);
  paint(span, data.style[to]);
  if (byKey) memory.focus = { kind: "context", uid: data.uid, key: span.dataset.key };
  send({ uid: data.uid, kind: "label", key: span.dataset.key, seen: seen, to: to, n: ++memory.nonce });
}

// Shift+click (Shift+Enter): the sentence supports the selected response sentence, or no longer does.
function linkContext(span, data, send, byKey) {
  if (!data.selected) return;
  const linked = span.classList.toggle("rv-linked");
  if (byKey) memory.focus = { kind: "context", uid: data.uid, key: span.dataset.key };
  send({ uid: data.uid, kind: "link", key: span.dataset.key, of: data.selected, linked: linked, n: ++memory.nonce });
}

// The page's header above the response (ragviz/ui/review/header.py): [tag, attributes, ...children] lists and texts,
// built node by node under the same allowlist as the Python side's; texts are text nodes (nothing is parsed as HTML).
const HEAD_TAGS = new Set(["b", "br", "details", "div", "i", "kbd", "li", "p", "span", "strong", "summary", "ul"]);

function headAttribute(name) {
  return ["class", "style", "title", "role", "open"].includes(name) || /^(aria|data)-[\w-]+$/.test(name);
}

function build(node) {
  if (typeof node === "string") return document.createTextNode(node);
  if (!Array.isArray(node) || !HEAD_TAGS.has(node[0])) return document.createTextNode("");
  const [tag, attrs, ...children] = node;
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (headAttribute(k)) e.setAttribute(k, String(v));
  for (const child of children) e.append(build(child));
  return e;
}

// Drawn beside the text (not inside it: the page's own font and spacing, as an st.html block had them), before it.
// A block the same as drawn before keeps its nodes (issue 38: the legend and the "Response" heading, half the header's
// nodes, are the same on every example; a J built them again, with their inline styles); one that holds a disclosure
// is built again, closed, as a new example's is.
function drawHeader(parent, root, header) {
  let head = parent.querySelector(":scope > .rv-head");
  if (!header) {
    if (head) head.remove();
    return;
  }
  if (!head) {
    head = el("div", "rv-head");
    parent.insertBefore(head, root);
  }
  const before = [...head.childNodes];
  const blocks = Array.isArray(header) ? header.slice(2) : [];
  const nodes = blocks.map((block, i) => {
    const drawn = JSON.stringify(block);
    const old = before[i];
    if (old && old.rvDrawn === drawn && !drawn.includes('"details"')) return old;
    const fresh = build(block);
    fresh.rvDrawn = drawn;
    return fresh;
  });
  arrange(head, nodes);
}

function renderResponse(root, data, send) {
  const kept = panelFocus(root);
  root.replaceChildren();
  const box = el("div", "rv-response");
  box.dataset.uid = data.uid;
  for (const [key, text, status] of data.sentences) {
    const span = el("span", "rv-resp rv-" + status);
    span.dataset.key = key;
    span.append(el("span", "rv-key"));
    span.append(document.createTextNode(text));
    const unsure = unsureMark(span, data, key);
    const selected = key === data.selected;
    if (selected) span.classList.add("rv-selected");
    const label = paint(span, data.style[status]);
    if (selected) span.style.outline = "3px solid " + data.link_color;
    span.title = key + ": " + label + unsure + (selected ? " (selected)" : " \u2014 click to see its support");
    span.tabIndex = 0;
    span.setAttribute("role", "button");
    span.setAttribute("aria-pressed", selected ? "true" : "false");
    box.append(span, document.createTextNode(" "));
  }
  if (!data.sentences.length) box.append(el("span", "rv-empty", "(empty response)"));
  root.append(box);
  keepScroll(box, "response", data.uid);
  if (data.explain) root.append(explanationBox(data.explain));
  if (data.controls) root.append(controlsBox(data, send));
  restorePanelFocus(root, data, kept);
  root.onclick = (e) => {
    const span = e.target.closest(".rv-resp");
    if (span && !selecting()) activateResponse(span, data, send, false);
  };
}

// The selected sentence's explanation: its verdict chip and supporting keys, then the judge's explanation, or the
// reviewer's note on a flipped verdict with the judge's text for the other verdict folded under it.
function explanationBox(x) {
  const box = el("div", "rv-explanation");
  const head = el("div", "rv-explain-head", "Sentence " + x.key + " \u2014 ");
  const chip = el("span", "rv-explain-chip", x.verdict);
  chip.style.background = x.chip[0];
  chip.style.color = x.chip[1];
  head.append(chip, document.createTextNode(" \u00b7 supporting keys: " + x.keys));
  const body = el("div", "rv-explain-body");
  if (x.by_reviewer) {
    body.append(el("b", "", "Reviewer's note:"), document.createTextNode(" "));
    body.append(x.text ? document.createTextNode(x.text) : el("i", "", "(no note)"));
    if (x.replaced) {
      const more = el("details", "rv-explain-replaced");
      more.append(el("summary", "", "The judge's explanation (for its other verdict)"), document.createTextNode(x.replaced));
      body.append(more);
    }
  } else {
    body.append(x.text ? document.createTextNode(x.text) : el("i", "", "(no explanation)"));
  }
  box.append(head, body);
  return box;
}

// The verdict (two toggle buttons), the note on a flipped verdict (Enter or leaving the field keeps it) and the
// supporting keys (each a chip with a remove button; a field with the context's keys as suggestions adds one).
// Each change goes back as an "edit" event; the page redraws with what the store holds.
function controlsBox(data, send) {
  const c = data.controls;
  const id = "rv-ctl-" + (data.slot || "single");
  const edit = (kind, extra) => send({ uid: data.uid, kind: kind, key: c.key, n: ++memory.nonce, ...extra });
  const box = el("div", "rv-controls");
  box.dataset.uid = data.uid;

  const verdict = el("div", "rv-ctl-row");
  const vLabel = el("span", "rv-ctl-label", c.verdict_label);
  vLabel.id = id + "-verdict";
  const group = el("div", "rv-verdicts");
  group.setAttribute("role", "group");
  group.setAttribute("aria-labelledby", vLabel.id);
  for (const [status, label] of c.choices) {
    const b = el("button", "rv-verdict", label);
    b.type = "button";
    b.dataset.status = status;
    b.dataset.fid = "verdict:" + status;
    b.setAttribute("aria-pressed", status === c.status ? "true" : "false");
    b.addEventListener("click", () => {
      if (status !== c.status) edit("verdict", { status: status });  // the verdict already chosen: no change
    });
    group.append(b);
  }
  verdict.append(vLabel, group);
  box.append(verdict);

  if (c.note !== null && c.note !== undefined) {
    const row = el("div", "rv-ctl-row rv-ctl-stack");
    const label = el("label", "rv-ctl-label", c.note_label);
    label.htmlFor = id + "-note";
    const input = el("input", "rv-note");
    input.type = "text";
    input.id = id + "-note";
    input.dataset.fid = "note";
    input.value = c.note;
    input.placeholder = c.note_placeholder;
    input.dataset.sent = c.note;
    const keep = () => {
      if (input.value === input.dataset.sent) return;
      input.dataset.sent = input.value;
      edit("note", { note: input.value });
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        keep();
      }
    });
    input.addEventListener("change", keep);
    row.append(label, input);
    box.append(row);
  }

  const keysRow = el("div", "rv-ctl-row");
  const kLabel = el("label", "rv-ctl-label", c.keys_label);
  kLabel.htmlFor = id + "-add";
  const line = el("div", "rv-keyline");
  const list = el("ul", "rv-keys");
  list.setAttribute("aria-label", "Picked as support of " + c.key);
  for (const k of c.keys) {
    const item = el("li", "rv-keychip");
    item.dataset.key = k;
    item.append(el("span", "", k));
    const rm = el("button", "rv-keyrm", "\u00d7");
    rm.type = "button";
    rm.dataset.fid = "rm:" + k;
    rm.setAttribute("aria-label", "Remove " + k);
    rm.title = "Remove " + k;
    rm.addEventListener("click", () => edit("keys", { keys: c.keys.filter((x) => x !== k) }));
    item.append(rm);
    list.append(item);
  }
  if (!c.keys.length) list.append(el("li", "rv-keys-none", "none"));
  const add = el("input", "rv-key-add");
  add.type = "text";
  add.id = id + "-add";
  add.dataset.fid = "add";
  add.placeholder = "Add a key, e.g. " + (c.options[0] || "0a");
  add.autocomplete = "off";
  add.setAttribute("list", id + "-options");
  const options = el("datalist");
  options.id = id + "-options";
  add.addEventListener("focus", () => {  // the suggestions are built when asked for, not on every redraw
    if (options.childElementCount) return;
    for (const k of c.options) {
      if (c.keys.includes(k)) continue;
      const o = el("option");
      o.value = k;
      options.append(o);
    }
  }, { once: true });
  const said = el("span", "rv-ctl-msg");
  said.setAttribute("role", "status");
  const addKey = () => {
    const k = add.value.trim();
    if (!k) return;
    if (!c.options.includes(k)) {
      said.textContent = "No context sentence has the key " + k + ".";
      return;
    }
    said.textContent = "";
    add.value = "";
    if (!c.keys.includes(k)) edit("keys", { keys: [...c.keys, k] });
  };
  add.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      addKey();
    }
  });
  const addButton = el("button", "rv-key-addbtn", "Add");
  addButton.type = "button";
  addButton.dataset.fid = "addbtn";
  addButton.addEventListener("click", addKey);
  line.append(list, add, options, addButton, said);
  keysRow.append(kLabel, line);
  box.append(keysRow);
  return box;
}

// The control the person was using keeps the focus (and an unsent note its text) through the redraw its own change
// causes, on the same sentence of the same example; a removed key's chip hands the focus to the field that adds one.
function panelFocus(root) {
  const active = document.activeElement;
  if (!active || !root.contains(active) || !active.dataset.fid) return null;
  const box = active.closest(".rv-controls");
  const draft = active.classList.contains("rv-note") && active.value !== active.dataset.sent ? active.value : null;
  return { fid: active.dataset.fid, uid: box && box.dataset.uid, draft: draft };
}

function restorePanelFocus(root, data, kept) {
  if (!kept || !data.controls || kept.uid !== data.uid) return;
  const target = root.querySelector('[data-fid="' + CSS.escape(kept.fid) + '"]') ||
    (kept.fid.startsWith("rm:") ? root.querySelector('[data-fid="add"]') : null);
  if (!target) return;
  if (kept.draft !== null && target.classList.contains("rv-note")) target.value = kept.draft;
  target.focus({ preventScroll: true });
}

function activateResponse(span, data, send, byKey) {
  // nothing sent, no redraw: the sentence keeps its focus (unless it moves the focus to the other answer of a pair)
  if (span.dataset.key === data.selected && !(data.slot && !data.focused)) return;
  if (byKey) memory.focus = { kind: "response", uid: data.uid, key: span.dataset.key };
  for (const other of span.parentNode.querySelectorAll(".rv-selected")) {
    other.classList.remove("rv-selected");
    other.style.outline = "";
  }
  span.classList.add("rv-selected");
  span.style.outline = "3px solid " + data.link_color;
  send({ uid: data.uid, kind: "select", key: span.dataset.key, slot: data.slot || "", n: ++memory.nonce });
}

function onKey(root, data, send) {
  return (e) => {
    const span = e.target.closest(".rv-sent, .rv-resp");
    if (!span) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      if (data.kind === "context" && data.editable) {
        if (e.shiftKey) linkContext(span, data, send, true);
        else activateContext(span, data, send, true);
      }
      if (data.kind === "response") activateResponse(span, data, send, true);
    } else if (["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"].includes(e.key)) {
      const all = [...root.querySelectorAll(".rv-sent[tabindex], .rv-resp[tabindex]")];
      const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : -1;
      const next = all[all.indexOf(span) + step];
      if (next) {
        e.preventDefault();
        next.focus();
      }
    }
  };
}

// One Tab stop per text (the sentence last focused, else the first); arrow keys move between sentences.
function rove(root, data) {
  const spans = [...root.querySelectorAll(".rv-sent[tabindex], .rv-resp[tabindex]")];
  if (!spans.length) return;
  const id = partKey(data.kind, data.uid);
  const stop = spans.find((s) => s.dataset.key === memory.stops.get(id)) || spans[0];
  for (const s of spans) s.tabIndex = s === stop ? 0 : -1;
  root.onfocusin = (e) => {
    const span = e.target.closest(".rv-sent[tabindex], .rv-resp[tabindex]");
    if (!span) return;
    memory.stops.set(id, span.dataset.key);
    for (const s of root.querySelectorAll(".rv-sent[tabindex], .rv-resp[tabindex]")) s.tabIndex = s === span ? 0 : -1;
  };
}

// The single view draws the response and the documents in one element (data.context: one message and one redraw
// of Streamlit's app fewer per J, issue 38), each part in a root of its own; otherwise one part per element.
// The navigation bar (data.bar) is the element's first part, above the header.
// The data comes as the bytes of one JSON text (ragviz.ui.core.component_files.packed: cheaper for Streamlit to send
// than a dict or a string); an object as it is (a test mounting the script itself).
const utf8 = new TextDecoder();
function unpacked(data) {
  return data instanceof Uint8Array ? JSON.parse(utf8.decode(data)) : data;
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const data = unpacked(component.data);
  const barData = data.kind === "toolbar" ? data : data.bar;
  if (barData) mountBar(parentElement, barData, setTriggerValue);
  else parentElement.querySelector(":scope > .rv-toolbar")?.remove();
  if (data.kind !== "toolbar") {
    const send = (event) => setTriggerValue("edit", event);
    drawPart(parentElement, data, send);
    const context = parentElement.querySelector(':scope > .rv-text[data-part="context"]');
    if (data.kind === "response" && data.context) drawPart(parentElement, data.context, send);
    else if (data.kind === "response" && context) context.remove();
  }
  if (barData) placeInBrowser(barData);
}

function drawPart(parentElement, data, send) {
  let root = parentElement.querySelector(':scope > .rv-text[data-part="' + data.kind + '"]');
  if (!root) {
    root = el("div", "rv-text");
    root.dataset.part = data.kind;
    parentElement.append(root);
  }
  const place = data.kind + (data.slot || "");  // a paired view draws two responses, each in its own place
  const shownAs = data.view || data.uid;  // a paired view's documents stay "the same" when the focus moves
  const last = memory.lastUid[place];
  memory.lastUid[place] = shownAs;
  const arrived = last !== undefined && last !== shownAs;  // another example: open it at its top
  if (arrived) memory.scroll.delete(partKey(data.kind, data.uid));
  if (data.kind === "context") {
    renderContext(root, data, send);
  } else {
    drawHeader(parentElement, root, data.header);
    renderResponse(root, data, send);
  }
  root.onkeydown = onKey(root, data, send);
  rove(root, data);
  if (arrived && data.kind === "context") scrollToTop();
  // A keyboard action asks for its sentence to keep the focus through the redraw it causes: the next
  // draw of that text takes the request, and honours it only on the same example. After a move to
  // another example (J / K / N, a link) the editor never takes the focus: page keys go to the page.
  const f = memory.focus;
  if (f && f.kind === data.kind && (f.uid === data.uid || !data.slot)) {
    memory.focus = null;
    const target = [...root.querySelectorAll(".rv-sent, .rv-resp")].find((s) => s.dataset.key === f.key);
    if (target && f.uid === data.uid && !arrived) target.focus({ preventScroll: true });
  }
}

// -- the navigation bar ------------------------------------------------------------------------------------------
// Previous / Next / Next unreviewed / Accept / Undo / Reset as native buttons, and the line saying what Z undoes.
// A click, or a button's shortcut pressed on the page, goes back to Python as the trigger "press" ({id}).
// Shortcuts as Streamlit's own: a key typed into a text field (input, textarea, select, contenteditable) or pressed
// with Ctrl / Alt / Meta is not a shortcut.

const bar = { data: null, send: null, listening: false, queued: [] };
const QUEUED_MAX = 8;

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

function barKey(e) {
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
    document.addEventListener("keydown", barKey);
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

function barButton(b, old) {
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
    // the whole label, or the short one where the bar is narrow (editor.css); the button's name is the whole one
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

// Put *nodes* (elements or texts) in *box* in order, moving only what is out of place (a moved node loses the focus).
function arrange(box, nodes) {
  nodes.forEach((n, i) => {
    if (box.childNodes[i] !== n) box.insertBefore(n, box.childNodes[i] || null);
  });
  while (box.childNodes.length > nodes.length) box.lastChild.remove();
}

// One row: the buttons with a shortcut and Reset, then a tail (what Z undoes, cut with "…" where room is short, and
// at the right end the actions used now and then: Normalize, Re-judge, in short words where the bar is narrow) that
// wraps to a row of its own only where the window is narrower still. Buttons are
// updated in place (one node per id across redraws): one focused with the keyboard keeps the focus as the page
// moves on, as a Streamlit button does.
function drawBar(root, data) {
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
  const main = data.buttons.filter((b) => !b.aside).map((b) => barButton(b, old));
  const aside = data.buttons.filter((b) => b.aside).map((b) => barButton(b, old));
  if (aside.length) aside[0].classList.add("rv-tb-aside");
  arrange(tail, hint.textContent ? [hint, ...aside] : aside);
  arrange(row, tail.children.length ? [...main, tail] : main);
}

// The browser tab says where the person is, and on a move (the example's fragment ran alone) the URL names the example
// shown, as a new history entry (Back returns to the example before; Streamlit reruns the page with the URL it went
// to). Set here, where st.set_page_config or a query-parameter change from Python would cost a message and a redraw of
// the whole app on every J (issue 38); the other parameters stay. Set once the frame that shows the example is drawn:
// each costs the browser's own process (the history entry, the location bar, the tab strip) CPU, which competed with
// the server's run when set as J was pressed, and with that frame when set with the drawing (issue 38, on a 2-CPU
// machine: the browser's process 13-16 ms a J with both, 5-6 ms without; J 1.10-1.11x the floor's press set after the
// frame, 1.20-1.24x set with the drawing). A hidden page draws no frame: set at once.
const placing = { data: null };
function placeInBrowser(data) {
  const waiting = placing.data !== null;
  placing.data = { ...placing.data, ...data };  // two drawings before a frame: the latest's, with the first's uid if
  // the latest names none
  if (document.hidden) placeNow();
  else if (!waiting) requestAnimationFrame(() => setTimeout(placeNow, 0));  // after the frame's rendering
}

// A key or a click before then is set after it: a rerun it asks for carries the URL, which must name the example shown.
// Back or Forward before then drops it: the history entry the person went to stays the current one.
for (const kind of ["keydown", "pointerdown"]) document.addEventListener(kind, () => placeNow(), true);
window.addEventListener("popstate", () => { placing.data = null; });
// A page hidden before then draws no frame: set now (the tab's title is what a hidden tab shows).
document.addEventListener("visibilitychange", () => { if (document.hidden) placeNow(); });

function placeNow() {
  const data = placing.data;
  placing.data = null;
  if (!data) return;
  if (typeof data.title === "string" && data.title && document.title !== data.title) document.title = data.title;
  if (typeof data.uid === "string" && data.uid) showInUrl(data.uid);
}

function showInUrl(uid) {
  const url = new URL(window.location.href);
  if (url.searchParams.get("uid") === uid) return;
  url.searchParams.set("uid", uid);
  window.history.pushState({}, "", url);
}

// Draw the bar as *parentElement*'s first child (a bar of its own, or above the header in the text's element).
function mountBar(parentElement, data, setTriggerValue) {
  let root = parentElement.querySelector(":scope > .rv-toolbar");
  if (!root) {
    root = el("div", "rv-toolbar");
    parentElement.prepend(root);
  }
  bar.data = data;
  bar.send = (id) => setTriggerValue("press", { id });
  drawBar(root, data);
  listen();
  if (bar.queued.length) pressQueued();
}

// Asked for by the page's early element: listen from now on.
if (earlyElement()) listen();
