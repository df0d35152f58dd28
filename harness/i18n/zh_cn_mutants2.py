"""Simplified Chinese for the hand-made mutants' titles that zh_cn_mutants.py (at its line
limit) does not hold: the pairs of stop 39's Go gaps and of stop 40's HTTP client cases. Same
shape as ``harness.i18n.zh_cn_mutants``: key -> (hash of the English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "mutant:fraction-as-exponent:title": (
        "400b9fae41",
        "把 '.' 之后的数字当成指数：0.125 因超过 99 被拒绝",
    ),
    "mutant:fraction-as-exponent-go:title": (
        "be8d57caa4",
        "把 '.' 之后的数字当成指数：0.125 因超过 99 被拒绝（Go）",
    ),
    "mutant:kept-transition-time:title": (
        "df1490dab0",
        "condition 的 status 变了，却保留旧的 lastTransitionTime",
    ),
    "mutant:kept-transition-time-go:title": (
        "c13b838d5e",
        "condition 的 status 变了，却保留旧的 lastTransitionTime（Go）",
    ),
    "mutant:time-by-position:title": (
        "940c566746",
        "按位置而不是按类型找已存的 condition：别人的 condition 的时间成了自己的",
    ),
    "mutant:time-by-position-go:title": (
        "8bf87cf555",
        "按位置而不是按类型找已存的 condition：别人的 condition 的时间成了自己的（Go）",
    ),
    "mutant:conflict-as-refusal:title": (
        "79158179c0",
        "把子对象写入时的 409 当成拒绝：status 里出现 FailedUpdate",
    ),
    "mutant:conflict-as-refusal-go:title": (
        "cfedbe939a",
        "把子对象写入时的 409 当成拒绝：status 里出现 FailedUpdate（Go）",
    ),
    "mutant:assumes-causes:title": (
        "25ae7d38e0",
        "用回答里的第一个 cause 描述失败的写入，仿佛每个回答都有 cause：一个光秃秃的 503 就会 panic",
    ),
    "mutant:assumes-causes-go:title": (
        "00b39666a6",
        "用回答里的第一个 cause 描述失败的写入，仿佛每个回答都有 cause：一个光秃秃的 503 就会 panic（Go）",
    ),
    "mutant:appends-causes:title": (
        "ca174519ca",
        "在不以排序后的 causes 结尾的拒绝消息后面再追加它们：webhook 的原话被改了",
    ),
    "mutant:appends-causes-go:title": (
        "eba083cf0c",
        "在不以排序后的 causes 结尾的拒绝消息后面再追加它们：webhook 的原话被改了（Go）",
    ),
    "mutant:forgiving-config:title": (
        "3f6b889f4e",
        "无法使用的配置值被换成默认值，只打一条警告，operator 照常运行",
    ),
    "mutant:forgiving-config-go:title": (
        "9ade02c7e1",
        "无法使用的配置值被换成默认值，只打一条警告，operator 照常运行（Go）",
    ),
    "mutant:status-ignores-replicas:title": (
        "6d8947374e",
        "不管 spec.replicas 写的是多少，都按一个副本判断滚动更新",
    ),
    "mutant:status-ignores-replicas-go:title": (
        "d5fef9388a",
        "不管 spec.replicas 写的是多少，都按一个副本判断滚动更新（Go）",
    ),
    "mutant:sticky-reason:title": (
        "c536a770ce",
        "只有在 status 改变时才改写 condition 的 reason",
    ),
    "mutant:sticky-reason-go:title": (
        "1bb1f3f2ec",
        "只有在 status 改变时才改写 condition 的 reason（Go）",
    ),
    "mutant:silent-update:title": (
        "378bda5711",
        "更新子对象时不记录 Event",
    ),
    "mutant:silent-update-go:title": (
        "e7cdca4063",
        "更新子对象时不记录 Event（Go）",
    ),
    "mutant:keeps-live-quantities:title": (
        "03cac0dc71",
        "子对象的资源数量一旦设定就不再改：新值永远到不了它",
    ),
    "mutant:keeps-live-quantities-go:title": (
        "64642e4e97",
        "子对象的资源数量一旦设定就不再改：新值永远到不了它（Go）",
    ),
    "mutant:conflict-as-gone:title": (
        "d2bf23845f",
        "把 409、410 或 422 当成 404 NotFound",
    ),
    "mutant:conflict-as-gone-go:title": (
        "144c20ca91",
        "把 409、410 或 422 当成 404 NotFound（Go）",
    ),
    "mutant:list-not-notified:title": (
        "c59a120a11",
        "informer 的 list 带来的对象到不了任何 handler",
    ),
    "mutant:list-not-notified-go:title": (
        "cf75877612",
        "informers 的第一次 list 带来的对象到不了任何 handler（Go）",
    ),
    "mutant:retry-after-surfaces:title": (
        "7f87b1c3ef",
        "等完应答要求的 Retry-After，却把应答交给 reconcile，而不是再次发送请求",
    ),
    "mutant:retry-after-surfaces-go:title": (
        "52221ef0df",
        "等完应答要求的 Retry-After，却把应答交给 reconcile，而不是再次发送请求（Go）",
    ),
    "mutant:retry-after-rfc-statuses:title": (
        "292843ec40",
        "只在 429 和 503 上遵守 Retry-After，于是一个要求等待的 500 回到了 workqueue",
    ),
    "mutant:retry-after-rfc-statuses-go:title": (
        "043d209dfc",
        "只在 429 和 503 上遵守 Retry-After，于是一个要求等待的 500 回到了 workqueue（Go）",
    ),
    "mutant:waits-past-deadline:title": (
        "9cbfe29f92",
        "把 Retry-After 整个等完，哪怕超过了请求的超时",
    ),
    "mutant:waits-past-deadline-go:title": (
        "431ca81042",
        "把 Retry-After 整个等完，哪怕超过了请求的超时（Go）",
    ),
    "mutant:retries-past-ten:title": (
        "3d425844b7",
        "每个带 Retry-After 的应答之后都再次发送请求，重试次数没有上限",
    ),
    "mutant:retries-past-ten-go:title": (
        "fe6e91e160",
        "每个带 Retry-After 的应答之后都再次发送请求，重试次数没有上限（Go）",
    ),
    "mutant:relists-on-refused-watch:title": (
        "c8f94a0609",
        "把每次被拒绝的 watch 启动都当成 410 Gone，重新 list",
    ),
    "mutant:relists-on-refused-watch-go:title": (
        "4b572d3fd0",
        "把每次被拒绝的 watch 启动都当成 410 Gone，重新 list（Go）",
    ),
    "mutant:watch-ignores-retry-after:title": (
        "605c17ea2d",
        "除了 watch 之外的每个请求都遵守 Retry-After，watch 被拒绝后回到 informer 的退避",
    ),
    "mutant:watch-ignores-retry-after-go:title": (
        "c132b4eaca",
        "除了 watch 之外的每个请求都遵守 Retry-After，watch 被拒绝后回到 informer 的退避（Go）",
    ),
    "mutant:slow-crd-backoff:title": (
        "1b87691966",
        "等待 CRD 时的退避晚了一次翻倍：1.6 秒、3.2 秒、6.4 秒……",
    ),
    "mutant:slow-crd-backoff-go:title": (
        "4154803119",
        "等待 CRD 时的退避晚了一次翻倍：1.6 秒、3.2 秒、6.4 秒……（Go）",
    ),
    "mutant:first-address-only:title": (
        "f14cad7af2",
        "检查监听地址时，在第一个不去试或监听不了的地址处就停止",
    ),
    "mutant:first-address-only-go:title": (
        "c96cefb11d",
        "检查监听地址时，在第一个不去试或监听不了的地址处就停止（Go）",
    ),
    # Stop 41 (pyclient41): the hand-made pairs of config-refused and create-converges.
    "mutant:whole-second-retry:title": (
        "f0a97522c4",
        "leader elector 拒绝不足一秒的重试间隔（和 kubernetes 库的一样）",
    ),
    "mutant:whole-second-retry-go:title": (
        "5804389152",
        "leader election 拒绝不足一秒的重试间隔（Go）",
    ),
    "mutant:reconcile-time-wall-clock:title": (
        "48829d446d",
        "reconcile 耗时直方图记下的是墙上时钟的结束减去单调时钟的开始：每次 reconcile 几十年",
    ),
    "mutant:reconcile-time-wall-clock-go:title": (
        "0d5b56854c",
        "reconcile 耗时直方图记下的是墙上时钟的结束减去单调时钟的开始：每次 reconcile 几十年（Go）",
    ),
    "mutant:timeout-unreported:title": (
        "a45cc995cf",
        "在截止时间结束的写入（超时）不记录任何 Warning：work queue 悄悄地重试它",
    ),
    "mutant:timeout-unreported-go:title": (
        "319f8626b0",
        "在截止时间结束的写入（超时）不记录任何 Warning：work queue 悄悄地重试它（Go）",
    ),
    "mutant:trusts-stale-owner:title": (
        "a34ab305e8",
        "凭缓存的说法删除已消失 ModelService 的子对象：之后被孤立的子对象被删除，而不是被接管",
    ),
    "mutant:trusts-stale-owner-go:title": (
        "87ac23b6dc",
        "凭缓存的说法删除已消失 ModelService 的子对象：之后被孤立的子对象被删除，而不是被接管（Go）",
    ),
    "mutant:trusts-cached-policy:title": (
        "9ea1e40694",
        "清理按缓存中 ModelService 的副本决定删除策略：之后改成 orphan 的删除没有被看到，子对象被删除",
    ),
    "mutant:trusts-cached-policy-go:title": (
        "f990288cf6",
        "清理按缓存中 ModelService 的副本决定删除策略：之后改成 orphan 的删除没有被看到，子对象被删除（Go）",
    ),
    "mutant:trusts-cached-holder:title": (
        "4a0c7c0899",
        "凭缓存中手头的 ModelService 仍占着这个名字，就删除已消失 ModelService 的子对象：在看到后继者之前"
        "先看到的后继者的子对象被删除",
    ),
    "mutant:trusts-cached-holder-go:title": (
        "9d8cadf1f5",
        "凭缓存中手头的 ModelService 仍占着这个名字，就删除已消失 ModelService 的子对象：在看到后继者之前"
        "先看到的后继者的子对象被删除（Go）",
    ),
    "mutant:changed-child-taken-for-gone:title": (
        "4d8b6092f1",
        "已消失 ModelService 的子对象的删除得到 409（读取之后子对象已改变），却被当成“已删除”，于是在该子对象之上发出创建请求",
    ),
    "mutant:changed-child-taken-for-gone-go:title": (
        "ed37151daa",
        "已消失 ModelService 的子对象的删除得到 409（读取之后子对象已改变），却被当成“已删除”，于是在该子对象之上发出创建请求（Go）",
    ),
    "mutant:cleans-up-gone-owner:title": (
        "5e842b3ec4",
        "清理中对 ModelService 的实时读取发现正在删除的它已经消失，却接着使用缓存的副本：删除现在归垃圾回收器的子对象，并写一个不存在的 ModelService",
    ),
    "mutant:cleans-up-gone-owner-go:title": (
        "f91d04d3fe",
        "清理中对 ModelService 的实时读取发现正在删除的它已经消失，却接着使用缓存的副本：删除现在归垃圾回收器的子对象，并写一个不存在的 ModelService（Go）",
    ),
    "mutant:cleans-up-successor:title": (
        "ff458f8fa3",
        "清理中对正在删除的 ModelService 的实时读取只比较名字：一个持有我们 finalizer 的同名后继者被当成了它，我们的 finalizer 被从后继者身上移除",
    ),
    "mutant:cleans-up-successor-go:title": (
        "35eac4f572",
        "清理中对正在删除的 ModelService 的实时读取只比较名字：一个持有我们 finalizer 的同名后继者被当成了它，我们的 finalizer 被从后继者身上移除（Go）",
    ),
}
