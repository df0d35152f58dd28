"""The mutant operators, one module each, named after the mutant id with underscores
(``always-update`` -> ``always_update.py``); declared in ``harness/mutants/mutants.toml`` and
run as ``python -m harness.mutants.operators.<module>``."""
