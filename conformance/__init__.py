"""The shared conformance suite: knows nothing of Go or Python, only the operator contract."""
