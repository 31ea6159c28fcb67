"""``python -m ragviz`` runs the command line."""

import sys

from ragviz.cli.main import main

sys.exit(main())
