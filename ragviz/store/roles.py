"""Who may do what in the app: the pure rules behind the pages' role checks (how a team sets them:
docs/how-to/serve.md, "Roles").

- **admin** loads data, removes uploads, runs the LLM judge (it spends money), draws, grows and chooses the team's
  audit sample, and sees where the label store is;
- **annotator** records, undoes and resets label decisions under their own name and downloads the corrected labels;
- **adjudicator** (``RAGVIZ_ADJUDICATORS``; admins too) also settles the examples a team's annotators disagree on;
- **viewer** looks: every page in presentation mode, nothing recorded, nothing downloaded (the stakeholder report
  only when the app is not served, :func:`can_download_report`).

Who is who, from the environment and the sign-in: :func:`access_of`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ADMIN",
    "ADMINS_ENV",
    "ANNOTATOR",
    "ANNOTATORS_ENV",
    "ADJUDICATORS_ENV",
    "Access",
    "IDENTITY_CLAIMS",
    "IDENTITY_CLAIM_ENV",
    "Identity",
    "SignInRefused",
    "VIEWER",
    "access_of",
    "can_download_report",
    "identity_claim",
    "identity_name",
    "identity_of_claims",
    "listed_names",
    "login_fingerprint",
    "name_list",
]


ADMINS_ENV = "RAGVIZ_ADMINS"
ANNOTATORS_ENV = "RAGVIZ_ANNOTATORS"
ADJUDICATORS_ENV = "RAGVIZ_ADJUDICATORS"
IDENTITY_CLAIM_ENV = "RAGVIZ_IDENTITY_CLAIM"  # "email" (the default: the verified e-mail) or "sub"
IDENTITY_CLAIMS = ("email", "sub")

ADMIN = "admin"
ANNOTATOR = "annotator"
VIEWER = "viewer"


def identity_name(name: str) -> str:
    """One person's name as ragviz stores, compares and shows it: trimmed, and an e-mail address (a name
    with an ``@``) case-folded, so ``Annotator@Example.org`` and ``annotator@example.org`` are one person.
    Other names (a typed name, an identity provider's ``sub``) keep their case.

    >>> identity_name(" Annotator@Example.ORG "), identity_name("Ana"), identity_name("*")
    ('annotator@example.org', 'Ana', '*')
    """
    name = name.strip()
    return name.casefold() if "@" in name else name


def name_list(raw: str | None) -> frozenset[str]:
    """A comma-separated list of names / e-mail addresses, trimmed and case-folded.

    >>> sorted(name_list(" Ana@x.org, bo ,,"))
    ['ana@x.org', 'bo']
    """
    return frozenset(n.strip().casefold() for n in (raw or "").split(",") if n.strip())


def listed_names(raw: str | None) -> tuple[str, ...]:
    """The names of a comma-separated list (``RAGVIZ_ANNOTATORS``) as people are named (:func:`identity_name`),
    each once, in the order given.

    >>> listed_names(" Ana@X.org, bo ,ana@x.org,")
    ('ana@x.org', 'bo')
    """
    return tuple(dict.fromkeys(identity_name(n) for n in (raw or "").split(",") if n.strip()))


@dataclass(frozen=True)
class Identity:
    """Who is using the app: *names* are what they can be matched by (a signed-in user's verified
    e-mail or subject, :func:`identity_of_claims`; a typed name); *verified* says whether an identity
    provider vouches for them."""

    names: tuple[str, ...]
    verified: bool

    def matches(self, allowed: frozenset[str]) -> bool:
        return any(n.strip().casefold() in allowed for n in self.names if n.strip())


@dataclass(frozen=True)
class SignInRefused:
    """A signed-in account ragviz cannot identify: *why* is the sentence the app shows."""

    why: str


def identity_claim(environ: Mapping[str, str] | None = None) -> str:
    """The claim that is identity here: ``"email"`` unless ``RAGVIZ_IDENTITY_CLAIM`` says ``"sub"``.

    >>> identity_claim({}), identity_claim({"RAGVIZ_IDENTITY_CLAIM": " SUB "})
    ('email', 'sub')
    """
    env = os.environ if environ is None else environ
    chosen = (env.get(IDENTITY_CLAIM_ENV) or "email").strip().lower()
    if chosen not in IDENTITY_CLAIMS:
        raise ValueError(f"{IDENTITY_CLAIM_ENV} must be one of {', '.join(IDENTITY_CLAIMS)}, got {chosen!r}")
    return chosen


def _is_true(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def identity_of_claims(
    claims: Mapping[str, object], environ: Mapping[str, str] | None = None
) -> Identity | SignInRefused:
    """The identity of a signed-in account from its token's *claims*: the e-mail address only when the
    provider says it is verified (``email_verified`` true), or the subject (``sub``) where
    ``RAGVIZ_IDENTITY_CLAIM=sub``; never the name or any other claim.

    >>> identity_of_claims({"email": "ana@x.org", "email_verified": True, "name": "lead@x.org"}, {}).names
    ('ana@x.org',)
    >>> identity_of_claims({"name": "lead@x.org", "sub": "u1"}, {}).why[:38]
    'This account has no verified e-mail ad'
    >>> identity_of_claims({"name": "lead@x.org", "sub": "u1"}, {"RAGVIZ_IDENTITY_CLAIM": "sub"}).names
    ('u1',)
    """
    try:
        claim = identity_claim(environ)
    except ValueError as exc:
        return SignInRefused(f"Sign-in is misconfigured: {exc}. Ask whoever runs ragviz to fix it.")
    if claim == "sub":
        sub = claims.get("sub")
        if isinstance(sub, str) and sub.strip():
            return Identity((identity_name(sub),), verified=True)
        return SignInRefused(
            "This account has no subject (sub) from the sign-in provider, which identifies people here"
            f" ({IDENTITY_CLAIM_ENV}=sub). Sign out and sign in with another account."
        )
    email = claims.get("email")
    if isinstance(email, str) and email.strip() and _is_true(claims.get("email_verified")):
        return Identity((identity_name(email),), verified=True)
    return SignInRefused(
        "This account has no verified e-mail address at the sign-in provider, and ragviz identifies people"
        " by their verified e-mail only (never by their name). Verify the address at the provider, or sign"
        " out and sign in with another account."
    )


def login_fingerprint(claims: Mapping[str, object]) -> str:
    """One sign-in, recognised in every copy of its cookie: a hash of the token's issuer, subject, issue
    and expiry times and nonce (a new sign-in has a new token, hence a new fingerprint).

    >>> login_fingerprint({"sub": "u", "iat": 1}) == login_fingerprint({"sub": "u", "iat": 2})
    False
    """
    parts = {k: claims.get(k) for k in ("iss", "sub", "aud", "iat", "exp", "nonce", "email")}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class Access:
    """The role of the person on this run and what it allows; *why* is a sentence for a page that
    refuses something (``""`` for an admin)."""

    role: str
    why: str = ""
    adjudicator: bool = False  # named in RAGVIZ_ADJUDICATORS (admins adjudicate anyway)

    @property
    def title(self) -> str:
        """The role as the sidebar names it: an annotator named in ``RAGVIZ_ADJUDICATORS`` is an adjudicator.

        >>> Access(ANNOTATOR, adjudicator=True).title, Access(ADMIN, adjudicator=True).title
        ('adjudicator', 'admin')
        """
        return "adjudicator" if self.adjudicator and self.role == ANNOTATOR else self.role

    @property
    def can_load(self) -> bool:
        """Load data, upload, open paths, remove uploads."""
        return self.role == ADMIN

    @property
    def can_judge(self) -> bool:
        return self.role == ADMIN

    @property
    def can_choose_sample(self) -> bool:
        """Draw, grow and choose the team's audit sample (it decides what the corrected estimates say)."""
        return self.role == ADMIN

    @property
    def can_see_store(self) -> bool:
        """See where the label store is (a path or a masked URL)."""
        return self.role == ADMIN

    @property
    def can_adjudicate(self) -> bool:
        """Settle the examples a team's annotators disagree on, seeing everyone's labels on them."""
        return self.role == ADMIN or (self.adjudicator and self.role == ANNOTATOR)

    @property
    def can_see_others(self) -> bool:
        """See other annotators' labels while a round is blind (Compare page, annotator agreement, Team page)."""
        return self.role == ADMIN

    @property
    def can_review(self) -> bool:
        return self.role in (ADMIN, ANNOTATOR)

    @property
    def can_export(self) -> bool:
        """Download the corrected labels and metrics (Export page, Claims page)."""
        return self.can_review


def access_of(
    who: Identity | None,
    *,
    served: bool,
    sign_in: bool,
    environ: Mapping[str, str] | None = None,
) -> Access:
    """The :class:`Access` of *who* (``None``: nobody signed in): its role (the module docstring) by these rules.

    Who is who:

    - **Locally** (the app not served, see :mod:`ragviz.store.paths`) with no ``RAGVIZ_ADMINS`` set, the
      one person at the machine is an admin: today's convenience stays.
    - ``RAGVIZ_ADMINS`` (comma-separated user names or e-mail addresses, matched without regard to case)
      names the admins. ``RAGVIZ_ANNOTATORS`` names the annotators; **unset, everyone identified is an
      annotator** (a team that signs in through its own identity provider has already chosen who gets in;
      set the list to narrow it). Admins are annotators too.
    - Signed in, a person is identified by one verified claim of the provider's token only
      (:func:`identity_of_claims`): the e-mail address when ``email_verified`` is true, or, where a
      deployment sets ``RAGVIZ_IDENTITY_CLAIM=sub``, the provider's subject (``sub``). The display name and
      every other claim are never identity: an account without that claim is refused sign-in with a message.
      Roles are matched, and decisions recorded, under that one name; an e-mail address is case-folded
      (:func:`identity_name`: ``Annotator@Example.org`` is ``annotator@example.org``).
    - A person is *identified* when signed in (Streamlit's ``st.login``) or, without sign-in, locally by
      the name typed on the Data page. **Served without sign-in**, typed names are not verified: they
      still keep annotators' work apart (and a banner says so), but they never make anyone an admin, and
      with ``RAGVIZ_ANNOTATORS`` set nobody can prove to be on it, so everyone views. Served with sign-in
      configured, a person not signed in views.

    >>> access_of(Identity(("me",), False), served=False, sign_in=False, environ={}).role
    'admin'
    >>> access_of(Identity(("me",), False), served=True, sign_in=False, environ={"RAGVIZ_ADMINS": "me"}).role
    'annotator'
    >>> access_of(Identity(("me@x.org",), True), served=True, sign_in=True, environ={"RAGVIZ_ADMINS": "ME@x.org"}).role
    'admin'
    >>> access_of(None, served=True, sign_in=True, environ={}).role
    'viewer'
    """
    env = os.environ if environ is None else environ
    admins, annotators = name_list(env.get(ADMINS_ENV)), name_list(env.get(ANNOTATORS_ENV))
    only_admins = "Only admins (RAGVIZ_ADMINS) load data, run the judge and see where the labels are kept."
    if who is None:
        if sign_in:
            return Access(VIEWER, "Sign in to review; until then this app is shown in presentation mode.")
        who = Identity((), False)
    if not served and not admins and not annotators:
        return Access(ADMIN)
    trusted = who.verified or not served  # locally the person at the machine is who they say
    if trusted and who.matches(admins):
        return Access(ADMIN)
    if sign_in and not who.verified:
        return Access(VIEWER, "Sign in to review; until then this app is shown in presentation mode.")
    adjudicates = trusted and who.matches(name_list(env.get(ADJUDICATORS_ENV)))
    if not annotators or (trusted and who.matches(annotators)) or adjudicates:
        if served and not who.verified and admins and who.matches(admins):
            return Access(ANNOTATOR, only_admins + " Names typed here are not verified: sign-in is needed for that.")
        return Access(ANNOTATOR, only_admins, adjudicator=adjudicates)
    return Access(
        VIEWER, "You are not among this app's annotators (RAGVIZ_ANNOTATORS): it is shown in presentation mode."
    )


def can_download_report(granted: Access, served: bool) -> bool:
    """Whether the stakeholder report may be downloaded (the Dashboard's and the Explainer's "Download report"):
    by those who review, and by anyone at the machine when the app is not served (a viewer there can run
    ``ragviz report`` on the same files anyway).

    >>> can_download_report(Access(VIEWER), served=False), can_download_report(Access(VIEWER), served=True)
    (True, False)
    """
    return granted.can_review or not served
