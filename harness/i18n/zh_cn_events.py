"""Simplified Chinese for the Event pipeline's check and mutants (issue 25, stop 40):
``events-recorded[burst]`` and the hand-made mutants of the Event recorder (event-uuid-name,
no-spam-filter, forgets-gone-event, patches-new-event, each with its Go twin), and stop 43's
``events-recorded[refused-patch]`` with creates-on-refused-patch and its Go twin. Same shape as
``harness.i18n.zh_cn_checks``: key -> (hash of the English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:events-recorded[burst]:why": (
        "797d894f7a",
        "一个已被删除的 Event 再次发生时，会以到目前为止的计数和它的首次时间戳重新创建；"
        "一个 ModelService 的 Normal Event 在 300 秒内到 25 次发生为止。",
    ),
    "check:events-recorded[burst]:teaches": (
        "87d08d9667",
        "创建一个 ModelService（CreatedDeployment、CreatedService）并扩容（UpdatedDeployment，"
        "count 1）。admin 删除这个 Event 后再扩容一次：operator 的 recorder patch 这个 Event，"
        "得到 404，于是以同一个名字、count 2 和被删 Event 的 firstTimestamp 重新创建它。之后这个 "
        "ModelService 再扩容 24 次，每次变更都在下一次之前被观察到：关于一个对象的 28 次 Normal "
        "发生，比 client-go 的 spam filter 一次突发放行的（每个 source、involvedObject 和 type "
        "25 个，之后每 300 秒一个）多三次。Event 稳定之后，这个 ModelService 的 Normal Event 的 "
        "count 之和必须正好是 25：少了，说明 filter 丢掉了本该放行的；多了，说明它没有过滤。"
        "在 operator 的请求里（request accounting），它的 Event 写入是四次 create（每个新 Event 一次）和若干 patch，"
        "其中只有一次得到 404（被删 Event 的那次重复）：新 Event 不会先被 patch。"
        "最后删除这个 ModelService 并以同一个名字重新创建：新的那个（另一个 uid）必须得到自己的 "
        "CreatedDeployment 和 CreatedService Event，既不计入旧对象的 Event，也不随旧对象用尽的"
        "突发额度被丢弃。",
    ),
    "mutant:no-spam-filter:title": (
        "b3cdb1fe88",
        "从不丢弃 Event：关于一个对象的每次发生都被写入，超出 25 个的突发也一样",
    ),
    "mutant:no-spam-filter-go:title": (
        "4f6d9ac759",
        "从不丢弃 Event：关于一个对象的每次发生都被写入，超出 25 个的突发也一样（Go）",
    ),
    "mutant:event-uuid-name:title": (
        "9a61371b98",
        "用随机 UUID 给每个 Event 命名，而不是 <对象名>.<十六进制纳秒>",
    ),
    "mutant:event-uuid-name-go:title": (
        "21b4437596",
        "用随机 UUID 给每个 Event 命名，而不是 <对象名>.<十六进制纳秒>（Go）",
    ),
    "mutant:patches-new-event:title": (
        "fec87035a2",
        "每个新 Event 都先 patch，得到 404 后才创建：每个 Event 两次请求",
    ),
    "mutant:patches-new-event-go:title": (
        "4c1ce19d5c",
        "每个新 Event 都先 patch，得到 404 后才创建：每个 Event 两次请求（Go）",
    ),
    "mutant:forgets-gone-event:title": (
        "4fdd1d3418",
        "被删除的 Event 再也不会重新创建：它的重复的 patch 得到 404，这次发生就此结束",
    ),
    "mutant:forgets-gone-event-go:title": (
        "00be1510ca",
        "被删除的 Event 再也不会重新创建：它的重复的 patch 得到 404，这次发生就此结束（Go）",
    ),
    "mutant:spam-key-by-name:title": (
        "924ee8e3c8",
        "按对象名保存 Event 的 spam filter：以用尽额度的名字重新创建的 ModelService 得不到 Event",
    ),
    "mutant:spam-key-by-name-go:title": (
        "238ec29c11",
        "按对象名保存 Event 的 spam filter：以用尽额度的名字重新创建的 ModelService 得不到 Event（Go）",
    ),
    "check:events-recorded[refused-patch]:why": (
        "43004b51b3",
        "API server 拒绝了重复 Event 的 PATCH 时，这次写入被丢弃：之后不会跟着一次 create，"
        "而这次发生仍被计数。",
    ),
    "check:events-recorded[refused-patch]:teaches": (
        "7b1574db6b",
        "client-go 的 recorder（``recordEvent``，tools/record v0.34）只有在 PATCH 得到 404（Event "
        "已不存在：被删除或过期）时才改为创建 Event；其他拒绝都记一行“will not retry”并丢弃。"
        "对任何失败的 patch 都去创建的 recorder 会发出一个 POST，API server 以 409 回答（该名字的 "
        "Event 已存在），或者在只拒绝 patch 时造出第二个 Event。这里 ModelService 收敛，它的 "
        "CreatedDeployment Event 写入成功；随后一个 admission policy 拒绝 operator 对 Event 的更新"
        "（对 admission 来说 PATCH 就是 UPDATE），admin 删除 Deployment：operator 重新创建它，"
        "CreatedDeployment 的重复是一次被拒绝的 PATCH。解除策略后再删一次 Deployment：这次重复的 "
        "PATCH 被接受。自策略生效以来 operator 对 Event 的写入必须全是 PATCH（没有 POST），"
        "Event 的 count 为 3（被拒绝的那次也计入，和 client-go 的 correlator 一样）。",
    ),
    "mutant:creates-on-refused-patch:title": (
        "92b99e7889",
        "重复 Event 的 PATCH 被拒绝时把它当作已不存在，重新创建 Event",
    ),
    "mutant:creates-on-refused-patch-go:title": (
        "b9f3147af6",
        "重复 Event 的 PATCH 被拒绝时把它当作已不存在，重新创建 Event（Go）",
    ),
}
