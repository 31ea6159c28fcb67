"""The judge through a Batch API at data-set scale: writing request files, collecting answers, a SIGKILL, cost.

    .venv/bin/python benchmarks/bench_batch.py [--n 100000] [--work /tmp/bench_batch]

1. ``write``: N synthetic examples (benchmarks/make_synthetic.py) loaded, planned against the cache and written
   as Batch API request files (50,000 requests / 200 MB each) with every file and request line recorded in an
   SQLite store: wall time and peak RSS of that process (load included).
2. ``collect``: N answers in ``vllm run-batch``'s output shape (valid labels, built beforehand, not timed)
   read back, checked, validated as live answers and applied (judge cache + label store): wall time, peak RSS.
3. ``resume``: the same collect SIGKILLed half way and run again: answers lost and label sets applied twice.
4. cost per 1,000 RAGBench examples (the seven test shards in /work/shared/ragbench) for gpt-4o-mini, live vs
   batch, from the same token counts (characters / 4 in, the live estimate's completion guess out).
Each timed phase runs in its own process, so peak RSS is that phase's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SETTINGS = dict(model="gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="bench", response_format="json_schema")


def _open(db: Path):  # type: ignore[no-untyped-def]
    from ragviz.judge import JudgeCache
    from ragviz.store.label_store import LabelStore

    store = LabelStore(db)
    return store, JudgeCache(store.reopen_database())


def _examples(data: Path):  # type: ignore[no-untyped-def]
    from ragviz.data.load import load
    from ragviz.judge.batch.examples import prompt_examples

    dataset = load([data]).dataset
    return prompt_examples(dataset)  # as `ragviz label --batch` builds them


def phase_write(data: Path, work: Path) -> dict:
    from ragviz.judge import JudgeSettings
    from ragviz.judge.batch import ledger
    from ragviz.judge.batch.submit import BatchPlan, iter_todo, write_batch

    started = time.perf_counter()
    store, cache = _open(work / "write.db")
    settings = JudgeSettings(**SETTINGS)
    plan = BatchPlan()  # streamed as `ragviz label --batch` does: no list of all examples
    todo = iter_todo(_examples(data), settings, cache, plan)
    written = write_batch(todo, settings, cache, work / "requests", format_mode="json_schema", sources=[str(data)])
    files = ledger.files(cache)
    return {
        "requests": written.n_requests,
        "files": len(files),
        "bytes": sum(f.n_bytes for f in files),
        "seconds": time.perf_counter() - started,
    }


def phase_prepare(data: Path, work: Path) -> dict:
    """The offline request file and N valid answers to it (not timed)."""
    import importlib.util

    from ragviz.judge import JudgeSettings
    from ragviz.judge.batch.requests import custom_id
    from ragviz.judge.batch.submit import write_batch

    spec = importlib.util.spec_from_file_location("stub", ROOT / "tests" / "openai_stub_server.py")
    assert spec is not None and spec.loader is not None
    stub = importlib.util.module_from_spec(spec)
    sys.modules["stub"] = stub  # its dataclasses look their module up
    spec.loader.exec_module(stub)
    valid_answer = stub.valid_answer

    store, cache = _open(work / "collect.db")
    settings = JudgeSettings(**SETTINGS)
    examples = _examples(data)
    write_batch(
        examples, settings, cache, work, format_mode="json_schema", sources=[str(data)], offline=True, stem="offline"
    )
    with open(work / "results.jsonl", "w", encoding="utf-8") as out:
        for n, e in enumerate(_examples(data)):
            content = json.dumps(valid_answer(list(e.context_keys()), list(e.response_keys())))
            body = {
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "model": "gpt-4o-mini",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1000, "completion_tokens": len(content) // 4},
            }
            line = {
                "id": f"vllm-{n}",
                "custom_id": custom_id(e.uid),
                "error": None,
                "response": {"status_code": 200, "request_id": f"vllm-batch-{n}", "body": body},
            }
            out.write(json.dumps(line) + "\n")
    store.close()
    cache.close()
    return {}


def phase_collect(data: Path, work: Path, db_name: str) -> dict:
    from ragviz.judge.batch.collect import SourceExamples, import_results

    started = time.perf_counter()
    store, cache = _open(work / db_name)
    report = import_results(work / "results.jsonl", cache, store, SourceExamples())
    return {
        "applied": report.applied,
        "failed": len(report.failures),
        "problems": len(report.problems),
        "recovered": report.recovered,
        "seconds": time.perf_counter() - started,
    }


def _child(phase: str, data: Path, work: Path, *extra: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--data", str(data), "--work", str(work), *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _label_sets(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as con:
        distinct, total = con.execute("SELECT COUNT(DISTINCT example_uid), COUNT(*) FROM judge_label_sets").fetchone()
    return int(distinct), int(total)


def cost_per_thousand() -> dict:
    from ragviz.data.load import load
    from ragviz.judge import JudgeSettings
    from ragviz.judge.batch.cost import batch_run_cost

    dataset = load([Path("/work/shared/ragbench")]).dataset
    examples = [dataset.example(i) for i in range(len(dataset))]
    plan = batch_run_cost(examples, JudgeSettings(model="gpt-4o-mini", api_key="x"))
    scale = 1000 / len(examples)
    return {
        "examples": len(examples),
        "input_tokens_per_1000": round(plan.prompt_tokens * scale),
        "output_tokens_per_1000": round(plan.completion_tokens * scale),
        "live_usd_per_1000": round((plan.live_usd or 0) * scale, 4),
        "batch_usd_per_1000": round((plan.batch_usd or 0) * scale, 4),
        "batch_rule": plan.batch_rule,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--work", default="/tmp/bench_batch")
    parser.add_argument("--phase", default=None)
    parser.add_argument("--data", default=None)
    parser.add_argument("--db", default="collect.db")
    args = parser.parse_args()
    work = Path(args.work)
    if args.phase:
        data = Path(args.data)
        result = {
            "write": lambda: phase_write(data, work),
            "prepare": lambda: phase_prepare(data, work),
            "collect": lambda: phase_collect(data, work, args.db),
        }[args.phase]()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        result["peak_rss_mb"] = usage.ru_maxrss / 1024
        result["cpu_seconds"] = usage.ru_utime + usage.ru_stime  # the figure that does not depend on other load
        print(json.dumps(result))
        return 0

    import shutil

    from benchmarks.make_synthetic import write

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    data = write(args.n, str(work / "syn"), jsonl=False)[0]
    wrote = _child("write", data, work)
    print(
        f"write {wrote['requests']:,} requests into {wrote['files']} files ({wrote['bytes'] / 1e6:,.0f} MB): "
        f"{wrote['seconds']:.1f} s wall ({wrote['cpu_seconds']:.1f} s CPU), peak RSS {wrote['peak_rss_mb']:,.0f} MB"
        " (load included)"
    )
    _child("prepare", data, work)
    shutil.copy(work / "collect.db", work / "resume.db")
    got = _child("collect", data, work)
    print(
        f"collect {got['applied']:,} answers (checked, validated, applied; {got['failed']} failed): "
        f"{got['seconds']:.1f} s wall ({got['cpu_seconds']:.1f} s CPU, load included), peak RSS {got['peak_rss_mb']:,.0f} MB"
    )

    cmd = [
        sys.executable,
        __file__,
        "--phase",
        "collect",
        "--data",
        str(data),
        "--work",
        str(work),
        "--db",
        "resume.db",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(got["seconds"] / 2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before, _ = _label_sets(work / "resume.db")
    again = _child("collect", data, work, "--db", "resume.db")
    distinct, total = _label_sets(work / "resume.db")
    print(
        f"SIGKILL after {got['seconds'] / 2:.1f} s ({before:,} labels stored), run again: {again['applied']:,} applied, "
        f"{again['recovered']:,} finished from the cache; {args.n - distinct:,} lost, {total - distinct:,} applied twice"
    )

    print(f"(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    cost = cost_per_thousand()
    print(
        f"gpt-4o-mini per 1,000 RAGBench examples ({cost['examples']:,} rows measured): "
        f"{cost['input_tokens_per_1000']:,} input + {cost['output_tokens_per_1000']:,} output tokens; "
        f"live ${cost['live_usd_per_1000']:.4f}, batch ${cost['batch_usd_per_1000']:.4f} ({cost['batch_rule']})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
