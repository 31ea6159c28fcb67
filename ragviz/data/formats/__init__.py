"""One module per input format, each returning rows through the RAGBench row checks."""

__all__: list[str] = []
