"""ModelDock's ModelService operator in Python: the twin of go_reference/.

``__main__.py`` mirrors ``main.go`` (wiring), ``controller.py`` mirrors ``controller.go``
(reconcile), ``runtime/`` stands in for controller-runtime and client-go.
"""
