"""The small stand-in for controller-runtime that the Python operator needs.

Go gets these from controller-runtime and client-go; the official Python client has only part
of them, so each module here names its Go twin and says what the library lacked:

* ``workqueue``: client-go's work queue (the client has none).
* ``client``: a dict-in, dict-out REST client for any resource (controller-runtime's
  unstructured client), with timeouts on every request.
* ``informer``: list+watch into a cache that hands out deep copies (client-go's reflector and
  controller-runtime's cache), because ``kubernetes.informer.SharedInformer`` falls short.
* ``leaderelection``: client-go's LeaderElector on a Lease, released on stop (after the
  workers, never after a lost renewal), because
  ``kubernetes.leaderelection`` cannot release or bound its calls.
* ``controller``: event routing (For, Owns by controller ownerReference) and the worker loop
  (controller-runtime's internal controller); ``reconcile``: ``Request`` (namespace, name) and
  ``Result``; ``controllerutil``: the finalizer helpers (Contains/Add/RemoveFinalizer).
* ``manager``: starts the caches, the HTTP endpoints (``httpserver``), leader election and
  the controllers, and stops them in the order that keeps a single writer.
* ``quantity``: apimachinery's resource.Quantity rules (parse, round up, the text the API
  server stores), because ``kubernetes.utils.parse_quantity`` gives a value, not a spelling.
* ``metrics``, ``log``, ``clock``: Prometheus metrics with controller-runtime's names, JSON
  logs, an injectable clock (``clock`` says what takes one and what does not).

Only what this operator uses is here: one namespace, one controller, no indexers, no
predicates, no periodic resync (controller-runtime's default SyncPeriod is 10 hours; a relist
happens after every 410 and every failed list).
"""
