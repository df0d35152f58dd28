"""Simplified Chinese for the leader election checks of stop 40 (issue 25, the Python leader
election survivors): ``leader-failover[lease-record]`` and ``[release-refused]`` and their
hand-made mutants, and the mutants of the changed ``[release-conflict]`` (release-tries-twice)
and of leader-failover's lower bound on a takeover (shortens-lease); ``[lease-stalled]`` and
its mutants. Same shape as
``harness.i18n.zh_cn_checks``: key -> (hash of the English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:leader-failover[lease-record]:why": (
        "b1f7b34f99",
        "leader-failover[lease-record]：Lease 按 client-go 的写法说明谁从何时起持有它、"
        "它换过几次手。拿到 Lease 的实例把 leaseTransitions 加一并设置 acquireTime；"
        "它的续约只推进 renewTime，保留 acquireTime 和 leaseTransitions，即使期间有人手工"
        "编辑过 Lease 也一样（续约遇到 409，重新读取 Lease 再续约）。standby 只读取 Lease，"
        "每个重试周期至多一次。",
    ),
    "check:leader-failover[lease-record]:teaches": (
        "9846075aa8",
        "各种工具（kubectl、仪表盘、针对频繁交接的告警）读取这些字段来区分稳定的 leader "
        "和来回切换的 leader；重置这些字段的 leader，或比重试周期更频繁地写入或轮询 Lease "
        "的 standby，会掩盖这种切换，或给 API server 增加负载。本用例像之前的 operator "
        "那样留下一个已释放的 Lease（没有 holder，leaseTransitions 为 5），启动一个 leader "
        "和一个 standby，手工编辑 Lease，然后向 leader 发送 SIGTERM，让 standby 接管；"
        "standby 的 Lease 请求从它的 API proxy 读取。",
    ),
    "mutant:resets-lease-transitions:title": (
        "b6e1dbf572",
        "拿 Lease 时不读取它的 leaseTransitions：每次接管都写成 1",
    ),
    "mutant:resets-lease-transitions-go:title": (
        "f555e361ce",
        "拿 Lease 时不读取它的 leaseTransitions：每次接管都写成 1（Go）",
    ),
    "mutant:restamps-acquire-time:title": (
        "490b4a61a0",
        "每次续约都重新写 acquireTime，于是 Lease 从不说明持有者已持有它多久",
    ),
    "mutant:restamps-acquire-time-go:title": (
        "9d2d7a40e6",
        "每次续约都重新写 acquireTime，于是 Lease 从不说明持有者已持有它多久（Go）",
    ),
    "mutant:polls-lease:title": (
        "7f9810fa76",
        "每个配置的重试周期尝试 Lease 四次：standby 给 API server 四倍的负载",
    ),
    "mutant:polls-lease-go:title": (
        "31ef3a1e3e",
        "每个配置的重试周期尝试 Lease 四次：standby 给 API server 四倍的负载（Go）",
    ),
    "mutant:release-tries-twice:title": (
        "3e677002b8",
        "收到 SIGTERM 时，对被以 409 拒绝的 Lease 释放一共只尝试两次，然后让 Lease 仍被持有",
    ),
    "mutant:release-tries-twice-go:title": (
        "f0f9351fe1",
        "收到 SIGTERM 时，对被以 409 拒绝的 Lease 释放一共只尝试两次，然后让 Lease 仍被持有（Go）",
    ),
    "mutant:shortens-lease:title": (
        "1a62c7f1ff",
        "standby 在另一个持有者的 Lease 时长过去四分之一后就判它过期：leader 崩溃后过早接管",
    ),
    "mutant:shortens-lease-go:title": (
        "4f69160ce6",
        "standby 在另一个持有者的 Lease 时长过去四分之一后就判它过期：leader 崩溃后过早接管（Go）",
    ),
    "check:leader-failover[release-refused]:why": (
        "b633352e46",
        "leader-failover[release-refused]：被告知停止（SIGTERM）的 leader，如果它的释放写入"
        "全部被以 409 Conflict 拒绝（与 client-go 的 retry.DefaultRetry 尝试次数一样多，"
        "5 次），会以 0 退出并说明这一点：一行 level 为 error 的日志，`could not release the "
        "Lease; standbys wait for it to expire`，并且没有 `Released Lease`。",
    ),
    "check:leader-failover[release-refused]:teaches": (
        "51888c06be",
        "运行 operator 的人从这一行得知，为什么下一个 leader 要等整整一个 lease 时长才出现："
        "默默放弃的释放，在日志里看起来就像根本没有东西可释放。operator 的 API proxy 对 "
        "SIGTERM 之后的前五次 Lease 写入直接回答 409，不转发它们。尝试更多次并最终释放了 "
        "Lease 的 operator 也能通过，只要它在日志里记下这次释放。",
    ),
    "mutant:release-failure-unreported:title": (
        "4893e4e722",
        "收到 SIGTERM 时，放弃一次失败的 Lease 释放，却不在日志里记下",
    ),
    "mutant:release-failure-unreported-go:title": (
        "433e12a2eb",
        "收到 SIGTERM 时，放弃一次失败的 Lease 释放，却不在日志里记下（Go）",
    ),
    "check:leader-failover[lease-stalled]:why": (
        "3ce0077df0",
        "leader-failover[lease-stalled]：leader 的 Lease 写入停滞（它的 API proxy 把每一次都"
        "扣住一分钟），而它的其他请求照常得到服务。一次在 renew deadline 内没有成功的续约就是"
        "失败了，不管它的请求还要多久：leader 必须在那时停止领导，早于 standby 在 Lease 过期时"
        "拿走它。standby 持有 Lease 之后，三次 spec 变更都只由 standby 写入，也只由它尝试。",
    ),
    "check:leader-failover[lease-stalled]:teaches": (
        "26b4ffc12f",
        "反过来等待续约应答的 leader（请求不受任何约束，或受一个比 renew deadline 更长的请求"
        "超时约束），会在它的 lease 过期、standby 接管之后继续运行它的 worker：两个写入者。"
        "整个连接的分区会掩盖这一点，因为旧 leader 的写入和它的续约一起停滞；而一次缓慢的 "
        "Lease 写入（某个 key 上的 etcd 卡顿、leases 上的 webhook）不会。谁写的由请求记账按"
        "实例读出。",
    ),
    "mutant:unbounded-renewal:title": (
        "faf757c04e",
        "等待续约的应答超过 renew deadline：Lease 写入停滞的 leader 在 standby 接管后仍在写入",
    ),
    "mutant:unbounded-renewal-go:title": (
        "74e18df781",
        "等待续约的应答超过 renew deadline：Lease 写入停滞的 leader 在 standby 接管后仍在写入（Go）",
    ),
}
