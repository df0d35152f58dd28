"""Simplified Chinese for the work queue's and the child handler's cases of issue 25, stop 41:
``errors-retried[requeue-pending]``, ``child-conflict[owner-moved]`` and their mutants' titles
(and those of unmetered-queue). Same shape as ``harness.i18n.zh_cn_checks``: key -> (hash of
the English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:errors-retried[requeue-pending]:why": (
        "c2b02a04ca",
        "errors-retried[requeue-pending]：在 key 的 RequeueAfter 还在等待时失败的 reconcile，"
        "按退避重试，而不是等到那个等待中的时间；之后 RequeueAfter 照常继续。ModelService "
        "``web`` 遇到一个外来的 Deployment ``web``（ChildConflict：operator 每 5 s 重新看一次）；"
        "在它第一次写入 ChildConflict status 之后，它的 status 立刻被覆盖，operator 的 API proxy "
        "对恢复它的那次 status 更新回答 500。重试必须在这个回答之后 ``FIRST_RETRY_BOUND_S``"
        "（2.5 s）之内到达 proxy，而那时等待中的 requeue 还在这个时间以外（一个前提）；然后外来的 Deployment 被删除，5 s 一次的"
        "重新判断必须仍然到来，并创建 operator 自己的 Deployment。",
    ),
    "check:errors-retried[requeue-pending]:teaches": (
        "7de15f0162",
        "client-go 的延迟队列为一个 key 保留两个就绪时间中较早的那个（对一个已经在等待的 key "
        "调用 ``AddAfter``），所以一次失败的 5 ms 退避取代了等待中的 5 s requeue，旧的条目在它的"
        "时间到来时被跳过。保留较晚时间的队列会让冲突期间的每次失败最多等上 5 s；停在被跳过的"
        "条目上的队列再也不会提升任何延迟的 key，冲突结束之后也再不会被判断：只有定时的 "
        "requeue 会注意到外来子对象的删除，因为 Owns 不会把它的任何事件映射到这里。",
    ),
    "check:child-conflict[owner-moved]:why": (
        "0f6af431bf",
        "child-conflict[owner-moved]：一个 Deployment 的 controller ownerReference 被别人从它的 "
        "ModelService 移到另一个 ModelService 上，失去它的那个必须报告这件事。ModelServices "
        "``web`` 和 ``other`` 收敛；然后 harness 改写 Deployment ``web`` 的 ownerReferences，"
        "让 ``other`` 成为它的 controller，ModelService ``web`` 必须在这次编辑之后 10 s 之内报告 "
        "ChildConflict（CHILD_REACT_BOUND）。",
    ),
    "check:child-conflict[owner-moved]:teaches": (
        "ce0c9daa99",
        "没有别的东西会让 ``web`` 回来：它自己的 spec 没有变，一个已经收敛的 ModelService 上也"
        "没有等待中的 RequeueAfter。子对象的 update 事件是唯一的消息，``Owns`` 必须把它映射到"
        "旧对象的 owner，也映射到新对象的 owner（controller-runtime 的 EnqueueRequestForOwner "
        "两个都做）。只映射新对象的 operator 通知的是 ``other``，而它和另一个名字的子对象毫无"
        "关系；``web`` 则一直说自己一切正常，而它什么也没有控制。",
    ),
    "mutant:keeps-later-requeue:title": (
        "793d09394f",
        "保留一个 key 两个就绪时间中较晚的那个：冲突期间的一次失败要等那个等待中的 5 s requeue",
    ),
    "mutant:keeps-later-requeue-go:title": (
        "824f0ac4d3",
        "保留一个 key 两个就绪时间中较晚的那个：冲突期间的一次失败要等那个等待中的 5 s requeue"
        "（Go）",
    ),
    "mutant:stuck-after-moved-requeue:title": (
        "509fbf30c7",
        "停在一个被提前的 key 的旧队列条目上：冲突期间的一次失败之后，再也没有定时 requeue 触发",
    ),
    "mutant:stuck-after-moved-requeue-go:title": (
        "b75ca41347",
        "停在一个被提前的 key 的旧队列条目上：冲突期间的一次失败之后，再也没有定时 requeue 触发"
        "（Go）",
    ),
    "mutant:unmetered-queue:title": (
        "cf6d5c7889",
        "构建 work queue 时不带 metrics：workqueue_depth 和 workqueue_adds_total 一直是 0",
    ),
    "mutant:unmetered-queue-go:title": (
        "77020e5f0d",
        "构建 work queue 时不带 metrics：workqueue_depth 和 workqueue_adds_total 一直是 0（Go）",
    ),
    "mutant:tells-new-owner-only:title": (
        "44c7787cce",
        "子对象的 update 只把新对象的 owner 加入队列：失去子对象的 ModelService 永远不会被告知",
    ),
    "mutant:tells-new-owner-only-go:title": (
        "fe5efdf28a",
        "子对象的 update 只把新对象的 owner 加入队列：失去子对象的 ModelService 永远不会被告知"
        "（Go）",
    ),
}
