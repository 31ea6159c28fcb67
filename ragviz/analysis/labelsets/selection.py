"""Whose labels: one :class:`LabelSelection`, parsed once where a person names it (a CLI option, a picker)
and passed down to the label sets, the Dashboard, the estimates and the export.

The kinds (what ``--labels`` / ``--against`` and the pickers offer):

* ``llm`` — the judge's labels;
* ``human`` — per example and per label field, the latest decision of any annotator (on the judge's
  labels): the same labels the team's export writes (``ragviz export --labels latest``);
* ``gold`` — the team's agreed or adjudicated labels (:mod:`ragviz.analysis.team.gold`);
* one annotator — that person's current labels.

A person's name is never read as a kind: an annotator called ``gold`` is ``LabelSelection.of("gold")``, shown
as ``gold (annotator)`` beside the team's gold labels, and named on the command line as ``annotator:gold``
(or ``--annotator gold``). The store takes whose labels as an annotator name (or its
:data:`~ragviz.store.label_store.EVERYONE`); :func:`store_annotator` is the one conversion.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ragviz.data.errors import BadInput
from ragviz.store.roles import identity_name

if TYPE_CHECKING:
    from ragviz.store.label_store import LabelStore

__all__ = [
    "ANNOTATOR_PREFIX",
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
    "store_annotator",
]

Kind = Literal["judge", "human", "gold", "annotator"]

#: How a kind is written on the command line and shown in a picker.
KIND_NAMES: dict[str, Kind] = {"llm": "judge", "human": "human", "gold": "gold"}
#: ``annotator:NAME`` names a person whatever their name (``annotator:gold``).
ANNOTATOR_PREFIX = "annotator:"
# Other spellings a command accepts for a kind: export's "latest" is the human label set.
_ALIASES: dict[str, Kind] = {"judge": "judge", "latest": "human", "*": "human"}


@dataclass(frozen=True)
class LabelSelection:
    """Whose labels (see the module docstring): a *kind*, and for ``annotator`` the person's name as the
    store writes it (:func:`ragviz.store.roles.identity_name`)."""

    kind: Kind
    annotator: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("judge", "human", "gold", "annotator"):
            raise ValueError(f"unknown label selection kind {self.kind!r}")
        if (self.kind == "annotator") != bool(self.annotator):
            raise ValueError("an annotator's label selection names the annotator; the others name nobody")

    @classmethod
    def of(cls, annotator: str) -> LabelSelection:
        """One annotator's labels (the name folded as the store folds it)."""
        name = identity_name(annotator)
        if not name:
            raise ValueError("an annotator's name is empty")
        return cls("annotator", name)

    @property
    def name(self) -> str:
        """The label set's short name: ``llm``, ``human``, ``gold`` or the annotator's name."""
        if self.kind == "annotator":
            return self.annotator
        return next(text for text, kind in KIND_NAMES.items() if kind == self.kind)

    @property
    def is_person(self) -> bool:
        return self.kind == "annotator"

    def label(self) -> str:
        """How a picker shows it: :attr:`name`, with ``(annotator)`` after a person whose name is a kind's."""
        if self.kind == "annotator" and (self.annotator in KIND_NAMES or self.annotator in _ALIASES):
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
    ``annotator:NAME``, or any other text as an annotator's name. Empty text is :class:`BadInput`.

    >>> [parse_label_set(t).name for t in ("llm", "latest", "gold", "ana", "annotator:gold")]
    ['llm', 'human', 'gold', 'ana', 'gold']
    >>> parse_label_set("annotator:gold").kind, parse_label_set("gold").kind
    ('annotator', 'gold')
    """
    value = text.strip()
    if value.startswith(ANNOTATOR_PREFIX):
        value = value[len(ANNOTATOR_PREFIX) :].strip()
        if not value:
            raise BadInput("name the annotator after 'annotator:'", path=path, field=f"{option} {text}")
        return LabelSelection.of(value)
    if not value:
        raise BadInput("give a label set: llm, human, gold or an annotator's name", path=path, field=option)
    kind = KIND_NAMES.get(value) or _ALIASES.get(value)
    return LabelSelection(kind) if kind is not None else LabelSelection.of(value)


def offered(annotators: Iterable[str], *, gold: bool) -> list[LabelSelection]:
    """``llm``, ``human``, ``gold`` (when *gold*), then every annotator (a picker's options, in order)."""
    return [JUDGE, HUMAN, *([GOLD] if gold else []), *(LabelSelection.of(a) for a in annotators)]


def store_annotator(selection: LabelSelection | None) -> str | None:
    """The label store's parameter for *selection*: the annotator's name, :data:`~ragviz.store.label_store.EVERYONE`
    for ``human`` (every annotator's latest decision per field), ``None`` for the judge's labels or no
    selection. Gold labels are not the store's (:mod:`ragviz.analysis.team.gold` derives them): a
    ``ValueError`` here."""
    from ragviz.store.label_store import EVERYONE

    if selection is None or selection.kind == "judge":
        return None
    if selection.kind == "human":
        return EVERYONE
    if selection.kind == "annotator":
        return selection.annotator
    raise ValueError("the team's gold labels are derived from the store, not read from it by one name")


def corrected_uids(store: LabelStore | None, whose: Whose) -> set[str]:
    """The examples whose labels *selection*'s people corrected: one annotator's corrections, anyone's for
    ``human``; none for the judge's or the gold labels (which count agreed and adjudicated examples instead)."""
    selection = as_selection(whose)
    if store is None or selection is None or selection.kind in ("judge", "gold"):
        return set()
    who = store_annotator(selection)
    assert who is not None
    return store.corrected_uids(who)
