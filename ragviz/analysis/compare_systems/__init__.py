"""Two RAG systems compared on the same questions, the judge corrected by people (issue 39)."""

__all__: list[str] = []
