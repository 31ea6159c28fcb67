"""Generate ``sample_data/`` (``ragviz_sample.jsonl`` and its ``README.md``) from the hand-written sources in
``scripts/sample_data_source/``.

    .venv/bin/python scripts/make_sample_data.py           # (re)write sample_data/
    .venv/bin/python scripts/make_sample_data.py --check   # exit 1 when sample_data/ is stale

The sources are text written by hand for ragviz (nothing is copied from a dataset):

- ``index.json``: the imaginary judge (``annotating_model_name``), the subsets in output order, and the
  deliberate judge mistakes (``id``, ``model``, ``kind``, ``what``) that make the README's table.
- ``<subset>.json``, e.g. ``techqa_sample.json``: a list of examples, written in file order; the file name is
  their ``dataset_name``.
- ``README.template.md``: the README, with ``{rows}``, ``{datasets}``, ``{models}``, ``{judge}``, ``{mistakes}``.

To add an example, append an object to its subset's list (copy a neighbour) with these fields:

- ``id``, ``model`` (the generation model), ``question``: strings.
- ``documents``: ``[{"id": retrieval id, "sentences": [sentence, ...]}, ...]`` in rank order. Leave it out to
  reuse the documents of the earlier example with the same ``id`` (the same question answered by another model).
- ``response``: ``[sentence, ...]``; ``reference``: a string, or a list of acceptable answers.
- ``relevant_ids`` (optional): the gold document ids; with it, ``retrieved_ids`` (the documents' ids) and
  ``relevant_ids`` are written, without it neither is.
- ``labels`` (leave it out for an unlabeled example): the judge's labels. ``relevant`` and ``utilized`` are
  context keys (``"1c"`` = document 1, sentence c); ``support`` has one verdict per response sentence,
  ``{"supported": bool, "keys": [...], "explanation": "..."}`` (no explanation: the judge's usual phrasing);
  ``relevance_explanation`` is a string; ``unsupported`` (optional) overrides the unsupported list derived
  from ``support``; ``bogus_keys`` lists the keys that deliberately name no sentence.

Sentence keys come from :mod:`ragviz.data.keys`; the stored scores are computed by :mod:`ragviz.metrics.trace`
from the stored labels. A key naming no sentence is refused unless it is in ``bogus_keys`` (a typo cannot become
an accidental "mistake"); each deliberate mistake gets an entry in ``index.json`` and a test in
``tests/data/test_sample_data.py``, which also regenerates ``sample_data/`` and compares it byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ragviz.data.keys import context_key, response_key
from ragviz.data.ragbench import labels_from_row
from ragviz.metrics.trace import trace_scores

SOURCE = REPO / "scripts" / "sample_data_source"
OUTPUT = REPO / "sample_data" / "ragviz_sample.jsonl"
TEMPLATE = "README.template.md"

# (required, optional) fields of each kind of object in the sources
EXAMPLE = ({"id", "model", "question", "response", "reference"}, {"documents", "relevant_ids", "labels"})
DOCUMENT = ({"id", "sentences"}, set())
LABELS = ({"relevant", "utilized", "support", "relevance_explanation"}, {"unsupported", "bogus_keys"})
VERDICT = ({"supported", "keys"}, {"explanation"})
MISTAKE = ({"id", "model", "kind", "what"}, set())


class SourceError(ValueError):
    """A source that breaks the sample's shape; the message says which file and example."""


def require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise SourceError(f"{where}: {message}")


def check_fields(obj: object, fields: tuple[set[str], set[str]], where: str) -> None:
    required, optional = fields
    require(isinstance(obj, dict), where, f"expected a JSON object, got {obj!r}")
    require(required <= obj.keys(), where, f"missing fields {sorted(required - obj.keys())}")
    require(obj.keys() <= required | optional, where, f"unknown fields {sorted(obj.keys() - required - optional)}")


def where(example: dict) -> str:
    return f"{example['dataset']}.json: {example['id']}/{example['model']}"


def load_source(source: Path = SOURCE) -> dict:
    """``index.json`` plus ``examples`` (every example in output order, with ``dataset`` set from its file name
    and the reused ``documents`` filled in) and ``readme_template``."""
    index = json.loads((source / "index.json").read_text(encoding="utf-8"))
    examples: list[dict] = []
    seen: dict[str, list[dict]] = {}
    for subset in index["subsets"]:
        for example in json.loads((source / f"{subset}.json").read_text(encoding="utf-8")):
            check_fields(example, EXAMPLE, f"{subset}.json: {example.get('id')}/{example.get('model')}")
            example = {**example, "dataset": subset}
            require("documents" in example or example["id"] in seen, where(example), "no documents to reuse")
            docs = example.get("documents") or seen[example["id"]]
            seen.setdefault(example["id"], docs)
            examples.append({**example, "documents": docs})
    for mistake in index["mistakes"]:
        check_fields(mistake, MISTAKE, "index.json: mistakes")
    return {**index, "examples": examples, "readme_template": (source / TEMPLATE).read_text(encoding="utf-8")}


def check_example(example: dict) -> None:
    """Refuse an example that breaks the sample's shape or has a bogus key not declared as a mistake."""
    at = where(example)
    docs, response, labels = example["documents"], example["response"], example.get("labels")
    require(2 <= len(docs) <= 4, at, f"{len(docs)} documents, expected 2-4")
    for doc in docs:
        check_fields(doc, DOCUMENT, at)
        require(3 <= len(doc["sentences"]) <= 8, at, f"{doc['id']} has {len(doc['sentences'])} sentences, expected 3-8")
    require(2 <= len(response) <= 5, at, f"{len(response)} response sentences, expected 2-5")
    require(bool(example["reference"]), at, "empty reference")
    if labels is None:
        return
    check_fields(labels, LABELS, f"{at} labels")
    require(len(labels["support"]) == len(response), at, "one support verdict per response sentence")
    for verdict in labels["support"]:
        check_fields(verdict, VERDICT, f"{at} support")
        require(isinstance(verdict["supported"], bool), at, "'supported' is true or false")
    valid = {context_key(i, j) for i, doc in enumerate(docs) for j in range(len(doc["sentences"]))}
    used = labels["relevant"] + labels["utilized"] + [k for v in labels["support"] for k in v["keys"]]
    stray = sorted({k for k in used if k not in valid} - set(labels.get("bogus_keys", [])))
    require(not stray, at, f"keys {stray} name no sentence and are not declared in bogus_keys")


def check_mistakes(source: dict) -> None:
    """Every declared mistake names an example, and every example with bogus keys is a declared mistake."""
    examples = {(e["id"], e["model"]): e for e in source["examples"]}
    declared = {(m["id"], m["model"]) for m in source["mistakes"]}
    stray = sorted(declared - examples.keys())
    require(not stray, "index.json", f"mistakes name no example: {stray}")
    for key, example in examples.items():
        bogus = example.get("labels", {}).get("bogus_keys")
        require(not bogus or key in declared, where(example), "has bogus_keys but no entry in index.json mistakes")


def join_keys(keys: list[str]) -> str:
    if len(keys) == 1:
        return f"sentence {keys[0]}"
    return "sentences " + ", ".join(keys[:-1]) + " and " + keys[-1]


def support_explanation(verdict: dict) -> str:
    if verdict.get("explanation"):
        return verdict["explanation"]
    if len(verdict["keys"]) == 1:
        return f"The sentence is supported by {join_keys(verdict['keys'])}, which states the same information."
    return f"The sentence is supported by {join_keys(verdict['keys'])}, which together state this information."


def overall_explanation(support: list[dict]) -> str:
    unsupported = [s["response_sentence_key"] for s in support if not s["fully_supported"]]
    if not unsupported:
        return "Every sentence of the response is supported by the documents."
    return f"The response is not fully supported: {join_keys(unsupported)} makes claims the documents do not contain."


def build_row(example: dict, judge: str) -> dict:
    check_example(example)
    docs, labels = example["documents"], example.get("labels")
    row: dict = {
        "id": example["id"],
        "question": example["question"],
        "documents": [" ".join(doc["sentences"]) for doc in docs],
        "response": " ".join(example["response"]),
        "generation_model_name": example["model"],
        "annotating_model_name": judge if labels is not None else None,
        "dataset_name": example["dataset"],
        "documents_sentences": [
            [[context_key(i, j), text] for j, text in enumerate(doc["sentences"])] for i, doc in enumerate(docs)
        ],
        "response_sentences": [[response_key(j), text] for j, text in enumerate(example["response"])],
    }
    if labels is not None:
        support = [
            {
                "response_sentence_key": response_key(j),
                "explanation": support_explanation(verdict),
                "supporting_sentence_keys": list(verdict["keys"]),
                "fully_supported": verdict["supported"],
            }
            for j, verdict in enumerate(labels["support"])
        ]
        derived_unsupported = [s["response_sentence_key"] for s in support if not s["fully_supported"]]
        row.update(
            {
                "sentence_support_information": support,
                "unsupported_response_sentence_keys": list(labels.get("unsupported", derived_unsupported)),
                "overall_supported_explanation": overall_explanation(support),
                "relevance_explanation": labels["relevance_explanation"],
                "all_relevant_sentence_keys": list(labels["relevant"]),
                "all_utilized_sentence_keys": list(labels["utilized"]),
            }
        )
    scores = trace_scores(labels_from_row(row), sum(len(doc["sentences"]) for doc in docs))
    row["adherence_score"] = None if scores.adherence is None else scores.adherence == 1.0
    row["relevance_score"] = scores.relevance
    row["utilization_score"] = scores.utilization
    row["completeness_score"] = scores.completeness
    row["reference_answer"] = example["reference"]
    if "relevant_ids" in example:
        row["retrieved_ids"] = [doc["id"] for doc in docs]
        row["relevant_ids"] = list(example["relevant_ids"])
    return row


def build_rows(source: dict) -> list[dict]:
    check_mistakes(source)
    return [build_row(example, source["judge"]) for example in source["examples"]]


def render_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def render_readme(rows: list[dict], source: dict) -> str:
    """``sample_data/README.md``: the template with the counts, names and the table of judge mistakes."""
    fields = {
        "rows": str(len(rows)),
        "datasets": ", ".join(f"`{d}`" for d in sorted({r["dataset_name"] for r in rows})),
        "models": ", ".join(f"`{m}`" for m in sorted({r["generation_model_name"] for r in rows})),
        "judge": source["judge"],
        "mistakes": "\n".join("| `{id}` / {model} | {kind} | {what} |".format(**m) for m in source["mistakes"]),
    }
    text = source["readme_template"]
    for name, value in fields.items():
        text = text.replace("{" + name + "}", value)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the files differ from what would be written")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the JSONL; README.md is written beside it")
    args = parser.parse_args(argv)
    try:
        source = load_source()
        rows = build_rows(source)
    except SourceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    outputs = {args.output: render_jsonl(rows), args.output.parent / "README.md": render_readme(rows, source)}
    if args.check:
        stale = [p for p, text in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path}: stale; run scripts/make_sample_data.py", file=sys.stderr)
        return 1 if stale else 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(rows)} rows to {args.output} and {args.output.parent / 'README.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
