"""The judge's settings: which server and model, the request's parameters, limits; checked before use.

Temperature: a value set (``--temperature``) is always sent; unset, ``0`` is sent to chat models and
nothing to reasoning models (:func:`is_reasoning_model`: o1, o3, o4-mini, gpt-5, ...). The API key is
never in a settings object's repr.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ragviz.errors import BadInput

__all__ = [
    "API_KEY_ENV",
    "AUTO",
    "AZURE_KEY_ENV",
    "DEFAULT_AZURE_API_VERSION",
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    "FORMAT_MODES",
    "JudgeConfigError",
    "JudgeSettings",
    "NO_KEY_PLACEHOLDER",
    "REASONING_EFFORTS",
    "RESPONSE_FORMATS",
    "is_reasoning_model",
]


DEFAULT_BASE_URL = "https://api.openai.com/v1"
API_KEY_ENV = "OPENAI_API_KEY"
AZURE_KEY_ENV = "AZURE_OPENAI_API_KEY"
DEFAULT_AZURE_API_VERSION = "2024-10-21"  # the Azure OpenAI GA API version with structured outputs
# Servers that need no key (local vLLM, Ollama, llama.cpp) still get a non-empty value from the client.
NO_KEY_PLACEHOLDER = "no-key"

FORMAT_MODES = ("json_schema", "json_object", "text")
AUTO = "auto"  # response format: probe the endpoint once (ragviz.judge.probe) and remember what it supports
RESPONSE_FORMATS = (AUTO, *FORMAT_MODES)
REASONING_EFFORTS = ("minimal", "low", "medium", "high")
# OpenAI's reasoning models, which refuse `temperature`: o1, o1-mini, o3, o3-mini, o4-mini, gpt-5, gpt-5-mini, ...
_REASONING_MODEL = re.compile(r"^(?:[\w.-]+/)?(?:o\d+(?:-[\w.-]+)?|gpt-5(?:[\w.-]*))$")
DEFAULT_TIMEOUT = 60.0  # seconds per call, the whole request (connect, send, wait, read)


class JudgeConfigError(BadInput, ValueError):
    """The settings cannot work (no key for the OpenAI API, bad concurrency, ...)."""


def is_reasoning_model(model: str) -> bool:
    """Whether *model* names one of OpenAI's reasoning models (they refuse ``temperature``).

    >>> [is_reasoning_model(m) for m in ("o3", "o4-mini", "o1-2024-12-17", "gpt-5", "gpt-5-mini", "openai/o3-mini")]
    [True, True, True, True, True, True]
    >>> [is_reasoning_model(m) for m in ("gpt-4o", "gpt-4o-mini", "llama3", "olmo-2", "gpt-4.1")]
    [False, False, False, False, False]
    """
    return bool(_REASONING_MODEL.match(model.strip().lower()))


@dataclass(frozen=True)
class JudgeSettings:
    """How to reach the judge model. ``api_key`` ``None`` means: use env ``OPENAI_API_KEY`` (for Azure,
    ``AZURE_OPENAI_API_KEY``).

    ``azure_endpoint`` set means Azure OpenAI: calls go to ``{azure_endpoint}/openai/deployments/
    {deployment}/chat/completions?api-version={api_version}`` with the key in the ``api-key`` header;
    ``model`` still names the model (for prices and the temperature rule), ``azure_deployment`` the
    deployment (default: ``model``). ``temperature`` ``None`` means unset (see the module docstring)."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    azure_endpoint: str | None = None
    azure_deployment: str | None = None
    api_version: str | None = None
    concurrency: int = 8
    timeout: float = DEFAULT_TIMEOUT
    max_attempts: int = 6  # HTTP attempts per call (429 / 5xx / timeout / connection errors)
    max_fix_attempts: int = 2  # extra calls after an invalid answer, with the problems fed back
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    temperature: float | None = None
    reasoning_effort: str | None = None
    response_format: str = AUTO  # "auto" or one of FORMAT_MODES
    # Set: each request also asks for the answer's token log probabilities (``logprobs``) with this many
    # alternatives per token (``top_logprobs``), which ``--confidence logprobs`` reads.
    top_logprobs: int | None = None

    @property
    def deployment(self) -> str:
        """The Azure deployment name (the model's name when none is given)."""
        return (self.azure_deployment or "").strip() or self.model.strip()

    @property
    def endpoint(self) -> str:
        """Where the calls go, as used in the cache key: the base URL (default OpenAI URL, no trailing
        slash), for Azure ``{endpoint}/openai/deployments/{deployment}``."""
        if self.azure_endpoint:
            return f"{self.azure_endpoint.strip().rstrip('/')}/openai/deployments/{self.deployment}"
        return (self.base_url or DEFAULT_BASE_URL).rstrip("/")

    def sent_temperature(self) -> float | None:
        """The temperature put in the request: the one set, else 0 for chat models and none for
        reasoning models."""
        if self.temperature is not None:
            return self.temperature
        return None if is_reasoning_model(self.model) else 0.0

    def resolved_api_key(self) -> str:
        if self.azure_endpoint:
            key = self.api_key or os.environ.get(AZURE_KEY_ENV) or ""
            if key:
                return key
            raise JudgeConfigError(f"no API key: set {AZURE_KEY_ENV} for the Azure OpenAI endpoint")
        key = self.api_key or os.environ.get(API_KEY_ENV) or ""
        if key:
            return key
        if self.base_url and self.endpoint != DEFAULT_BASE_URL:
            return NO_KEY_PLACEHOLDER
        raise JudgeConfigError(
            f"no API key: set {API_KEY_ENV} or enter a key (only another server than the OpenAI API, a Base URL, "
            "may go without)"
        )

    def check(self) -> None:
        if not self.model.strip():
            raise JudgeConfigError("model: must not be empty")
        if self.concurrency < 1:
            raise JudgeConfigError(f"concurrency: must be >= 1, got {self.concurrency}")
        if self.timeout <= 0:
            raise JudgeConfigError(f"timeout: must be > 0, got {self.timeout}")
        if self.response_format not in RESPONSE_FORMATS:
            raise JudgeConfigError(f"response_format: must be one of {', '.join(RESPONSE_FORMATS)}")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise JudgeConfigError(f"reasoning_effort: must be one of {', '.join(REASONING_EFFORTS)}")
        if self.top_logprobs is not None and not 0 <= self.top_logprobs <= 20:
            raise JudgeConfigError(f"top_logprobs: must lie between 0 and 20, got {self.top_logprobs}")
        if self.temperature is not None and not 0.0 <= self.temperature <= 2.0:
            raise JudgeConfigError(f"temperature: must lie between 0 and 2, got {self.temperature:g}")
        if self.azure_endpoint is not None:
            if self.base_url:
                raise JudgeConfigError("give either a base URL or an Azure OpenAI endpoint, not both")
            if not self.azure_endpoint.strip().lower().startswith(("https://", "http://")):
                raise JudgeConfigError("Azure OpenAI endpoint: must start with https://")
