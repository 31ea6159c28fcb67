"""Judge versions in a label store: list, read, create (from people's corrections) and promote.

A new version starts from another (``--from``; default the team's judge): its system prompt, rubric, few-shot
examples and settings, then adds the examples chosen as few-shot (each shown with the people's labels and note)
and replaces the rubric notes when new ones are given. It is refused, nothing stored, when its name is taken,
a few-shot example lies in an audit sample (those are test sets) or has no people's labels or changed since it
was chosen, or its prompt exceeds the model's context. Promoting records who made which version the team's judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ragviz.analysis.labelsets.named import human_labels, judge_labels
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.model import Example
from ragviz.judge.prompt import JudgePrompt
from ragviz.judge.settings import JudgeSettings
from ragviz.judge.versions.prompt import (
    check_fits,
    check_shots_outside,
    check_shots_unchanged,
    few_shot_of,
    version_prompt,
)
from ragviz.judge.versions.spec import (
    SHIPPED_NAME,
    SHIPPED_VERSION,
    JudgeVersion,
    check_name,
    version_from_json,
    version_to_json,
)
from ragviz.store.events import now_iso
from ragviz.store.judge_versions import (
    JudgeVersionExists,
    Promotion,
    insert_version,
    latest_prompt_versions,
    promote_version,
    promotions,
    stored_version,
    stored_versions,
)
from ragviz.store.label_store import LabelStore

__all__ = [
    "AUDIT_SAMPLES",
    "checked_selection",
    "create_version",
    "current_version",
    "draft_version",
    "get_version",
    "judge_prompt",
    "judged_by",
    "list_versions",
    "promote",
    "settings_for",
    "shots_now",
    "team_judge",
    "version_label_sets",
    "version_names_by_prompt",
]


AUDIT_SAMPLES = "an audit sample (audit samples are test sets)"


def list_versions(store: LabelStore) -> list[JudgeVersion]:
    """``v1`` (the shipped prompt), then every stored version, oldest first."""
    return [SHIPPED_VERSION, *(version_from_json(s.spec_json) for s in stored_versions(store))]


def get_version(store: LabelStore, name: str) -> JudgeVersion:
    """The version called *name*; BadInput naming the known ones when there is none."""
    if name == SHIPPED_NAME:
        return SHIPPED_VERSION
    found = stored_version(store, name)
    if found is None:
        known = ", ".join(v.name for v in list_versions(store))
        raise BadInput(f"no judge version named {name!r} (known: {known})", path=store.location, field="version")
    return version_from_json(found.spec_json)


def current_version(store: LabelStore) -> tuple[JudgeVersion, Promotion | None]:
    """The team's judge: the newest promotion's version (``v1`` and ``None`` when none was promoted)."""
    found = promotions(store)
    if not found:
        return SHIPPED_VERSION, None
    return get_version(store, found[0].version_name), found[0]


def team_judge(store: LabelStore) -> tuple[JudgeVersion, JudgePrompt, Promotion | None]:
    """The team's judge, its prompt (BadInput when a few-shot example is in an audit sample: those are test
    sets) and its promotion (``None`` for ``v1`` never promoted): what the Label page and ``ragviz label`` run."""
    version, promotion = current_version(store)
    return version, version_prompt(version, store.audits.audit_members(), AUDIT_SAMPLES), promotion


def version_names_by_prompt(store: LabelStore) -> dict[str, str]:
    """prompt version -> version name, for every version (what a judge label set's provenance names)."""
    out = {}
    for version in list_versions(store):
        out[judge_prompt(version, ()).version] = version.name
    return out


def version_label_sets(store: LabelStore) -> list[LabelSelection]:
    """``judge:NAME`` for every version with label sets in *store*, oldest version first: what a label-set
    picker offers beside the people's sets."""
    stored = store.judge.prompt_versions()
    return [LabelSelection.of_version(name, pv) for pv, name in version_names_by_prompt(store).items() if pv in stored]


def checked_selection(
    store: LabelStore | None, selection: LabelSelection, *, path: str | None = None, field: str | None = None
) -> LabelSelection:
    """*selection* with a judge version's prompt version filled in (any other selection as it is); BadInput in
    one line naming the versions with labels when *store* holds none of that version's labels."""
    if selection.kind != "version":
        return selection
    if store is None:
        raise BadInput("a judge version's labels live in a label store: give --db DB", path=path, field=field)
    offered = version_label_sets(store)
    found = next((s for s in offered if s.version == selection.version), None)
    if found is None:
        known = ", ".join(s.name for s in offered) or "none yet"
        raise BadInput(
            f"no labels of judge version {selection.version!r} in this store (judge versions with labels: {known})",
            path=path if path is not None else store.location,
            field=field,
        )
    return found


def judged_by(store: LabelStore, uids: Sequence[str]) -> list[tuple[str, int]]:
    """(judge version, examples of *uids* whose judge labels it made), most first; examples without a stored
    judge label set count under ``"the data's own judge labels"``, an unknown prompt version under its own name."""
    names = version_names_by_prompt(store)
    latest = latest_prompt_versions(store)
    counts: dict[str, int] = {}
    for uid in uids:
        if uid in latest:
            pv = latest[uid]
            name = names.get(pv or "", f"prompt {pv or 'unrecorded'}")
        else:
            name = "the data's own judge labels"
        counts[name] = counts.get(name, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def judge_prompt(version: JudgeVersion, test_set: Sequence[str] | set[str] | frozenset[str]) -> JudgePrompt:
    """The prompt of *version*, refused when a few-shot example is in *test_set* (see :func:`version_prompt`)."""
    return version_prompt(version, test_set)


def settings_for(version: JudgeVersion, settings: JudgeSettings) -> JudgeSettings:
    """*settings* with what *version* fixes (model, endpoint, temperature, reasoning effort, response format)."""
    changes: dict[str, object] = {}
    if version.model:
        changes["model"] = version.model
    if version.base_url:
        changes.update(base_url=version.base_url, azure_endpoint=None)
    if version.temperature is not None:
        changes["temperature"] = version.temperature
    if version.reasoning_effort is not None:
        changes["reasoning_effort"] = version.reasoning_effort
    if version.response_format != "auto":
        changes["response_format"] = version.response_format
    return replace(settings, **changes)  # type: ignore[arg-type]


def shots_now(versions: Sequence[JudgeVersion], dataset: Dataset | None) -> dict[str, Example]:
    """The few-shot examples of *versions* as *dataset* holds them now (to check that none changed)."""
    out: dict[str, Example] = {}
    for uid in {u for v in versions for u in v.shot_uids}:
        row = dataset.index_of(uid) if dataset is not None else None
        if row is not None:
            out[uid] = dataset.example(row)  # type: ignore[union-attr]
    return out


def _check_url(url: str | None) -> str | None:
    if url is None:
        return None
    url = url.strip().rstrip("/")
    if not url.lower().startswith(("http://", "https://")):
        raise BadInput(f"must start with http:// or https://, got {url!r}", field="--base-url")
    if "@" in url.split("://", 1)[1].split("/", 1)[0] or "?" in url:
        raise BadInput("give the server's URL only: a version never stores a key or a password", field="--base-url")
    return url


def draft_version(
    store: LabelStore,
    dataset: Dataset,
    name: str,
    *,
    parent: str | None = None,
    example_uids: Sequence[str] = (),
    rubric: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    created_by: str = "",
) -> JudgeVersion:
    """The version :func:`create_version` would store, checked (BadInput on every refusal), not stored."""
    try:
        check_name(name)
    except ValueError as exc:
        raise BadInput(str(exc), field="NAME") from None
    if stored_version(store, name) is not None:
        raise BadInput(
            f"a judge version named {name!r} exists already: versions never change, pick a new name", field="NAME"
        )
    base = get_version(store, parent) if parent else current_version(store)[0]
    by_uid: dict[str, Example] = {}
    for uid in dict.fromkeys([*base.shot_uids, *example_uids]):
        row = dataset.index_of(uid)
        if row is not None:
            by_uid[uid] = dataset.example(row)
    check_shots_unchanged(base, by_uid)
    shots = list(base.few_shot)
    for uid in dict.fromkeys(example_uids):
        if uid in base.shot_uids:
            continue
        example = by_uid.get(uid)
        if example is None:
            raise BadInput(f"example {uid} is not in the data given", field="--example")
        people, _who = human_labels(example, store)
        if people is None:
            raise BadInput(
                f"example {uid} has no people's labels: review it before showing it as an example", field="--example"
            )
        shots.append(few_shot_of(example, people, judge_labels(example, store)))
    version = JudgeVersion(
        name,
        system_prompt=base.system_prompt,
        rubric=base.rubric if rubric is None else rubric,
        few_shot=tuple(shots),
        model=model or base.model,
        base_url=_check_url(base_url) or base.base_url,
        temperature=base.temperature,
        reasoning_effort=base.reasoning_effort,
        response_format=base.response_format,
        parent=base.name,
        created_by=created_by,
        created_at=now_iso(),
    )
    check_shots_outside(version, store.audits.audit_members(), AUDIT_SAMPLES)
    return version


def create_version(
    store: LabelStore, dataset: Dataset, name: str, *, check_on: Sequence[Example] = (), **draft: object
) -> JudgeVersion:
    """Check and store a new version (see :func:`draft_version` for *draft*'s options); *check_on* are the
    examples whose requests must fit the model's context (default: the few-shot examples' own)."""
    version = draft_version(store, dataset, name, **draft)  # type: ignore[arg-type]
    prompt = version_prompt(version, store.audits.audit_members(), AUDIT_SAMPLES)
    check_fits(version, prompt, list(check_on), version.model)
    try:
        insert_version(store, name, prompt.version, version_to_json(version), version.created_by or "unknown")
    except JudgeVersionExists as exc:
        raise BadInput(str(exc), field="NAME") from None
    return version


def promote(store: LabelStore, name: str, promoted_by: str) -> Promotion:
    """Make *name* the team's judge (the Label page's and ``ragviz label``'s); BadInput when there is no such version."""
    version = get_version(store, name)
    return promote_version(store, version.name, promoted_by or "unknown")
