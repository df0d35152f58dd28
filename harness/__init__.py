"""ModelDock harness: control plane, operator processes, audit accounting, reports."""
