"""``python -m ragviz`` runs the command line."""

import sys

from ragviz.cli.main import main

__all__: list[str] = []


sys.exit(main())
