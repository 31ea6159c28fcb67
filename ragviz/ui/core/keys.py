"""Every session-state key of the app, in one place: what each page remembers between runs of one browser
session. Widgets named by these keys hold their own value under them; the rest are the pages' memos."""

from __future__ import annotations

__all__ = [
    "JUDGE_DONE",
    "JUDGE_CANCEL",
    "JUDGE_REJUDGE",
    "JUDGE_PROMOTE",
    "JUDGE_COMPARISON",
    "JUDGE_VERSIONS",
    "JUDGE_FROM",
    "JUDGE_NAME",
    "JUDGE_RUBRIC",
    "JUDGE_PICKS",
    "TEAM_ADJ_LAST",
    "TEAM_GUIDE_TEXT",
    "TEAM_ADJ_SEEN",
    "TEAM_ADJ_UID",
    "TEAM_MESSAGE",
    "TEAM_GUIDE_OPEN",
    "TEAM_MINE",
    "TEAM_MINE_MEMO",
    "ADHERENCE_CACHE",
    "ANNOTATOR_INPUT",
    "ANNOTATOR_KEY",
    "API_KEY_KEY",
    "AUDIT_ALLOCATION",
    "AUDIT_BY",
    "AUDIT_CALIBRATE",
    "AUDIT_CONFIDENCE",
    "AUDIT_DESIGN",
    "AUDIT_FLOOR",
    "AUDIT_N",
    "AUDIT_PICK",
    "AUDIT_PILOT",
    "AUDIT_PILOT_METRIC",
    "AUDIT_SEED",
    "AUDIT_SYSTEMS",
    "AUDIT_TARGET",
    "BASE_URL_KEY",
    "BATCH_ESTIMATE",
    "BATCH_REPORT",
    "BATCH_SENT",
    "CLAIMS_AUDIT_ERROR",
    "CLAIMS_CURRENT_CACHE",
    "CLAIMS_INDEX",
    "CLAIMS_LOADED",
    "CLAIMS_PATH",
    "CLAIMS_PATH_REFUSED",
    "CLAIMS_SOURCE",
    "CLAIMS_UPLOAD",
    "CLAIMS_UPLOADS",
    "CONCURRENCY_KEY",
    "ESTIMATE_MEMO",
    "EXPLAINER_K",
    "EXPLAINER_LINK",
    "EXPORT_PREPARED",
    "FAMILIES_KEY",
    "FILTER_CACHE",
    "FORCED_KEY",
    "FORMAT_KEY",
    "LABEL_CANCEL",
    "LABEL_HOW",
    "LAST_AUDIT",
    "LAST_FILTER",
    "LAST_UPLOAD",
    "LINK_CHOICES",
    "MESSAGE_KEY",
    "MODEL_KEY",
    "PATHS_KEY",
    "POSITION_PENDING",
    "PRESENT_KEY",
    "PRESENT_TOGGLE",
    "QUEUE_CHOICE",
    "QUEUE_KEY",
    "REASONING_KEY",
    "REVIEW_INDEX",
    "REVIEW_LINK",
    "SAMPLE_KEY",
    "SELECTION_MEMO",
    "SHELL_KEY",
    "SIGN_IN_MEMO",
    "STORE_MEMO",
    "UNSURE_MEMO",
    "UNDO_MEMO",
    "CHOSEN_DATA_MEMO",
    "SHOW_CORRECTIONS_KEY",
    "STALE_KEY",
    "SAMPLES_KEY",
    "SAMPLE_MODE_KEY",
    "CONFIDENCE_FROM_KEY",
    "TEMPERATURE_KEY",
    "TEXT_CONTEXT_KEY",
    "TEXT_DRAWN",
    "REJUDGE_ASKED",
    "TEXT_EVENTS",
    "TEXT_RESPONSE_KEY",
    "TEXT_TOUCHED",
    "TIMEOUT_KEY",
    "REDRAW_COUNT_KEY",
]


MESSAGE_KEY = "audit.message"
AUDIT_N = "audit.n"
AUDIT_PICK = "audit.pick"
SAMPLE_KEY = "audit.sample"  # the chosen sample id (Review and Dashboard share it)
AUDIT_SEED = "audit.seed"
AUDIT_SYSTEMS = "audit.systems"  # a paired draw: the two systems compared (when the data holds more than two)
AUDIT_DESIGN = "audit.design"  # the draw form's design: uniform, stratified or active
AUDIT_BY = "audit.by"  # stratified: the column whose values are the strata
AUDIT_ALLOCATION = "audit.allocation"  # stratified: proportional, Neyman from confidence or from a pilot
AUDIT_CONFIDENCE = "audit.confidence"  # the column holding the judge's confidence (active, Neyman)
AUDIT_FLOOR = "audit.floor"  # active: the share of the draw spread evenly over all examples
AUDIT_CALIBRATE = "audit.calibrate"  # active: calibrate the confidence on a pilot sample (AUDIT_PILOT)
AUDIT_PILOT = "audit.pilot"  # Neyman from a pilot / active calibration: the sample whose reviewed members are used
AUDIT_PILOT_METRIC = "audit.pilot_metric"  # ... and the metric whose judge error sets them
AUDIT_TARGET = "audit.target"  # (metric, ± half-width): the planner's target the Review queue counts toward
CLAIMS_AUDIT_ERROR = "claims.audit.error"  # why the last draw of a claims audit sample failed, shown once
CLAIMS_CURRENT_CACHE = "claims.current_cache"
CLAIMS_INDEX = "claims.index"
CLAIMS_LOADED = "claims.loaded"
CLAIMS_PATH = "claims.path"
CLAIMS_PATH_REFUSED = "claims.path_refused"  # the refusal of the last typed path (served mode), shown under the field
CLAIMS_SOURCE = "claims.source"  # {"name": file name, "path": str | None, "digest": str | None}
CLAIMS_UPLOAD = "claims.upload"
CLAIMS_UPLOADS = "claims.uploads"  # digest -> bytes (uploads live in the session only)
ANNOTATOR_INPUT = "data.annotator"
LAST_UPLOAD = "data.last_upload"  # the file id of the upload already handled
EXPLAINER_K = "explainer.k"
EXPLAINER_LINK = "explainer.link"  # the uid of the last deep link followed (or of the page's own URL update)
EXPORT_PREPARED = "export.prepared"
API_KEY_KEY = "label.api_key"
BASE_URL_KEY = "label.base_url"
BATCH_ESTIMATE = "label.batch.estimate"  # (key, plan, estimate) of the selection the Batch panel last priced
BATCH_REPORT = "label.batch.report"  # the Batch panel's last collect report
BATCH_SENT = "label.batch.sent"  # (requests, batches, oversized) of the submission just made, shown once
LABEL_CANCEL = "label.cancel"
CONCURRENCY_KEY = "label.concurrency"
LABEL_HOW = "label.how"  # Live or Batch
ESTIMATE_MEMO = "label.estimate_memo"  # ((model, endpoint, prompt, labels versions, last run), row indices, estimate)
MODEL_KEY = "label.model"
REASONING_KEY = "label.reasoning_effort"
FORMAT_KEY = "label.response_format"  #: How long the settings widgets keep their values: the whole browser session (in memory, never written
SELECTION_MEMO = "label.selection_memo"  # ((data, store, labels version, selection, K), filter rows, row indices)
SAMPLES_KEY = "label.samples"  # answers asked per example (1: no confidence measured)
SAMPLE_MODE_KEY = "label.sample_mode"  # "n": samples 2..N in one request where the endpoint takes n; "separate"
CONFIDENCE_FROM_KEY = "label.confidence_from"  # "samples" or "logprobs" (the kept answer's token probabilities)
TEMPERATURE_KEY = "label.temperature"  # None: the default (0 for chat models, not sent to reasoning models)
TIMEOUT_KEY = "label.timeout"
ADHERENCE_CACHE = "ragviz.adherence_cache"
ANNOTATOR_KEY = "ragviz.annotator"
REDRAW_COUNT_KEY = "ragviz.redraw_count"
PATHS_KEY = "ragviz.paths"
PRESENT_KEY = "ragviz.present"
FORCED_KEY = "ragviz.present_forced"  # set each run for a person who may only view (ragviz.store.roles)
PRESENT_TOGGLE = "ragviz.present_toggle"
SHELL_KEY = "ragviz.shell_checked"
SIGN_IN_MEMO = "ragviz.sign_in_configured"  # (the run it was read in, whether [auth] is set): st.secrets once a run
STORE_MEMO = "ragviz.store_memo"  # (the run, the label store): the cached resource looked up once a run (per_run)
CHOSEN_DATA_MEMO = "ragviz.chosen_data_memo:"  # + the data scope: (the run, the open data's choice), once a run
POSITION_PENDING = "review.position_pending"  # the uid a move goes to, written after the example is drawn
UNDO_MEMO = "review.undo_memo"  # ((store, annotator, newest event id, data), the action Z undoes): kept across J
UNSURE_MEMO = "review.unsure_memo"  # (the run, uid -> the judge's unsure sentences): the Review text's, once a run
STALE_KEY = "ragviz.stale_edit"  # the message of an edit the store refused, until a page shows it
REVIEW_LINK = "review.applied_link"  # the deep link already followed
FAMILIES_KEY = "review.families"
FILTER_CACHE = "review.filter_cache"  # ((filter, paths, annotator, label version), row indices)
REVIEW_INDEX = "review.index"
REJUDGE_ASKED = "review.rejudge_asked"  # the uid whose "Re-judge this example" was pressed, until the page asks
LAST_AUDIT = "review.last_audit"
LAST_FILTER = "review.last_filter"
LINK_CHOICES = "review.link_choices"  # (link, rows) of a deep link naming several examples, until one is chosen
SHOW_CORRECTIONS_KEY = "review.present_corrections"
QUEUE_KEY = "review.queue"
QUEUE_CHOICE = "review.queue_choice"  # the Queue choice kept while the radio is not drawn (another page)
TEXT_CONTEXT_KEY = "review.text.context"
TEXT_DRAWN = "review.text.drawn"  # (uid, the labels the context editor was drawn with)
TEXT_EVENTS = "review.text.events"  # the queue of actions not yet taken by the page
TEXT_RESPONSE_KEY = "review.text.response"
TEXT_TOUCHED = "review.text.touched"  # {uid: keys the person clicked}: they stay unfolded
JUDGE_PICKS = "judge.picks"  # the few-shot examples picked on the Judge page
JUDGE_RUBRIC = "judge.rubric"  # the rubric notes typed on the Judge page
JUDGE_NAME = "judge.name"  # the name typed for a new version
JUDGE_FROM = "judge.from"  # the version a new one starts from
JUDGE_VERSIONS = "judge.compare_versions"  # the versions picked to compare
JUDGE_COMPARISON = "judge.comparison"  # (sample id, names, Comparison) of this session's last comparison
JUDGE_PROMOTE = "judge.promote_pick"  # the version picked to promote
JUDGE_REJUDGE = "judge.rejudge_scope"  # which examples Re-judge runs on
JUDGE_CANCEL = "judge.cancel"  # the Cancel button of a comparison or re-judge under way
JUDGE_DONE = "judge.done"  # the last action's message on the Judge page
TEAM_MINE = "team.mine"  # the Review sidebar's "My assignments" toggle
TEAM_MINE_MEMO = "team.mine_memo"  # (the run, the person's assigned rows and open ones): looked up once a run
TEAM_GUIDE_OPEN = "team.guidelines_open"  # the Review page's guidelines panel is open (G)
TEAM_MESSAGE = "team.message"  # the Team page's last action's result, shown once
TEAM_ADJ_UID = "team.adjudicating"  # the uid on the adjudication view
TEAM_ADJ_SEEN = "team.adjudication_seen"  # (uid, fingerprint of what the adjudicator was shown)
TEAM_GUIDE_TEXT = "team.guidelines_text"  # the guidelines editor's text area
TEAM_ADJ_LAST = "team.adjudication_last"  # the uid this adjudicator settled last (Undo)
