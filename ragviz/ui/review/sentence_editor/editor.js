// The Review page's text as its editor (drawn by ragviz/ui/review/sentence_editor.py through st.components.v2).
//
// data.kind "context": the documents, folded to their labelled sentences; a click (or Enter / Space on
// a focused sentence) moves a sentence's label one step round none -> relevant -> relevant+utilized ->
// utilized -> none. data.kind "response": the response; a click selects a sentence. Under it the selected
// sentence's explanation and, when editing (data.controls), its verdict, note and supporting keys.
// Each action goes back to Python as the trigger "edit"; Python records it through the store.
//
// Every text from data enters the page through textContent or setAttribute, or escaped by esc() (& < > " ')
// inside the markup of a text's sentences (one string parsed at once: issue 38); nothing from data is parsed as HTML
// unescaped.

const CYCLE = ["neither", "relevant", "both", "utilized"];
const memory = { open: new Map(), lastUid: {}, focus: null, nonce: 0, scroll: new Map(), stops: new Map() };

// A pane keeps its scroll position per example across redraws (even when Streamlit remounts it). A new pane is at
// its top already; a position to restore is set just before the next frame, where the browser lays the page out
// anyway (set now, it would force a layout of the half-built page in the middle of the redraw: 11 ms of a J, issue 38).
function keepScroll(pane, kind, uid) {
  const id = kind + "\u0000" + uid;
  pane.addEventListener("scroll", () => memory.scroll.set(id, pane.scrollTop), { passive: true });
  const y = memory.scroll.get(id) || 0;
  if (y) requestAnimationFrame(() => { if (pane.isConnected) pane.scrollTop = y; });
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

// *value* as text inside markup (an element's content or a double-quoted attribute's value).
function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// The colours per label (data.style, from render.py's tables: per state its highlight, underline, chip background and
// chip text; the selected response sentence's outline) as the rules of one stylesheet per text kind, written when a
// palette first arrives or changes. A sentence carries its state as a class only: no inline style on every node of
// every redraw (issue 38). Values go in through the CSSOM (setProperty), never as parsed CSS text.
const palettes = {};

function palette(kind, style, link) {
  const id = JSON.stringify([style, link || null]);
  let entry = palettes[kind];
  if (!entry) {
    const node = document.createElement("style");
    node.dataset.rvPalette = kind;
    entry = palettes[kind] = { node: node, id: null };
  }
  if (!entry.node.isConnected) {
    document.head.append(entry.node);
    entry.id = null;
  }
  if (entry.id === id) return;
  entry.id = id;
  const sheet = entry.node.sheet;
  while (sheet.cssRules.length) sheet.deleteRule(0);
  const rule = (selector, props) => {
    const at = sheet.insertRule(selector + " {}", sheet.cssRules.length);
    for (const [name, value] of Object.entries(props)) sheet.cssRules[at].style.setProperty(name, String(value));
  };
  const sentence = ".rv-text " + (kind === "context" ? ".rv-sent" : ".rv-resp");
  for (const [state, [bg, border, , , chipBg, chipText]] of Object.entries(style || {})) {
    const s = sentence + ".rv-" + CSS.escape(state);
    rule(s, { background: bg, "border-bottom": "2px solid " + border });
    rule(s + " > .rv-key", { background: chipBg, color: chipText });
  }
  if (link) rule(sentence + ".rv-selected", { outline: "3px solid " + link });
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

// Before the next frame (reading scrollTop now would force a layout in the middle of the redraw).
function scrollToTop() {
  requestAnimationFrame(() => {
    for (const sel of ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]', "section.main"]) {
      const c = document.querySelector(sel);
      if (c && c.scrollTop) c.scrollTop = 0;
    }
    window.scrollTo(0, 0);
  });
}

// A sentence moved to *state* (a click, before the page redraws it): its class gives the highlight and the chip's
// colours (the palette's rules: a translucent tint under the page's own text colour, readable in either theme; the
// chip's background and a text colour readable on it, render.CHIP); the chip says the state's marker.
function paint(span, from, to, style) {
  span.classList.remove("rv-" + from);
  span.classList.add("rv-" + to);
  span.firstChild.textContent = span.dataset.key + " " + style[to][2];
}

// A faint "?" after a sentence whose judge label the judge's own samples disagreed on: its markup and the words for
// the sentence's tooltip (both "" when the judge was sure or never sampled).
function unsureMark(data, key) {
  const said = data.unsure && data.unsure[key];
  if (!said) return ["", ""];
  return ['<sup class="rv-unsure" title="' + esc(said) + '" aria-label="' + esc(said) + '">?</sup>', " \u2014 " + said];
}

// One context sentence's markup (every text escaped): its key chip, the support tag when linked, the text, the
// judge's "?" when unsure; a button for the keyboard when editable (the roving Tab stop is set after, rove()).
function contextSentence(data, linked, key, text, state) {
  const [, , marker, label] = data.style[state];
  const next = data.style[CYCLE[(CYCLE.indexOf(state) + 1) % CYCLE.length]][3];
  const [mark, unsure] = unsureMark(data, key);
  const title = key + ": " + label + unsure + (linked ? " \u2014 supports the selected response sentence" : "") +
    (data.editable ? " \u2014 click: " + next + (data.selected ? "; Shift+click: " + (linked ? "no longer" : "") +
      " support of " + data.selected : "") : "");
  return '<span class="rv-sent rv-' + esc(state) + (linked ? " rv-linked" : "") + (mark ? " rv-judge-unsure" : "") +
    '" data-key="' + esc(key) + '" data-state="' + esc(state) + '" title="' + esc(title) + '"' +
    (data.editable ? ' tabindex="0" role="button" aria-label="' + esc(key + ": " + label + ". Activate to make it " +
      next + ".") + '"' : "") + '><span class="rv-key">' + esc(key + " " + marker) + "</span>" +
    (linked ? '<span class="rv-link-tag">\u25c6 support</span>' : "") + esc(text) + mark + "</span> ";
}

// The button standing for the folded sentences start..stop-1 (a click opens them: renderContext's delegation).
function gapButton(d, start, stop, keys) {
  const n = stop - start;
  return '<button type="button" class="rv-gap" title="Show these sentences" data-doc="' + d + '" data-start="' +
    start + '">' + esc("\u22ef " + n + " sentence" + (n === 1 ? "" : "s") + " (" + keys[start] +
    (n > 1 ? "\u2013" + keys[stop - 1] : "") + ") \u22ef") + "</button> ";
}

function renderContext(root, data, send) {
  const rerender = () => renderContext(root, data, send);
  palette("context", data.style);
  const linkedKeys = new Set(data.linked);
  root.replaceChildren();
  const pane = el("div", "rv-pane");
  pane.dataset.uid = data.uid;
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
        rerender();
        const again = root.querySelector('.rv-doc[data-doc="' + d + '"]');
        const newPane = root.querySelector(".rv-pane");
        if (again && newPane && again.offsetTop < newPane.scrollTop) newPane.scrollTop = again.offsetTop;
      });
      return t;
    };
    if (foldable) head.append(toggle());
    box.append(head);
    if (!all && !doc.show.length) {
      pane.append(box);
      return;
    }
    const body = el("div", "rv-doc-body");
    const parts = [];  // the body's markup: one string, parsed once
    const put = (i) => {
      const [k, text] = doc.s[i];
      parts.push(contextSentence(data, linkedKeys.has(k), k, text, data.states[k] || "neither"));
    };
    if (all) {
      for (let i = 0; i < doc.s.length; i++) put(i);
    } else {
      let at = 0;
      const ranges = doc.show.slice();
      for (const [start, stop] of ranges) {
        if (start > at) {
          if (opened.has(at)) for (let i = at; i < start; i++) put(i);
          else parts.push(gapButton(d, at, start, keys));
        }
        for (let i = start; i < stop; i++) put(i);
        at = stop;
      }
      if (at < doc.s.length) {
        if (opened.has(at)) for (let i = at; i < doc.s.length; i++) put(i);
        else parts.push(gapButton(d, at, doc.s.length, keys).trimEnd());
      }
    }
    if (!doc.s.length) parts.push('<span class="rv-empty">(no sentences)</span>');
    body.innerHTML = parts.join("");
    if (all && foldable && doc.s.length > 20) body.append(toggle());
    box.append(body);
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
    const gap = e.target.closest(".rv-gap");
    if (gap) {
      openSet(data.view || data.uid, Number(gap.dataset.doc)).add(Number(gap.dataset.start));
      rerender();
      return;
    }
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
  paint(span, seen, to, data.style);
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

// A header block's node -> its tree as JSON, as drawn.
const drawnBlocks = new WeakMap();

// Drawn beside the text (not inside it: the page's own font and spacing, as an st.html block had them), before it.
// A block the same as drawn (the legend and the "Response" heading on every J) keeps its nodes: only the blocks that
// changed are built and laid out again (issue 38). A block holding a <details> is always rebuilt (drawn closed).
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
  const [, attrs, ...blocks] = header;
  for (const [k, v] of Object.entries(attrs || {})) if (k !== "class" && headAttribute(k)) head.setAttribute(k, String(v));
  const old = [...head.childNodes];
  blocks.forEach((block, i) => {
    const json = JSON.stringify(block);
    if (old[i] && drawnBlocks.get(old[i]) === json && !json.includes('["details"')) return;
    const fresh = build(block);
    drawnBlocks.set(fresh, json);
    if (old[i]) old[i].replaceWith(fresh);
    else head.append(fresh);
  });
  for (const extra of old.slice(blocks.length)) extra.remove();
}

function renderResponse(root, data, send) {
  const kept = panelFocus(root);
  palette("response", data.style, data.link_color);
  root.replaceChildren();
  const box = el("div", "rv-response");
  box.dataset.uid = data.uid;
  const parts = [];  // the sentences' markup (every text escaped): one string, parsed once
  for (const [key, text, status] of data.sentences) {
    const [, , marker, label] = data.style[status];
    const [mark, unsure] = unsureMark(data, key);
    const selected = key === data.selected;
    const title = key + ": " + label + unsure + (selected ? " (selected)" : " \u2014 click to see its support");
    parts.push('<span class="rv-resp rv-' + esc(status) + (mark ? " rv-judge-unsure" : "") +
      (selected ? " rv-selected" : "") + '" data-key="' + esc(key) + '" title="' + esc(title) +
      '" tabindex="0" role="button" aria-pressed="' + selected + '"><span class="rv-key">' + esc(key + " " + marker) +
      "</span>" + esc(text) + mark + "</span> ");
  }
  if (!data.sentences.length) parts.push('<span class="rv-empty">(empty response)</span>');
  box.innerHTML = parts.join("");
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
  for (const other of span.parentNode.querySelectorAll(".rv-selected")) other.classList.remove("rv-selected");
  span.classList.add("rv-selected");
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
  const id = data.kind + "\u0000" + data.uid;
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
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const send = (event) => setTriggerValue("edit", event);
  drawPart(parentElement, data, send);
  const context = parentElement.querySelector(':scope > .rv-text[data-part="context"]');
  if (data.kind === "response" && data.context) drawPart(parentElement, data.context, send);
  else if (data.kind === "response" && context) context.remove();
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
  if (arrived) memory.scroll.delete(data.kind + "\u0000" + data.uid);
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
