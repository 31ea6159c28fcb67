"""Claims: open a RagChecker checking-output JSON (a path, an upload or RagChecker's own example), pick an
item, read its query, answers and retrieved chunks, and override the entailment label of any claim; the
item's 11 RagChecker values and the whole file's aggregates follow live, and the corrected file downloads
as RagChecker JSON.

Overrides are label-store events like the Review page's (:mod:`ragviz.data.claim_overrides`); Mark
reviewed, Undo and Reset to file work as there. In presentation mode nothing can be changed.

Roles (:mod:`ragviz.store.roles`): opening a file (path, upload, RagChecker's example) is loading data,
for admins; everyone may pick one of the checking outputs among the loaded data; annotators override,
mark reviewed and download the corrected file; viewers look.
"""

from functools import partial

import streamlit as st

from ragviz.analysis.claims import (
    SIDES,
    aggregate_table,
    checking_output_files,
    corrected_file,
    corrected_file_name,
    item_statuses,
    item_table,
    item_uids,
    item_with_overrides,
    n_changed_labels,
    pending_changes,
    reset_changes,
    review_changes,
    statuses_text,
)
from ragviz.data.claim_overrides import claim_uid
from ragviz.data.formats.ragchecker import RagCheckerFormatError
from ragviz.ui.audit.claims import claims_audit_panel
from ragviz.ui.claims import item as item_ui
from ragviz.ui.claims import page as view
from ragviz.ui.core import access, state
from ragviz.ui.core.present import is_present, show_corrections
from ragviz.ui.core.state import require_app_shell

require_app_shell()

editable = not is_present()  # presentation mode (always for viewers) is a lock: nothing opens or changes
traces = show_corrections(not editable)  # and it shows nothing of what was corrected unless asked
st.title("RagChecker claims")
if (granted := access.access()).can_load and editable:
    view.source_controls()
elif editable:
    st.caption(granted.why)  # md: ours
view.loaded_files(checking_output_files(state.dataset()))  # what an admin loaded, by file name
source = view.opened_source()
if not source:
    view.no_file_notice(granted.can_load and editable)
    st.stop()

loaded = view.load_source(source)
if isinstance(loaded, RagCheckerFormatError):
    view.file_problems(loaded.problems)
    st.stop()
items = loaded.items
if loaded.warnings:
    view.file_warnings(loaded.warnings)
if not items:
    view.no_items_notice()
    st.stop()

file_name, who, store = source["name"], state.annotator(), state.store()
index = view.selected_index(len(items))
item = items[index]
uid = claim_uid(file_name, item.query_id)
if editable:  # the edits waiting in this item's editors, against the labels they showed, become one decision
    shown = item_with_overrides(item, store.changes(uid, who))
    state.record_decision(uid, pending_changes(shown, item_ui.pending_edits(uid, item)))

currents, problems = view.cached_current_items(items, file_name, who, view.source_key(source))
if problems:
    view.error_lines(problems)
uids = item_uids(items, file_name)
reviewed, corrected = store.reviewed_uids(who), store.corrected_uids(who)
view.file_summary(file_name, len(items), statuses_text(uids, reviewed, corrected) if traces else "")
view.item_picker(items, item_statuses(uids, reviewed, corrected) if traces else [""] * len(items))
current = currents[index]
if editable:
    view.item_actions(
        on_review=partial(state.record_decision, uid, review_changes(), "review"),
        on_undo=partial(state.undo_decision, uid, "Nothing to undo on this item."),
        on_reset=partial(state.record_decision, uid, reset_changes(), "reset"),
        can_reset=current != item,
    )

item_ui.item_texts(item)
item_ui.labels_caption(n_changed_labels(item, current) if traces else 0, editable)
for side in SIDES:
    item_ui.claim_matrix(current, side, uid, editable)
item_ui.score_tables(item_table(item, current), aggregate_table(items, currents), len(items), traces)
if granted.can_export and editable:  # viewers see the labels; downloading them is for annotators and admins
    item_ui.download(corrected_file(currents), corrected_file_name(file_name))
claims_audit_panel(store, file_name, items, currents, uids, who, editable)
