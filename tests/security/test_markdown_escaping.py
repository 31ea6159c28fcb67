"""Issue 16: every dynamic text that reaches a Markdown-rendering element is escaped.

An AST scan of ``ragviz/ui``, ``pages`` and ``app.py``: the text argument of ``st.markdown``,
``st.write``, ``st.warning/error/info/success``, ``st.caption``, ``st.toast``, titles and headers,
``st.metric`` labels, tab, expander, column and widget labels, ``help=`` texts and the values a
``format_func`` returns must be a literal, an ``UPPER_CASE`` constant of ragviz's own text (or an entry
of one), a number, or pass through :func:`ragviz.ui.core.render.md_escape` (or another allowed helper) —
else the line carries ``# md: ours`` with the text being ragviz's own (composed from literals only).
The browser probe that ``?id=**x**$y$`` shows literally is in :mod:`tests.security.test_display`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.sample import ROOT

FILES = sorted([*ROOT.glob("ragviz/ui/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py", ROOT / "serve.py"])

TEXT_FIRST_ARG = {
    "markdown", "write", "warning", "error", "info", "success", "caption", "toast", "metric", "expander",
    "title", "header", "subheader", "button", "checkbox", "toggle", "radio", "selectbox", "multiselect",
    "segmented_control", "pills", "text_input", "text_area", "number_input", "slider", "select_slider",
    "download_button", "file_uploader", "popover", "disclosure", "TextColumn", "NumberColumn", "CheckboxColumn",
    "SelectboxColumn", "ListColumn", "LinkColumn", "ProgressColumn", "Column", "page_link",
}  # fmt: skip
TEXT_KEYWORDS = {"label", "body", "help"}
LIST_OF_LABELS = {"tabs"}
# Widgets whose options are shown as plain text, not Markdown: md_escape there shows its backslashes
# (covidqa\_test/1421/gpt\-3\.5 in the Explainer's picker, issue 29).
PLAIN_OPTIONS = {"selectbox", "multiselect"}
ESCAPING = {"md_escape", "_md_safe", "format_score", "format_delta", "len", "int", "round", "shown_text"}
NUMBER_NAME = re.compile(r"^(n|k|max|min|count|total|limit|cap|size|rows|index|i)(_|$)")
PRAGMA = "# md: ours"
# Parsed when the module is collected: CPython 3.11's ast.parse can raise "AST constructor recursion depth
# mismatch" after other tests ran into RecursionError (the deep-JSON tests do, on purpose).
TREES = {f: ast.parse(f.read_text()) for f in FILES}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def safe(node: ast.AST) -> bool:
    """Whether *node* can only be a literal, ragviz's own constant text, a number or escaped text."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(safe(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        spec = (
            "".join(c.value for c in node.format_spec.values if isinstance(c, ast.Constant)) if node.format_spec else ""
        )
        return any(ch in spec for ch in ",dfe%") or safe(node.value)
    if isinstance(node, ast.Call):
        return _name(node.func) in ESCAPING
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _name(node) or ""
        return name.isupper() or bool(NUMBER_NAME.match(name))
    if isinstance(node, ast.Subscript):
        return (_name(node.value) or "").isupper()
    if isinstance(node, ast.BinOp):
        return safe(node.left) and safe(node.right)
    if isinstance(node, ast.IfExp):
        return safe(node.body) and safe(node.orelse)
    if isinstance(node, ast.UnaryOp):
        return safe(node.operand)
    return False


def _texts(call: ast.Call) -> list[ast.AST]:
    attr = _name(call.func)
    texts: list[ast.AST] = []
    if attr in TEXT_FIRST_ARG and call.args:
        texts.append(call.args[0])
    if attr in LIST_OF_LABELS and call.args:
        first = call.args[0]
        texts.extend(first.elts if isinstance(first, (ast.List, ast.Tuple)) else [first])
    if attr in TEXT_FIRST_ARG or attr in LIST_OF_LABELS:
        texts.extend(k.value for k in call.keywords if k.arg in TEXT_KEYWORDS)
    for k in call.keywords:
        if k.arg == "format_func" and attr not in PLAIN_OPTIONS:
            texts.append(k.value.body if isinstance(k.value, ast.Lambda) else k.value)
    return texts


def escaped_plain_options(path: Path, tree: ast.AST) -> list[str]:
    """``format_func`` of a plain-text option widget that passes its text through ``md_escape``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in PLAIN_OPTIONS:
            for k in node.keywords:
                if k.arg == "format_func" and "md_escape" in ast.unparse(k.value):
                    found.append(f"{path.relative_to(ROOT)}:{k.value.lineno}: {ast.unparse(k.value)[:100]}")
    return found


def unescaped(path: Path, tree: ast.AST | None = None) -> list[str]:
    source = path.read_text()
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree or ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        for text in _texts(node):
            span = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
            if safe(text) or any(PRAGMA in line for line in span):
                continue
            found.append(f"{path.relative_to(ROOT)}:{text.lineno}: {ast.unparse(text)[:100]}")
    return found


ESCAPED = ['st.caption("plain")', "st.caption(f'{n_rows:,} rows')", "st.warning(f'No example {render.md_escape(link)}')",
           "st.info(NO_DATA)"]  # fmt: skip
RAW = ["st.warning(f'No example {link!r}')", "st.caption(name)", "st.tabs(['a', who])",
       "st.radio('x', xs, format_func=lambda i: uids[i])", "c.metric(label, value)",
       "st.expander(f'{title} details')"]  # fmt: skip
CALLS = {code: ast.parse(code).body[0].value for code in ESCAPED + RAW}  # type: ignore[attr-defined]


def test_the_scan_tells_escaped_from_raw():
    def check(code: str) -> bool:
        return all(safe(t) for t in _texts(CALLS[code]))

    assert all(check(code) for code in ESCAPED)
    assert not any(check(code) for code in RAW)


def test_every_dynamic_markdown_text_is_escaped():
    problems = [p for f in FILES for p in unescaped(f, TREES[f])]
    assert not problems, "unescaped dynamic text in a Markdown element:\n" + "\n".join(problems)


def test_plain_text_options_are_not_markdown_escaped():
    problems = [p for f in FILES for p in escaped_plain_options(f, TREES[f])]
    assert not problems, "md_escape in a plain-text option (its backslashes show):\n" + "\n".join(problems)
