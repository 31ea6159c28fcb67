"""The ``ragviz`` command line (also ``python -m ragviz``).

Each command parses its options, calls one library function and prints. Library modules are
imported inside the commands so ``ragviz --help`` starts fast; Streamlit is never imported here.
Exit codes: 0 success, 1 some examples failed or were refused (``label``, ``push``), 2 bad input or a refusal. Errors have one channel: a command (or core code) raises a
:class:`ragviz.errors.RagvizError` and :func:`main` prints it to stderr; bad input
(:class:`ragviz.errors.BadInput`, every domain error is one) every problem as ``PATH:ROW: field: problem`` (the
parts known), any other refusal (a store or a service that fails) as ``ragviz COMMAND: message``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK, fold_identities
from ragviz.errors import BadInput, RagvizError

__all__ = ["COMMANDS", "Command", "CommandSpec", "build_parser", "main"]


Command = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class CommandSpec:
    """A subcommand whose module is imported only when that subcommand runs (keeps start-up fast:
    ``ragviz metrics`` never pays for the ``openai`` client or pandas)."""

    name: str
    help: str
    description: str
    module: str
    add_arguments: str
    run: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "validate",
        "check that files load; print load errors and the label-quality report",
        "Load the files and print every problem as PATH:ROW: field: problem. "
        "Exit 0 when everything loads (label-quality flags are warnings), 2 when not.",
        "ragviz.cli.validate",
        "add_validate_arguments",
        "cmd_validate",
    ),
    CommandSpec(
        "metrics",
        "per-example metrics from the labels in the files",
        "One record per example with id, dataset, generation_model and the metric values computed "
        "from the labels in the files (TRACe: relevance, utilization, completeness, adherence, trace_mean; null "
        "for unlabeled rows). Means per dataset go to stderr.",
        "ragviz.cli.metrics",
        "add_metrics_arguments",
        "cmd_metrics",
    ),
    CommandSpec(
        "agreement",
        "RAGBench baseline judges and the LLM judge scored against the current (human) labels",
        "Print one JSON object per dataset subset: hallucination AUROC and relevance/utilization RMSE of "
        "the GPT-3.5, RAGAS and TruLens baseline scores the rows carry, against the chosen label set, and the "
        "judge's agreement with it (Cohen's kappa, precision/recall/F1, RMSE) over the examples a person decided on.",
        "ragviz.cli.agreement",
        "add_agreement_arguments",
        "run_agreement_command",
    ),
    CommandSpec(
        "estimate",
        "each metric's mean over all judged examples, corrected by a random human audit (PPI++)",
        "Estimate each per-example metric's mean (e.g. adherence: 1 - the hallucination rate) three ways: the judge "
        "alone over all examples, people alone over the audited ones (normal CI), and prediction-powered inference "
        "(PPI++: the judge on all examples corrected by the audit, power-tuned) with its CI and the effective "
        "audit size. The audit must be a uniformly random sample. With --compare: two systems on the same questions, "
        "B - A per metric and subset, corrected the same way. Exit 2 on bad input.",
        "ragviz.cli.estimate_compare",
        "add_estimate_and_compare_arguments",
        "run_estimate_or_compare",
    ),
    CommandSpec(
        "audit",
        "draw an audit sample (uniform, stratified, active or paired) or see how far its review is",
        "ragviz audit draw DATA... --db DB --size N [--design uniform|stratified|active|paired] [--by COLUMN] [--seed S]: "
        "draw a sample for people to review (the Review page's draw); ragviz audit status --db DB [--sample ID]: "
        "its progress. Exit 2 on bad input.",
        "ragviz.cli.audit",
        "add_audit_arguments",
        "run_audit_command",
    ),
    CommandSpec(
        "report",
        "the stakeholder report: one self-contained HTML file (or PDF) with the corrected numbers and their evidence",
        "Write one HTML file (or PDF) a stakeholder opens offline: per TRACe metric what people would say (the "
        "judge corrected by the random audit, 95% intervals), how far the judge can be trusted (agreement with "
        "people per label kind, bias per metric, a verdict each), the distributions and per-subset tables, worked "
        "examples, and the method and provenance with the command that rebuilds it. The same inputs and --date give "
        "the same bytes. Exit 2 on bad input.",
        "ragviz.cli.report",
        "add_report_arguments",
        "run_report_command",
    ),
    CommandSpec(
        "label",
        "label examples with an LLM judge (OpenAI-compatible API) into RAGBench-schema JSONL",
        "Judge every example with an LLM and the team's judge version (`ragviz judge promote`; v1 until one is "
        "promoted; cached answers are reused), keep the label sets in the "
        "label store and write the judged rows as RAGBench-schema JSONL. Exit 0 all judged, 1 some failed, 2 bad input.",
        "ragviz.cli.label",
        "add_label_arguments",
        "run_label_command",
    ),
    CommandSpec(
        "judge",
        "judge versions: list, show the prompt, create from corrections, compare on a test set, promote",
        "Judge versions are named, immutable judge configurations (v1 is the shipped prompt). `list` them, `show` a "
        "version's exact prompt, `create` one from people's corrections (few-shot examples, rubric notes), `compare` "
        "versions on a test set the prompts never saw (an audit sample's reviewed members or --human FILE), `promote` "
        "one to the judge of the Label page and `ragviz label`. Exit 2 on bad input.",
        "ragviz.cli.judge",
        "add_judge_arguments",
        "run_judge_command",
    ),
    CommandSpec(
        "export",
        "export the corrected label set (RAGBench rows or per-example metrics) from the label store",
        "Rebuild the examples from the data files registered in the label store and write one "
        "annotator's current labels (or the team's latest or gold labels: --labels): RAGBench-schema rows with "
        "recomputed TRACe scores, llm_-prefixed judge labels and provenance (jsonl/parquet), or per-example metrics (csv). Exit 2 on bad input.",
        "ragviz.cli.export",
        "add_export_arguments",
        "run_export_command",
    ),
    CommandSpec(
        "team",
        "a labelling team's round: assign examples with overlap, hand out a leaver's, show progress",
        "Assign every example to K annotators of a pool (balanced queues), re-assign a leaver's open examples in one "
        "action, and show progress per annotator and example. The Team page shows the same and adjudicates. "
        "Exit 2 on bad input, with nothing stored.",
        "ragviz.cli.team",
        "add_team_arguments",
        "run_team_command",
    ),
    CommandSpec(
        "import-labels",
        "people's labels made elsewhere become one annotator's decisions in the label store",
        "Record the labels of every row of FILE (a labelled RAGBench-shaped file, another ragviz's export, Label "
        "Studio's export converted to rows) as NAME's decisions, with the file named as their source. Each row is "
        "checked against the loaded example with its id: a row whose sentences differ, that matches nothing loaded, "
        "carries no labels or repeats an earlier row's example (in any of the FILEs) is refused by file and row, and then nothing is "
        "imported (exit 2).",
        "ragviz.cli.import_labels",
        "add_import_arguments",
        "run_import_command",
    ),
    CommandSpec(
        "import",
        "a RAG app's traces as rows: OTLP / OpenInference span files, an Arize Phoenix or a Langfuse project",
        "ragviz import otlp FILE... -o OUT, ragviz import phoenix --url URL --project NAME -o OUT, or ragviz import "
        "langfuse --url URL -o OUT: one row per trace (question = the root span's input, response = its output or "
        "the last LLM span's, documents = a reranker's output documents, else the retriever span's, in position "
        "order) with a source_trace side-car column for ragviz push. "
        "Traces that cannot be rows are listed on stderr. Exit 2 on bad input, with nothing written.",
        "ragviz.cli.trace_import",
        "add_trace_import_arguments",
        "run_trace_import_command",
    ),
    CommandSpec(
        "push",
        "people's labels back where the traces live: Phoenix span and document annotations, or Langfuse scores",
        "ragviz push phoenix --url URL --db DB [--annotator NAME | --labels gold|latest] [--documents-as human|llm], "
        "or ragviz push langfuse --url URL --db DB [--annotator NAME | --labels gold|latest]: the reviewed examples "
        "that came from traces (ragviz import) as annotations on their spans (Langfuse: scores on their observations); "
        "only what changed since the last push is sent. Exit 0 all pushed, 1 some examples refused (named), 2 bad "
        "input.",
        "ragviz.cli.trace_push",
        "add_trace_push_arguments",
        "run_trace_push_command",
    ),
    CommandSpec(
        "convert",
        "convert any input ragviz reads to RAGBench rows, a Ragas or DeepEval dataset, or RagChecker JSON",
        "Load the files (Parquet, JSONL, JSON, CSV, Hugging Face save_to_disk folders, RagChecker JSON; Ragas, "
        "DeepEval and TruLens column names) and write them with their own labels: RAGBench rows (--to ragbench, "
        "keyed sentences), a Ragas dataset (JSON lines), DeepEval test cases (JSON list, or CSV) or RagChecker "
        "JSON. Exit 2 when an input does not load.",
        "ragviz.cli.convert",
        "add_convert_arguments",
        "run_convert_command",
    ),
    CommandSpec(
        "app",
        "start the app (Streamlit) on DATA in the browser",
        "Start the ragviz app on http://HOST:PORT with DATA opened (as $RAGVIZ_DATA does), from the checkout or "
        "the installed package. Runs until interrupted; the exit code is Streamlit's.",
        "ragviz.cli.app",
        "add_app_arguments",
        "run_app_command",
    ),
    CommandSpec(
        "completion",
        "print a shell completion script (bash or zsh)",
        "Print a completion script for ragviz's commands and options. Add `source <(ragviz completion bash)` to "
        "~/.bashrc (or `source <(ragviz completion zsh)` to ~/.zshrc).",
        "ragviz.cli.completion",
        "add_completion_arguments",
        "run_completion_command",
    ),
)


def _selected_command(argv: Sequence[str]) -> str | None:
    names = {c.name for c in COMMANDS}
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in names else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the module of the command named in *argv* is imported (all of them when
    *argv* is ``None``, e.g. for documentation tests)."""
    parser = argparse.ArgumentParser(
        prog="ragviz",
        description="See, correct and re-score LLM-judge labels of RAG answers (RAGBench schema).",
    )
    from ragviz.version import __version__

    parser.add_argument("--version", action="version", version=f"ragviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    selected = _selected_command(argv) if argv is not None else None
    for spec in COMMANDS:
        p = sub.add_parser(spec.name, help=spec.help, description=spec.description)
        if argv is None or spec.name == selected:
            module = importlib.import_module(spec.module)
            getattr(module, spec.add_arguments)(p)
            p.set_defaults(func=getattr(module, spec.run))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = fold_identities(parser.parse_args(argv))
    try:
        return args.func(args)
    except BadInput as exc:
        for line in exc.lines():
            print(line, file=sys.stderr)
        return EXIT_BAD_INPUT
    except RagvizError as exc:  # e.g. the database went away mid-command (StoreUnavailable): one line, URL masked
        print(f"ragviz {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `ragviz metrics ... | head`
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"ragviz {args.command}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
