"""``python -m harness.explore``: the same as ``python -m harness explore``."""

import sys

from harness.explore.cli import main

sys.exit(main())
