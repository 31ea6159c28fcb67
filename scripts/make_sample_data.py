"""Generate ``sample_data/ragviz_sample.jsonl`` from the readable literals below.

    .venv/bin/python scripts/make_sample_data.py           # (re)write the file
    .venv/bin/python scripts/make_sample_data.py --check   # exit 1 when the file is stale

Every example is written by hand for ragviz (no text is copied from a dataset). Each row uses
RAGBench's field names; sentence keys come from :mod:`ragviz.data.keys`, and the four stored scores are
computed by :mod:`ragviz.metrics.trace` from the stored labels, never typed. The labels come from
an imaginary judge (``gpt-4o``) and contain the deliberate mistakes listed in ``MISTAKES`` and in
``sample_data/README.md``; :func:`check_example` refuses any bogus key that is not on that list,
so a typo here cannot become an accidental "mistake".
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ragviz.data.keys import context_key, response_key
from ragviz.data.ragbench import labels_from_row
from ragviz.metrics.trace import trace_scores  # noqa: E402

OUTPUT = REPO / "sample_data" / "ragviz_sample.jsonl"
README = REPO / "sample_data" / "README.md"
JUDGE = "gpt-4o"
GPT = "gpt-4o-mini"
LLAMA = "llama-3.1-8b-instruct"


@dataclass(frozen=True)
class Judged:
    """One response sentence's verdict: ``(supported, supporting keys, explanation)``; an empty
    explanation gets the judge's usual phrasing from :func:`support_explanation`."""

    supported: bool
    keys: tuple[str, ...] = ()
    explanation: str = ""


def ok(*keys: str, why: str = "") -> Judged:
    return Judged(True, keys, why)


def no(why: str, *keys: str) -> Judged:
    return Judged(False, keys, why)


@dataclass(frozen=True)
class Spec:
    """One example as written by hand. ``docs`` is ``[(doc_id, [sentence, ...]), ...]`` in rank
    order; ``support`` has one verdict per response sentence, in order. ``unsupported`` overrides
    the stored unsupported list (default: derived from ``support``). ``bogus_keys`` lists the
    keys that deliberately name no sentence. ``relevant`` is ``None`` for an unlabeled example."""

    id: str
    dataset: str
    model: str
    question: str
    docs: list[tuple[str, list[str]]]
    response: list[str]
    reference: str | list[str]
    relevant: list[str] | None = None
    utilized: list[str] = field(default_factory=list)
    support: list[Judged] = field(default_factory=list)
    relevance_explanation: str = ""
    unsupported: list[str] | None = None
    relevant_ids: list[str] | None = None
    with_ids: bool = True
    bogus_keys: tuple[str, ...] = ()


# Deliberate judge mistakes: (example id, generation model, kind, what is wrong). Rendered into
# sample_data/README.md and checked one by one in tests/test_sample_data.py.
MISTAKES = [
    (
        "med-001",
        GPT,
        "hallucinated sentence marked supported",
        "response sentence c claims up to 2,400 mg a day is safe; the leaflet (0e) says no more than "
        "1,200 mg in 24 hours. The judge marks c fully supported by 0e, so adherence shows 1.0 instead of 0.0.",
    ),
    (
        "med-002",
        LLAMA,
        "relevant sentence missed",
        "0c (young children and people with weakened immune systems stay contagious longer) answers the "
        "question but is not in the relevant keys; completeness shows 1.0 instead of 0.75.",
    ),
    (
        "fin-001",
        GPT,
        "utilized key that is not relevant",
        "1c (employer matching contributions) is listed as utilized, but it is not relevant and no response "
        "sentence uses it; utilization shows 5/8 instead of 4/8.",
    ),
    (
        "tech-001",
        GPT,
        "key with a trailing dot",
        "the relevant and utilized lists contain '0b.' instead of '0b'; the sentence about holding the Reset "
        "button is not highlighted until the key is cleaned.",
    ),
    (
        "tech-004",
        LLAMA,
        "key naming no sentence",
        "'1f' is in the relevant, utilized and supporting keys, but document 1 has only four sentences "
        "(1a-1d); relevance shows 6/9 and utilization 5/9 instead of 5/9 and 4/9.",
    ),
    (
        "med-003",
        LLAMA,
        "duplicate key",
        "'0b' appears twice in the relevant keys; relevance shows 6/11 instead of 5/11 and completeness "
        "4/6 instead of 4/5.",
    ),
    (
        "fin-004",
        GPT,
        "the word 'general' in a key list",
        "the relevant keys start with 'general', which names no sentence; relevance shows 7/7 = 1.0 instead of 6/7.",
    ),
    (
        "tech-003",
        LLAMA,
        "the word 'general' in a key list",
        "response sentence a (an introductory phrase) has supporting keys ['general'] instead of none.",
    ),
    (
        "med-004",
        GPT,
        "unsupported list disagrees with the per-sentence support",
        "sentence b (the liquid lasts 14 days; the leaflet says 7) is marked not supported, yet "
        "unsupported_response_sentence_keys is empty, so the stored adherence is 1.0 instead of 0.0.",
    ),
    (
        "pol-002",
        LLAMA,
        "supported sentence marked unsupported",
        "sentence b (submit the request 30 days ahead) is stated in 0c, but the judge says the documents "
        "give no notice period and leaves 0c out of the relevant and utilized keys; adherence shows 0.0 instead of 1.0.",
    ),
]


SPECS: list[Spec] = [
    Spec(
        id="ml-vs-programming",
        dataset="techqa_sample",
        model=GPT,
        question="How does machine learning differ from traditional programming?",
        docs=[
            (
                "kb-12",
                [
                    "Computer science has grown into many specialised fields since the 1950s.",
                    "In traditional programming, a developer writes explicit rules that turn input data into output.",
                    "In machine learning, the system is given example inputs together with the desired outputs and learns the rules itself.",
                ],
            ),
            (
                "kb-40",
                [
                    "Because the rules are learned from data, a machine learning model can handle cases its developers never anticipated, provided they resemble the training examples.",
                    "A hand-written program, by contrast, only behaves correctly in the situations its author thought of.",
                    "Training large models typically requires specialised hardware such as GPUs.",
                ],
            ),
        ],
        response=[
            "Traditional programming relies on a developer writing explicit rules that map inputs to outputs.",
            "Machine learning instead learns those rules from examples of inputs paired with the desired outputs, which lets it handle similar cases nobody anticipated.",
            "As a result, machine learning models are always more accurate than hand-written programs.",
        ],
        reference="In traditional programming people write the rules; in machine learning the rules are learned from example inputs and outputs.",
        relevant=["0b", "0c", "1a", "1b"],
        utilized=["0b", "0c", "1a"],
        support=[
            ok("0b"),
            ok("0c", "1a"),
            no(
                "Neither document compares accuracy; 1b only says hand-written programs fail on situations their author did not foresee, not that machine learning is always more accurate."
            ),
        ],
        relevance_explanation="0b and 0c define the two approaches, and 1a-1b contrast how each handles unforeseen cases. 0a is general history and 1c is about hardware.",
        relevant_ids=["kb-12", "kb-40"],
    ),
    Spec(
        id="tech-001",
        dataset="techqa_sample",
        model=GPT,
        question="How do I reset my AX3000 router to factory settings?",
        docs=[
            (
                "kb-214",
                [
                    "The AX3000 router can be restored to its factory settings if you have forgotten the admin password or the configuration has become unusable.",
                    "To reset it, keep the router powered on and press the recessed Reset button on the back panel with a straightened paper clip for at least ten seconds.",
                    "The status light blinks amber while the reset is in progress and turns solid white once the router has restarted with default settings.",
                    "A factory reset erases all custom settings, including the Wi-Fi name, password and port forwarding rules.",
                ],
            ),
            (
                "kb-87",
                [
                    "After a reset, the router broadcasts the default network name and password printed on the label underneath the device.",
                    "You can then sign in to the setup page at http://192.168.0.1 with the username admin and the password printed on the same label.",
                    "Firmware updates are installed automatically overnight when the router is idle.",
                ],
            ),
            (
                "kb-311",
                [
                    "Restarting the router is not the same as resetting it.",
                    "A restart, done by unplugging the power for thirty seconds, keeps all of your settings.",
                    "Try a restart first if your connection is merely slow or dropping.",
                ],
            ),
        ],
        response=[
            "To reset the AX3000 to factory settings, leave it powered on and hold the recessed Reset button on the back for at least ten seconds using a paper clip.",
            "The status light will blink amber during the reset and turn solid white when it is done.",
            "Be aware that this erases your custom settings, such as the Wi-Fi name and password.",
            "Afterwards, connect using the default network name and password on the label under the router.",
        ],
        reference="With the router on, hold the recessed Reset button on the back for at least 10 seconds; it restarts with factory defaults.",
        relevant=["0b.", "0c", "0d", "1a", "1b", "2a"],
        utilized=["0b.", "0c", "0d", "1a"],
        support=[ok("0b"), ok("0c"), ok("0d"), ok("1a")],
        relevance_explanation="Document 0 gives the reset procedure and its effects, document 1 explains how to reconnect afterwards, and 2a warns that a restart is different from a reset.",
        relevant_ids=["kb-214", "kb-87"],
        bogus_keys=("0b.",),
    ),
    Spec(
        id="tech-002",
        dataset="techqa_sample",
        model=LLAMA,
        question="Why does the code I paste into a forum post show up as plain text instead of running?",
        docs=[
            (
                "help-44",
                [
                    "The forum escapes HTML in every post, so markup is shown exactly as typed instead of being interpreted by the browser.",
                    "For example, if you paste <script>alert(1)</script> into a reply, readers see those characters as text and no script runs.",
                    "The same applies to tags with event handlers: <img src=x onerror=alert(1)> appears as plain text and never loads an image.",
                    "Markdown emphasis such as **bold** is rendered only inside the post body, never in titles or signatures.",
                    "Amounts like $5 and $6 are displayed literally, because dollar signs are not treated as math delimiters.",
                ],
            ),
            (
                "help-45",
                [
                    "To share code so that others can read it, wrap it in a fenced code block with three backticks on the line before and after.",
                    "Code blocks keep indentation and use a monospaced font.",
                    "Attachments larger than 5 MB are rejected, so link to a repository for bigger projects.",
                ],
            ),
        ],
        response=[
            "The forum escapes HTML in posts, so anything you paste is shown as text instead of being run by the browser.",
            "That is why a snippet like <script>alert(1)</script> appears as literal characters and no script executes.",
            "If you want your code to be easy to read, put it in a fenced code block with three backticks before and after it.",
        ],
        reference="Posts are HTML-escaped for security, so code is displayed as text; use a fenced code block to format it.",
        relevant=["0a", "0b", "0c", "1a"],
        utilized=["0a", "0b", "1a"],
        support=[ok("0a"), ok("0b"), ok("1a")],
        relevance_explanation="0a-0c explain that pasted markup is escaped and shown as text; 1a explains how to share code readably.",
        relevant_ids=["help-44", "help-45"],
    ),
    Spec(
        id="tech-003",
        dataset="techqa_sample",
        model=GPT,
        question="The /var/log partition on our Ubuntu server is full. How can I free up space safely?",
        docs=[
            (
                "kb-530",
                [
                    "On systems that use systemd, the journal stored under /var/log/journal is often the largest consumer of log space.",
                    "You can check its current size with journalctl --disk-usage.",
                    "To shrink it immediately, run journalctl --vacuum-size=500M, which deletes the oldest archived journal files until the total is under 500 MB.",
                    "To keep it small permanently, set SystemMaxUse=500M in /etc/systemd/journald.conf and restart systemd-journald.",
                ],
            ),
            (
                "kb-212",
                [
                    "Logrotate compresses and removes old log files according to the rules in /etc/logrotate.d.",
                    "If a single application log keeps growing, add a rule for it with a rotation frequency and a rotate count.",
                    "Deleting a log file that a process still has open does not free the space until that process closes it or restarts.",
                    "In that case, empty the file with truncate -s 0 instead of deleting it.",
                ],
            ),
            (
                "kb-19",
                [
                    "Putting /var/log on its own partition prevents runaway logs from filling the root file system.",
                    "A size of 10 to 20 GB is enough for most small servers.",
                    "Larger partitions are useful when logs must be retained for compliance.",
                ],
            ),
        ],
        response=[
            "Start by checking how much space the systemd journal uses with journalctl --disk-usage, since it is often the largest consumer.",
            "You can shrink it right away with journalctl --vacuum-size=500M and cap it permanently by setting SystemMaxUse=500M in /etc/systemd/journald.conf.",
            "For application logs, make sure logrotate has a rule in /etc/logrotate.d that rotates and compresses them.",
            "If a log is still open in a running process, empty it with truncate -s 0 rather than deleting it, or the space will not be freed.",
        ],
        reference="Vacuum the systemd journal (journalctl --vacuum-size), cap it with SystemMaxUse, fix logrotate rules, and truncate rather than delete open log files.",
        relevant=["0a", "0b", "0c", "0d", "1a", "1b", "1c", "1d"],
        utilized=["0a", "0b", "0c", "0d", "1a", "1b", "1c", "1d"],
        support=[ok("0a", "0b"), ok("0c", "0d"), ok("1a", "1b"), ok("1c", "1d")],
        relevance_explanation="Documents 0 and 1 describe how to shrink the journal, rotate application logs and free space held by open files. Document 2 is about partition sizing, not freeing space.",
        relevant_ids=["kb-530", "kb-212"],
    ),
    Spec(
        id="tech-003",
        dataset="techqa_sample",
        model=LLAMA,
        question="The /var/log partition on our Ubuntu server is full. How can I free up space safely?",
        docs=[],  # filled from the gpt-4o-mini answer to the same question below
        response=[
            "Here are a few ways to free up space on /var/log.",
            "Run journalctl --vacuum-size=500M to delete old journal files until they use less than 500 MB.",
            "You can also delete everything in /var/log/apt, which is always safe to remove.",
            "Going forward, set SystemMaxUse in journald.conf so the journal cannot grow without limit.",
        ],
        reference="Vacuum the systemd journal (journalctl --vacuum-size), cap it with SystemMaxUse, fix logrotate rules, and truncate rather than delete open log files.",
        relevant=["0a", "0b", "0c", "0d", "1a", "1c", "1d"],
        utilized=["0c", "0d"],
        support=[
            ok("general", why="This is an introductory sentence that makes no factual claim."),
            ok("0c"),
            no("None of the documents mention /var/log/apt or say that any directory is always safe to delete."),
            ok("0d"),
        ],
        relevance_explanation="Document 0 explains how to measure and shrink the journal; 1a, 1c and 1d cover rotation and open log files.",
        relevant_ids=["kb-530", "kb-212"],
        bogus_keys=("general",),
    ),
    Spec(
        id="tech-004",
        dataset="techqa_sample",
        model=LLAMA,
        question="What is the difference between git merge and git rebase?",
        docs=[
            (
                "git-guide-7",
                [
                    "Both git merge and git rebase integrate changes from one branch into another.",
                    "A merge creates a new merge commit that ties the histories of the two branches together and leaves existing commits unchanged.",
                    "A rebase instead replays your commits on top of the target branch, producing new commits with new hashes.",
                    "The result of a rebase is a linear history without merge commits.",
                    "Git was created in 2005 to manage development of the Linux kernel.",
                ],
            ),
            (
                "team-wiki-31",
                [
                    "Our team rebases feature branches onto main before opening a pull request to keep the history readable.",
                    "Never rebase a branch that others have already pulled, because rewriting its commits forces them to reconcile duplicate work.",
                    "Pull requests are merged with a merge commit so the review discussion stays linked to one point in history.",
                    "Branch names should start with the ticket number.",
                ],
            ),
        ],
        response=[
            "Git merge combines two branches by creating a merge commit and keeps the existing commits as they are.",
            "Git rebase replays your commits on top of the other branch, which rewrites them with new hashes and gives a linear history.",
            "Because rebasing rewrites commits, avoid it on branches other people have already pulled.",
        ],
        reference="Merge joins two histories with a merge commit and leaves commits unchanged; rebase rewrites your commits on top of the target branch for a linear history.",
        relevant=["0a", "0b", "0c", "0d", "1b", "1f"],
        utilized=["0b", "0c", "0d", "1b", "1f"],
        support=[ok("0b"), ok("0c", "0d"), ok("1b", "1f")],
        relevance_explanation="Document 0 defines merge and rebase; document 1 adds the team's rule about rebasing shared branches.",
        relevant_ids=["git-guide-7"],
        bogus_keys=("1f",),
    ),
    Spec(
        id="tech-005",
        dataset="techqa_sample",
        model=GPT,
        question="How can I find out which process is listening on port 8080 on Linux?",
        docs=[
            (
                "kb-402",
                [
                    "The ss utility lists open sockets and replaces the older netstat command.",
                    "Run ss -ltnp to show listening TCP sockets together with the process that owns each one.",
                    "Seeing the process names of sockets owned by other users requires root privileges, so prefix the command with sudo.",
                ],
            ),
            (
                "kb-118",
                [
                    "lsof -i :8080 prints every process that has a socket open on port 8080.",
                    "The PID column gives the process ID, which you can pass to ps or kill.",
                    "lsof may not be installed by default on minimal server images.",
                ],
            ),
        ],
        response=[
            "Run sudo ss -ltnp and look for :8080 in the Local Address column; the last column shows the process that owns the socket.",
            "Alternatively, sudo lsof -i :8080 lists the processes using that port along with their PIDs.",
        ],
        reference="sudo ss -ltnp | grep :8080, or sudo lsof -i :8080",
        relevant=None,  # unlabeled: the judge has not seen this answer yet
        relevant_ids=["kb-402", "kb-118"],
    ),
    Spec(
        id="med-001",
        dataset="medqa_sample",
        model=GPT,
        question="Is it safe to take ibuprofen if I have high blood pressure?",
        docs=[
            (
                "pil-ibuprofen-200",
                [
                    "Ibuprofen belongs to a group of medicines called non-steroidal anti-inflammatory drugs (NSAIDs).",
                    "Talk to your doctor or pharmacist before taking ibuprofen if you have high blood pressure, heart problems or kidney disease.",
                    "NSAIDs can raise blood pressure and may reduce the effect of some blood pressure medicines, including ACE inhibitors and diuretics.",
                    "Take the lowest dose that relieves your symptoms for the shortest time necessary.",
                    "Do not take more than 1,200 mg in 24 hours without medical advice.",
                ],
            ),
            (
                "bp-guide-12",
                [
                    "People with high blood pressure often choose paracetamol for everyday pain because it does not usually affect blood pressure.",
                    "Check the labels of cold and flu remedies, since some combine painkillers with decongestants that raise blood pressure.",
                    "Home blood pressure monitors should be validated for accuracy.",
                ],
            ),
        ],
        response=[
            "Ibuprofen is an NSAID, and NSAIDs can raise blood pressure and weaken some blood pressure medicines such as ACE inhibitors and diuretics.",
            "You should speak to a doctor or pharmacist before taking it if you have high blood pressure.",
            "Most people with controlled blood pressure can safely take up to 2,400 mg a day for two weeks.",
            "Paracetamol is often a better choice for everyday pain because it does not usually affect blood pressure.",
        ],
        reference="Only after checking with a doctor or pharmacist: ibuprofen can raise blood pressure and interfere with blood pressure medicines, and paracetamol is usually preferred.",
        relevant=["0a", "0b", "0c", "0d", "0e", "1a", "1b"],
        utilized=["0a", "0b", "0c", "0e", "1a"],
        support=[
            ok("0a", "0c"),
            ok("0b"),
            ok("0e", why="0e gives the daily dose limit for ibuprofen, which supports the stated maximum."),
            ok("1a"),
        ],
        relevance_explanation="The leaflet explains the risks of NSAIDs for people with high blood pressure and the dose limits; document 1 suggests alternatives and warns about combination products.",
        relevant_ids=["pil-ibuprofen-200", "bp-guide-12"],
    ),
    Spec(
        id="med-002",
        dataset="medqa_sample",
        model=LLAMA,
        question="How long is a person with the flu contagious?",
        docs=[
            (
                "flu-facts-3",
                [
                    "Influenza spreads mainly through droplets produced when infected people cough, sneeze or talk.",
                    "Most healthy adults can infect others from one day before symptoms appear until five to seven days after becoming sick.",
                    "Young children and people with weakened immune systems may remain contagious for longer.",
                    "Symptoms usually begin about two days after exposure.",
                ],
            ),
            (
                "flu-facts-9",
                [
                    "Annual vaccination is the most effective way to prevent influenza.",
                    "Stay home until you have been free of fever for at least 24 hours without using fever-reducing medicine.",
                    "Washing hands often and covering coughs reduce the spread of the virus.",
                    "Antiviral medicines work best when started within 48 hours of the first symptoms.",
                ],
            ),
        ],
        response=[
            "Adults with the flu are usually contagious from about a day before symptoms start until five to seven days after they fall ill.",
            "Symptoms typically appear around two days after exposure, so people can pass the virus on before they know they are sick.",
            "To avoid infecting others, stay home until you have gone at least 24 hours without a fever and without fever-reducing medicine.",
        ],
        reference="From about one day before symptoms until 5 to 7 days after falling ill; longer in young children and people with weakened immune systems.",
        relevant=["0b", "0d", "1b"],
        utilized=["0b", "0d", "1b"],
        support=[ok("0b"), ok("0d", "0b"), ok("1b")],
        relevance_explanation="0b gives the contagious period, 0d the incubation time, and 1b when it is safe to return to others.",
        relevant_ids=["flu-facts-3", "flu-facts-9"],
    ),
    Spec(
        id="med-003",
        dataset="medqa_sample",
        model=GPT,
        question="What are the early warning signs of type 2 diabetes?",
        docs=[
            (
                "dm-overview-1",
                [
                    "Type 2 diabetes often develops slowly, and many people have no symptoms for years.",
                    "Common early signs include feeling very thirsty, urinating more often than usual, especially at night, and feeling tired.",
                    "Some people notice blurred vision, cuts and wounds that heal slowly, or itching around the genitals.",
                    "Unintentional weight loss can also occur.",
                    "A blood test called HbA1c is used to confirm the diagnosis.",
                ],
            ),
            (
                "dm-risk-4",
                [
                    "Your risk is higher if you are over 40, have a close relative with diabetes, or are overweight.",
                    "People of South Asian, African-Caribbean or Black African origin are at higher risk from a younger age.",
                    "Because symptoms can be mild, people at high risk are encouraged to have regular check-ups.",
                ],
            ),
            (
                "dm-diet-2",
                [
                    "A balanced diet with plenty of vegetables and whole grains helps manage blood glucose.",
                    "Limiting sugary drinks is one of the simplest changes to make.",
                    "Regular physical activity improves the body's response to insulin.",
                ],
            ),
        ],
        response=[
            "Type 2 diabetes can develop slowly, and many people have no symptoms at first.",
            "Early signs include being very thirsty, needing to urinate more often, especially at night, and feeling tired.",
            "You may also notice blurred vision, slow-healing cuts, genital itching or weight loss you cannot explain.",
            "If you have these symptoms or risk factors such as being over 40 or overweight, ask your doctor for a blood test.",
        ],
        reference="Increased thirst, frequent urination (especially at night), tiredness, blurred vision, slow-healing cuts, genital itching and unexplained weight loss.",
        relevant=["0a", "0b", "0c", "0d", "0e", "1a", "1c"],
        utilized=["0a", "0b", "0c", "0d", "0e", "1a", "1c"],
        support=[ok("0a"), ok("0b"), ok("0c", "0d"), ok("0e", "1a", "1c")],
        relevance_explanation="Document 0 lists the early symptoms and the diagnostic test; 1a and 1c say who should be checked. Document 2 is about managing diabetes, not recognising it.",
        relevant_ids=["dm-overview-1", "dm-risk-4"],
    ),
    Spec(
        id="med-003",
        dataset="medqa_sample",
        model=LLAMA,
        question="What are the early warning signs of type 2 diabetes?",
        docs=[],  # same retrieval as the gpt-4o-mini answer
        response=[
            "The early signs of type 2 diabetes include increased thirst, frequent urination and tiredness.",
            "Blurred vision and cuts that heal slowly are also common.",
            "Many people have no symptoms for years, so regular check-ups matter if you are at higher risk.",
        ],
        reference="Increased thirst, frequent urination (especially at night), tiredness, blurred vision, slow-healing cuts, genital itching and unexplained weight loss.",
        relevant=["0a", "0b", "0b", "0c", "0d", "1c"],
        utilized=["0a", "0b", "0c", "1c"],
        support=[ok("0b"), ok("0c"), ok("0a", "1c")],
        relevance_explanation="0a-0d describe the early symptoms and 1c recommends check-ups for people at risk.",
        relevant_ids=["dm-overview-1", "dm-risk-4"],
    ),
    Spec(
        id="med-004",
        dataset="medqa_sample",
        model=GPT,
        question="How should I store my child's amoxicillin liquid, and how long does it last?",
        docs=[
            (
                "pil-amox-susp",
                [
                    "Amoxicillin oral suspension is supplied as a powder that the pharmacist mixes with water before dispensing.",
                    "Once mixed, store the bottle in a refrigerator between 2 °C and 8 °C.",
                    "Do not freeze the suspension.",
                    "Use the medicine within 7 days of mixing and return any leftover liquid to a pharmacy.",
                    "Shake the bottle well before each dose.",
                ],
            ),
            (
                "pharmacy-faq-22",
                [
                    "Always use the measuring syringe or spoon supplied with a liquid medicine rather than a kitchen spoon.",
                    "Finish the full course of an antibiotic even if your child feels better.",
                    "Most pharmacies accept unused medicines for safe disposal.",
                    "Keep all medicines out of the sight and reach of children.",
                ],
            ),
        ],
        response=[
            "Keep the mixed amoxicillin liquid in the fridge, between 2 °C and 8 °C, and do not freeze it.",
            "It stays usable for 14 days after the pharmacist mixes it.",
            "Shake the bottle before each dose and measure it with the syringe provided.",
            "Take any leftover medicine back to a pharmacy rather than throwing it away.",
        ],
        reference="In the fridge (2-8 °C), not frozen; use within 7 days of mixing.",
        relevant=["0b", "0c", "0d", "0e", "1a", "1c"],
        utilized=["0b", "0c", "0d", "0e", "1a", "1c"],
        support=[
            ok("0b", "0c"),
            no("0d says the medicine must be used within 7 days of mixing, not 14 days."),
            ok("0e", "1a"),
            ok("0d", "1c"),
        ],
        unsupported=[],
        relevance_explanation="The leaflet gives the storage temperature, the shelf life after mixing and handling instructions; 1a and 1c cover measuring doses and returning leftovers.",
        relevant_ids=["pil-amox-susp"],
    ),
    Spec(
        id="fin-001",
        dataset="financeqa_sample",
        model=GPT,
        question="What happens if I take money out of my 401(k) before age 59½?",
        docs=[
            (
                "irs-summary-401k",
                [
                    "Withdrawals from a 401(k) plan before age 59½ are generally subject to a 10% additional tax on top of ordinary income tax.",
                    "Exceptions to the additional tax include separation from service in or after the year you turn 55, total and permanent disability, and certain medical expenses.",
                    "The plan administrator usually withholds 20% of an eligible rollover distribution for federal income tax.",
                    "Contribution limits are adjusted each year for inflation.",
                ],
            ),
            (
                "planner-blog-18",
                [
                    "A 401(k) loan lets you borrow from your balance and repay yourself with interest, avoiding taxes and penalties if you repay on schedule.",
                    "If you leave your employer with a loan outstanding, the unpaid balance may be treated as a distribution.",
                    "Many plans offer matching contributions, which is why planners advise contributing at least enough to get the full match.",
                    "Cashing out early also means losing the future growth that money would have earned.",
                ],
            ),
        ],
        response=[
            "Taking money out of a 401(k) before 59½ usually means paying ordinary income tax plus a 10% additional tax.",
            "Your plan will typically withhold 20% for federal income tax when it pays the money out.",
            "There are exceptions, such as leaving your job in or after the year you turn 55 or becoming permanently disabled.",
            "If you need cash, a 401(k) loan may avoid the taxes and penalty as long as you repay it on schedule.",
        ],
        reference="It is taxed as ordinary income plus a 10% additional tax, unless an exception such as separation from service at 55 or disability applies.",
        relevant=["0a", "0b", "0c", "1a", "1b", "1d"],
        utilized=["0a", "0b", "0c", "1a", "1c"],
        support=[ok("0a"), ok("0c"), ok("0b"), ok("1a")],
        relevance_explanation="Document 0 states the additional tax, its exceptions and withholding; 1a, 1b and 1d describe loans and the cost of cashing out.",
        relevant_ids=["irs-summary-401k", "planner-blog-18"],
    ),
    Spec(
        id="fin-002",
        dataset="financeqa_sample",
        model=LLAMA,
        question="How is compound interest calculated on a savings account?",
        docs=[
            (
                "bank-edu-5",
                [
                    "Compound interest is interest earned on both the money you deposit and the interest already added to your account.",
                    "The balance after t years is P × (1 + r/n)^(n·t), where P is the deposit, r the annual rate and n the number of compounding periods per year.",
                    "For example, $1,000 at 5% compounded monthly grows to about $1,051.16 after one year.",
                    "The more often interest compounds, the higher the annual percentage yield (APY) compared with the stated rate.",
                ],
            ),
            (
                "bank-edu-11",
                [
                    "Savings accounts in the United States are insured by the FDIC up to $250,000 per depositor, per bank.",
                    "Some accounts charge a monthly maintenance fee unless a minimum balance is kept.",
                    "Interest earned on savings is taxable in the year it is credited.",
                ],
            ),
        ],
        response=[
            "Compound interest means you earn interest on your deposit and on interest that has already been added.",
            "The balance after t years is P × (1 + r/n)^(n·t), with P the deposit, r the annual rate and n the number of compounding periods per year.",
            "For instance, $1,000 at 5% compounded monthly grows to roughly $1,051.16 in a year.",
        ],
        reference=[
            "A = P(1 + r/n)^(nt)",
            "Interest is earned on the deposit plus interest already credited: P(1 + r/n)^(nt) after t years.",
        ],
        relevant=["0a", "0b", "0c", "0d"],
        utilized=["0a", "0b", "0c"],
        support=[ok("0a"), ok("0b"), ok("0c")],
        relevance_explanation="Document 0 defines compound interest, gives the formula and a worked example. Document 1 is about deposit insurance, fees and tax.",
        relevant_ids=["bank-edu-5"],
    ),
    Spec(
        id="fin-003",
        dataset="financeqa_sample",
        model=GPT,
        question="What is the difference between a Roth IRA and a traditional IRA?",
        docs=[
            (
                "ira-basics-2",
                [
                    "Contributions to a traditional IRA may be tax-deductible, and withdrawals in retirement are taxed as ordinary income.",
                    "Roth IRA contributions are made with after-tax money, and qualified withdrawals, including earnings, are tax-free.",
                    "Traditional IRAs require minimum distributions starting at age 73, while Roth IRAs have no required distributions during the owner's lifetime.",
                    "Your ability to contribute to a Roth IRA phases out above certain income levels.",
                ],
            ),
            (
                "ira-basics-7",
                [
                    "The annual contribution limit is shared between all of your IRAs.",
                    "A Roth IRA can suit people who expect to be in a higher tax bracket in retirement.",
                    "A traditional IRA can suit people who want a tax deduction now and expect a lower tax rate later.",
                    "IRAs can hold stocks, bonds, funds and cash.",
                ],
            ),
        ],
        response=[
            "The main difference is when you pay tax: traditional IRA contributions may be deductible now, but withdrawals in retirement are taxed as income.",
            "Roth IRA contributions use after-tax money, and qualified withdrawals, including earnings, are tax-free.",
            "Traditional IRAs also require minimum distributions from age 73, while a Roth has none during your lifetime.",
            "A Roth tends to suit people who expect a higher tax bracket in retirement, and a traditional IRA those who want a deduction now and expect a lower rate later.",
        ],
        reference="Traditional: deductible contributions, taxed withdrawals, required distributions. Roth: after-tax contributions, tax-free qualified withdrawals, no lifetime required distributions.",
        relevant=["0a", "0b", "0c", "0d", "1a", "1b", "1c"],
        utilized=["0a", "0b", "0c", "1b", "1c"],
        support=[ok("0a"), ok("0b"), ok("0c"), ok("1b", "1c")],
        relevance_explanation="Document 0 compares the tax treatment and distribution rules; 1a-1c explain the shared limit and who each account suits.",
        relevant_ids=["ira-basics-2", "ira-basics-7"],
    ),
    Spec(
        id="fin-003",
        dataset="financeqa_sample",
        model=LLAMA,
        question="What is the difference between a Roth IRA and a traditional IRA?",
        docs=[],  # same retrieval as the gpt-4o-mini answer
        response=[
            "A traditional IRA gives you a possible tax deduction now, and you pay income tax when you withdraw in retirement.",
            "With a Roth IRA you contribute after-tax money and take qualified withdrawals tax-free.",
            "Roth IRAs also let you withdraw your contributions at any time without tax or penalty.",
        ],
        reference="Traditional: deductible contributions, taxed withdrawals, required distributions. Roth: after-tax contributions, tax-free qualified withdrawals, no lifetime required distributions.",
        relevant=["0a", "0b", "0c", "0d", "1b", "1c"],
        utilized=["0a", "0b"],
        support=[
            ok("0a"),
            ok("0b"),
            no("The documents do not say when Roth contributions can be withdrawn or whether a penalty applies."),
        ],
        relevance_explanation="0a-0d describe how the two accounts are taxed and restricted; 1b and 1c say who each suits.",
        relevant_ids=["ira-basics-2", "ira-basics-7"],
    ),
    Spec(
        id="fin-004",
        dataset="financeqa_sample",
        model=GPT,
        question="What is a fund's expense ratio and why does it matter?",
        docs=[
            (
                "fund-glossary-9",
                [
                    "The expense ratio is the percentage of a fund's assets deducted each year to pay for management, administration and other operating costs.",
                    "It is taken out of the fund's returns automatically, so investors never receive a separate bill.",
                    "An expense ratio of 0.50% costs $5 a year for every $1,000 invested.",
                    "Index funds typically have lower expense ratios than actively managed funds.",
                ],
            ),
            (
                "investor-note-14",
                [
                    "Over long periods, small differences in fees compound into large differences in ending balances.",
                    "On a $100,000 portfolio growing 6% a year before fees, a 0.1% expense ratio leaves more than $80,000 more after 25 years than a 1.0% ratio.",
                    "Past performance does not guarantee future results.",
                ],
            ),
        ],
        response=[
            "A fund's expense ratio is the yearly percentage of its assets used to pay management and operating costs.",
            "It is deducted from the fund's returns automatically, so you never see a bill.",
            "For example, a 0.50% ratio costs $5 a year for every $1,000 you invest, and over decades small differences in fees add up to large differences in your final balance.",
        ],
        reference="The annual percentage of fund assets taken for costs; it matters because fees compound over time and reduce your final balance.",
        relevant=["general", "0a", "0b", "0c", "0d", "1a", "1b"],
        utilized=["0a", "0b", "0c", "1a"],
        support=[ok("0a"), ok("0b"), ok("0c", "1a")],
        relevance_explanation="Document 0 defines the expense ratio and gives an example; 1a and 1b show why fees matter over time.",
        relevant_ids=["fund-glossary-9", "investor-note-14"],
        bogus_keys=("general",),
    ),
    Spec(
        id="pol-001",
        dataset="policyqa_sample",
        model=GPT,
        question="How many vacation days do new full-time employees get?",
        docs=[
            (
                "hr-handbook-4.2",
                [
                    "Full-time employees accrue 1.25 vacation days per month of service, which is 15 days per year.",
                    "Accrual begins on the first day of employment, but vacation cannot be taken during the first 90 days.",
                    "Part-time employees accrue vacation in proportion to their scheduled hours.",
                    "Up to five unused days may be carried over into the next calendar year.",
                    "Requests of more than five consecutive days need two weeks' notice.",
                ],
            ),
            (
                "hr-handbook-4.5",
                [
                    "The company observes ten paid public holidays each year.",
                    "Public holidays do not count against vacation balances.",
                    "Employees who work on a public holiday receive a substitute day off.",
                ],
            ),
        ],
        response=[
            "New full-time employees earn 1.25 vacation days for each month worked, or 15 days over a full year.",
            "Vacation starts accruing on day one, but you cannot take any during your first 90 days.",
            "On top of that, you get ten paid public holidays, which do not reduce your vacation balance.",
        ],
        reference="15 days a year (1.25 per month), usable after the first 90 days.",
        relevant=["0a", "0b", "0d", "1a", "1b"],
        utilized=["0a", "0b", "1a", "1b"],
        support=[ok("0a"), ok("0b"), ok("1a", "1b")],
        relevance_explanation="0a, 0b and 0d give the accrual rate, waiting period and carry-over; 1a and 1b add the public holidays.",
        relevant_ids=["hr-handbook-4.2"],
    ),
    Spec(
        id="pol-002",
        dataset="policyqa_sample",
        model=LLAMA,
        question="Can I work remotely from another country for a few weeks?",
        docs=[
            (
                "remote-policy-3",
                [
                    "Employees may work remotely from within their country of employment with their manager's approval.",
                    "Working from another country for up to 20 working days in a calendar year requires approval from both your manager and the Global Mobility team.",
                    "Requests must be submitted at least 30 days before the planned start date.",
                    "Stays longer than 20 working days are not permitted because they can create tax and immigration obligations for the employee and the company.",
                    "Some countries are excluded for security or export-control reasons; the current list is on the Global Mobility page.",
                ],
            ),
            (
                "it-security-12",
                [
                    "When working outside the office, connect to company systems only through the VPN.",
                    "Company laptops must not be left unattended in public places.",
                    "Report a lost or stolen device to the service desk within 24 hours.",
                ],
            ),
        ],
        response=[
            "Yes, you can work from another country for up to 20 working days a year, provided your manager and the Global Mobility team approve.",
            "Submit your request at least 30 days before you plan to leave.",
            "Check the Global Mobility page first, since some countries are excluded.",
            "While abroad, connect to company systems only through the VPN.",
        ],
        reference="Yes, for up to 20 working days a year with manager and Global Mobility approval, requested at least 30 days ahead.",
        relevant=["0b", "0d", "0e", "1a"],
        utilized=["0b", "0e", "1a"],
        support=[
            ok("0b"),
            no("The documents do not mention how far in advance a request must be made."),
            ok("0e"),
            ok("1a"),
        ],
        relevance_explanation="0b, 0d and 0e set the limits and approvals for working abroad; 1a covers secure access while travelling.",
        relevant_ids=["remote-policy-3"],
    ),
    Spec(
        id="pol-003",
        dataset="policyqa_sample",
        model=GPT,
        question="Can I return something I bought online if I lost the receipt?",
        docs=[
            (
                "returns-policy",
                [
                    "Items bought online can be returned within 30 days of delivery, either by mail or at any store.",
                    "Your order confirmation email serves as your receipt for online purchases.",
                    "If you cannot find the confirmation, store staff can look up the order using the card you paid with or the email address on your account.",
                    "Refunds go back to the original payment method within 5 to 10 business days.",
                ],
            ),
            (
                "returns-exceptions",
                [
                    "Opened software, gift cards and personalised items cannot be returned.",
                    "Returns without any proof of purchase receive store credit at the item's lowest recent selling price.",
                    "Large furniture must be returned through our collection service.",
                ],
            ),
        ],
        response=[
            "Yes. For online orders, the order confirmation email counts as your receipt.",
            "If you cannot find it, store staff can look up the order with the card you paid with or your account email.",
            "Returns must be made within 30 days of delivery, by mail or in any store.",
            "Without any proof of purchase, you would get store credit at the item's lowest recent price instead of a refund.",
        ],
        reference=[
            "Yes, within 30 days: the confirmation email is the receipt, or staff can look the order up.",
            "Yes; with no proof of purchase at all you get store credit.",
        ],
        relevant=["0a", "0b", "0c", "0d", "1a", "1b"],
        utilized=["0a", "0b", "0c", "1b"],
        support=[ok("0b"), ok("0c"), ok("0a"), ok("1b")],
        relevance_explanation="Document 0 covers the return window and what counts as a receipt; 1a and 1b cover exceptions and returns without proof of purchase.",
        relevant_ids=["returns-policy", "returns-exceptions"],
    ),
    Spec(
        id="pol-004",
        dataset="policyqa_sample",
        model=LLAMA,
        question="How long does the company keep recordings of customer support calls?",
        docs=[
            (
                "privacy-notice-6",
                [
                    "Customer support calls may be recorded for quality and training purposes.",
                    "Call recordings are kept for 90 days and then deleted automatically.",
                    "Recordings related to an open complaint or legal claim are kept until the matter is resolved.",
                    "Customers can ask for a copy of a recording by contacting the privacy team.",
                ],
            ),
            (
                "privacy-notice-2",
                [
                    "We keep account information for as long as your account is open and for six years after it closes.",
                    "Payment records are retained for seven years to meet accounting requirements.",
                    "Marketing preferences are kept until you change them.",
                ],
            ),
            (
                "security-faq-3",
                [
                    "All recordings are encrypted at rest.",
                    "Only authorised quality-assurance staff can listen to recordings.",
                    "Access to recordings is logged and reviewed monthly.",
                ],
            ),
        ],
        response=[
            "Support call recordings are kept for 90 days and then deleted automatically.",
            "If a call relates to an open complaint or legal claim, the recording is kept until that matter is resolved.",
        ],
        reference="90 days, or until an open complaint or legal claim is resolved.",
        relevant=["0a", "0b", "0c", "0d"],
        utilized=["0b", "0c"],
        support=[ok("0b"), ok("0c")],
        relevance_explanation="Document 0 is the privacy notice section on call recordings; documents 1 and 2 cover other records and security.",
        relevant_ids=["privacy-notice-6", "retention-schedule-1"],
    ),
    Spec(
        id="pol-005",
        dataset="policyqa_sample",
        model=GPT,
        question="Are contractors covered by the travel expense reimbursement policy?",
        docs=[
            (
                "expense-policy-1",
                [
                    "This policy applies to all employees travelling on company business.",
                    "Contractors and agency workers are not covered by this policy; their travel costs are handled under the terms of their contract.",
                    "Expenses must be submitted within 60 days with itemised receipts.",
                    "Economy class is required for flights shorter than six hours.",
                ],
            ),
            (
                "vendor-guide-5",
                [
                    "Contractor agreements should state whether travel costs are billable and at what rates.",
                    "Contractors invoice approved travel costs along with their regular invoices.",
                    "Purchase orders must be raised before work starts.",
                ],
            ),
        ],
        response=[
            "No, contractors are not covered by the travel expense policy, which applies only to employees.",
            "Their travel costs are governed by their contract, which should state whether travel is billable and at what rates.",
            "Approved travel costs are then invoiced together with their regular invoices.",
        ],
        reference="No; contractors' travel costs follow their contract and are invoiced with their regular invoices.",
        relevant=["0a", "0b", "1a", "1b"],
        utilized=["0a", "0b", "1a", "1b"],
        support=[ok("0a", "0b"), ok("0b", "1a"), ok("1b")],
        relevance_explanation="0a and 0b define who the policy covers; 1a and 1b describe how contractors are reimbursed instead.",
        with_ids=False,
    ),
]


def join_keys(keys: tuple[str, ...]) -> str:
    if len(keys) == 1:
        return f"sentence {keys[0]}"
    return "sentences " + ", ".join(keys[:-1]) + " and " + keys[-1]


def support_explanation(verdict: Judged) -> str:
    if verdict.explanation:
        return verdict.explanation
    if len(verdict.keys) == 1:
        return f"The sentence is supported by {join_keys(verdict.keys)}, which states the same information."
    return f"The sentence is supported by {join_keys(verdict.keys)}, which together state this information."


def overall_explanation(support: list[dict]) -> str:
    unsupported = [s["response_sentence_key"] for s in support if not s["fully_supported"]]
    if not unsupported:
        return "Every sentence of the response is supported by the documents."
    which = join_keys(tuple(unsupported))
    return f"The response is not fully supported: {which} makes claims the documents do not contain."


def resolve_docs(specs: list[Spec]) -> list[Spec]:
    """A spec with ``docs=[]`` reuses the documents of the earlier spec with the same id (the same
    question answered by another generation model, as RAGBench does)."""
    seen: dict[str, list[tuple[str, list[str]]]] = {}
    out = []
    for spec in specs:
        docs = spec.docs or seen[spec.id]
        seen.setdefault(spec.id, docs)
        out.append(Spec(**{**spec.__dict__, "docs": docs}))
    return out


def check_example(spec: Spec) -> None:
    """Refuse a spec that breaks the sample's shape or has a bogus key not declared as a mistake."""
    where = f"{spec.id}/{spec.model}"
    assert 2 <= len(spec.docs) <= 4, f"{where}: {len(spec.docs)} documents"
    for doc_id, sentences in spec.docs:
        assert 3 <= len(sentences) <= 8, f"{where}: {doc_id} has {len(sentences)} sentences"
    assert 2 <= len(spec.response) <= 5, f"{where}: {len(spec.response)} response sentences"
    if spec.relevant is None:
        return
    assert len(spec.support) == len(spec.response), f"{where}: one verdict per response sentence"
    valid = {context_key(i, j) for i, (_, sents) in enumerate(spec.docs) for j in range(len(sents))}
    used = list(spec.relevant) + list(spec.utilized) + [k for v in spec.support for k in v.keys]
    stray = sorted({k for k in used if k not in valid} - set(spec.bogus_keys))
    assert not stray, f"{where}: keys {stray} name no sentence and are not declared in bogus_keys"


def build_row(spec: Spec) -> dict:
    check_example(spec)
    documents_sentences = [
        [[context_key(i, j), text] for j, text in enumerate(sentences)] for i, (_, sentences) in enumerate(spec.docs)
    ]
    response_sentences = [[response_key(j), text] for j, text in enumerate(spec.response)]
    row: dict = {
        "id": spec.id,
        "question": spec.question,
        "documents": [" ".join(sentences) for _, sentences in spec.docs],
        "response": " ".join(spec.response),
        "generation_model_name": spec.model,
        "annotating_model_name": JUDGE if spec.relevant is not None else None,
        "dataset_name": spec.dataset,
        "documents_sentences": documents_sentences,
        "response_sentences": response_sentences,
    }
    if spec.relevant is not None:
        support = [
            {
                "response_sentence_key": response_key(j),
                "explanation": support_explanation(verdict),
                "supporting_sentence_keys": list(verdict.keys),
                "fully_supported": verdict.supported,
            }
            for j, verdict in enumerate(spec.support)
        ]
        derived_unsupported = [s["response_sentence_key"] for s in support if not s["fully_supported"]]
        row.update(
            {
                "sentence_support_information": support,
                "unsupported_response_sentence_keys": (
                    derived_unsupported if spec.unsupported is None else list(spec.unsupported)
                ),
                "overall_supported_explanation": overall_explanation(support),
                "relevance_explanation": spec.relevance_explanation,
                "all_relevant_sentence_keys": list(spec.relevant),
                "all_utilized_sentence_keys": list(spec.utilized),
            }
        )
    n_sentences = sum(len(s) for _, s in spec.docs)
    scores = trace_scores(labels_from_row(row), n_sentences)
    row["adherence_score"] = None if scores.adherence is None else scores.adherence == 1.0
    row["relevance_score"] = scores.relevance
    row["utilization_score"] = scores.utilization
    row["completeness_score"] = scores.completeness
    row["reference_answer"] = spec.reference
    if spec.with_ids:
        row["retrieved_ids"] = [doc_id for doc_id, _ in spec.docs]
        row["relevant_ids"] = list(spec.relevant_ids or [])
    return row


def build_rows() -> list[dict]:
    return [build_row(spec) for spec in resolve_docs(SPECS)]


def render_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def render_readme(rows: list[dict]) -> str:
    """``sample_data/README.md``: what the file holds and the judge mistakes a reviewer should fix."""
    datasets = sorted({r["dataset_name"] for r in rows})
    models = sorted({r["generation_model_name"] for r in rows})
    lines = [
        "# ragviz sample data",
        "",
        f"`ragviz_sample.jsonl`: {len(rows)} hand-written RAG examples (original text, not taken from any dataset)",
        "in the RAGBench row schema, one JSON object per line, with the field names RAGBench uses.",
        f"Domains (`dataset_name`): {', '.join(f'`{d}`' for d in datasets)}.",
        f"Generation models: {', '.join(f'`{m}`' for m in models)}; some questions (same `id`) are answered by both.",
        f"Labels come from an imaginary judge, `{JUDGE}`; `retrieved_ids`/`relevant_ids` feed the retrieval metrics.",
        "",
        "This file and the JSONL are generated; edit `scripts/make_sample_data.py` and run",
        "`.venv/bin/python scripts/make_sample_data.py` (`--check` tells whether they are stale). The stored",
        "`relevance_score`, `utilization_score`, `completeness_score` and `adherence_score` are computed with",
        "`ragviz.metrics.trace` from the stored (uncorrected) labels, exactly as RAGBench's stored scores are.",
        "",
        "Special rows:",
        "",
        "- `ml-vs-programming`: the worked example. 2 documents x 3 sentences, relevant {0b, 0c, 1a, 1b},",
        "  utilized {0b, 0c, 1a}, response sentence c unsupported: relevance 4/6, utilization 3/6,",
        "  completeness 0.75, adherence 0.",
        "- `tech-005`: unlabeled (no label fields, null scores).",
        "- `tech-002`: a document containing `<script>`, `<img onerror>`, `**bold**` and `$5 and $6`, to prove",
        "  that the app shows data text escaped and never interprets it.",
        "- `fin-002`, `pol-003`: `reference_answer` is a list of acceptable answers.",
        "- `pol-004`: a gold document was not retrieved (retrieval recall 1/2); `pol-005` has no retrieval ids.",
        "",
        "## Deliberate judge mistakes (a reviewer should correct these)",
        "",
        "| example (`id` / generation model) | mistake | what is wrong |",
        "|---|---|---|",
    ]
    for example_id, model, kind, what in MISTAKES:
        lines.append(f"| `{example_id}` / {model} | {kind} | {what} |")
    lines += ["", "All other labels are what a careful reviewer would accept.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs from what would be written")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    rows = build_rows()
    outputs = {args.output: render_jsonl(rows), args.output.parent / README.name: render_readme(rows)}
    if args.check:
        stale = [p for p, text in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path}: stale; run scripts/make_sample_data.py", file=sys.stderr)
        return 1 if stale else 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(rows)} rows to {args.output} and {args.output.parent / README.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
