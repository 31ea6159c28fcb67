"""ragviz: see, correct and re-score LLM-judge labels of RAG answers at sentence level.

The core library (this package, minus ``ragviz.ui``) never imports Streamlit.
"""

__version__ = "0.1.0"
