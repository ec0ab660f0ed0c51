"""``python -m haiku_tui.cli``."""

import sys

from . import main

sys.exit(main())
