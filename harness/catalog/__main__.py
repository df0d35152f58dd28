"""``python -m harness.catalog``: run the model catalog (harness/catalog/server.py)."""

from harness.catalog.server import main

raise SystemExit(main())
