"""Production traces in and people's labels back out: OpenInference / OTLP span files and Arize Phoenix
(``ragviz import otlp|phoenix``, ``ragviz push phoenix``). :mod:`~ragviz.export.traces.rows_file` writes the rows
a trace source gives (the mapping itself is :mod:`ragviz.data.formats.openinference`), :mod:`~ragviz.export.traces
.phoenix` talks to a Phoenix server, :mod:`~ragviz.export.traces.annotations` turns an exported example into
Phoenix annotations, :mod:`~ragviz.export.traces.push` sends them once (recorded in the store)."""

__all__: list[str] = []
