// ragviz's page navigation (drawn by ragviz/ui/core/page_nav.py through st.components.v2, first in the sidebar):
// a <nav aria-label="Pages"> of real links, each the page's URL with its Material icon and title; the page shown is
// aria-current="page". A plain click (or Enter on a focused link) goes back to Python as the trigger "go" (the page's
// URL path) and the app switches page in the same session; a click with a modifier key or the middle button, or
// "copy link", is the browser's own (a new tab opens that page). Titles enter the page through textContent only.

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Where the window is narrow the sidebar covers the page: close it once a page is chosen, as Streamlit's list does.
function closeOnNarrow() {
  if (!window.matchMedia("(max-width: 767.98px)").matches) return;
  const close = document.querySelector('[data-testid="stSidebar"] [data-testid="stSidebarCollapseButton"] button');
  if (close) close.click();
}

// The latest drawing's way back to Python: a link made by an earlier drawing calls this one.
const nav = { send: null };

// One link per page, updated in place (a link focused with the keyboard keeps the focus as the page changes).
function link(l, old) {
  let a = old.get(l.path);
  if (!a) {
    a = el("a", "rv-nav-link");
    a.dataset.path = l.path;
    a.addEventListener("click", (e) => {
      if (e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      if (a.getAttribute("aria-current") !== "page" && nav.send) nav.send(a.dataset.path);
      closeOnNarrow();
    });
  }
  a.href = l.href;
  if (l.current) a.setAttribute("aria-current", "page");
  else a.removeAttribute("aria-current");
  const drawn = l.icon + "\u0000" + l.title;
  if (a.dataset.drawn !== drawn) {
    a.dataset.drawn = drawn;
    const icon = el("span", "rv-nav-icon", l.icon);
    icon.setAttribute("aria-hidden", "true");
    a.replaceChildren(icon, el("span", "rv-nav-title", l.title));
  }
  return a;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(":scope > nav.rv-nav");
  if (!root) {
    root = el("nav", "rv-nav");
    root.setAttribute("aria-label", "Pages");
    root.append(el("ul", "rv-nav-list"));
    parentElement.append(root);
  }
  const list = root.firstElementChild;
  const old = new Map([...list.querySelectorAll("a[data-path]")].map((a) => [a.dataset.path, a]));
  nav.send = (path) => setTriggerValue("go", path);
  const items = ((data && data.links) || []).map((l) => {
    const a = link(l, old);
    const li = a.parentElement && a.parentElement.tagName === "LI" ? a.parentElement : el("li", "rv-nav-item");
    if (a.parentElement !== li) li.append(a);
    return li;
  });
  items.forEach((li, i) => {
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
  });
  while (list.children.length > items.length) list.lastChild.remove();
}
