"""Simplified Chinese for the checks and mutants of stop 40, Python: quantities, messages,
rollout judgement (issue 25): ``noop-stable[respelled]``, ``refused-write-reported[three-causes]``
and the hand-made mutants of those cases and of the assertions added to
``status-follows-rollout[played-rollout]``, ``status-rebuilt[deployment-status]`` and
``foreign-fields-kept``. Same shape as ``harness.i18n.zh_cn_checks``: key -> (hash of the
English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:noop-stable[respelled]:why": (
        "8813dc5828",
        "值相等的新写法不是一次改变：改了写法的 ModelService 不写任何子对象。",
    ),
    "check:noop-stable[respelled]:teaches": (
        "c90408c62f",
        "quantity 按值比较（CONTRACT.md，“Desired Deployment”，Quantities）：在值改变之前，Deployment 保留它已有的文本。这里 ModelService 要求一个以 JSON 整数给出的 CPU request（CRD 接受整数和字符串，ModelService 保留这个整数）和一个 5e8 的内存 request，没有 limits；API server 接受了两者，所以它必须收敛（只读字符串的 operator 永远不会收敛），Deployment 里存的是 500e6。然后用户把内存 request 改写成整数 500000000，同一个值，全新的 Deployment 会得到 500M：operator 在 status 里记下新的 generation，且不能写任何子对象（按文本比较的 operator，或在缺失的 limits 处就停止比较的 operator，会把 Deployment 更新成 500M）。然后是 noop-stable 的窗口：一次重启和两个无关的 annotation 都不能带来任何写入。",
    ),
    "check:refused-write-reported[three-causes]:why": (
        "8d22f558bd",
        'refused-write-reported[three-causes]：有三个原因的拒绝，像有两个原因的拒绝一样，按排序后的顺序报告。operator 的 API proxy 以 API server 的措辞用 422 Invalid 回答它对 Deployment 的 create，`Deployment.apps "web" is invalid: [...]`，末尾是它的三个 details.causes，按逆序排列（对 Go map 的遍历可能抽到的顺序）。Ready 和 Progressing 必须是 False `FailedCreate`，message 中的原因列表按排序后的顺序（CONTRACT.md，“A refused child write”：无论应答抽到什么顺序，两个或更多原因都得到同样的字节）。然后 proxy 不再拒绝，ModelService 收敛。',
    ),
    "mutant:respelled-written:title": (
        "039b78e7ec",
        "把子对象的 quantity 当作文本比较：ModelService 中值相等的新写法被写入",
    ),
    "mutant:respelled-written-go:title": (
        "89f7574d31",
        "把子对象的 quantity 当作文本比较：ModelService 中值相等的新写法被写入（Go）",
    ),
    "mutant:resources-shape-kept:title": (
        "da4cd7adcb",
        "保持子对象已有的资源字段：之后加到 ModelService 的 requests 永远到不了它",
    ),
    "mutant:resources-shape-kept-go:title": (
        "76dcd0648e",
        "保持子对象已有的资源字段：之后加到 ModelService 的 requests 永远到不了它（Go）",
    ),
    "mutant:first-condition-progressing:title": (
        "c4cc213b93",
        "把 Deployment 的第一个 condition 当作 Progressing 来读：排在第二的停滞永远看不到",
    ),
    "mutant:first-condition-progressing-go:title": (
        "8752aa1243",
        "把 Deployment 的第一个 condition 当作 Progressing 来读：排在第二的停滞永远看不到（Go）",
    ),
    "mutant:scale-down-progressing:title": (
        "a3ac2a5abd",
        "已更新副本多于 spec.replicas 就算滚动发布仍在进行：缩容永远不会 Ready",
    ),
    "mutant:scale-down-progressing-go:title": (
        "3385619ade",
        "已更新副本多于 spec.replicas 就算滚动发布仍在进行：缩容永远不会 Ready（Go）",
    ),
    "mutant:sorts-two-causes-only:title": (
        "d5eeabf9c4",
        "只有恰好两个原因时才给拒绝的原因排序：三个或更多保持应答抽到的顺序",
    ),
    "mutant:sorts-two-causes-only-go:title": (
        "6d83e313a1",
        "只有恰好两个原因时才给拒绝的原因排序：三个或更多保持应答抽到的顺序（Go）",
    ),
    "check:refused-write-reported[two-causes-reversed]:why": (
        "3373fce5ca",
        "refused-write-reported[two-causes-reversed]：和 [three-causes] 一样，只用它的前两个原因，每次尝试都按逆序排列。[two-causes] 遇到的是 API server 自己的应答，两个原因的顺序每次尝试重新抽取，一半的时候已经排好序，所以只给三个或更多原因排序的 operator 靠运气就能通过它；这里的顺序总是未排序的那种，报告必须把两个原因按排序后的顺序列出（CONTRACT.md，“A refused child write”：两个或更多原因）。",
    ),
    "mutant:sorts-three-causes-only:title": (
        "8e215358c2",
        "只有三个或更多原因时才给拒绝的原因排序：两个原因保持应答抽到的顺序",
    ),
    "mutant:sorts-three-causes-only-go:title": (
        "537b79a289",
        "只有三个或更多原因时才给拒绝的原因排序：两个原因保持应答抽到的顺序（Go）",
    ),
}
