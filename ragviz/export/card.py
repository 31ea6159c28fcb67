"""Hugging Face ``datasets`` metadata of an exported Parquet file and its dataset card.

:func:`with_hf_features` puts the features (RAGBench's own ``Value`` / ``Sequence`` notation, as the
published RAGBench shards carry them) under the ``huggingface`` key of the Arrow schema metadata, so
``datasets.load_dataset("parquet", ...)`` types every column as RAGBench does. :func:`dataset_card` is a
``README.md`` describing every column of the export: RAGBench's, ragviz's (``overall_supported``, the
``llm_`` copies, provenance) and the input's own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.data.ragbench import LLM_PREFIX
from ragviz.export.output import write_output

__all__ = [
    "CARD_NAME",
    "COLUMN_DOCS",
    "DIRECTORY_PARQUET",
    "HF_KEY",
    "card_path_for",
    "dataset_card",
    "describe",
    "hf_feature",
    "hf_features",
    "with_hf_features",
    "write_card",
]


HF_KEY = b"huggingface"

COLUMN_DOCS: dict[str, str] = {
    "id": "example id (RAGBench repeats an id when two generation models answered the same question)",
    "question": "the user question",
    "documents": "the retrieved documents, in retrieval order",
    "response": "the generated answer",
    "generation_model_name": "the model that wrote the response",
    "annotating_model_name": "the LLM judge that produced the `llm_` labels",
    "dataset_name": "the RAGBench subset (or the input file's name)",
    "documents_sentences": "each document as [key, sentence] pairs; sentence j of document i is keyed "
    "`{i}{letters(j)}` (`0a`, `0b`, ...)",
    "response_sentences": "the response as [key, sentence] pairs, keyed `a`, `b`, ...",
    "all_relevant_sentence_keys": "context sentences relevant to the question (current labels: a person's "
    "corrections applied)",
    "all_utilized_sentence_keys": "context sentences the response used (current labels)",
    "sentence_support_information": "per response sentence: fully_supported, supporting_sentence_keys and "
    "the explanation (current labels)",
    "unsupported_response_sentence_keys": "response sentences not supported by the context (current labels)",
    "relevance_explanation": "the judge's explanation of the relevance labels",
    "overall_supported_explanation": "the judge's explanation of the overall support verdict",
    "overall_supported": "ragviz's extra column: the whole response supported by the context (true/false, "
    "null when unknown); RAGBench stores the same verdict as adherence_score",
    "relevance_score": "TRACe relevance: relevant context sentences / all context sentences, recomputed "
    "from the current labels",
    "utilization_score": "TRACe utilization: utilized context sentences / all context sentences (recomputed)",
    "completeness_score": "TRACe completeness: relevant and utilized / relevant sentences (recomputed)",
    "adherence_score": "TRACe adherence: every response sentence supported (recomputed)",
    "trulens_groundedness": "RAGBench baseline: TruLens groundedness score",
    "trulens_context_relevance": "RAGBench baseline: TruLens context relevance score",
    "ragas_faithfulness": "RAGBench baseline: Ragas faithfulness score",
    "ragas_context_relevance": "RAGBench baseline: Ragas context relevance score",
    "gpt3_adherence": "RAGBench baseline: GPT-3.5 adherence score",
    "gpt3_context_relevance": "RAGBench baseline: GPT-3.5 context relevance score",
    "gpt35_utilization": "RAGBench baseline: GPT-3.5 utilization score",
    "reference_answer": "the reference (ground-truth) answer",
    "reference_contexts": "the reference (ideal) contexts (Ragas `reference_contexts`, DeepEval `context`)",
    "retrieved_ids": "ids of the retrieved documents, in rank order (Ragas `retrieved_context_ids`)",
    "relevant_ids": "ids of the documents relevant to the question, the gold set of the retrieval metrics "
    "(Ragas `reference_context_ids`; a person's correction when set)",
    "answer_similarity": "Tonic answer similarity, 0..5 (a person's value when set)",
    "chunk_relevant": "one flag per document: relevant (a person's value when set)",
    "chunk_utilized": "one flag per document: utilized (a person's value when set)",
    "label_source": "who decided the current labels: `llm` (the judge's, unchanged) or `human`; in a gold export"
    " `agreed` (the annotators all agreed) or `adjudicated` (an adjudicator settled it)",
    "reviewer": "the annotator who reviewed the example (null when nobody did)",
    "reviewed_at": "when the annotator last reviewed it (ISO 8601)",
    "audit_sample": "true when the example was reviewed as a member of an audit sample (a random draw "
    "whose reviews may correct the judge's means, `ragviz estimate`)",
}


def describe(column: str) -> str:
    """What *column* of an export holds."""
    if column in COLUMN_DOCS:
        return COLUMN_DOCS[column]
    if column.startswith(LLM_PREFIX) and column[len(LLM_PREFIX) :] in COLUMN_DOCS:
        return f"the LLM judge's original value of `{column[len(LLM_PREFIX) :]}`, before any human correction"
    return "carried over unchanged from the input file"


def hf_feature(dtype: pa.DataType) -> Any:
    """The ``datasets`` feature of an Arrow type, in the notation of RAGBench's own shards."""
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        inner = dtype.value_type
        if pa.types.is_struct(inner):
            return [hf_feature(inner)]
        return {"feature": hf_feature(inner), "_type": "Sequence"}
    if pa.types.is_struct(dtype):
        return {dtype.field(i).name: hf_feature(dtype.field(i).type) for i in range(dtype.num_fields)}
    if pa.types.is_null(dtype):
        return {"dtype": "null", "_type": "Value"}
    if pa.types.is_large_string(dtype):
        return {"dtype": "large_string", "_type": "Value"}
    if pa.types.is_string(dtype):
        return {"dtype": "string", "_type": "Value"}
    if pa.types.is_boolean(dtype):
        return {"dtype": "bool", "_type": "Value"}
    if pa.types.is_floating(dtype):
        return {"dtype": f"float{dtype.bit_width}", "_type": "Value"}  # Arrow says "double", datasets "float64"
    return {"dtype": str(dtype), "_type": "Value"}  # int64, ... are datasets' names too


def hf_features(schema: pa.Schema) -> dict[str, Any]:
    return {f.name: hf_feature(f.type) for f in schema}


def with_hf_features(table: pa.Table) -> pa.Table:
    """*table* with its ``datasets`` features in the schema metadata (other metadata kept)."""
    metadata = dict(table.schema.metadata or {})
    metadata[HF_KEY] = json.dumps({"info": {"features": hf_features(table.schema)}}).encode("utf-8")
    return table.replace_schema_metadata(metadata)


def _yaml_feature(name: str, feature: Any, indent: str) -> list[str]:
    """One feature in a dataset card's YAML header (``dataset_info.features``)."""
    lines = [f"{indent}- name: {_yaml_str(name)}"]
    lines += _yaml_type(feature, indent + "  ")
    return lines


def _yaml_type(feature: Any, indent: str) -> list[str]:
    if isinstance(feature, list):
        lines = [f"{indent}list:"]
        for sub, f in feature[0].items():
            lines += _yaml_feature(sub, f, indent + "  ")
        return lines
    if feature.get("_type") == "Sequence":
        inner = feature["feature"]
        if inner.get("_type") == "Value":
            return [f"{indent}sequence: {_yaml_str(inner['dtype'])}"]
        return [f"{indent}sequence:", *_yaml_type(inner, indent + "  ")]
    if "_type" not in feature:  # a struct
        lines = [f"{indent}struct:"]
        for sub, f in feature.items():
            lines += _yaml_feature(sub, f, indent + "  ")
        return lines
    return [f"{indent}dtype: {_yaml_str(feature['dtype'])}"]


def _yaml_str(text: str) -> str:
    """*text* as a YAML string: plain when it is a lowercase name YAML reads as a string, else quoted
    (``null``, ``yes``, ``on``, a name with a colon or a leading digit would be read as something else)."""
    plain = text.replace("_", "").isalnum() and text.isascii() and text[:1].isalpha() and text.islower()
    if plain and text not in ("null", "true", "false", "yes", "no", "on", "off", "y", "n"):
        return text
    return "'" + text.replace("'", "''") + "'"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def dataset_card(schema: pa.Schema, n_rows: int, data_files: Sequence[str], title: str = "ragviz export") -> str:
    """A ``README.md`` for an export with *schema*: YAML header (features, data files) and a table
    describing every column."""
    features = hf_features(schema)
    yaml = ["---", f"pretty_name: {title}", "tags:", "- rag", "- ragbench", "- ragviz", "configs:"]
    yaml += ["- config_name: default", "  data_files:"] + [f"  - {f}" for f in data_files]
    yaml += ["dataset_info:", "  features:"]
    for name, feature in features.items():
        yaml += _yaml_feature(name, feature, "  ")
    yaml += ["---", ""]
    body = [
        f"# {title}",
        "",
        f"{n_rows} examples in the RAGBench schema (https://huggingface.co/datasets/rungalileo/ragbench), "
        "exported by ragviz: the label fields hold the current labels (a person's corrections applied), the "
        "TRACe scores are recomputed from them, `llm_` columns keep the judge's original labels.",
        "",
        "| column | type | what it holds |",
        "| --- | --- | --- |",
    ]
    body += [f"| `{f.name}` | `{_cell(str(f.type))}` | {_cell(describe(f.name))} |" for f in schema]
    return "\n".join(yaml + body) + "\n"


CARD_NAME = "README.md"
DIRECTORY_PARQUET = "data-00000-of-00001.parquet"


def card_path_for(parquet_path: str | os.PathLike) -> Path:
    """Where ``--card`` writes the card of a Parquet file: ``<stem>.README.md`` beside it (never over a
    README.md that may be someone's own)."""
    p = Path(parquet_path)
    return p.with_name(f"{p.stem}.{CARD_NAME}")


def write_card(parquet_path: str | os.PathLike, card_path: str | os.PathLike) -> None:
    """Write the dataset card of the Parquet file *parquet_path* (its schema and row count) to *card_path*."""
    p = Path(parquet_path)
    meta = pq.read_metadata(p)
    schema = pq.read_schema(p)
    relative = os.path.relpath(p, Path(card_path).parent)
    text = dataset_card(schema, meta.num_rows, [relative])
    write_output(text.encode("utf-8"), card_path)
