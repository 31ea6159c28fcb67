"""What every ragviz command shares: exit codes, the PATH and ``--db`` arguments, opening the label store,
problem printing."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ragviz.data.errors import BadInput

if TYPE_CHECKING:
    from ragviz.analysis.labelsets.selection import LabelSelection
    from ragviz.store.label_store import LabelStore

__all__ = [
    "DB_DEFAULT",
    "DB_HELP",
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "IDENTITY_OPTIONS",
    "LABEL_SETS_HELP",
    "NO_STORE",
    "PEOPLE_LABEL_SETS_HELP",
    "VERSION_LABEL_SETS_HELP",
    "add_db_argument",
    "add_paths",
    "errors",
    "export_selection",
    "first_problem",
    "fold_identities",
    "label_selection",
    "load_warnings_line",
    "login_name",
    "open_store",
    "print_problems",
    "warn_load",
]


EXIT_OK = 0


EXIT_BAD_INPUT = 2


DB_HELP = "label store: an SQLite file or a postgresql://user@host/db URL"

DB_DEFAULT = " (default: $RAGVIZ_DB or ~/.ragviz/ragviz.db)"

NO_STORE = "no label store here (give the file the app uses, default ~/.ragviz/ragviz.db)"


def add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="data files (.parquet, .jsonl, .json, .csv) or directories of Parquet shards",
    )


def add_db_argument(
    parser: argparse.ArgumentParser,
    *,
    required: bool = False,
    defaults_to_store: bool = True,
    metavar: str = "DB",
    purpose: str = "",
) -> None:
    """``--db``, the label store, the same way in every command; *defaults_to_store* when the command opens the
    default store without it (``None`` then), *purpose* says what this command reads or writes there."""
    text = DB_HELP + (DB_DEFAULT if defaults_to_store and not required else "")
    parser.add_argument(
        "--db", metavar=metavar, default=None, required=required, help=f"{text}; {purpose}" if purpose else text
    )


def open_store(db: str | os.PathLike[str] | None, *, command: str, create: bool = False) -> LabelStore:
    """The label store *db* (default ``$RAGVIZ_DB`` or ``~/.ragviz/ragviz.db``), opened.

    One rule for every command: only a command that writes passes ``create=True`` and may make a new SQLite
    file (its folder must exist); every reader refuses a missing file with :data:`NO_STORE`, so a mistyped
    ``--db`` never reads an empty store. A store that does not open is :class:`BadInput` naming *command*."""
    from ragviz.store.label_store import LabelStore, StoreError, default_db
    from ragviz.store.postgres import is_url

    target = os.fspath(db) if db is not None else os.fspath(default_db())
    if not is_url(target):
        path = Path(target).expanduser()
        if not create and not path.is_file():
            raise BadInput(NO_STORE, path=target)
        if create and db is not None and not path.parent.is_dir():
            raise BadInput("no such folder for a label store", path=target)
    try:
        return LabelStore(target)
    except StoreError as exc:
        raise BadInput(str(exc), path=command) from None


#: What an option naming people's labels (``--labels``) accepts, said the same way by every command.
PEOPLE_LABEL_SETS_HELP = (
    "human (per example and label field, every annotator's latest decision: the labels of the team's export), gold "
    "(the team's agreed or adjudicated labels) or one annotator's name (annotator:NAME for a person named like one "
    "of these)"
)
#: A judge version's labels, as every option that takes them says it.
VERSION_LABEL_SETS_HELP = "judge:VERSION (per example, the latest labels judge version VERSION stored, e.g. judge:v2)"
#: What a label-set option (``--against``) accepts: the judge's labels too.
LABEL_SETS_HELP = f"llm (the judge's labels), {VERSION_LABEL_SETS_HELP}, " + PEOPLE_LABEL_SETS_HELP


def label_selection(
    text: str,
    store: LabelStore | None,
    *,
    option: str,
    path: str | None = None,
    people: bool = False,
    versions: bool = True,
) -> LabelSelection:
    """The label set an option's *text* names (:func:`ragviz.analysis.labelsets.selection.parse_label_set`),
    checked against *store*: an annotator or a judge version must have labels there, gold needs a store;
    *people*: the judge's labels are refused (the option names people's labels), but a judge version's when
    *versions*. Bad input names *option* and *path*."""
    from ragviz.analysis.labelsets.selection import parse_label_set
    from ragviz.judge.versions.registry import checked_selection

    chosen = parse_label_set(text, option=option, path=path)
    where = f"{option} {text.strip()}"
    if people and (chosen.kind == "judge" or (chosen.kind == "version" and not versions)):
        also = " or judge:VERSION" if versions else ""
        raise BadInput(f"this option names people's labels: human, gold, an annotator{also}", path=path, field=where)
    if chosen.kind == "version":
        return checked_selection(store, chosen, path=path, field=where)
    if chosen.kind == "gold" and store is None:
        raise BadInput("gold labels live in a label store: give --db DB", path=path, field=where)
    if chosen.is_person:
        _check_annotator(chosen, store, path, where)
    return chosen


def _check_annotator(chosen: LabelSelection, store: LabelStore | None, path: str | None, where: str | None) -> None:
    names = store.annotators() if store is not None else []
    if chosen.annotator not in names:
        known = ", ".join(names) if names else "none yet"
        raise BadInput(
            f"annotator {chosen.annotator!r} has no labels in this store (annotators: {known})", path=path, field=where
        )


def export_selection(
    store: LabelStore, annotator: str | None, labels: str | None, *, command: str, path: str, versions: bool = False
) -> LabelSelection | None:
    """Whose labels an export writes, from ``--annotator NAME`` (always a person; ``'*'``: the team's) or
    ``--labels gold|latest|ANNOTATOR`` (:func:`label_selection`; ``judge:VERSION`` too when *versions*: an export
    may write a judge version's labels, a push sends people's only), not both. Neither: the one annotator with labels,
    the team's latest (``human``) with several, ``None`` (the labels as loaded) with nobody."""
    from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
    from ragviz.store.label_store import EVERYONE

    if labels is not None:
        if annotator is not None:
            raise BadInput("give --labels or --annotator, not both", path=command)
        return label_selection(labels, store, option="--labels", path=path, people=True, versions=versions)
    names = store.annotators()
    if annotator is None:
        return HUMAN if len(names) > 1 else LabelSelection.of(names[0]) if names else None
    if annotator.strip() == EVERYONE:
        return HUMAN
    chosen = LabelSelection.of(annotator)
    _check_annotator(chosen, store, path, None)
    return chosen


def print_problems(problems: Iterable[object], stream: TextIO) -> None:
    for p in problems:
        print(str(p), file=stream)


# Options that name a person (--against NAME, --annotator NAME, --leave NAME, --by NAME): folded as the store
# names people, so `--annotator Ana@X.org` is ana@x.org (ragviz.store.roles.identity_name).
IDENTITY_OPTIONS = ("against", "annotator", "leave", "by")


def fold_identities(args: argparse.Namespace) -> argparse.Namespace:
    """*args* with every person-naming option (:data:`IDENTITY_OPTIONS`) as the store names people.

    >>> fold_identities(argparse.Namespace(against="Ana@X.org", by=None, paths=["A@B"])).against
    'ana@x.org'
    """
    from ragviz.store.roles import identity_name

    for name in IDENTITY_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value.strip():
            setattr(args, name, identity_name(value))
    return args


def first_problem(problems: Sequence[object]) -> str:
    """The first of *problems* (each printed as ``PATH:ROW: field: message``), and how many more there are.

    >>> first_problem(["a.jsonl:3: id: missing"]), first_problem(["a.jsonl:3: id: missing", "b", "c"])
    ('a.jsonl:3: id: missing', 'a.jsonl:3: id: missing (and 2 more: run `ragviz validate`)')
    """
    more = len(problems) - 1
    return f"{problems[0]}" + (f" (and {more:,} more: run `ragviz validate`)" if more else "")


def warn_load(warnings: Sequence[object], stream: TextIO | None = None) -> None:
    """One line on *stream* (stderr) when the data loaded with warnings (a row skipped as a repeat of an example, a
    value ignored): how many, the first, and where to see them all; nothing without warnings. A command that loads
    data says it before its own output, so a count that drops a row is never silent.

    >>> import io; out = io.StringIO(); warn_load(["a.jsonl:3: id: duplicate of a.jsonl:1", "b"], out)
    >>> out.getvalue().splitlines()
    ['warning: 2 load warnings: a.jsonl:3: id: duplicate of a.jsonl:1 (and 1 more: run `ragviz validate`)']
    """
    if warnings:
        print(f"warning: {load_warnings_line(warnings)}", file=stream or sys.stderr)


def load_warnings_line(warnings: Sequence[object]) -> str:
    """How many load warnings, and the first (:func:`first_problem`): what :func:`warn_load` says, for a command
    that says its warnings together (``ragviz estimate``).

    >>> load_warnings_line(["a.jsonl:3: id: duplicate of a.jsonl:1"])
    '1 load warning: a.jsonl:3: id: duplicate of a.jsonl:1'
    """
    return f"{len(warnings):,} load warning" + ("" if len(warnings) == 1 else "s") + f": {first_problem(warnings)}"


def login_name() -> str:
    """Who runs the command when no option names them: ``$RAGVIZ_ANNOTATOR``, else the login name, else
    ``"annotator"`` (a container's user with no entry in its user database and no ``$USER``: ``getpass`` raises), as
    the app names a local person."""
    try:
        return os.environ.get("RAGVIZ_ANNOTATOR") or getpass.getuser() or "annotator"
    except (KeyError, OSError):
        return "annotator"


def errors(n: int) -> str:
    """``"1 error"``, ``"3 errors"``: the count that opens a command's bad-input line.

    >>> errors(1), errors(2)
    ('1 error', '2 errors')
    """
    return f"{n:,} error" + ("" if n == 1 else "s")
