"""The lesson: the teaching article ModelDock began as, told in its order, each part backed by
the evidence of a small run (``make lesson``, ``python -m harness lesson``).

``story`` holds the text (the parts, their figures, what to look at), ``evidence`` reads a
lesson run's JUnit files (the report's reader), ``render`` writes ``lesson.html`` and
``lesson.md`` from them, and ``run`` runs what the lesson needs on one control plane. The
Chinese is in ``harness.i18n``.
"""
