"""``python -m ragviz`` runs the command line."""

import sys

from ragviz.cli import main

sys.exit(main())
