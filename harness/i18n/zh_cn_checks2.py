"""Simplified Chinese of more of the checks' texts (``check:<testcase>:why``/``:teaches``,
from the conformance tests' docstrings), continuing ``harness.i18n.zh_cn_checks`` (split to
keep each module under the layout's line limit). Keys and hashes as ``harness.i18n``
describes; a text not here is shown in English (``python -m harness.i18n`` lists them)."""

from __future__ import annotations

#: key -> (the English text's hash, harness.i18n.text_hash; the translation)
ENTRIES: dict[str, tuple[str, str]] = {
    "check:invalid-rejected:teaches": (
        "d3c694cfeb",
        "校验属于准入阶段（CRD 的 schema 和 CEL 规则），而不属于控制器：被拒绝的 create "
        "会立刻告诉用户该改什么，而一个事后才发现坏 spec 的控制器只能在 status 里报告它，"
        "为时已晚，而且绝不能因此崩溃。名字的规则之所以重要，是因为 Service 沿用 ModelService "
        "的名字，而 Service 的名字是 DNS-1035 label，比 API server "
        "对自定义资源名字的要求更严格。拒绝和裁剪是 CRD 的工作，是本检查的前提；operator "
        "的部分在其后：它让被接纳的 ModelService 收敛（一个的未知字段被裁剪掉，"
        "另一个省略了所有可选字段），自己保持运行，而且 API server 除了 409 "
        "之外不拒绝它的任何请求（依据审计日志或它的 API proxy 判断，而不是它自己的日志）。",
    ),
    "check:child-conflict:teaches": (
        "cf52b6222c",
        "名字不等于所有权。仅仅因为名字对得上就接管一个对象，会让两个控制器为它争斗，"
        "或者悄无声息地劫持别人的工作负载。控制器改为报告这个冲突（Ready=False、"
        "Progressing=False、reason ChildConflict，message 中指明那个子对象），并持续检查；"
        "等另一个所有者的 Deployment 被移除后，它再创建自己的。",
    ),
    "check:child-conflict[adopt-ownerless]:teaches": (
        "b8d91eb1f6",
        "按垃圾回收器留下的样子布置场景（envtest 没有垃圾回收器；deletion-policy[orphan] 在 "
        "sim 上做的是真实的过程）：一个 Deployment 和一个 Service ``web``，带着 ModelService "
        "``web`` 的那三个标签，没有 ownerReferences；还有一个 Deployment ``plain``，"
        "既没有标签也没有所有者。然后创建 ModelService ``web`` 和 ``plain``。``web`` "
        "必须在同样的两个对象上收敛（UID 相同：不删除、不创建，pod 从未受到干扰），"
        "它们此后由它控制，并记录 Normal 的 AdoptedDeployment 和 AdoptedService Event。"
        "``plain`` 必须报告 ChildConflict，并且不写它的 Deployment：名字不等于所有权。"
        "这种接管仿照 ReplicaSet 控制器：它接管 selector 匹配的无主 pod，"
        "但从不接管另一个控制器拥有的 pod（即 child-conflict 自己的场景）。",
    ),
    "check:child-repaired[immutable-selector]:teaches": (
        "623e3775bc",
        "Deployment 的 selector 是不可变的：每一个改变它的 update 都会被以 422 拒绝。这里在 "
        "operator 启动之前，ModelService ``web`` 已经存在，一个由它控制（通过它的 "
        "ownerReference）的 Deployment ``web`` 也已存在，它选择的是 ``app.kubernetes.io/name: "
        "web``，就像 operator 的某个早期版本可能创建的那样。operator 必须删除它一次，带 UID "
        "precondition 和 Background 传播策略（随后垃圾回收器会带走它的 ReplicaSet 和 pod；"
        "Orphan 会留下两个 selector 都不匹配的 pod），记录一个 ReplacingDeployment Event，创建 "
        "selector 为 ``modeldock.io/modelservice: web`` 的新 Deployment，并收敛；它对 "
        "Deployment 的 update 从不会被以 422 拒绝。",
    ),
    "check:external-effect-once:why": (
        "384fa81b53",
        "external-effect-once：在 catalog 记录下 generation 1 的注册之后、"
        "它的回答到达之前被杀掉（catalog 扣住回答；harness 用 SIGKILL 杀掉 operator）。"
        "效果已经发生，operator 却从未得知；重启后它再次注册，而在请求标识相同的情况下，"
        "catalog 会返回原来的回答，不记录任何新东西。每次尝试都用新的键，则会记录下第二次效果。",
    ),
    "check:external-effect-once[before-call]:why": (
        "fe676d8d73",
        "external-effect-once[before-call]：在创建 Service 时被杀掉（API proxy 转发这个请求，"
        "但扣住回答），此时 catalog 还没有被调用：重启后，operator 只注册 generation 1 一次。",
    ),
    "check:external-effect-once[status-lost]:why": (
        "a08d1df72b",
        "external-effect-once[status-lost]：在记录 catalog 回答的那次 status 写入时被杀掉（API "
        "proxy 转发这个请求，但扣住回答；ModelService 的写入依次是 finalizer、然后是 status）："
        "status 中已有这次注册，所以重启后的 operator 不会再为 generation 1 注册任何东西。",
    ),
    "check:external-effect-once[status-conflict]:why": (
        "34a4d13099",
        "external-effect-once[status-conflict]：记录 catalog 回答的那次 status 写入得到 409 "
        "Conflict 的回答（由 API proxy 给出，没有被转发），就像缓存落后时那样；下一次 "
        "reconcile 会再次注册 generation 1。在请求标识相同的情况下，catalog 不记录任何新东西。"
        "然后像其他场景一样杀掉并重启 operator，此时 generation 1 已没有什么需要注册的了。",
    ),
    "check:noop-stable[rewritten-values]:teaches": (
        "d80737b13f",
        "API server 在存储子对象时会改写某些合法的值："
        "它把每个资源数量向上取整到千分之一的整数倍（1.5m 存为 2m，1e-4 存为 1m）；"
        "同一个值的其他写法（0.5Gi、536870912）无论存成哪种形式，按值比较都相等。"
        "用用户的值去比较期望的 Deployment 和存储的 Deployment 的 operator，会在每次 reconcile "
        "时都发现差异，于是永无止境地更新 Deployment，还附带一个 Event。这里 ModelService "
        "的资源取自 CRD 接受的那些写法（带种子抽取，所以两个实现拿到的一样），CPU request "
        "总是一个 API server 会取整的值；存储的 Deployment 至少有一个值的写法与之不同，"
        "这是前提。然后是 noop-stable 的窗口：一次重启和两个无关的 annotation "
        "都不能带来任何写入。",
    ),
    "check:noop-stable[long-quiet]:teaches": (
        "45a3d44967",
        "noop-stable 的其他窗口在 operator 最后一次请求之后 PROXY_QUIET 秒结束，"
        "所以定时写入（每 20 s 一次的心跳，每 30 s 写一次的 requeue）会落在所有这些窗口之外。"
        "这里 ModelService 收敛，operator 安静下来，然后在 LONG_QUIET_CI 秒内什么都不变："
        "在这段时间里，它的 API proxy 除了 watch（在客户端自己的超时后重新打开）和 Lease 之外，"
        "不能看到它的任何请求。这从下方界定了这种定时器的周期：比窗口短的会失败，"
        "比窗口长的会通过（完整套件的场景 LONG_QUIET_FULL 覆盖到五分钟）。",
    ),
    "check:stale-update-conflict:teaches": (
        "fd48cd3c61",
        "Kubernetes 使用乐观并发：每次写入都指明它所基于的 resourceVersion，"
        "如果对象在此之后变过，API server 就拒绝它。控制器必须把 409 当作“我看到的已经过期”："
        "requeue，并从一次新的读取重新计算，绝不重发被拒绝的对象（那会覆盖别人的修改，"
        "或者永远循环下去）。这里持有一份过期的副本，同时用一份新副本把 replicas 设为 2；"
        "过期的写入必须失败；然后一个新的 operator 进程，只通过它的 watch 得到对象的 key，"
        "必须把 Deployment 收敛到 2。这里的 409 来自 API server（operator "
        "停止期间管理员的一次写入）：是这一课的前提，而不是 operator 的证明；`[operator-409]` "
        "让 operator 自己的写入过期。",
    ),
    "check:foreign-conditions-kept:teaches": (
        "edcacc5ba4",
        "status.conditions 是一个以 type 为键的 map（CRD 声明它为 x-kubernetes-list-type: map）"
        "，而 Kubernetes API 约定允许多个控制器在同一个对象上报告，各自使用自己的 condition "
        "类型：审计工具、策略引擎、发布工具。从零构建这个列表（“正好是我的两个”）的 operator，"
        "会在下一次写 status 时抹掉其他的，然后两个控制器便永远争斗下去。这里另一个写入者通过 "
        "status 子资源加上一个 `Audited` condition；operator "
        "随后必须什么都不写（这个事件引起的 reconcile 没有东西要改），而在一次 spec 变更（"
        "generation 2）之后——它确实会让 operator 写 status——`Audited` 必须仍然在那里，"
        "逐字节不变，连时间戳也一样。",
    ),
    "check:events-recorded:teaches": (
        "9413a31c38",
        "用户首先看的是 ``kubectl describe``：它的 Events 部分是控制器说明自己做了什么（"
        'Created Deployment "web"）以及什么阻止了它（一个外来的 Deployment 挡了路，一个拒绝 '
        "create 的 ResourceQuota）的地方。只写日志的控制器在那里一声不吭。"
        "但每次遇到同一个问题都写一个新 Event 的控制器，会淹没 etcd 和 describe 的输出："
        "client-go 的 recorder 把重复计入已有的 Event（count、lastTimestamp），并对每个对象的 "
        "Event 限速。这里创建并删除一个 ModelService，第二个发现它的名字下有一个外来的 "
        "Deployment，第三个因为 ResourceQuota 一个都不允许而无法创建它的 Deployment；Event 以 "
        "admin 身份读取。被拒绝的 create 本身也会退避，和每个失败的 key 一样（每失败一次翻倍，"
        "从 5 ms 开始）：在它们跨越的时间内，次数不超过 ``backoff_bound`` 所允许的，"
        "所以一个拒绝的热循环，即使每次的 Warning 都被计数，也会失败。",
    ),
    "check:watch-recovers[connection-stall]:teaches": (
        "e3b2b27f15",
        "operator 以一个很短的期限运行，这个期限通过 client-go 自己读取的变量设置（"
        "``HTTP2_READ_IDLE_TIMEOUT_SECONDS=5``、``HTTP2_PING_TIMEOUT_SECONDS=3``），"
        "所以这个检查只需几秒；connection-stall-defaults 场景（``--full``）"
        "保留客户端自己的默认值。",
    ),
    "check:watch-recovers[compaction-410]:teaches": (
        "0be588a670",
        "operator 通过 harness 的 API proxy 与 API server 通信。世界变化期间，API proxy "
        "扣住它的 watch 的事件，然后结束这些 watch，丢弃扣住的事件（``end_watches``），"
        "并记录每个 watch 的每一个 ERROR 事件及其状态码：发给这个 operator 的 410 "
        "是被展示出来的，而不是假定的（前提）。",
    ),
}
