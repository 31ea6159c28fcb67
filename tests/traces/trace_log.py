"""RAG traces written the way an OpenInference-instrumented app writes them: OpenTelemetry spans with
OpenInference attributes (a CHAIN root, RETRIEVER spans with ``retrieval.documents.N.document.*``, an LLM span),
sent to a Phoenix server through ``arize-phoenix-otel``'s ``register`` and kept in memory, so the same spans can
be written as the OTLP JSON file the OpenTelemetry collector's file exporter writes (:func:`otlp_json`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RagTrace", "journey_traces", "log_traces", "otlp_json"]


@dataclass(frozen=True)
class RagTrace:
    """One request of a RAG app: its question and answer, the documents of each retriever (in order), whether
    the root span records the answer (else only the LLM span does) and the model."""

    question: str
    answer: str
    retrievers: tuple[tuple[str, tuple[str, ...]], ...]
    root_has_output: bool = True
    model: str = "gpt-4o-mini-2024-07-18"
    scores: tuple[float, ...] = field(default_factory=tuple)
    reranked: tuple[str, ...] = ()  # a RERANKER span's output documents (its input: the last retriever's)


def journey_traces() -> list[RagTrace]:
    """Five traces that become rows (one with two retrievers, one whose answer only the LLM span has, one with a
    repeated document) and two that cannot (a retriever without documents, no retriever at all)."""
    return [
        RagTrace(
            "What is the boiling point of water at sea level?",
            "Water boils at 100 degrees Celsius at sea level. It boils at lower temperatures on mountains.",
            (
                (
                    "retrieve",
                    (
                        "Water boils at 100 degrees Celsius at sea level. This is a well known fact.",
                        "At higher altitude the air pressure is lower.",
                        "Salt water boils at a slightly higher temperature.",
                    ),
                ),
            ),
        ),
        RagTrace(
            "Who wrote the novel Moby-Dick?",
            "Moby-Dick was written by Herman Melville. It was published in 1851.",
            (
                ("vector-search", ("Herman Melville was an American novelist.", "Whaling was a large industry.")),
                (
                    "keyword-search",
                    (
                        "Moby-Dick is a novel by Herman Melville. It appeared in 1851.",
                        "The novel follows Captain Ahab.",
                        "Melville also wrote Bartleby.",
                    ),
                ),
            ),
        ),
        RagTrace(
            "How many legs does a spider have?",
            "A spider has eight legs. Insects have six legs.",
            (("retrieve", ("Spiders are arachnids with eight legs.", "Insects have six legs and three body parts.")),),
            root_has_output=False,
        ),
        RagTrace(
            "What colour is the sky on a clear day?",
            "The sky is blue on a clear day. Sunsets can be red.",
            (
                (
                    "retrieve",
                    (
                        "The sky looks blue because of Rayleigh scattering.",
                        "The sky looks blue because of Rayleigh scattering.",
                        "Sunsets often appear red or orange.",
                    ),
                ),
            ),
            model="claude-3-haiku-20240307",
        ),
        RagTrace(
            "What is the capital of France?",
            "The capital of France is Paris. Paris lies on the Seine.",
            (("retrieve", ("Paris is the capital and largest city of France.", "The Seine flows through Paris.")),),
        ),
        RagTrace("Does this trace have documents?", "No documents were found.", (("retrieve", ()),)),
        RagTrace("Is there a retriever at all?", "There is no retriever in this trace.", ()),
    ]


def _document_attributes(documents: tuple[str, ...], trace_no: int, retriever: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, text in enumerate(documents):
        prefix = f"retrieval.documents.{i}.document"
        out[f"{prefix}.id"] = f"doc-{trace_no}-{retriever}-{i}"
        out[f"{prefix}.content"] = text
        out[f"{prefix}.score"] = round(0.9 - 0.1 * i, 3)
        out[f"{prefix}.metadata"] = json.dumps({"source": f"kb/{retriever}/{i}.md"})
    return out


def log_traces(url: str, project: str, traces: list[RagTrace], batch: bool = False) -> list[Any]:
    """Send *traces* to the Phoenix server at *url* under *project* (each span exported as it ends, or in batches
    with *batch*) and return the finished spans (OpenTelemetry ``ReadableSpan`` s)."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from phoenix.otel import register

    provider = register(
        project_name=project, endpoint=f"{url}/v1/traces", batch=batch, set_global_tracer_provider=False, verbose=False
    )
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory), replace_default_processor=False)
    tracer = provider.get_tracer("ragviz-tests")
    for n, trace in enumerate(traces):
        with tracer.start_as_current_span("rag-query") as root:
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("input.value", trace.question)
            for name, documents in trace.retrievers:
                with tracer.start_as_current_span(name) as span:
                    span.set_attribute("openinference.span.kind", "RETRIEVER")
                    span.set_attribute("input.value", trace.question)
                    for key, value in _document_attributes(documents, n, name).items():
                        span.set_attribute(key, value)
                time.sleep(0.002)
            if trace.reranked:
                with tracer.start_as_current_span("rerank") as span:
                    span.set_attribute("openinference.span.kind", "RERANKER")
                    span.set_attribute("reranker.query", trace.question)
                    span.set_attribute("reranker.model_name", "cross-encoder/ms-marco-MiniLM-L-6-v2")
                    inputs = trace.retrievers[-1][1] if trace.retrievers else ()
                    for key, value in _document_attributes(inputs, n, "rerank").items():
                        span.set_attribute(key.replace("retrieval.documents", "reranker.input_documents"), value)
                    for key, value in _document_attributes(trace.reranked, n, "reranked").items():
                        span.set_attribute(key.replace("retrieval.documents", "reranker.output_documents"), value)
                time.sleep(0.002)
            with tracer.start_as_current_span("llm") as llm:
                llm.set_attribute("openinference.span.kind", "LLM")
                llm.set_attribute("llm.model_name", trace.model)
                llm.set_attribute("llm.input_messages.0.message.role", "user")
                llm.set_attribute("llm.input_messages.0.message.content", trace.question)
                llm.set_attribute("output.value", trace.answer)
                llm.set_attribute("llm.output_messages.0.message.role", "assistant")
                llm.set_attribute("llm.output_messages.0.message.content", trace.answer)
            if trace.root_has_output:
                root.set_attribute("output.value", trace.answer)
        if not batch:
            time.sleep(0.002)
    provider.force_flush()
    spans = list(memory.get_finished_spans())
    provider.shutdown()
    return spans


def otlp_json(spans: list[Any]) -> str:
    """*spans* as one OTLP JSON request, as the collector's file exporter writes it (ids in hex)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = MessageToDict(encode_spans(spans))
    for resource_spans in request.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = __import__("base64").b64decode(span[key]).hex()
    return json.dumps(request)
