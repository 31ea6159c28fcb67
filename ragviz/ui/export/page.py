"""The Export page's pieces: the progress figures, what an export holds, the download buttons and the equivalent
command line (the per-example metrics table: :mod:`ragviz.ui.export.table`)."""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit, urlunsplit

import streamlit as st

from ragviz.analysis.labelsets.selection import GOLD, HUMAN, LabelSelection
from ragviz.analysis.review.queue import Progress
from ragviz.export.files import FORMATS, MIME_TYPES, export_filename
from ragviz.export.rows import EXPORTING, RowsDone
from ragviz.export.targets import Target
from ragviz.store.postgres import is_url
from ragviz.ui.core.keys import EXPORT_PREPARED as _PREPARED
from ragviz.ui.core.progress import RowProgress
from ragviz.ui.core.render import md_escape

__all__ = [
    "BUILT_AT_ONCE_ROWS",
    "COMMAND_LINE_WIDTH",
    "DOWNLOADS",
    "LARGE_FILE_BYTES",
    "TEAM_FILE_NAME",
    "WHAT_AN_EXPORT_HOLDS",
    "PreparedFile",
    "command_line",
    "download",
    "download_target",
    "export_command",
    "export_command_parts",
    "file_owner",
    "format_choice",
    "labels_words",
    "no_downloads",
    "progress_metrics",
    "shown_command",
    "what_an_export_holds",
    "whose_labels",
]


DOWNLOADS = {
    "jsonl": "Download labels (JSONL)",
    "parquet": "Download labels (Parquet)",
    "csv": "Download metrics (CSV)",
    "ragas": "Download Ragas dataset (JSONL)",
    "deepeval": "Download DeepEval test cases (JSON)",
}
WHAT_AN_EXPORT_HOLDS = (
    "The export holds **every loaded example** with the current labels of the annotator named in the sidebar "
    "(the judge's labels where nothing was changed; an admin may export the team's instead), scores recomputed from those labels, `llm_`-prefixed copies "
    "of the judge's original labels, and provenance (`label_source`, `reviewer`, `reviewed_at`). "
    "Loading an export back gives exactly the same labels and scores. The Ragas dataset "
    "(`EvaluationDataset.from_jsonl`) holds the texts and the retrieval ids, your corrected gold ids as "
    "`reference_context_ids`; the DeepEval test cases carry everything else in `additional_metadata.ragbench`."
)


def progress_metrics(n_examples: int, progress: Progress) -> None:
    """The loaded examples and how many the annotator reviewed and corrected."""
    c1, c2, c3 = st.columns(3)
    c1.metric("Examples", f"{n_examples:,}")
    c2.metric("Reviewed by you", f"{progress.reviewed:,}")
    c3.metric("Corrected by you", f"{progress.corrected:,}")


def what_an_export_holds() -> None:
    st.markdown(WHAT_AN_EXPORT_HOLDS)


#: Data up to this many rows gets its file built as soon as the page opens (a fraction of a second);
#: larger data waits for "Build", which shows rows done / total.
BUILT_AT_ONCE_ROWS = 2000
#: Above this size the page says the browser takes a while to receive the file.
LARGE_FILE_BYTES = 200 << 20


@dataclass(frozen=True)
class PreparedFile:
    """One built export: what it was built from (*key*), where its bytes are (an unlinked temporary
    file, freed with the session: nothing stays on disk, and no bytes stay in memory between
    downloads), its size and when it was built."""

    key: Hashable
    file: IO[bytes]
    size: int
    built_at: str

    def read(self) -> bytes:
        """The whole file (``os.pread``: safe from the download thread while the page reruns)."""
        parts, done, fd = [], 0, self.file.fileno()
        while done < self.size:
            part = os.pread(fd, self.size - done, done)
            if not part:
                break
            parts.append(part)
            done += len(part)
        return b"".join(parts)


TEAM_FILE_NAME = "team"  # in the team export's file name: ragviz-labels-team.jsonl


def whose_labels(who: str, versions: Sequence[LabelSelection] = (), gold: bool = False) -> LabelSelection:
    """For an admin: export *who*'s own labels, the team's (the ``human`` label set: per example and label
    field every annotator's latest decision, a reviewer per row), with *gold* the team's gold labels (what
    ``ragviz export --labels gold`` writes) or one of *versions* (``judge:NAME``, the judge versions with labels in
    the store). Returns the choice."""
    mine = LabelSelection.of(who)
    options = [mine, HUMAN, *([GOLD] if gold else []), *versions]
    choice = st.radio(  # md: ours (labels_words md_escapes every name it says)
        "Whose labels",
        options,
        format_func=lambda w: _capitalised(labels_words(w, who)),
        horizontal=True,
        key="export.whose",
    )
    if choice == GOLD:
        st.caption(
            "Where every labeller of an example decided and they agreed, their labels (`label_source` agreed, "
            "`reviewer` who agreed); where an adjudicator settled it, the settlement (adjudicated, `reviewer` who "
            "settled); elsewhere the judge's labels (llm). `ragviz export --labels gold` writes the same."
        )  # md: ours
    elif choice == HUMAN:
        st.caption(
            "Each label field holds the newest decision anyone made on it (the Dashboard's human labels); `reviewer` /"
            " `reviewed_at` name the newest decision of the row, and `field_reviewers` (JSON) who decided which field"
            " where several people did."
        )  # md: ours
    elif choice is not None and choice.kind == "version":
        st.caption(
            f"Where judge version {md_escape(choice.version, 64)} labelled an example: its labels, and the `llm_` "
            "copies too; elsewhere the judge's latest labels. Every row says `label_source` llm. "
            f"`ragviz export --labels {md_escape(choice.name, 70)}` writes the same."
        )  # md: ours, the version's name escaped
    return choice or mine


def file_owner(whose: LabelSelection) -> str:
    """The name an export's file is given for *whose* labels."""
    if whose.kind == "version":
        return f"judge-{whose.version}"  # no ':' in a file name
    return TEAM_FILE_NAME if whose == HUMAN else whose.name


def download_target(out: IO[bytes], choice: str) -> Target:
    """The export target of a download *choice* (one of :data:`DOWNLOADS`) written into *out*."""
    return Target(out, choice) if choice in FORMATS else Target(out, "jsonl", to=choice)


def _format_name(fmt: str) -> str:
    what = DOWNLOADS[fmt].removeprefix("Download ")
    return what[:1].upper() + what[1:]


def format_choice() -> str:
    """Which export the person wants (one of :data:`DOWNLOADS`)."""
    fmt = st.radio(
        "Format",
        list(DOWNLOADS),
        format_func=_format_name,  # md: ours
        horizontal=True,
        key="export.format",
    )
    return fmt or "jsonl"


def _size_text(n_bytes: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,} bytes"


def _build(key: Hashable, n_rows: int, write_into: Callable[[IO[bytes], RowsDone], None]) -> PreparedFile:
    bar = RowProgress(EXPORTING, n_rows)
    try:
        file = tempfile.TemporaryFile(prefix="ragviz-export-")  # 0600, unlinked at once on POSIX
        write_into(file, bar)
        file.flush()
        return PreparedFile(key, file, file.tell(), datetime.now().strftime("%H:%M:%S"))
    finally:
        bar.close()


def labels_words(whose: LabelSelection, who: str) -> str:
    """Whose labels a download holds, in the one phrasing the Export page uses for them: the "Whose labels" choice
    (capitalised) and the caption of the built file ("… built 02:24 from the team's gold labels") say the same words.
    *who*: the annotator named in the sidebar.

    >>> labels_words(LabelSelection.of("ann"), "ann"), labels_words(GOLD, "ann")
    ('your current labels (ann)', "the team's gold labels")
    """
    if whose == HUMAN:
        return "the team's latest decisions"
    if whose == GOLD:
        return "the team's gold labels"
    if whose.kind == "version":
        return f"judge version {md_escape(whose.version, 64)}'s labels"
    name = md_escape(whose.annotator, 60)
    return f"your current labels ({name})" if whose.annotator == who else f"{name}'s current labels"


def _capitalised(words: str) -> str:
    return words[:1].upper() + words[1:]


def download(
    who: str,
    fmt: str,
    key: Hashable,
    n_rows: int,
    write_into: Callable[[IO[bytes], RowsDone], None],
    labels: str = "your current labels",
) -> None:
    """The download of *fmt*: built into a temporary file with a rows done / total bar (at once for
    small data, on "Build" otherwise), then served from that file when the person clicks. *key* says
    what the file is built from (data, store, annotator, their labels' version, format); a file
    whose key changed is built again. One file per format is kept per session. *labels*: whose labels the file
    holds, as its captions say (:func:`labels_words`)."""
    prepared: dict[str, PreparedFile] = st.session_state.setdefault(_PREPARED, {})
    built = prepared.get(fmt)
    label = DOWNLOADS[fmt]
    with st.container(horizontal=True, vertical_alignment="center"):
        if built is None or built.key != key:
            slot = st.empty()  # the Build button, gone once the file is built
            if n_rows > BUILT_AT_ONCE_ROWS and not slot.button(
                label.replace("Download", "Build", 1),
                type="primary",
                key=f"export.build.{fmt}",  # md: ours
            ):
                st.caption(
                    f"The labels changed since this file was built: build it again ({n_rows:,} examples)."
                    if built is not None
                    else f"Builds the file from all {n_rows:,} examples with {labels}; then download it."
                )  # md: ours (labels_words escapes the names it says)
                return
            slot.empty()
            built = prepared[fmt] = _build(key, n_rows, write_into)
        name = export_filename(who, fmt)
        st.download_button(
            label,  # md: ours
            data=built.read,
            file_name=name,
            mime=MIME_TYPES[fmt],
            key=f"export.{fmt}",
            type="primary",
            on_click="ignore",
        )
        size = _size_text(built.size)
        st.caption(f"{md_escape(name)} · {size} · built {built.built_at} from {labels}")  # md: ours (labels_words)
    if built.size > LARGE_FILE_BYTES:
        smaller = " Parquet holds the same labels in about a quarter of the size." if fmt == "jsonl" else ""
        st.caption(f"A file this large takes your browser a while to receive after the click.{smaller}")  # md: ours


def no_downloads(why: str) -> None:
    """In place of the download buttons for a person who may only view."""
    st.caption(f"Downloads are for annotators and admins. {why}")  # md: ours (the role's own sentence)


def _db_for_shell(db: str | Path) -> str:
    """The store as the command line names it: a file's absolute path, or a ``postgresql://`` URL without
    its password (the person supplies it, e.g. through ``PGPASSWORD``; no secret is printed)."""
    text = str(db)
    if not is_url(text):
        return str(Path(text).expanduser().resolve())
    parts = urlsplit(text)
    if parts.password is None:
        return text
    host = parts.hostname or ""
    netloc = f"{parts.username}@{host}" if parts.username else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def export_command_parts(
    db: str | Path, whose: LabelSelection, data: Sequence[str], annotators: Sequence[str]
) -> list[str]:
    """The ``ragviz export DATA... --db DB -o labels.jsonl --annotator WHO`` (or ``--labels latest`` for the
    team's) command that writes the same labels as the download, in its parts: the program and its data, the store
    and the output, whose labels. It names the loaded data files (absolute paths, so it works from any folder)
    instead of relying on the files registered in the store, which data opened through ``$RAGVIZ_DATA`` never is.
    With nobody's decision in the store yet (*annotators* empty) it names no annotator: the export is the judge's
    labels, as the download's is."""
    files = " ".join(shlex.quote(str(Path(p).expanduser().resolve())) for p in data)
    parts = [f"ragviz export {files}".rstrip(), f"--db {shlex.quote(_db_for_shell(db))} -o labels.jsonl"]
    if annotators or whose.kind in ("version", "gold"):
        parts.append(
            f"--annotator {shlex.quote(whose.annotator)}"
            if whose.is_person
            else f"--labels {shlex.quote(whose.argument())}"
        )
    return parts


def export_command(db: str | Path, whose: LabelSelection, data: Sequence[str], annotators: Sequence[str]) -> str:
    """:func:`export_command_parts` as one line."""
    return " ".join(export_command_parts(db, whose, data, annotators))


#: A command longer than this is shown one part a line (:func:`shown_command`).
COMMAND_LINE_WIDTH = 60


def shown_command(parts: Sequence[str]) -> str:
    """The command of *parts* as the page shows it: on one line when short, else one part a line joined by the
    shell's line continuation, so a narrow box never breaks it inside an option ("--" / "annotator") and the copy
    button's text still runs in a shell as one command."""
    line = " ".join(parts)
    return line if len(line) <= COMMAND_LINE_WIDTH else " \\\n  ".join(parts)


def command_line(db: str | Path, whose: LabelSelection, data: Sequence[str], annotators: Sequence[str]) -> None:
    """The ``ragviz export`` command that writes the same labels (see :func:`export_command_parts`)."""
    parts = export_command_parts(db, whose, data, annotators)
    st.code(shown_command(parts), language="bash", wrap_lines=True)  # whole, not scrolled away
    if annotators and whose.is_person and whose.annotator not in annotators:
        st.caption(
            f"`ragviz export` refuses an annotator with no decision in the store: make one first "
            f"(annotators with decisions: {md_escape(', '.join(annotators))})."
        )
