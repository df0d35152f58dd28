"""Simplified Chinese for the checks and mutants of the children beside ours (issue 25, stop
39): ``replaced-child-kept[foreign-deployment]``, ``child-conflict[other-group]``,
``vanished-owner[refused-delete]`` and their hand-made mutants. Same shape as
``harness.i18n.zh_cn_checks``: key -> (hash of the English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:replaced-child-kept[foreign-deployment]:why": (
        "e8f6d25565",
        "replaced-child-kept[foreign-deployment]：当 Deployment 已不再是我们的、而 Service "
        "仍是我们的时，删除 ModelService 会删除我们的 Service（UID precondition），保留外来的 "
        "Deployment，然后才移除 finalizer。",
    ),
    "check:replaced-child-kept[foreign-deployment]:teaches": (
        "292b043899",
        "清理逐个读取子对象，先 Deployment 后 Service，删除那些 controller ownerReference 带着该 "
        "ModelService 的 UID 的子对象（CONTRACT.md，“Deletion”）。不是我们的子对象被跳过，"
        "而不是停下的理由：这里在 operator 停机期间，已收敛的 ModelService 的 Deployment "
        "被删除，一个由 ConfigMap 控制的同名 Deployment 取而代之；然后删除 ModelService 并启动 "
        "operator。ModelService 必须消失，外来的 Deployment 以原 UID 保留，而 operator "
        "的删除（从审计日志读取）必须恰好一次：Service 的那次，以它的 UID 为 precondition。"
        "在第一个不是我们的子对象处就停下的 operator，会在自己的 Service 之上移除 finalizer，"
        "于是那个 Service 比它的所有者活得更久。",
    ),
    "check:child-conflict[other-group]:why": (
        "8f6767c86b",
        "child-conflict[other-group]：一个由另一个 API group 的 ModelService 控制的同名 Service "
        "既不被接管也不被删除：status 给出 ChildConflict 并指明这个 Service，而这个 Service "
        "保持它的 UID、resourceVersion 和 controller。",
    ),
    "check:child-conflict[other-group]:teaches": (
        "76ba4bfeb9",
        "ModelService 属于 ``modeldock.io``：删除已消失的 ModelService 的子对象的规则（同 kind、"
        "同名、另一个 UID；CONTRACT.md，“When the ModelService vanishes”）只对这个 group "
        "成立，而接管只针对没有所有者的子对象。这里第二个 CRD 在 "
        "``<namespace>.other.example/v1`` 中提供 ``ModelService``；它的对象 ``web`` "
        "存在，并控制一个 Service ``web``，后者带着我们的 selector 标签、选中我们的 pod"
        "（只要设了 controller，标签就不是所有权：只有带这个标签的无主子对象才可被接管）；"
        "然后创建我们的 ModelService ``web``。Deployment 没有被占用，所以 operator 创建它，"
        '并在第 5 步遇到这个 Service：Ready 必须给出 ChildConflict 并写出 Service "web"，'
        "而在 operator 平静之后，这个 Service 必须仍是同一个对象，没被写过，仍由另一个 group "
        "的 ModelService 控制。",
    ),
    "check:vanished-owner[refused-delete]:why": (
        "271b1ea072",
        "vanished-owner[refused-delete]：对已消失所有者的子对象的删除被拒绝时，后继者的这一轮"
        "就此结束：不会在仍然挡路的子对象之上发送 create，一条 Warning FailedDelete 指明它，"
        "拒绝解除之后后继者收敛。",
    ),
    "check:vanished-owner[refused-delete]:teaches": (
        "7b14ab85e8",
        "一个已不存在的 ModelService ``web`` 的子对象按 ``[dead-owner-child]`` 的方式布置；"
        "然后一个 admission policy 拒绝 operator 对 Deployment 的删除，并创建一个后继者 "
        "``web``。后继者欠已消失所有者的 Deployment 的那次删除被拒绝（403）：子对象仍在，"
        "所以这一轮必须以这个错误结束，并按退避重试（CONTRACT.md，“When the ModelService "
        "vanishes”）。在六次删除被拒绝之后，operator 的请求里必须没有对 Deployment ``web`` "
        "的 create（它只会得到 409 AlreadyExists：一个发往 operator 明知挡路的子对象之上的写入），"
        "已消失所有者的 Deployment 必须仍然存着，并且一条关于后继者的 Warning FailedDelete "
        'Event 必须写出 Deployment "web" 和策略的消息。然后策略被移除，没有任何 watch '
        "能看出这一点：后继者必须在被拒绝删除之后所欠的退避加上收敛上限之内，带着自己的子对象收敛。",
    ),
    "mutant:cleanup-past-refusal:title": (
        "464b072191",
        "一次被拒绝的子对象删除没有结束这一轮：在 Deployment 的删除被拒绝期间，Service 被删除",
    ),
    "mutant:cleanup-past-refusal-go:title": (
        "fe2ac23856",
        "一次被拒绝的子对象删除没有结束这一轮：在 Deployment 的删除被拒绝期间，Service 被删除（Go）",
    ),
    "mutant:creates-over-dead-child:title": (
        "f9219d72c1",
        "对已消失 ModelService 的子对象的删除被拒绝时没有结束这一轮：照样发送 create，得到 409",
    ),
    "mutant:creates-over-dead-child-go:title": (
        "35535d1a42",
        "对已消失 ModelService 的子对象的删除被拒绝时没有结束这一轮：照样发送 create，"
        "得到 409（Go）",
    ),
    "mutant:stops-at-foreign-child:title": (
        "3b79486688",
        "清理在第一个不是我们的子对象处停下，在我们的 Service 之上移除 finalizer",
    ),
    "mutant:stops-at-foreign-child-go:title": (
        "8f3471a0fd",
        "清理在第一个不是我们的子对象处停下，在我们的 Service 之上移除 finalizer（Go）",
    ),
    "mutant:forgets-conflict:title": (
        "8c66dfbaea",
        "一次 ChildConflict 之后这一轮不要求 requeue：外来子对象的移除无人察觉",
    ),
    "mutant:forgets-conflict-go:title": (
        "d004be5a60",
        "一次 ChildConflict 之后这一轮不要求 requeue：外来子对象的移除无人察觉（Go）",
    ),
    "mutant:vanished-any-group:title": (
        "eedd190f8e",
        "一个由任意 API group 的 ModelService（另一个 UID）控制的同名子对象，"
        "被当作已消失者的子对象而删除",
    ),
    "mutant:vanished-any-group-go:title": (
        "b103b3c6bf",
        "一个由任意 API group 的 ModelService（另一个 UID）控制的同名子对象，"
        "被当作已消失者的子对象而删除（Go）",
    ),
}
