"""Streamlit rendering helpers (the only package besides app.py and pages/ that imports Streamlit)."""

__all__: list[str] = []
