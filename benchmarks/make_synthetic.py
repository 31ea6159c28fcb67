"""N RAGBench-shaped rows, deterministic by seed, as Parquet and JSONL (for the scale benchmarks).

    .venv/bin/python benchmarks/make_synthetic.py N OUT [--seed 0] [--batch 50000] [--no-jsonl]

writes ``OUT.parquet`` and ``OUT.jsonl`` (OUT without extension; put them in /tmp, never the repo).

The shapes follow RAGBench's seven test shards (2,896 rows): 1-16 documents per row (median 4),
1-550 sentences per document (median 4, mean ~6, a long tail) keyed ``0a..0z, 0aa..``, 1-26
response sentences (mean ~2.8); per row ~30 % of the context sentences relevant, ~65 % of those
utilized, ~84 % of the answers fully supported; the stored TRACe scores are computed from those
labels as RAGBench does. Every column is built with numpy / pyarrow (offsets and ``take`` into
pools of sentence texts and keys), never per-row dicts, so 1,000,000 rows take about a minute for
the Parquet file (JSONL conversion, through ``json.dumps`` per row, takes longer).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragviz.data.keys import letters

MAX_DOCS = 16
MAX_SENTENCES = 550
MAX_RESPONSE = 26
GENERATORS = ("gpt-3.5-turbo-1106", "gpt-3.5-turbo-0125", "claude-3-haiku-20240307")
SUBSETS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")
WORDS = (
    "the a of to and in is was for on with as by that from at which it an be are this patients study "
    "results model data system network protein virus cell energy river city team season film album "
    "university engine battery screen device setting button press menu display signal power the of in"
).split()
STR_LIST = pa.list_(pa.string())


def _pool(rng: np.random.Generator, n: int, lo: int, hi: int, end: str = ".") -> pa.Array:
    words = np.array(WORDS)
    out = []
    for length in rng.integers(lo, hi, size=n):
        text = " ".join(words[rng.integers(0, len(words), size=length)])
        out.append(text[:1].upper() + text[1:] + end)
    return pa.array(out, pa.string())


def _lists(offsets: np.ndarray, values: pa.Array) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)


def _offsets(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _key_lists(row_of: np.ndarray, mask: np.ndarray, keys: pa.Array, n_rows: int) -> pa.Array:
    """Per row, the keys (in sentence order) of the sentences where *mask* holds."""
    picked = np.flatnonzero(mask)
    counts = np.bincount(row_of[picked], minlength=n_rows)
    return _lists(_offsets(counts), keys.take(pa.array(picked)))


def make_batch(n: int, first: int, rng: np.random.Generator, pools: dict[str, pa.Array]) -> pa.Table:
    """Rows *first* .. *first* + n - 1."""
    sentences, keys_pool = pools["sentences"], pools["keys"]
    n_docs = np.clip(rng.poisson(3.0, n) + 1, 1, MAX_DOCS)
    doc_row = np.repeat(np.arange(n), n_docs)
    n_doc = len(doc_row)
    per_doc = np.clip(np.rint(rng.lognormal(np.log(4.5), 0.75, n_doc)), 1, MAX_SENTENCES).astype(np.int64)
    tail = rng.random(n_doc) < 0.002
    per_doc[tail] = rng.integers(40, MAX_SENTENCES + 1, int(tail.sum()))
    sent_off = _offsets(per_doc)
    n_sent = int(sent_off[-1])
    sent_doc = np.repeat(np.arange(n_doc), per_doc)
    sent_j = np.arange(n_sent) - sent_off[:-1][sent_doc]
    doc_index = np.arange(n_doc) - _offsets(n_docs)[:-1][doc_row]
    sent_row = doc_row[sent_doc]
    key_idx = doc_index[sent_doc] * MAX_SENTENCES + sent_j
    keys = keys_pool.take(pa.array(key_idx))
    texts = sentences.take(pa.array(rng.integers(0, len(sentences), n_sent)))

    pair_values = pa.concat_arrays([keys, texts]).take(
        pa.array(np.stack([np.arange(n_sent), n_sent + np.arange(n_sent)], 1).ravel())
    )
    pairs = _lists(np.arange(0, 2 * n_sent + 1, 2), pair_values)
    doc_sentences = _lists(sent_off, pairs)
    documents_sentences = _lists(_offsets(n_docs), doc_sentences)
    documents = _lists(_offsets(n_docs), pc.binary_join(_lists(sent_off, texts), " "))

    n_resp = np.clip(rng.geometric(1 / 2.8, n), 1, MAX_RESPONSE)
    resp_off = _offsets(n_resp)
    n_r = int(resp_off[-1])
    resp_row = np.repeat(np.arange(n), n_resp)
    resp_j = np.arange(n_r) - resp_off[:-1][resp_row]
    resp_keys = pools["letters"].take(pa.array(resp_j))
    resp_texts = sentences.take(pa.array(rng.integers(0, len(sentences), n_r)))
    resp_pairs = _lists(
        np.arange(0, 2 * n_r + 1, 2),
        pa.concat_arrays([resp_keys, resp_texts]).take(
            pa.array(np.stack([np.arange(n_r), n_r + np.arange(n_r)], 1).ravel())
        ),
    )
    response_sentences = _lists(resp_off, resp_pairs)
    response = pc.binary_join(_lists(resp_off, resp_texts), " ")

    # Labels: relevance clustered by document (a document is on topic or not), utilization a subset.
    doc_on_topic = rng.random(n_doc) < 0.55
    p_rel = np.where(doc_on_topic[sent_doc], 0.5, 0.03)
    relevant = rng.random(n_sent) < p_rel
    utilized = relevant & (rng.random(n_sent) < 0.65)
    supported_row = rng.random(n) < 0.84
    unsupported = ~supported_row[resp_row] & (rng.random(n_r) < 0.5)
    first_resp = resp_off[:-1]
    # A row that is not fully supported has at least one unsupported sentence.
    no_unsup = np.bincount(resp_row[unsupported], minlength=n) == 0
    unsupported[first_resp[~supported_row & no_unsup]] = True
    supported_row = np.bincount(resp_row[unsupported], minlength=n) == 0

    all_relevant = _key_lists(sent_row, relevant, keys, n)
    all_utilized = _key_lists(sent_row, utilized, keys, n)
    unsupported_keys = _key_lists(resp_row, unsupported, resp_keys, n)

    # sentence_support_information: each utilized key supports response sentence (rank % n_resp).
    util_idx = np.flatnonzero(utilized)
    util_row = sent_row[util_idx]
    rank = np.arange(len(util_idx)) - _offsets(np.bincount(util_row, minlength=n))[:-1][util_row]
    target = resp_off[:-1][util_row] + rank % n_resp[util_row]
    order = np.argsort(target, kind="stable")
    supporting = _lists(_offsets(np.bincount(target, minlength=n_r)), keys.take(pa.array(util_idx[order])))
    explanations = pools["explanations"].take(pa.array(rng.integers(0, len(pools["explanations"]), n_r)))
    support = pa.StructArray.from_arrays(
        [explanations, pa.array(~unsupported), resp_keys, supporting],
        names=["explanation", "fully_supported", "response_sentence_key", "supporting_sentence_keys"],
    )
    support_info = _lists(resp_off, support)

    n_ctx = np.bincount(sent_row, minlength=n)
    n_rel = np.bincount(sent_row[relevant], minlength=n)
    n_util = np.bincount(sent_row[utilized], minlength=n)
    n_both = np.bincount(sent_row[relevant & utilized], minlength=n)
    relevance = n_rel / n_ctx
    utilization = n_util / n_ctx
    with np.errstate(invalid="ignore", divide="ignore"):
        completeness = np.where(n_rel > 0, n_both / np.maximum(n_rel, 1), np.nan)
    noise = lambda base: np.clip(base + rng.normal(0, 0.15, n), 0, 1)  # noqa: E731

    subset = rng.integers(0, len(SUBSETS), n)
    ids = pc.binary_join_element_wise(
        pa.array(np.full(n, "syn-")), pc.cast(pa.array(np.arange(first, first + n)), pa.string()), ""
    )
    return pa.table(
        {
            "id": ids,
            "question": pools["questions"].take(pa.array(rng.integers(0, len(pools["questions"]), n))),
            "documents": documents,
            "response": response,
            "generation_model_name": pa.array(np.array(GENERATORS)[rng.integers(0, len(GENERATORS), n)]),
            "annotating_model_name": pa.array(np.full(n, "gpt-4o")),
            "dataset_name": pa.array(np.char.add(np.array(SUBSETS)[subset], "_test")),
            "documents_sentences": documents_sentences,
            "response_sentences": response_sentences,
            "sentence_support_information": support_info,
            "unsupported_response_sentence_keys": unsupported_keys,
            "adherence_score": pa.array(supported_row),
            "overall_supported_explanation": pools["explanations"].take(pa.array(rng.integers(0, 500, n))),
            "relevance_explanation": pools["explanations"].take(pa.array(rng.integers(0, 500, n))),
            "all_relevant_sentence_keys": all_relevant,
            "all_utilized_sentence_keys": all_utilized,
            "trulens_groundedness": pa.array(noise(supported_row * 0.8)),
            "ragas_faithfulness": pa.array(noise(supported_row * 0.7 + 0.2)),
            "gpt3_context_relevance": pa.array(noise(relevance)),
            "relevance_score": pa.array(relevance),
            "utilization_score": pa.array(utilization),
            "completeness_score": pa.array(completeness, from_pandas=True),
        }
    )


def make_pools(seed: int) -> dict[str, pa.Array]:
    rng = np.random.default_rng([seed, 1])
    return {
        "sentences": _pool(rng, 20000, 6, 30),
        "questions": _pool(rng, 5000, 6, 20, "?"),
        "explanations": _pool(rng, 500, 10, 40),
        "keys": pa.array([f"{d}{letters(j)}" for d in range(MAX_DOCS) for j in range(MAX_SENTENCES)], pa.string()),
        "letters": pa.array([letters(j) for j in range(MAX_RESPONSE)], pa.string()),
    }


def batches(n: int, seed: int = 0, batch: int = 50_000):
    """The rows in tables of at most *batch* rows; the same *n* and *seed* give the same rows."""
    pools = make_pools(seed)
    for first in range(0, n, batch):
        rng = np.random.default_rng([seed, 2, first])
        yield make_batch(min(batch, n - first), first, rng, pools)


def write(n: int, out: str, seed: int = 0, batch: int = 50_000, jsonl: bool = True) -> list[Path]:
    """Write ``OUT.parquet`` (and ``OUT.jsonl``); returns the paths."""
    base = Path(out)
    if base.suffix in (".parquet", ".jsonl"):
        base = base.with_suffix("")
    paths = [base.with_suffix(".parquet")] + ([base.with_suffix(".jsonl")] if jsonl else [])
    writer = None
    text = open(paths[1], "w", encoding="utf-8") if jsonl else None
    try:
        for table in batches(n, seed, batch):
            if writer is None:
                writer = pq.ParquetWriter(paths[0], table.schema)
            writer.write_table(table)
            if text is not None:
                for sub in table.to_batches(max_chunksize=5000):
                    text.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sub.to_pylist()))
    finally:
        if writer is not None:
            writer.close()
        if text is not None:
            text.close()
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int)
    p.add_argument("out", help="output path without extension (e.g. /tmp/syn100k)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=50_000)
    p.add_argument("--no-jsonl", action="store_true")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    paths = write(args.n, args.out, args.seed, args.batch, not args.no_jsonl)
    sizes = ", ".join(f"{p} ({p.stat().st_size / 1e6:.0f} MB)" for p in paths)
    print(f"{args.n} rows in {time.perf_counter() - t0:.1f} s: {sizes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
