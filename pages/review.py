"""Review page: one example at a time (the code is in ragviz/ui/review_page.py)."""

from ragviz.ui.review_page import run_page

run_page()
