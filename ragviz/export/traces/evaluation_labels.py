"""Phoenix's evaluations of imported traces as the judge's labels in a label store.

Per example whose row carries ``source_evaluations`` that map (:mod:`ragviz.data.formats.trace_evaluations` says
how), one judge label set is saved (the store's latest judge label set is the example's judge labels everywhere:
Review's base, the judge-vs-human agreement, the metrics' ``llm`` label set). Its provenance names a judge version
named for the evaluators (``phoenix-hallucination_relevance``), stored once through the store's judge versions
(versions never change: an existing one of that name is reused). A label set equal to the example's latest is not
saved again, so importing the same evaluations twice adds nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from ragviz.data.dataset import Dataset
from ragviz.data.formats.openinference import EVALUATIONS, SIDECAR
from ragviz.data.formats.trace_evaluations import evaluation_labels, version_name
from ragviz.data.model import Labels, Provenance
from ragviz.judge.versions.prompt import version_prompt
from ragviz.judge.versions.spec import JudgeVersion, version_from_json, version_to_json
from ragviz.store.events import now_iso
from ragviz.store.judge_versions import insert_version, stored_version
from ragviz.store.label_store import LabelStore

__all__ = ["EvaluationImport", "evaluator_version", "save_evaluation_labels"]


@dataclass
class EvaluationImport:
    """What :func:`save_evaluation_labels` did: label sets saved, examples whose latest judge labels were these
    already, examples per judge version, and examples per evaluation name left read-only."""

    saved: int = 0
    unchanged: int = 0
    versions: Counter[str] = field(default_factory=Counter)
    unmapped: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        """The summary a person reads: one line per version, one for what stayed read-only."""
        out = [
            f"judge labels from Phoenix evaluations: {n} examples as judge version {name}"
            for name, n in sorted(self.versions.items())
        ]
        if self.versions:
            out.append(f"({self.saved} label sets saved, {self.unchanged} unchanged since the last import)")
        if self.unmapped:
            listed = ", ".join(f"{name} ({n})" for name, n in sorted(self.unmapped.items()))
            out.append(f"evaluations kept read-only (no ragviz label they map to): {listed}")
        return out


def evaluator_version(store: LabelStore, evaluators: tuple[str, ...], created_by: str) -> JudgeVersion:
    """The judge version of label sets made from *evaluators*: the stored one of that name, else stored now."""
    name = version_name(evaluators)
    found = stored_version(store, name)
    if found is not None:
        return version_from_json(found.spec_json)
    version = JudgeVersion(
        name,
        system_prompt=(
            f"Phoenix evaluations ({', '.join(evaluators)}) imported as judge labels by ragviz import phoenix: "
            "mapped as docs/from-your-traces.md says. Not a prompt: ragviz never sent it to a model."
        ),
        created_by=created_by or "unknown",
        created_at=now_iso(),
    )
    insert_version(store, name, version_prompt(version, ()).version, version_to_json(version), version.created_by)
    return version


def save_evaluation_labels(store: LabelStore, dataset: Dataset, created_by: str) -> EvaluationImport:
    """Save the judge label sets *dataset*'s trace evaluations map to (see the module docstring)."""
    report = EvaluationImport()
    versions: dict[tuple[str, ...], tuple[str, str]] = {}
    todo: list[tuple[str, Labels]] = []
    for index in range(len(dataset)):
        row = dataset.row(index)
        evaluations = row.get(EVALUATIONS)
        side = row.get(SIDECAR)
        if not evaluations or not isinstance(side, dict):
            continue
        example = dataset.example(index)
        made = evaluation_labels(example, evaluations, side.get("retriever_span_id"))
        for name in made.unmapped if made is not None else {str(e.get("name")) for e in evaluations}:
            report.unmapped[name] += 1
        if made is None:
            continue
        if made.evaluators not in versions:
            version = evaluator_version(store, made.evaluators, created_by)
            versions[made.evaluators] = (version.name, version_prompt(version, ()).version)
        name, prompt_version = versions[made.evaluators]
        labels = replace(made.labels, provenance=Provenance("llm", name, None, prompt_version))
        report.versions[name] += 1
        if store.judge.labels(example.uid) == labels:
            report.unchanged += 1
            continue
        todo.append((example.uid, labels))
    store.judge.save_many(todo)
    report.saved = len(todo)
    return report
