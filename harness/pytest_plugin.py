"""pytest plugin of the ModelDock harness (filled in by harness work)."""
