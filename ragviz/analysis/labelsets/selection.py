"""Whose labels: one :class:`LabelSelection`, parsed once where a person names it (a CLI option, a picker, a
page's URL) and passed down to the label sets, the Dashboard, the estimates and the export.

The kinds, as ``--labels`` / ``--against`` and the pickers write them: ``llm`` (the judge's labels), ``human``
(per example and label field, any annotator's latest decision: the team's export, ``--labels latest``),
``gold`` (the team's agreed or adjudicated labels), ``judge:NAME`` (judge version NAME's labels) and one
annotator's name. A person's name is never read as a kind: an annotator called ``gold`` is
``LabelSelection.of("gold")``, shown as ``gold (annotator)``, written ``annotator:gold``.
:func:`store_annotator` turns a selection into the store's annotator parameter; a judge version's prompt
version (what its label sets record) is filled in by :func:`ragviz.judge.versions.registry.checked_selection`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ragviz.data.errors import BadInput
from ragviz.store.roles import identity_name

if TYPE_CHECKING:
    from ragviz.store.label_store import LabelStore

__all__ = [
    "ANNOTATOR_PREFIX",
    "VERSION_PREFIX",
    "GOLD",
    "HUMAN",
    "JUDGE",
    "KIND_NAMES",
    "LabelSelection",
    "Whose",
    "as_selection",
    "corrected_uids",
    "offered",
    "parse_label_set",
    "pick_offered",
    "store_annotator",
]

Kind = Literal["judge", "human", "gold", "annotator", "version"]

#: How a kind is written on the command line and shown in a picker.
KIND_NAMES: dict[str, Kind] = {"llm": "judge", "human": "human", "gold": "gold"}
#: ``annotator:NAME`` names a person whatever their name (``annotator:gold``).
ANNOTATOR_PREFIX = "annotator:"
#: ``judge:NAME`` names a judge version's labels (``judge:v2``).
VERSION_PREFIX = "judge:"
# Other spellings a command accepts for a kind: export's "latest" is the human label set.
_ALIASES: dict[str, Kind] = {"judge": "judge", "latest": "human", "*": "human"}


@dataclass(frozen=True)
class LabelSelection:
    """Whose labels (see the module docstring): a *kind*, for ``annotator`` the person's name as the store
    writes it (:func:`ragviz.store.roles.identity_name`), for ``version`` the judge version's name and the
    prompt version its label sets record (empty until checked against a store). A judge version's labels are,
    per example, the latest label set that version stored."""

    kind: Kind
    annotator: str = ""
    version: str = ""
    prompt_version: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("judge", "human", "gold", "annotator", "version"):
            raise ValueError(f"unknown label selection kind {self.kind!r}")
        if (self.kind == "annotator") != bool(self.annotator):
            raise ValueError("an annotator's label selection names the annotator; the others name nobody")
        if (self.kind == "version") != bool(self.version) or (self.prompt_version and self.kind != "version"):
            raise ValueError("a judge version's label selection names the version; the others name none")

    @classmethod
    def of(cls, annotator: str) -> LabelSelection:
        """One annotator's labels (the name folded as the store folds it)."""
        name = identity_name(annotator)
        if not name:
            raise ValueError("an annotator's name is empty")
        return cls("annotator", name)

    @classmethod
    def of_version(cls, version: str, prompt_version: str = "") -> LabelSelection:
        """Judge version *version*'s labels (*prompt_version*: what its label sets record)."""
        if not version.strip():
            raise ValueError("a judge version's name is empty")
        return cls("version", version=version.strip(), prompt_version=prompt_version)

    @property
    def name(self) -> str:
        """The label set's short name: ``llm``, ``human``, ``gold``, ``judge:NAME`` or the annotator's name."""
        if self.kind == "annotator":
            return self.annotator
        if self.kind == "version":
            return VERSION_PREFIX + self.version
        return next(text for text, kind in KIND_NAMES.items() if kind == self.kind)

    @property
    def is_person(self) -> bool:
        return self.kind == "annotator"

    def label(self) -> str:
        """How a picker shows it: :attr:`name`, with ``(annotator)`` after a person whose name is a kind's."""
        if self.kind == "annotator" and (
            self.annotator in KIND_NAMES or self.annotator in _ALIASES or self.annotator.startswith(VERSION_PREFIX)
        ):
            return f"{self.annotator} (annotator)"
        return self.name

    def argument(self) -> str:
        """How the command line names it (what :func:`parse_label_set` reads back)."""
        return ANNOTATOR_PREFIX + self.annotator if self.label() != self.name else self.name

    def __str__(self) -> str:
        return self.label()


JUDGE = LabelSelection("judge")
HUMAN = LabelSelection("human")
GOLD = LabelSelection("gold")


#: Whose labels as an export's public functions take them: a selection, a person's name (always a person, never a
#: kind: ``"gold"`` is someone called gold), or ``None`` for the labels as loaded.
Whose = LabelSelection | str | None


def as_selection(whose: Whose) -> LabelSelection | None:
    """*whose* as a selection: a ``str`` names one annotator (:meth:`LabelSelection.of`).

    >>> as_selection("gold").kind, as_selection(None), as_selection(GOLD).kind
    ('annotator', None, 'gold')
    """
    return LabelSelection.of(whose) if isinstance(whose, str) else whose


def parse_label_set(text: str, *, option: str = "--labels", path: str | None = None) -> LabelSelection:
    """The label selection a command-line value names: ``llm``, ``human`` (or ``latest``), ``gold``,
    ``judge:NAME``, ``annotator:NAME``, or any other text as an annotator's name. Empty text is
    :class:`BadInput`. A judge version comes back without its prompt version: the edge checks it against the
    store (:func:`ragviz.judge.versions.registry.checked_selection`).

    >>> [parse_label_set(t).name for t in ("llm", "latest", "gold", "ana", "annotator:gold", "judge:v2")]
    ['llm', 'human', 'gold', 'ana', 'gold', 'judge:v2']
    >>> parse_label_set("annotator:gold").kind, parse_label_set("gold").kind, parse_label_set("judge:v2").kind
    ('annotator', 'gold', 'version')
    """
    value = text.strip()
    for prefix, what in ((ANNOTATOR_PREFIX, "the annotator"), (VERSION_PREFIX, "the judge version")):
        if value.startswith(prefix):
            value = value[len(prefix) :].strip()
            if not value:
                raise BadInput(f"name {what} after {prefix!r}", path=path, field=f"{option} {text}")
            return LabelSelection.of(value) if prefix == ANNOTATOR_PREFIX else LabelSelection.of_version(value)
    if not value:
        raise BadInput(
            "give a label set: llm, human, gold, judge:VERSION or an annotator's name", path=path, field=option
        )
    kind = KIND_NAMES.get(value) or _ALIASES.get(value)
    return LabelSelection(kind) if kind is not None else LabelSelection.of(value)


def pick_offered(text: str, offered: Sequence[LabelSelection], *, field: str) -> LabelSelection:
    """The one of *offered* (a picker's options) that *text* names in :func:`parse_label_set`'s words (a page's
    URL: ``?labels=judge:v2``); BadInput in one line naming the offered ones when it is none of them.

    >>> pick_offered("latest", [JUDGE, HUMAN], field="?labels=") is HUMAN
    True
    """
    wanted = parse_label_set(text, option=field).argument()
    found = next((s for s in offered if s.argument() == wanted), None)
    if found is None:
        named = ", ".join(s.argument() for s in offered)
        raise BadInput(f"not a label set this page offers you (it offers: {named})", field=f"{field}{text.strip()}")
    return found


def offered(annotators: Iterable[str], *, gold: bool) -> list[LabelSelection]:
    """``llm``, ``human``, ``gold`` (when *gold*), then every annotator (a picker's options, in order)."""
    return [JUDGE, HUMAN, *([GOLD] if gold else []), *(LabelSelection.of(a) for a in annotators)]


def store_annotator(selection: LabelSelection | None) -> str | None:
    """The label store's parameter for *selection*: the annotator's name, :data:`~ragviz.store.label_store.EVERYONE`
    for ``human`` (every annotator's latest decision per field), ``None`` for the judge's labels (a judge
    version's too: nobody's decisions) or no selection. Gold labels are not the store's
    (:mod:`ragviz.analysis.team.gold` derives them): a ``ValueError`` here."""
    from ragviz.store.label_store import EVERYONE

    if selection is None or selection.kind in ("judge", "version"):
        return None
    if selection.kind == "human":
        return EVERYONE
    if selection.kind == "annotator":
        return selection.annotator
    raise ValueError("the team's gold labels are derived from the store, not read from it by one name")


def corrected_uids(store: LabelStore | None, whose: Whose) -> set[str]:
    """The examples whose labels *selection*'s people corrected: one annotator's corrections, anyone's for
    ``human``; none for the judge's (any version's) or the gold labels (which count agreed and adjudicated examples instead)."""
    selection = as_selection(whose)
    if store is None or selection is None or selection.kind in ("judge", "gold", "version"):
        return set()
    who = store_annotator(selection)
    assert who is not None
    return store.corrected_uids(who)
