"""Judge versions compared on a test set the prompts never saw.

The test set is either the reviewed members of an audit sample (people's labels from the store) or the examples
of a file of people's labels (``--human FILE``, RAGBench's own labels say). Each version judges the test set
through the judge's cache (only the missing answers are requested; a second comparison asks nothing) without
touching the label store's judge label sets: a comparison never changes what people review. A version whose
few-shot examples lie in the test set (or in any audit sample) is refused before anything is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ragviz.analysis.judge_compare.figures import KINDS, VersionFigures, kind_decisions, version_figures
from ragviz.analysis.labelsets.named import human_labels
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.model import Example, Labels
from ragviz.judge.cache import JudgeCache
from ragviz.judge.cost import RunCost, run_cost
from ragviz.judge.prompt import JudgePrompt
from ragviz.judge.run import RunProgress, RunSummary, judge_examples
from ragviz.judge.settings import JudgeSettings
from ragviz.judge.versions.prompt import check_fits, check_shots_outside, check_shots_unchanged, version_prompt
from ragviz.judge.versions.registry import AUDIT_SAMPLES, settings_for
from ragviz.judge.versions.spec import JudgeVersion
from ragviz.store.label_store import LabelStore

__all__ = [
    "Comparison",
    "TestSet",
    "VersionRun",
    "audit_test_set",
    "compare_versions",
    "differing_examples",
    "comparison_cost",
    "file_test_set",
    "prepare_versions",
]


@dataclass(frozen=True)
class TestSet:
    """Examples with people's labels, never shown to a prompt; *what* says where they come from."""

    what: str
    examples: tuple[Example, ...]
    people: dict[str, Labels] = field(default_factory=dict)

    @property
    def uids(self) -> frozenset[str]:
        return frozenset(e.uid for e in self.examples)


@dataclass(frozen=True)
class VersionRun:
    """One version on the test set: its labels by uid (failed examples absent), the run, the figures."""

    version: JudgeVersion
    prompt: JudgePrompt
    settings: JudgeSettings
    labels: dict[str, Labels]
    summary: RunSummary
    figures: VersionFigures


@dataclass(frozen=True)
class Comparison:
    test_set: TestSet
    runs: tuple[VersionRun, ...]


def _nonempty(test_set: TestSet) -> TestSet:
    if not test_set.examples:
        raise BadInput(f"the test set ({test_set.what}) is empty: nothing to compare on", field="test set")
    return test_set


def audit_test_set(dataset: Dataset, store: LabelStore, sample_id: int) -> TestSet:
    """The reviewed members of audit sample *sample_id* that *dataset* holds, with people's labels."""
    sample = store.audits.get_sample(sample_id)
    if sample is None:
        raise BadInput(
            f"no audit sample {sample_id} (draw one on the Review page)", path=store.location, field="--sample"
        )
    examples, people = [], {}
    for uid in sample.members:
        row = dataset.index_of(uid)
        if row is None:
            continue
        example = dataset.example(row)
        labels, _who = human_labels(example, store)
        if labels is not None and labels.provenance.source == "human":
            examples.append(example)
            people[uid] = labels
    what = f"the {len(examples)} reviewed members of audit sample {sample_id}"
    return _nonempty(TestSet(what, tuple(examples), people))


def file_test_set(dataset: Dataset, source: str) -> TestSet:
    """Every labelled example of *dataset* (loaded from *source*), its labels taken as people's."""
    examples = [e for e in (dataset.example(i) for i in range(len(dataset))) if e.labels is not None]
    people = {e.uid: e.labels for e in examples if e.labels is not None}
    return _nonempty(TestSet(f"the {len(examples)} labelled examples of {source}", tuple(examples), people))


def prepare_versions(
    versions: Sequence[JudgeVersion],
    test_set: TestSet,
    store: LabelStore | None,
    settings: JudgeSettings,
    now: Mapping[str, Example] | None = None,
) -> list[tuple[JudgeVersion, JudgePrompt, JudgeSettings]]:
    """Each version's prompt and settings, every refusal raised before anything is called: a few-shot example in
    the test set or in an audit sample, a few-shot example whose text changed (as *now*, uid -> the example as
    loaded, holds it), a request beyond the context."""
    _nonempty(test_set)
    forbidden = set(store.audits.audit_members()) if store is not None else set()
    by_uid = dict(now or {})
    out = []
    for version in versions:
        check_shots_outside(version, test_set.uids, f"the test set ({test_set.what})")
        check_shots_unchanged(version, by_uid)
        prompt = version_prompt(version, forbidden, AUDIT_SAMPLES)
        run_settings = settings_for(version, settings)
        check_fits(version, prompt, test_set.examples, run_settings.model)
        out.append((version, prompt, run_settings))
    return out


def comparison_cost(
    versions: Sequence[JudgeVersion],
    test_set: TestSet,
    store: LabelStore | None,
    settings: JudgeSettings,
    cache: JudgeCache,
) -> list[RunCost]:
    """Per version: the calls, tokens and cost the comparison would spend (cached answers apart)."""
    prepared = prepare_versions(versions, test_set, store, settings)
    return [run_cost(test_set.examples, s, cache, prompt) for _v, prompt, s in prepared]


def compare_versions(
    versions: Sequence[JudgeVersion],
    test_set: TestSet,
    store: LabelStore | None,
    settings: JudgeSettings,
    cache: JudgeCache,
    *,
    on_progress: Callable[[str, RunProgress], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    n_resamples: int = 1000,
    now: Mapping[str, Example] | None = None,
) -> Comparison:
    """Run every version on *test_set* (cached) and measure each against people's labels (*now*: see
    :func:`prepare_versions`)."""
    prepared = prepare_versions(versions, test_set, store, settings, now)
    runs = []
    for version, prompt, run_settings in prepared:

        def progress(p: RunProgress, name: str = version.name) -> None:
            if on_progress is not None:
                on_progress(name, p)

        summary = judge_examples(
            test_set.examples,
            run_settings,
            cache,
            None,
            prompt=prompt,
            on_progress=progress,
            should_cancel=should_cancel,
        )
        labels = {o.uid: o.labels for o in summary.outcomes if o is not None and o.labels is not None}
        triples = [(e, test_set.people[e.uid], labels[e.uid]) for e in test_set.examples if e.uid in labels]
        runs.append(VersionRun(version, prompt, run_settings, labels, summary, version_figures(triples, n_resamples)))
    return Comparison(test_set, tuple(runs))


def differing_examples(comparison: Comparison) -> list[tuple[str, int]]:
    """(uid, decisions on which the versions' labels differ), most first; examples where they agree left out."""
    out = []
    for example in comparison.test_set.examples:
        decided = [kind_decisions(example, r.labels[example.uid]) for r in comparison.runs if example.uid in r.labels]
        if len(decided) < 2:
            continue
        n = 0
        for kind in KINDS:
            keys = decided[0][kind]
            n += sum(1 for k in keys if len({d[kind].get(k, False) for d in decided}) > 1)
        if n:
            out.append((example.uid, n))
    return sorted(out, key=lambda t: (-t[1], t[0]))
