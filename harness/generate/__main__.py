"""``python -m harness.generate``: the same as ``python -m harness generate``."""

import sys

from harness.generate.cli import main

sys.exit(main())
