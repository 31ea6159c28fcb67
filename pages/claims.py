"""Claims page: RagChecker's checked claims, overridable (the code is in ragviz/ui/claims.py)."""

from ragviz.ui.claims import run_page
from ragviz.ui.state import require_app_shell

require_app_shell()

run_page()
