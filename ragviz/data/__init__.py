"""The data model, sentence keys and splitting, label edits, the RAGBench row schema and loading."""

__all__: list[str] = []
