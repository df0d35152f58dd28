"""clobbers-foreign: treats the pod template and the Service spec as its own, removing what other writers added.

Anti-pattern: when it applies the desired fields to a child, the operator also makes sure
nothing else is there: containers other than its own are dropped, its container's
environment is the one it would write (none), the pod template's annotations are the ones it
would write (none), and the Service's session affinity is the default. On a child only the
operator has written this changes nothing, so every reconcile of an untouched cluster is
still a no-op; the first sidecar a mesh injects, the first `kubectl rollout restart` or the
first admin who pins session affinity is undone at the next reconcile.

Why people write it: "the desired state is the whole truth" sounds like level-triggered
reconciling done right, and making the live child equal the desired one is the shortest way
to guarantee that drift is repaired.

What the correct operator does: it sets only the fields the ModelService decides (replicas,
selector, its own labels, and in the container named server its image, args, ports and
resources) and keeps every other field as stored, other writers' included (CONTRACT.md,
"Desired Deployment", Mutate).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller

_mutate_deployment = controller.mutate_deployment
_mutate_service = controller.mutate_service


def mutate_whole_template(live: controller.Obj, desired: controller.Obj) -> None:
    _mutate_deployment(live, desired)
    template = live["spec"]["template"]
    template["metadata"].pop("annotations", None)
    ours = {c["name"] for c in desired["spec"]["template"]["spec"]["containers"]}
    containers = [c for c in template["spec"]["containers"] if c.get("name") in ours]
    for container in containers:
        container.pop("env", None)
    template["spec"]["containers"] = containers


def mutate_whole_service(live: controller.Obj, desired: controller.Obj) -> None:
    _mutate_service(live, desired)
    if "sessionAffinity" in live["spec"]:  # the API server's default, back
        live["spec"]["sessionAffinity"] = "None"
    live["spec"].pop("sessionAffinityConfig", None)


PATCHES = (
    mutants.Patch(controller, "mutate_deployment", mutate_whole_template),
    mutants.Patch(controller, "mutate_service", mutate_whole_service),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
