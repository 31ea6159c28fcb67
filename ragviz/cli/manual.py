"""The manual's generated reference pages: every command from the argparse parser, the metrics'
formulas from their docstrings and the export columns from the schema, so none is ever copied by hand.

``scripts/mkdocs_hooks.py`` replaces a page's ``<!-- generated: NAME -->`` line with :data:`SECTIONS` [NAME]().
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
from collections.abc import Callable, Iterator

__all__ = ["METRIC_MODULES", "SECTIONS", "cli_reference", "export_schema", "metrics_reference", "option_strings"]

#: The metric modules whose formulas the reference shows, in the order of the page.
METRIC_MODULES = (
    "ragviz.metrics.trace",
    "ragviz.metrics.tonic",
    "ragviz.metrics.ragchecker",
    "ragviz.metrics.retrieval",
    "ragviz.metrics.answer",
    "ragviz.metrics.summary",
)


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    out: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:  # argparse keeps its subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out.append((name, sub))
    return out


def _usage(parser: argparse.ArgumentParser) -> str:
    text = parser.format_usage().strip()
    return re.sub(r"\s+", " ", text.removeprefix("usage: "))


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    text = " ".join((action.help or "").split())
    if "%(" in text:
        text = parser._get_formatter()._expand_help(action)
    elif "%%" in text:
        text = text.replace("%%", "%")
    return " ".join(text.split())


def _option_line(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else None
    names = ", ".join(action.option_strings) or (metavar or action.dest)
    if action.option_strings and action.nargs != 0:
        names += f" {metavar or action.dest.upper()}"
    line = f"- `{names}`"
    text = _help(action, parser)
    if text:
        line += f": {text}"
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        line += f" (one of {', '.join(f'`{c}`' for c in action.choices)})"
    return line


def _command(path: str, parser: argparse.ArgumentParser, level: int) -> Iterator[str]:
    yield f"{'#' * level} `{path}`"
    yield ""
    if parser.description:
        yield " ".join(parser.description.replace("%%", "%").split())
        yield ""
    yield "```text"
    yield _usage(parser)
    yield "```"
    yield ""
    actions = [
        a
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and a.help != argparse.SUPPRESS
    ]
    if actions:
        yield from (_option_line(a, parser) for a in actions)
        yield ""
    for name, sub in _subparsers(parser):
        yield from _command(f"{path} {name}", sub, min(level + 1, 4))


def cli_reference() -> str:
    """Markdown for every ``ragviz`` command and subcommand: description, usage and each option's help,
    read from the parser the command line itself uses."""
    from ragviz.cli.main import build_parser

    parser = build_parser(None)
    lines: list[str] = []
    for name, sub in _subparsers(parser):
        lines += _command(f"ragviz {name}", sub, 2)
    return "\n".join(lines)


def option_strings() -> dict[str, set[str]]:
    """Per command path (``"ragviz audit draw"``), the option strings its parser accepts."""
    from ragviz.cli.main import build_parser

    found: dict[str, set[str]] = {}

    def walk(path: str, parser: argparse.ArgumentParser) -> None:
        found[path] = {s for a in parser._actions for s in a.option_strings if s not in ("-h", "--help")}
        for name, sub in _subparsers(parser):
            walk(f"{path} {name}", sub)

    for name, sub in _subparsers(build_parser(None)):
        walk(f"ragviz {name}", sub)
    return found


_MATH = re.compile(r"\.\. math::\s*(.+?)(?:\n\s*\n|\Z)", re.S)


def _formulas(doc: str) -> list[str]:
    return [" ".join(m.replace("\\\\", "\\").split()) for m in _MATH.findall(doc)]


def _first_paragraph(doc: str) -> str:
    """The docstring's first paragraph with reST roles and literals as Markdown code."""
    text = " ".join(doc.strip().split("\n\n", 1)[0].split())
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def metrics_reference() -> str:
    """Markdown: per metric module, every public function whose docstring holds a ``.. math::`` formula,
    with the docstring's first paragraph and the formula as written there."""
    lines: list[str] = []
    for name in METRIC_MODULES:
        module = importlib.import_module(name)
        lines += [f"## `{name}`", "", _first_paragraph(module.__doc__ or ""), ""]
        for member in module.__all__:
            obj = getattr(module, member)
            doc = inspect.getdoc(obj) or ""
            formulas = _formulas(doc)
            if not formulas or not callable(obj):
                continue
            lines += [f"### `{member}`", "", _first_paragraph(doc), "", "```text", *formulas, "```", ""]
    return "\n".join(lines)


def export_schema() -> str:
    """Markdown table of every column a RAGBench-row export may carry, with its Arrow type."""
    from ragviz.data.schema import CANONICAL_TYPES
    from ragviz.export.rows import METRICS_COLUMNS

    lines = ["| column | Arrow type |", "| --- | --- |"]
    lines += [f"| `{k}` | `{t}` |" for k, t in CANONICAL_TYPES.items()]
    lines += ["", "The per-example metrics CSV (`--format csv`) has the columns "]
    lines[-1] += ", ".join(f"`{c}`" for c in METRICS_COLUMNS) + "."
    return "\n".join(lines)


#: What each ``<!-- generated: NAME -->`` marker in docs/ becomes.
SECTIONS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "metrics": metrics_reference,
    "export-schema": export_schema,
}
