"""Simplified Chinese of the ownership cases of stop 40 (pyown) and of their mutants' titles:
child-conflict[adopt-ownerless] (its texts as extended), child-conflict[adopt-recheck],
finalizer-ordered-delete[delete-not-found] and leader-failover[lost-while-busy], and
config-refused's texts as extended with the probe-port-held and ports-held environments (keys
and hashes as in harness/i18n/__init__.py)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:child-conflict[adopt-ownerless]:teaches": (
        "2244e3ad7e",
        "按垃圾回收器留下的样子布置场景（envtest 没有垃圾回收器；deletion-policy[orphan] 在 "
        "sim 上做的是真实的过程）：一个 Deployment 和一个 Service ``web``，带着 ModelService "
        "``web`` 的那三个标签，没有 ownerReferences；还有一个 Deployment ``plain``，"
        "既没有标签也没有所有者。然后创建 ModelService ``web`` 和 ``plain``。``web`` "
        "必须在同样的两个对象上收敛（UID 相同：不删除、不创建，pod 从未受到干扰），"
        "它们此后由它控制，并记录 Normal 的 AdoptedDeployment 和 AdoptedService Event。"
        "``plain`` 必须报告 ChildConflict，并且不写它的 Deployment：名字不等于所有权。"
        "这种接管仿照 ReplicaSet 控制器：它接管 selector 匹配的无主 pod，"
        "但从不接管另一个控制器拥有的 pod（即 child-conflict 自己的场景）。"
        "另外两个不属于我们的同名子对象，无论看起来多么无害，也都必须是 ChildConflict："
        "一个无主、无标签的 Service ``bare``，它旁边的 Deployment 名字是空着的（Service 没有 "
        "operator 设置的不可变字段，所以只有缺少的标签能把它和我们的孤儿区分开：它必须保持未被写入，"
        "没有 ownerReference）；以及一个无主、无标签的 Deployment ``held``，它正在被删除，"
        "被 harness 自己的 finalizer 留住（正在离开的子对象只有是我们的才会被等待；"
        "别人的和任何冲突一样是冲突，旁边也不会创建 Service）。",
    ),
    "check:child-conflict[adopt-recheck]:why": (
        "a9909a0856",
        "child-conflict[adopt-recheck]：接管之前，operator 从 API server 而不是从它的缓存读取 "
        "ModelService；对于 API server 已经不再持有的 ModelService，即使它的缓存还持有，"
        "也什么都不接管。",
    ),
    "check:child-conflict[adopt-recheck]:teaches": (
        "c5d3d3a9c7",
        "缓存是滞后的：一个 ModelService 的删除和同名的后继者，可能在它们的 watch 事件到达 "
        "operator 之前就到达了 API server。只凭缓存决定的接管，会把一个已不存在的对象的 UID "
        "写进子对象的 controller ownerReference，于是这个子对象就归垃圾回收器删除，"
        "而它正是孤儿式删除想要保留的工作负载（kube 的 ControllerRefManager 为此先重新读取所有者："
        "RecheckDeletionTimestamp）。用 operator 的 API proxy 布置：ModelService ``web`` 收敛；"
        "proxy 扣住 ModelService 的所有 watch 事件；harness 移除 operator 的 finalizer，删除 "
        "``web`` 并再次创建 ``web``（新的 UID），然后像垃圾回收器处理孤儿式删除那样去掉两个子对象的 "
        "ownerReferences。子对象的事件到达 operator，而它的缓存仍持有旧的 ``web``："
        "在它对 ``web`` 的三次实时读取中（被拒绝的接管，会重试），它不能写任何一个子对象。"
        "放行之后，新的 ``web`` 必须在同样的两个子对象上收敛（UID 相同），由新的 UID 接管。",
    ),
    "check:finalizer-ordered-delete[delete-not-found]:why": (
        "8c3677486b",
        "finalizer-ordered-delete[delete-not-found]：得到 404 Not Found 回答的子对象删除不是失败："
        "没有 Warning Event，清理照样完成。",
    ),
    "check:finalizer-ordered-delete[delete-not-found]:teaches": (
        "7391b865b9",
        "在 operator 实时读取一个子对象和删除它之间，别人可能已经删除了它（用户、垃圾回收器）："
        "此时 API server 回答 404；带着 UID precondition，其间被替换的子对象回答 409。"
        "两者都不是失败的删除：operator 想删的那个子对象无论如何都已不在了（CONTRACT.md，"
        "\u201cDeletion\u201d），关于它的 Warning FailedDelete 会告诉用户一个并未发生的失败"
        "（409 本来就不记录 Warning，operator 的每个 409 都是如此：本场景用的是 404）。"
        "这里 operator 的 API proxy 不转发、直接以 404 回答 operator 对 Deployment 的第一次删除"
        "（Deployment 留下，所以下一轮仍能找到它）；然后删除 ModelService。下一轮清理实时读取 "
        "Deployment，仍是我们的，便删除它；ModelService 必须消失，operator 也不能记录任何关于它的 "
        "Warning Event。",
    ),
    "check:leader-failover[lost-while-busy]:why": (
        "3ba1cc853c",
        "leader-failover[lost-while-busy]：一个 leader 在某个 worker 正处于 reconcile 之中、"
        "被扣在一次写入里时失去了它的 Lease，它立即退出；它不等待那次 reconcile。",
    ),
    "check:leader-failover[lost-while-busy]:teaches": (
        "14fbe088b9",
        "失去 Lease 意味着另一个实例可能已经在写：优雅关闭被跳过（controller-runtime 把它的超时设为 "
        "0 并退出，\u201cleader election lost\u201d），旧 leader 的每一次进一步写入都是脑裂的写入。"
        "一个无界等待 worker 的停止（本为 SIGTERM 准备的等待，或算错的截止时间）会让进程及其进行中的 "
        "reconcile 一直活到那个请求结束。这里 leader 的 API proxy 把它对 Deployment ``web`` 的 "
        "update（一次 replicas 改变）扣住 60 s（BUSY_HOLD_S）；然后 harness 拿走 Lease（持有者 "
        "``modeldock-harness-thief``，一小时），于是每次续约都失败。进程必须在 Lease 的接管界限内"
        "（lease duration、一个 retry period 加上余量：TAKEOVER_BOUND_S，从被拿走时算起；检查会等到 "
        "TAKEOVER_WAIT_S 以报告它晚了多少）退出，远在被扣住的写入可能得到回答或被放弃之前"
        "（operator 自己的客户端 35 s 后放弃）。",
    ),
    "check:vanished-owner[finalizer-race]:teaches": (
        "b5dd206d28",
        "这场竞争本身（一个 DELETE 在 finalizer update 提交之前读到了对象，然后照样删除了它）"
        "发生在 API server 内部，在它的读取与存储删除之间，任何 proxy 都够不着；把 update 扣到 "
        "DELETE 到达为止，只会让 update 失败（404）。所以这个场景确定性地布置出竞争留下的世界："
        "operator 的 API proxy 立即转发 finalizer update，但扣住它的回答；其间 harness（admin）"
        "移除 finalizer 并删除 ModelService，它立即消失；然后回答——带着 finalizer 的 "
        "200——才被送达。operator 持有一个带它 finalizer 的 ModelService，就像在发生竞争的 API "
        "server 上一样，为它创建两个子对象，然后在它的 status update 时得知它已经不在了。一个 "
        "create 和 delete 的循环在 envtest 上几十次之内就会展示出真实的竞争；"
        "这个场景则每次都展示同样的最终状态。在有垃圾回收器运行的地方（sim），"
        "它可能先删除子对象：这时检查同样通过。",
    ),
    "check:vanished-owner[foreign-held]:why": (
        "db8e4cc4c2",
        "vanished-owner[foreign-held]：ModelService 已不在的那一轮的清理，只删除那个 ModelService "
        "控制的子对象，绝不删除这一轮持有的外来子对象。",
    ),
    "check:vanished-owner[foreign-held]:teaches": (
        "2101ca8a18",
        "按 ``[finalizer-race]`` 布置，另有一个由 ConfigMap 控制的 Service ``web`` 从一开始就存在："
        "这一轮创建它的 Deployment，为 Service 报告 ChildConflict，并把它和 Deployment 一起持有。"
        "当它的 status update 得到 404 回答时，Deployment 必须被删除，而外来的 Service 必须保持它的 "
        "UID（CONTRACT.md，\u201cWhen the ModelService vanishes\u201d）。在创建后继者之前，"
        "harness 把它删除。",
    ),
    "mutant:adopts-unlabelled:title": (
        "2f9aa49888",
        "接管每一个无主的同名子对象，无论有没有我们的标签",
    ),
    "mutant:adopts-unlabelled-go:title": (
        "2223f77c4e",
        "接管每一个无主的同名子对象，无论有没有我们的标签（Go）",
    ),
    "mutant:waits-on-foreign-deleting:title": (
        "76aee9fd09",
        "把正在被删除的同名子对象当作自己的，不管是谁控制它",
    ),
    "mutant:waits-on-foreign-deleting-go:title": (
        "5413112f70",
        "把正在被删除的同名子对象当作自己的，不管是谁控制它（Go）",
    ),
    "mutant:first-owner-controls:title": (
        "8d257d4086",
        "把第一个 ownerReference 当作 controller，不管它是否是 controller: true",
    ),
    "mutant:first-owner-controls-go:title": (
        "f5b0567a29",
        "把第一个 ownerReference 当作 controller，不管它是否是 controller: true（Go）",
    ),
    "mutant:adopts-from-cache:title": (
        "2d14df1a7f",
        "凭缓存的一面之词认定 ModelService 仍然存在就接管，不做实时读取",
    ),
    "mutant:adopts-from-cache-go:title": (
        "614214dfc9",
        "凭缓存的一面之词认定 ModelService 仍然存在就接管，不做实时读取（Go）",
    ),
    "mutant:lost-lease-graceful:title": (
        "d413f309f0",
        "失去 Lease 的 leader 在退出前给它的 worker 一个 SIGTERM 的宽限期",
    ),
    "mutant:lost-lease-graceful-go:title": (
        "189b80d938",
        "失去 Lease 的 leader 在退出前给它的 worker 一个 SIGTERM 的宽限期（Go）",
    ),
    "mutant:fails-on-gone-child:title": (
        "5e843a1c0a",
        "把得到 404 或 409 回答（已不在，或自读取以来被替换）的子对象删除报告为删除失败",
    ),
    "mutant:fails-on-gone-child-go:title": (
        "6e0e5d3b83",
        "把得到 404 或 409 回答（已不在，或自读取以来被替换）的子对象删除报告为删除失败（Go）",
    ),
    "mutant:cleans-up-held:title": (
        "376c386bf6",
        "当 status update 说明 ModelService 已不在时，删除这一轮持有的每个子对象，不管是不是它自己的",
    ),
    "mutant:cleans-up-held-go:title": (
        "a97485838a",
        "当 status update 说明 ModelService 已不在时，删除这一轮持有的每个子对象，不管是不是它自己的（Go）",
    ),
    "check:config-refused:teaches": (
        "4e9c595cf6",
        "Lease 的时间不是数字、为零或为无穷大，lease 不比它的续约期限长，续约期限不够再重试一次，worker 数为零"
        "，catalog URL 不是 http(s)，metrics 地址的端口被另一个进程占着：照样运行的 operator，无论是用默认值"
        "顶替这个值，还是原样使用它，运行时用的都是没有人选择过的时间，或者在一个绑定不了的端口上失败。"
        "leader elector 也许会在之后以不那么清楚的方式拒绝它们，也许永远不会，于"
        "是一组实例交接 Lease 要么太慢，要么每隔几秒就换一次。契约（CONTRACT.md 的“Process”）要求在启"
        "动时、在任何请求之前就拒绝：退出码 2，并用一行日志说出出错的变量以及它必须是什么。这里每种有问题的环境各启动一个 op"
        "erator（REFUSED_ENVIRONMENTS，以及 ``port-held``：METRICS_BIND_ADDRESS 指向检查自己正在监听的"
        "端口；``probe-port-held``：关掉 metrics 服务，HEALTH_PROBE_BIND_ADDRESS 指向另一个这样的端口；"
        "``ports-held``：两个都被占，两个都必须点名；开启 leader election，并排运行），再启动一个在相同边界上拿到可用值的 operator"
        "（ACCEPTED_ENVIRONMENT，用 ``0`` 关掉它的 metrics 服务）。等这一个就绪后（拒绝比启动省事），其"
        "余每一个都必须已在 CONFIG_EXIT_GRACE_S 之内以 2 退出，日志里点出每个出错的变量（``NAME=`"
        "` 和 ``must``），它的 API proxy 没有见到任何请求。然后再启动一个拿到不足一秒的重试间隔的 "
        "operator（SUBSECOND_ENVIRONMENT：RETRY_PERIOD=0.4，RENEW_DEADLINE=2.5）；它就绪后，两个都必须"
        "继续运行，其中一个作为 leader 让一个 ModelService 收敛。Mutant：whole-second-retry、whole-second-retry-go（像 ``kubernetes`` "
        "库的 leader election 那样拒绝不足 1 s 的重试间隔）；forgiving-config、forgiving-config-"
        "go（把无法使用的值换成默认值，只打印一条警告）；ignores-held-port、ignores-held-port-go（从不"
        "试这些地址：manager 在发出第一批请求之后才碰上被占的端口，以 1 退出）；refuses-metrics-off、"
        "refuses-metrics-off-go（把 ``0`` 当成地址并拒绝）；first-address-only、first-address-only-go"
        "（在第一个不去试或监听不了的地址处就停止检查）。",
    ),
    # stop 41 (gogaps41): child-conflict[adopt-recheck-deleting] and the Go gaps' mutant pairs
    "check:child-conflict[adopt-recheck-deleting]:why": (
        "9d3538a44e",
        "child-conflict[adopt-recheck-deleting]：接管之前，operator 从 API server 读取 "
        "ModelService；对于一个正在被删除的 ModelService，即使它的缓存还持有未被删除的它，"
        "也什么都不接管。",
    ),
    "check:child-conflict[adopt-recheck-deleting]:teaches": (
        "557ee344f7",
        "这是 adopt-recheck 的孪生场景，针对实时读取的另一半：那里 ModelService 已经不在了"
        "（回答的是另一个 UID），这里 API server 仍持有同一个 UID，带着 deletionTimestamp，"
        "被别人的 finalizer 留住（kube 的 ControllerRefManager 的 RecheckDeletionTimestamp "
        "两种情况都拒绝）。被一个正在离开的 ModelService 接管的子对象，会得到一个 controller "
        "ownerReference，finalizer 一旦移除，垃圾回收器就据此行动：工作负载随它一起被删除。"
        "用 operator 的 API proxy 布置：ModelService ``web`` 收敛；proxy 扣住 ModelService "
        "的所有 watch 事件；harness 用它自己的 finalizer（HOLD）替换 operator 的 finalizer，"
        "删除 ``web``（它留下，处于删除中），并像孤儿式删除那样去掉两个子对象的 "
        "ownerReferences。子对象的事件到达 operator，而它的缓存持有的 ``web`` 没有被删除："
        "在它对 ``web`` 的三次实时读取中（被拒绝的接管，会重试），它不能写任何一个子对象。"
        "放行之后，它仍然不能接管它们；然后 harness 移除自己的 finalizer，``web`` 消失。",
    ),
    "mutant:adopts-deleting:title": (
        "010836e00a",
        "为一个 API server 持有为删除中的 ModelService 接管子对象：实时读取只问它的 UID",
    ),
    "mutant:adopts-deleting-go:title": (
        "ffa8c6bccb",
        "为一个 API server 持有为删除中的 ModelService 接管子对象：实时读取只问它的 UID（Go）",
    ),
    "mutant:two-digit-exponent:title": (
        "2629420888",
        "把每个两位数的指数（1E99、1e10）都当作超过 99 而拒绝，尽管 CRD 允许两位数字",
    ),
    "mutant:two-digit-exponent-go:title": (
        "12ee11d7d1",
        "把每个两位数的指数（1E99、1e10）都当作超过 99 而拒绝，尽管 CRD 允许两位数字（Go）",
    ),
    "check:vanished-owner[orphaned-unseen]:why": (
        "3753fd6950",
        "vanished-owner[orphaned-unseen]：operator 的缓存仍显示某个子对象由一个已经消失的 "
        "ModelService 控制，而 API server 上它已被孤立，这个子对象由后继者接管，而不是被删除："
        "删除已消失 owner 的子对象时，带上读到它时的 resourceVersion 作为前提条件，"
        "和垃圾回收器的做法一样。",
    ),
    "check:vanished-owner[orphaned-unseen]:teaches": (
        "85f9f5c93e",
        "`kubectl delete --cascade=orphan` 之后再次应用同一个 ModelService，是用户在不打扰运行中 "
        "pod 的情况下重建它的方式：垃圾回收器去掉子对象的 ownerReferences，后继者接管它们（UID 不变）。"
        "但 informer 缓存会滞后：有一段时间它可能仍显示子对象由已消失的 ModelService 控制，"
        "对信任缓存的 operator 来说，它们就成了要删除并替换的已消失 owner 的子对象"
        "（vanished-owner[dead-owner-child]）。UID 前提条件挡不住这次删除：对象还是同一个，"
        "只是 ownerReferences 变了。垃圾回收器根据它自己的缓存判断依赖对象，删除时也把读到的 "
        "resourceVersion 作为前提条件（kube v1.34 GarbageCollector.deleteObject），"
        "此后被改过的子对象会得到 409 并被重新读取。这里确定地布置这种情况：operator 的 API proxy "
        "从 Orphan 删除之前开始扣住 Deployment 和 Service 的所有 watch 事件，直到后继者在过时的视图上"
        "被 reconcile 过，然后放行。由生成工作负载的夜间运行发现（stop 46）：紧跟在接管了孤儿的 create "
        "之后的一次 Orphan 删除；go 的子对象被删除并重新创建，python 的被接管"
        "（mutant trusts-stale-owner、trusts-stale-owner-go）。也不得发出任何子对象的 create："
        "子对象一直存在，operator 的缓存也持有它们；把带 resourceVersion 前提条件的删除得到的 409 "
        "当成“已删除”，就会在它们之上发出创建请求（mutant changed-child-taken-for-gone、"
        "changed-child-taken-for-gone-go，以及 deleteChildIf 和 delete_child 中 409 判断的工具 mutant，stop 49）。",
    ),
    "check:deletion-policy[switched-to-orphan]:why": (
        "c4b35dfae3",
        "deletion-policy[switched-to-orphan]：先 `kubectl delete`，在清理删除任何东西之前再 "
        "`kubectl delete --cascade=orphan`，子对象被保留，即使 operator 的缓存仍显示第一次删除。",
    ),
    "check:deletion-policy[switched-to-orphan]:teaches": (
        "2cae4d5844",
        "从缓存读取删除策略的 operator，在缓存落后于第二次请求的这段时间里，会删除用户刚刚要求保留的"
        "工作负载；子对象自己的删除（它的 UID 前提条件）对其 owner 的策略一无所知。垃圾回收器在处理"
        "依赖对象之前会实时读取 owner（kube v1.34 GarbageCollector.isDangling），清理在删除子对象之前"
        "也必须这样做。这里确定地布置这种情况：一个准入策略拒绝 operator 对 Deployment 的删除，"
        "于是第一次（Background）删除的清理已经开始并卡住；然后 operator 的 API proxy 扣住 "
        "ModelService 的所有 watch 事件，再用 `Orphan` 删除一次 ModelService；然后解除拒绝。"
        "按缓存过时的说法，下一轮清理会删除两个子对象。operator 必须改走 orphan 的路径（移除它的 "
        "finalizer，不删除任何子对象）：子对象保持原来的 UID，operator 对子对象的删除没有一次被接受"
        "（审计日志）。在 envtest 上 ModelService 随后只带着 `orphan` 留下（没有垃圾回收器）；"
        "在有垃圾回收器的地方，它去掉子对象的引用，ModelService 随之消失。",
    ),
    "check:vanished-owner[successor-unseen]:why": (
        "e8338ffbf5",
        "vanished-owner[successor-unseen]：operator 在看到后继者之前先看到的后继者的子对象，不会被当成"
        "已消失 owner 的子对象删除：删除已消失 ModelService 的子对象之前，operator 实时读取 ModelService。",
    ),
    "check:vanished-owner[successor-unseen]:teaches": (
        "cb0517d312",
        "“由同名但 UID 不同的 ModelService 控制的子对象属于一个已经消失的 ModelService”，"
        "这个判断的前提是手头的 ModelService 此刻仍占着这个名字。informer 的各个 watch 彼此独立："
        "ModelService 的 watch 可能落后于同名对象的一次删除和一次创建，而 Deployment 的 watch 已经"
        "带来了新 ModelService 的子对象，它由另一个写入者创建（一个已经看到后继者的前任 leader）。"
        "对过时的那一轮来说，这个子对象看起来像已消失 owner 的；删除它会让仍然存在的 owner 的 pod "
        "重启。垃圾回收器在删除依赖对象之前会实时读取 owner（kube v1.34 GarbageCollector.isDangling）。"
        "这里确定地布置这种情况：operator 的 API proxy 扣住 ModelService 的所有 watch 事件；"
        "已收敛的 ModelService 去掉 finalizer 并被删除，创建一个同名的后继者，harness 作为那个另一个"
        "写入者把子对象交给后继者（它们的控制者 ownerReference 改为指向后继者：每个一次更新，不创建"
        "任何东西，这样 operator 就不会把 harness 的子对象当成它必须创建的）。在 sim 上垃圾回收器可能"
        "先删除已消失者的子对象：这是前提条件的错误，不是判定。operator 在过时的视图上"
        "reconcile（一个关于子对象的请求，或者它对 ModelService 的实时读取）；然后放行事件。"
        "后继者的子对象必须保持原来的 UID，operator 对子对象的删除不能有一次被接受（审计日志）。",
    ),
    "check:deletion-policy[gone-unseen]:why": (
        "2292d1609a",
        "deletion-policy[gone-unseen]：对一个缓存中仍在、API 服务器已不再持有的 ModelService 进行的"
        "清理，什么也不做就结束：不删除子对象，不写 ModelService，不 panic。",
    ),
    "check:deletion-policy[gone-unseen]:teaches": (
        "91bbfe2775",
        "当另一个写入者（用户对 finalizers 的 `kubectl patch`、删除命名空间的工具）移除了我们的 "
        "finalizer、对象随之消失，而 operator 的缓存还落后时，清理对 ModelService 的实时读取"
        "（CONTRACT.md，“Deletion (step 2)”）得到 404：这一轮已无事可做，子对象现在归垃圾回收器。"
        "继续去判断它没有拿到的对象的 operator（Go 的 `ContainsFinalizer(nil)`、Python 的 "
        "`contains_finalizer(None)`）会 panic；把缓存的副本当成实时对象的 operator，会删除 owner "
        "已不在的子对象，并写一个不存在的 ModelService。这里确定地布置这种情况：一个准入策略拒绝 "
        "operator 对 Deployment 的删除，于是这次删除的清理已经开始，并按退避重试；然后 operator 的 "
        "API proxy 扣住 ModelService 及其子对象的所有 watch 事件，harness 移除 finalizers，ModelService 随之"
        "消失。operator 的下一轮必须实时读取它（得到 404）并就此停下：那次读取之后，operator 没有任何"
        "请求写 ModelService 或子对象（proxy 日志，被拒绝的写入也算），panic 预言机读取它的日志。"
        "在有垃圾回收器的地方，由它删除子对象；那不是 operator 的事。",
    ),
    "check:deletion-policy[replaced-unseen]:why": (
        "26564cacc4",
        "deletion-policy[replaced-unseen]：对一个缓存中的 ModelService 进行的清理，在实时读取时其名字"
        "已被另一个 ModelService（另一个 UID）占用，这一轮什么也不做就结束：不会把后继者当成它来清理。",
    ),
    "check:deletion-policy[replaced-unseen]:teaches": (
        "a177b54e1c",
        "“我正在清理的对象”是一个 UID，而不是一个名字。`deletion-policy[gone-unseen]` 的实时读取可能"
        "读到一个后继者：ModelService 在 operator 的缓存落后时消失并被再次 apply，另一个写入者（一个"
        "看到了后继者的早先的 leader）已经在它上面加了我们的 finalizer。只比较名字的 operator 会把后继者"
        "当成它正在清理的对象：它找不到属于自己的子对象（子对象指向已消失的 UID），于是从后继者身上移除"
        "我们的 finalizer，而后继者并没有在删除，等它被删除时它自己的清理就不会运行。布置方式同 "
        "`[gone-unseen]`，然后在 operator 被冻结期间（它已发出的请求先得到应答）创建后继者并给它加上"
        "我们的 finalizer，使它的下一轮开始时后继者已经存在。这一轮必须"
        "实时读取 ModelService 并就此停下：读取之后不写 ModelService，也不写子对象（proxy 日志，被拒绝的"
        "写入也算）。",
    ),
}
