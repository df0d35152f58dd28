"""``python -m harness.bench``: see ``harness.bench.cli``."""

import sys

from harness.bench.cli import main

sys.exit(main())
