"""Review page: one example at a time (the code is in ragviz/ui/review_page.py)."""

from ragviz.ui.review_page import run_page
from ragviz.ui.state import require_app_shell

require_app_shell()

run_page()
