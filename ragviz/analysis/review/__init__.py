"""One example under review, free of Streamlit: spans and edits, the text as editor, the queue, its metrics."""

__all__: list[str] = []
