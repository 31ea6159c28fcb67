"""Peak memory while the Data page takes in an upload: old path (bytes copied, parsed from memory,
written, parsed again) vs new (streamed to disk with its hash, loaded once from the file: JSON Lines
checked chunk by chunk and read by Arrow's streaming reader, Parquet over 64 MB decoded batch by batch
into a memory-mapped Arrow file).

    .venv/bin/python benchmarks/bench_upload.py DATA [--runs 3] [--paths new,old]

DATA is e.g. 25,000 rows of ``benchmarks/make_synthetic.py`` output (``head -n 25000 /tmp/syn100k.jsonl
> /tmp/up190.jsonl``, 190 MB). Each run is a fresh process: after the imports its peak RSS is reset
(``/proc/self/clear_refs``), the file's bytes are put in memory as Streamlit holds an upload (an
``UploadedFile`` is a ``BytesIO``), then the page's upload path runs against a fresh SQLite store.
Prints the median peak RSS above the pre-upload baseline in MB and as a multiple of the file size
(Streamlit's own copy of the upload included).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _status(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(data: str, path: str) -> dict:
    import io

    from ragviz.data.load import load, load_bytes
    from ragviz.store.label_store import LabelStore

    with tempfile.TemporaryDirectory() as tmp:
        store = LabelStore(Path(tmp) / "labels.db")
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
        base = _status("VmRSS")
        upload = io.BytesIO(Path(data).read_bytes())  # what Streamlit holds for an UploadedFile
        name = Path(data).name
        t0 = time.perf_counter()
        if path == "old":  # main before issue 16: getvalue(), load_bytes, save_upload, load(path)
            raw = upload.getvalue()
            assert load_bytes(name, raw).ok
            kept = store.sources.save_upload(name, raw)
            result = load([str(kept)])
        else:
            kept = store.sources.keep_upload(name, upload)
            result = load([str(kept)])
            store.sources.register_upload(kept)
        seconds = time.perf_counter() - t0
        assert result.ok, result.errors[:3]
        peak = _status("VmHWM")
        store.close()
    return {"seconds": seconds, "peak_mb": peak - base, "rows": len(result.dataset)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--paths", default="new,old")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.data, args.child)))
        return
    size_mb = Path(args.data).stat().st_size / 2**20
    print(f"{args.data}: {size_mb:,.0f} MB")
    for path in args.paths.split(","):
        runs = []
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, __file__, args.data, "--child", path], capture_output=True, text=True, check=True
            )
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        peak = statistics.median(r["peak_mb"] for r in runs)
        secs = statistics.median(r["seconds"] for r in runs)
        each = ", ".join(f"{r['peak_mb']:,.0f}" for r in runs)
        print(
            f"{path}: peak {peak:,.0f} MB above baseline = {peak / size_mb:.2f}x the file"
            f" (runs {each}); {secs:.1f} s; {runs[0]['rows']:,} rows"
        )


if __name__ == "__main__":
    main()
