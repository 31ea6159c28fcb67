"""People's labels made elsewhere become one annotator's decisions (``ragviz import-labels``).

Each imported row (a labelled RAGBench-shaped file, another ragviz's export, Label Studio's export
converted to rows) is matched to the loaded example with the same uid (dataset, id, generation model)
and checked against its text: the same context sentences and response sentences, key by key. A row
that matches nothing loaded, carries no labels, or whose sentences differ is refused, named by file and
row; when any row is refused nothing is imported. Each accepted row is recorded as one decision of the
annotator (the changes from their current labels to the row's, and a review mark), with the file named
as its source (the action's kind is ``import:<file name>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, diff_labels
from ragviz.data.load import load
from ragviz.data.model import Example, Labels
from ragviz.store.label_store import LabelStore

__all__ = ["ImportResult", "IMPORT_PREFIX", "import_labels", "text_difference"]


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


def _checked(loaded: Dataset, path: str) -> tuple[list[tuple[Example, Labels]], list[str]]:
    result = load([path])
    if not result.ok:
        return [], [str(e) for e in result.errors]
    accepted: list[tuple[Example, Labels]] = []
    problems: list[str] = []
    for i in range(len(result.dataset)):
        imported = result.dataset.example(i)
        row = imported.source.row if imported.source is not None else i + 1
        where = f"{path}:{row}"
        at = loaded.index_of(imported.uid)
        if at is None:
            problems.append(f"{where}: id: no loaded example {imported.uid} (load the data these labels belong to)")
            continue
        if imported.labels is None:
            problems.append(f"{where}: labels: the row carries no labels")
            continue
        example = loaded.example(at)
        differs = text_difference(example, imported)
        if differs is not None:
            problems.append(f"{where}: {differs}: the sentences differ from the loaded example {imported.uid}: refused")
            continue
        accepted.append((example, imported.labels))
    return accepted, problems


def import_labels(store: LabelStore, loaded: Dataset, files: Sequence[str], annotator: str) -> ImportResult:
    """Record the labels of every row of *files* as *annotator*'s decisions on the *loaded* examples (see the
    module docstring); :class:`BadInput` listing every refused row (file and row) when any is, nothing recorded."""
    if not annotator or not annotator.strip() or annotator.strip() == "*":
        raise BadInput("name the annotator whose labels these are", field="--annotator")
    todo: list[tuple[str, Example, Labels]] = []
    problems: list[str] = []
    for path in files:
        if not Path(path).exists():
            problems.append(f"{path}: no such file")
            continue
        accepted, refused = _checked(loaded, path)
        problems += refused
        todo += [(Path(path).name, ex, labels) for ex, labels in accepted]
    if problems:
        raise BadInput(f"{len(problems)} rows refused: nothing imported", listed=problems)
    changed = 0
    for name, example, labels in todo:
        current = store.current_labels(example, annotator)
        changes = [*diff_labels(current, labels), Change(REVIEW_FIELD, None, REVIEWED)]
        changed += len(changes) > 1
        store.record(example.uid, annotator, changes, action=IMPORT_PREFIX + name, example=example)
    return ImportResult(len(todo), changed)
