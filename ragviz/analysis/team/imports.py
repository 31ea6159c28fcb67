"""People's labels made elsewhere become one annotator's decisions (``ragviz import-labels``).

Each imported row is matched to the loaded example with the same uid and checked against its text and keys
(:func:`key_problems`) before anything is recorded; :func:`import_labels` says what is checked, refused and recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.keys import clean_key
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, diff_labels
from ragviz.data.load import load
from ragviz.data.model import Example, Labels
from ragviz.store.label_store import LabelStore

__all__ = [
    "ImportResult",
    "IMPORT_PREFIX",
    "import_labels",
    "key_problems",
    "one_row_per_example",
    "refusal",
    "text_difference",
]


IMPORT_PREFIX = "import:"


@dataclass(frozen=True)
class ImportResult:
    n_rows: int
    n_changed: int


def text_difference(loaded: Example, imported: Example) -> str | None:
    """The field where *imported*'s sentences differ from *loaded*'s (``None``: the same text)."""
    if [[(s.key, s.text) for s in d] for d in loaded.document_sentences] != [
        [(s.key, s.text) for s in d] for d in imported.document_sentences
    ]:
        return "documents_sentences"
    if [(s.key, s.text) for s in loaded.response_sentences] != [(s.key, s.text) for s in imported.response_sentences]:
        return "response_sentences"
    return None


def key_problems(example: Example, labels: Labels) -> list[tuple[str, str]]:
    """``(field, problem)`` for every key *labels* name that is not a sentence of *example* (the file's field
    names: context keys among the documents' sentences, response keys among the response's); a key written
    with a judge's trailing dot (``0b.``) names its sentence.

    >>> from ragviz.data.model import Sentence, SentenceSupport
    >>> ex = Example(id="q", dataset="d", question="?", documents=("x",), document_sentences=((Sentence("0a", "x"),),),
    ...              response="y", response_sentences=(Sentence("a", "y"),))
    >>> key_problems(ex, Labels(("0a", "9z"), (), (SentenceSupport("b", True, ("0q",)),)))
    [('all_relevant_sentence_keys', 'key 9z is not a sentence of the documents (0a)'), \
('sentence_support_information[0].response_sentence_key', 'key b is not a sentence of the response (a)'), \
('sentence_support_information[0].supporting_sentence_keys', 'key 0q is not a sentence of the documents (0a)')]
    """
    context, response = example.context_keys(), example.response_keys()
    known = {"documents": set(context), "response": set(response)}
    listed = {"documents": _listed(context), "response": _listed(response)}
    out: list[tuple[str, str]] = []

    def check(field: str, keys: Sequence[str], where: str) -> None:
        for key in keys:
            if clean_key(key) not in known[where]:  # "0b." names 0b, as everywhere (ragviz.data.keys.names_key)
                out.append((field, f"key {key} is not a sentence of the {where} ({listed[where]})"))

    check("all_relevant_sentence_keys", labels.relevant_keys, "documents")
    check("all_utilized_sentence_keys", labels.utilized_keys, "documents")
    for i, s in enumerate(labels.support):
        check(f"sentence_support_information[{i}].response_sentence_key", (s.key,), "response")
        check(f"sentence_support_information[{i}].supporting_sentence_keys", s.supporting_keys, "documents")
    check("unsupported_response_sentence_keys", labels.unsupported_keys or (), "response")
    return out


def _listed(keys: Sequence[str], most: int = 12) -> str:
    return ", ".join(keys[:most]) + (f", ... {len(keys):,} in all" if len(keys) > most else "") or "none"


def refusal(n_rows: int, n_problems: int) -> str:
    """The summary line of a refused import.

    >>> refusal(1, 3), refusal(2, 2), refusal(0, 1)
    ('1 row refused (3 problems): nothing imported', '2 rows refused: nothing imported', '1 problem: nothing imported')
    """
    if n_rows == 0:
        return f"{n_problems} problem{'s' if n_problems != 1 else ''}: nothing imported"
    rows = f"{n_rows:,} row{'s' if n_rows != 1 else ''} refused"
    return f"{rows}{f' ({n_problems:,} problems)' if n_problems != n_rows else ''}: nothing imported"


def _checked(loaded: Dataset, path: str) -> tuple[list[tuple[str, Example, Labels]], list[tuple[str | None, str]]]:
    """The rows of *path* that may be imported (with their place, ``PATH:ROW``), and the problems of the others as
    ``(row's place, line)`` (``None``: the file as a whole)."""
    result = load([path])
    if not result.ok:
        return [], [(None if e.row is None else f"{e.path}:{e.row}", str(e)) for e in result.errors]
    accepted: list[tuple[str, Example, Labels]] = []
    problems: list[tuple[str | None, str]] = [  # the loader kept the first: which did they mean?
        (f"{w.path}:{w.row}", f"{w.path}:{w.row}: id: {one_row_per_example(w.message)}: refused")
        for w in result.duplicates
    ]
    for i in range(len(result.dataset)):
        imported = result.dataset.example(i)
        row = imported.source.row if imported.source is not None else i + 1
        where = f"{path}:{row}"
        at = loaded.index_of(imported.uid)
        if at is None:
            problems.append(
                (where, f"{where}: id: no loaded example {imported.uid} (load the data these labels belong to)")
            )
            continue
        if imported.labels is None:
            problems.append((where, f"{where}: labels: the row carries no labels"))
            continue
        example = loaded.example(at)
        differs = text_difference(example, imported)
        if differs is not None:
            problems.append(
                (where, f"{where}: {differs}: the sentences differ from the loaded example {imported.uid}: refused")
            )
            continue
        bad_keys = key_problems(example, imported.labels)
        if bad_keys:
            problems += [
                (where, f"{where}: {field}: {what} of example {imported.uid}: refused") for field, what in bad_keys
            ]
            continue
        accepted.append((where, example, imported.labels))
    return accepted, problems


def one_row_per_example(duplicate: str) -> str:
    """The loader's duplicate warning (``duplicate of PATH:ROW (same ...); kept the first, ...``) said of people's
    labels, where the first of two rows is not the one to keep."""
    return duplicate.split(";")[0] + ": a file gives one row per example; remove one of them"


def import_labels(store: LabelStore, loaded: Dataset, files: Sequence[str], annotator: str) -> ImportResult:
    """Record the labels of every row of *files* as *annotator*'s decisions on the *loaded* examples;
    :class:`BadInput` listing every refused row (file and row) when any is, nothing recorded.

    Each row (a labelled RAGBench-shaped file, another ragviz's export, Label Studio's export converted to rows) is
    matched to the loaded example with the same uid (dataset, id, generation model) and checked against its text:
    the same context sentences and response sentences, key by key. Every key its labels name must be one of that
    example's sentences (:func:`key_problems`: relevant / utilized / supporting keys among the documents'
    sentences, supported / unsupported keys among the response's), and every field must have its type (the
    loader's row checks, :mod:`ragviz.data.schema`). A row that matches nothing loaded, carries no labels, names a
    key the example does not have, whose sentences differ, or that repeats an earlier row's example (in its file or
    another of *files*) is refused, named by file, row, field and key. Each accepted row is recorded as one decision of the annotator (the
    changes from their current labels to the row's, and a review mark), with the file named as its source (the
    action's kind is ``import:<file name>``)."""
    if not annotator or not annotator.strip() or annotator.strip() == "*":
        raise BadInput("name the annotator whose labels these are", field="--annotator")
    todo: list[tuple[str, Example, Labels]] = []
    problems: list[tuple[str | None, str]] = []
    seen: dict[str, str] = {}  # uid -> the place of the row that gave it first
    for path in files:
        if not Path(path).exists():
            problems.append((None, f"{path}: no such file"))
            continue
        accepted, refused = _checked(loaded, path)
        problems += refused
        for where, ex, labels in accepted:
            if (first := seen.setdefault(ex.uid, where)) != where:  # in an earlier file: which did they mean?
                again = f"{where}: id: {ex.uid} is also in {first}: give each example's labels once; remove one of them"
                problems.append((where, again + ": refused"))
                continue
            todo.append((Path(path).name, ex, labels))
    if problems:
        rows = {where for where, _ in problems if where is not None}
        raise BadInput(refusal(len(rows), len(problems)), listed=[line for _, line in problems])
    changed = 0
    for name, example, labels in todo:
        current = store.current_labels(example, annotator)
        changes = [*diff_labels(current, labels), Change(REVIEW_FIELD, None, REVIEWED)]
        changed += len(changes) > 1
        store.record(example.uid, annotator, changes, action=IMPORT_PREFIX + name, example=example)
    return ImportResult(len(todo), changed)
