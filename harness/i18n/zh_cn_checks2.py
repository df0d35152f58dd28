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
        "的部分在其后：它让被接纳的 ModelService 收敛（其中一个的未知字段被裁剪掉，"
        "另一个省略了所有可选字段），自己保持运行，而且 API server 除了 409 "
        "之外不拒绝它的任何请求（依据审计日志或它的 API proxy 判断，而不是它自己的日志）。",
    ),
    "check:child-conflict:teaches": (
        "1d4e5a93e5",
        "名字不等于所有权。仅仅因为名字对得上就接管一个对象，会让两个控制器为它争斗，"
        "或者悄无声息地劫持别人的工作负载。控制器改为报告这个冲突（Ready=False、"
        "Progressing=False、reason ChildConflict，message 中指明那个子对象），并持续检查"
        "（每 5 s 一次，每次一条 Warning ChildConflict：本场景在 operator 平静之后等到两条）；"
        "等另一个所有者的 Deployment 被移除后，它再创建自己的。",
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
    "check:external-effect-once[server-error-id]:why": (
        "f9ba781526",
        "external-effect-once[server-error-id]：catalog 对 generation 1 的第一次注册回答 500，"
        "回答体里带着一个 id，却什么也没有记录（它的存储在选好 id 之后失败了）。只有带 id 的 200 "
        "或 201 才是一次注册（CONTRACT.md 的“The model catalog”）：operator 用同一个 key 重试，"
        "catalog 记录下它，status 指向记录下来的那次注册，而绝不是失败回答里的 id。然后像其他场景"
        "一样杀掉并重启 operator，此时 generation 1 已没有什么需要注册的了。不管状态码、只要有 id "
        "就采信的 operator（变异体 trusts-failed-registration、trusts-failed-registration-go）"
        "会写下失败回答的 id，而 catalog 里没有 generation 1 的任何效果。",
    ),
    "check:external-effect-once[status-conflict]:why": (
        "34a4d13099",
        "external-effect-once[status-conflict]：记录 catalog 回答的那次 status 写入得到 409 "
        "Conflict 的回答（由 API proxy 给出，没有被转发），就像缓存落后时那样；下一次 "
        "reconcile 会再次注册 generation 1。在请求标识相同的情况下，catalog 不记录任何新东西。"
        "然后像其他场景一样杀掉并重启 operator，此时 generation 1 已没有什么需要注册的了。",
    ),
    "check:noop-stable[rewritten-values]:teaches": (
        "06c6960abe",
        "API server 在存储子对象时会改写某些合法的值："
        "它把每个资源数量向上取整到千分之一的整数倍（1.5m 存为 2m，1e-4 存为 1e-3）；"
        "同一个值的其他写法（0.5Gi、536870912）无论存成哪种形式，按值比较都相等。"
        "用用户的值去比较期望的 Deployment 和存储的 Deployment 的 operator，会在每次 reconcile "
        "时都发现差异，于是永无止境地更新 Deployment，还附带一个 Event。这里 ModelService "
        "的资源取自 CRD 接受的那些写法（带种子抽取，所以两个实现拿到的一样），CPU request "
        "总是一个 API server 会取整的值；operator 必须在这些写法上收敛（这一点是判定的：CRD "
        "接受每一个，API server 也存储每一个），而存储的 Deployment 至少有一个值的写法与之不同，"
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
        "00a6ccee29",
        "status.conditions 是一个以 type 为键的 map（CRD 声明它为 x-kubernetes-list-type: map）"
        "，而 Kubernetes API 约定允许多个控制器在同一个对象上报告，各自使用自己的 condition "
        "类型：审计工具、策略引擎、发布工具。从零构建这个列表（“正好是我的两个”）的 operator，"
        "会在下一次写 status 时抹掉其他的，然后两个控制器便永远争斗下去。这里另一个写入者通过 "
        "status 子资源加上一个 `Audited` condition；operator "
        "随后必须什么都不写（这个事件引起的 reconcile 没有东西要改），而在一次 spec 变更（"
        "generation 2）之后——它确实会让 operator 写 status——`Audited` 必须仍然在那里，"
        "逐字节不变，连时间戳也一样。"
        "`Audited` 存在最前面，在 Ready 和 Progressing 之前，status 为 True（与其中一个相同：发布进行中时是 Progressing，完成后是 Ready），并带着自己的时间：按位置或按 status、而不是按 type 查找自己存储的 condition 的 operator，会把 `Audited` 的 lastTransitionTime 当成自己的，所以它的 condition 的时间必须与 `Audited` 到来之前完全一样。"
        "另一个外来的 condition `Scaled` 存在最后，在 Ready 和 Progressing 之后："
        "在自己的第一个 condition 处就停止合并的 operator 会把它丢掉。",
    ),
    "check:events-recorded:teaches": (
        "57f0abe7ae",
        "用户首先看的是 ``kubectl describe``：它的 Events 部分是控制器说明自己做了什么（"
        'Created Deployment "web"）以及什么阻止了它（一个外来的 Deployment 挡了路，一个拒绝 '
        "create 的 ResourceQuota）的地方。只写日志的控制器在那里一声不吭。"
        "但每次遇到同一个问题都写一个新 Event 的控制器，会淹没 etcd 和 describe 的输出："
        "client-go 的 recorder 把重复计入已有的 Event（count、lastTimestamp），并对每个对象的 "
        "Event 限速。这里一个 ModelService 被创建、扩容（它的 Deployment 被更新："
        "UpdatedDeployment，一次）并删除，第二个发现它的名字下有一个外来的 "
        "Deployment，第三个因为 ResourceQuota 一个都不允许而无法创建它的 Deployment；Event 以 "
        "admin 身份读取。每个 Event 的 involvedObject 像 client-go 的 reference 一样指明它的 "
        "ModelService（kind、apiVersion、namespace、name、uid 以及它所针对的 resourceVersion），"
        "Event 的名字是 ``<name>.<unix 纳秒，十六进制>``。被拒绝的 create 本身也会退避，和每个失败的 key 一样（每失败一次翻倍，"
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
    "check:reconcile-isolated:teaches": (
        "711540a4f0",
        "operator 以契约的默认值运行在 harness 的 API proxy 之后，API proxy 把 Deployment "
        "``slow`` 的 create 扣住最多 30 s（SLOW_HOLD_S），就像一个慢 webhook 那样。"
        "这次写入一被扣住，就创建另外八个 ModelService。"
        "这八个中的每一个都必须在被扣住的写入得到回答之前收敛：界限是那个慢对象自己的扣留时间，"
        "而不是 harness 的时钟（这八个大约一秒就会收敛，检查一看到全部八个就释放扣留；"
        "它先读取它们、后读取扣留状态，所以“之前”是被证明了的）。只有一个 worker 的 operator "
        "要等慢对象的写入返回后才 reconcile 它们：每当有一个对象很慢，就是 30 s。然后 ``slow`` "
        "也必须收敛。",
    ),
    "check:reconcile-isolated[lost-answer]:teaches": (
        "dfd0346cf2",
        "operator 以一个 worker 和 3 s 的请求超时运行（REQUEST_TIMEOUT_SECONDS，契约的输入；"
        "默认值为 35 s）。API proxy 把 Deployment ``slow`` 的 create "
        "扣住的时间比检查持续的时间还长（LOST_HOLD_S），相当于一个在路上丢失的回答；"
        "其间创建另外八个 ModelService。operator 必须在大约 3 s 后放弃这个 create（一个错误，"
        "requeue），然后它的 worker 在超时加 15 s（LOST_ANSWER_BOUND_S）之内让这八个收敛。"
        "没有请求超时的客户端会一直等待回答，直到 proxy 放手为止，它唯一的 worker "
        "也随之一起等待。然后 ``slow`` 也必须收敛（operator 放弃这个 create 之后，proxy "
        "就会转发它）。",
    ),
    "check:leader-failover:teaches": (
        "d13d7508ee",
        "两个同时活跃的实例会互相抢着写入，并让每个副作用都发生两次，所以 operator "
        "的多个副本通过一个 Lease 选出 leader。崩溃的 leader 无法声明自己已经不在了："
        "其他实例必须等它的 lease 过期，但不能更久。有意停止的 leader 应该立即交接，即释放 "
        "Lease，而不是在每次滚动更新时让控制器在整整一个 lease 时长里群龙无首。"
        "每个实例都使用自己的客户端证书运行（同一个用户，各自的 group），因此 API server "
        "的审计日志能说明每次写入是哪个实例做的。直到 leader 被杀掉之前，Lease 一直保持它的第一个"
        "持有者和它的 leaseTransitions：standby 从不拿走持有者仍在续约的 Lease（变异体 "
        "takes-live-lease、takes-live-lease-go），而在 leader 被杀掉之后，按 API server 的时钟，"
        "standby 最早在死去的 leader 最后一次续约加上 lease 时长之后才拿走 Lease（变异体 "
        "shortens-lease、shortens-lease-go）；被 SIGTERM 停止的 leader 在日志里说明它释放了 "
        "Lease（msg ``Released Lease``，两个 operator 用词相同；变异体 release-unreported、"
        "release-unreported-go）。",
    ),
    "check:leader-failover[partitioned-leader]:teaches": (
        "67d1adccc5",
        "是谁写的，由 API server 判定：每个实例都有自己的客户端证书（同一个用户，各自的 group）"
        "，审计日志把每次写入归到某一个实例名下。分区愈合之后，新 leader 让一次变更收敛；"
        "然后它被杀掉，所以它的 Lease（30 s）仍被持有，没有任何实例可以写入，而 spec "
        "又变了一次：从愈合起，旧 leader 的任何写入都是僵尸的写入。",
    ),
    "check:leader-failover[release-conflict]:teaches": (
        "1ffda508b2",
        "释放就是读一次 Lease，然后做一次清空其 holder 的 update。被关闭过程取消的一次续约，"
        "仍可能在那次读取之后到达 API server，这时 update 携带的就是一个过期的 "
        "resourceVersion：409。在这里放弃的 operator 会干净地退出，却让 Lease 仍被持有，"
        "于是每个备用实例都要等完整个 lease 时长（这里是 30 s）才能接管："
        "这正是释放要避免的群龙无首的空档。client-go 对 409 的回应是重新读取并重试（"
        "retry.RetryOnConflict，一共 5 次尝试）。这里 operator 的 API proxy 对 SIGTERM 之后的"
        "前四次 Lease 写入直接回答 409，不转发它们，这正是 API server 在那种竞争中会说的；"
        "operator 退出后，Lease 必须没有 holder（mutant release-gives-up、release-tries-twice "
        "及其 Go 孪生）。",
    ),
    "check:foreign-fields-kept:why": (
        "f154cb59af",
        "子对象中不归 operator 所有的字段保持其他写入者设置的样子，也不引起任何写入；"
        "它拥有的字段如果被人改了，会在一次保留其他字段的写入中恢复。",
    ),
    "check:foreign-fields-kept:teaches": (
        "027e7e3b01",
        "Deployment 和 Service 的写入者不止它们的控制器：service mesh 会加一个 sidecar "
        "容器和环境变量，`kubectl rollout restart` 会在 pod template 上打上 "
        "kubectl.kubernetes.io/restartedAt，管理员会设置 Service 的 sessionAffinity。"
        "把它对子对象的完整构想写进去的 operator（期望的对象，或从零重建的 template），"
        "会在下一次 reconcile 时把它们删掉，另一个写入者又把它们加回来，两者便永远争斗下去；"
        "用户要求的重启也被悄无声息地撤销了。这里 harness 以它自己的用户身份，在收敛后加上这全部"
        "四项，并在 Deployment 上我们的引用之前放一个指向它自己的 ConfigMap 的非 controller "
        "ownerReference（只有 ``controller: true`` 的那个引用说明它是谁的子对象，无论它排在哪里）："
        "它们必须保留，operator 不能向任何一个子对象发送写入。"
        "然后它修改 replicas、operator 容器的镜像和它的 CPU limit：operator 必须恰好用一次成功的 "
        "Deployment update 把三者都恢复，而外来的字段必须在这次 update 之后依然存在。最后，"
        "用户在 ModelService 中调高 CPU limit，并加上 requests（Deployment 原来没有的字段）："
        "Deployment 在一次同样保留它们的 update 中跟上（quantity 按值比较，而一个改变了的值就是一次改变；"
        "收敛之后加到 spec.resources 的字段也是一次改变，而不是一次 panic）。",
    ),
    "check:user-object-kept:why": (
        "3bf599b938",
        "ModelService 是用户的：它的 spec、labels 和 annotations 逐字节保持用户写下的样子，"
        "metadata.generation 保持为 1，operator 写这个对象只是为了加上它的 finalizer，以及通过 "
        "status 子资源写它的 status。",
    ),
    "check:user-object-kept:teaches": (
        "0b45defd95",
        "spec 是用户的请求，labels 和 annotations 是用户（以及其他工具）在它上面做的注记；"
        "`kubectl apply` 会把它们与用户上次 apply 的内容比较。往里面写东西的 "
        "operator（填入一个默认值，一个“managed-by”标签，一条它上次处理了什么的注记），"
        "会让每次 apply 都与 operator 冲突，让 metadata.generation "
        "计数的是它的写入而不是用户的修改，还会让 GitOps 工具报告一个没有人造成的漂移。"
        "这里用户写下 labels、annotations 和一个 spec，用的是 API server 会原样保留的写法；"
        "在收敛和一次 operator 重启（它会重新 reconcile 一切）之后，这三者都必须等于用户 "
        "create 时存储的对象，generation 必须为 1，而 operator 对 ModelService "
        "的写入必须是一次 update（finalizer）和若干 status update，别无其他。",
    ),
    "check:status-rebuilt:why": (
        "0e3aa5eea8",
        "status 是从世界算出来的，而不是记住的：被别人覆盖的 status "
        "会按集群所表明的应有样子重新写入。",
    ),
    "check:status-rebuilt:teaches": (
        "9dc7c68f2c",
        "status 子资源除了 operator 还有别的写入者：一次 `kubectl edit --subresource status`，"
        "一次备份恢复，一个有 bug 的工具，一个被误装的第二个 operator。"
        "通过与它认为自己上次写的内容（进程里的一份记忆）比较来决定是否写 status 的 operator，"
        "看不到任何差异，于是让错误的 status 留在那里，直到 spec 改变或进程重启；"
        "用户和其他控制器随后就依据一个什么都没描述的 status 行事。这里在收敛之后，harness "
        "通过 status 子资源覆盖 status，写入 status 为 Unknown 的 condition、错误的 "
        "observedGeneration 和错误的计数；operator 必须恢复收敛后的 status（时间戳除外）。",
    ),
    "check:status-rebuilt[deployment-status]:why": (
        "97f2c8d96d",
        "status-rebuilt[deployment-status]：仅仅是 Deployment 的 status 发生了变化，没有任何 "
        "spec 的变化，也没有 operator 的写入，这个变化也会反映到 ModelService 的 condition 上。",
    ),
    "check:status-rebuilt[deployment-status]:teaches": (
        "40fc8a6ad9",
        "deployment 控制器只写 Deployment 的 status 子资源：Deployment 的 generation 不变，"
        "operator 写过的任何东西也不变。只在写了子对象时、或只在某个 generation "
        "变化时才重新计算 status 的 operator，永远不会报告一次滚动发布的完成。envtest 没有 "
        "deployment 控制器，所以 harness 像它那样写 Deployment 的 status（observedGeneration = "
        "generation）：先是滚动发布的最后一步，两个新 pod 之外还有一个旧 pod 正在终止（spec 要 2 个，"
        "实有 3 个：Ready=False，ReplicasUnavailable），然后是一次已被观察到、尚未完成的从 4 个的缩容"
        "（spec 要 2 个，4 个副本已更新且全部可用：正如 kubectl rollout status 所说，这已完成，"
        "所以 Ready=True，ReplicasAvailable），然后所有副本都可用（Ready=True，"
        "ReplicasAvailable），然后丢失一个（Ready=False，ReplicasUnavailable）。operator "
        "必须跟上每一步，带着计数（replicas、readyReplicas、availableReplicas 从 Deployment 的 "
        "status 复制，而不是从 spec 取：在 envtest 上没有别的检查让它们离开 0），其间不写任何子对象。",
    ),
    "check:finalizer-ordered-delete[spec-while-deleting]:why": (
        "69329a196e",
        "finalizer-ordered-delete[spec-while-deleting]：在 ModelService 正被删除时修改的 spec，"
        "不会改变任何子对象，也不会重新创建任何子对象。",
    ),
    "check:finalizer-ordered-delete[spec-while-deleting]:teaches": (
        "04a818685b",
        "删除一旦开始，spec 就不再说明应该运行什么：对象正在离开，它的 finalizer "
        "只负责安排清理的顺序。update 仍然是允许的（用户的一次 apply，一个升级镜像的工具），"
        "而把它们滚动发布出去的 operator，不管是否在删除，都会重新创建它刚删除的子对象，"
        "与它自己的清理作对。这里 ModelService 和它的 Deployment 都带着 harness 自己的一个 "
        "finalizer，所以删除一直在进行中：operator 删除两个子对象，Deployment 留着（正在删除，"
        "被扣住），operator 的 finalizer 也随之留着。然后 harness 修改 replicas 和镜像；"
        "在变更之后 operator 的三次清理过程中（每次都是在它的 API proxy 上对 Deployment "
        "的一次实时读取），它不能创建或更新任何子对象。Deployment 被放行、operator 的 "
        "finalizer 消失之后，第二次 spec 变更也不能带来任何子对象（窗口在 operator 完成 "
        "reconcile 后它的 API proxy 安静下来时关闭，如果它不再查看一个它已不持有的 "
        "ModelService，则在变更后 REACT_TIMEOUT 时关闭）。",
    ),
    "check:deletion-policy[orphan]:teaches": (
        "2745d56524",
        "删除请求带着一个传播策略，API server 把它作为垃圾回收器的一个 finalizer 记录在对象上："
        "`orphan` 的意思是“保留依赖对象，去掉它们的 ownerReferences”。finalizer "
        "总是删除子对象的 operator，会拆掉用户要求保留的工作负载（为了把它交给另一个所有者，"
        "或者在不停机的情况下重新创建 ModelService）。它也必须不碰垃圾回收器的 finalizer："
        "移除它是垃圾回收器的工作。在这个 envtest tier 上没有垃圾回收器，所以 ModelService "
        "一直留着，处于删除中，恰好带着 `orphan` 这一个 finalizer；在它留着期间，"
        "被手工删除的子对象不能被重新创建。在有垃圾回收器的 tier（sim）上，删除会完成："
        "ModelService 消失，子对象保留下来，它们的 ownerReferences 被垃圾回收器去掉；再次 "
        "apply 同一个 ModelService 就会接管它们（UID 相同，带上它的 controller ownerReference，"
        "不创建也不删除：正是 child-conflict[adopt-ownerless] 在 envtest 上布置的场景）。",
    ),
    "check:deletion-policy[foreground]:teaches": (
        "457984823d",
        "Foreground 删除会在对象上加上垃圾回收器的 `foregroundDeletion` finalizer："
        "垃圾回收器删除那些阻塞其所有者删除的依赖对象，然后移除这个 finalizer。operator "
        "可以像平常一样自己删除它的子对象，但 `foregroundDeletion` finalizer 不该由它来移除："
        "清除所有 finalizer 的 operator，会在删除的其他参与方还没完成时就结束这次删除。在 "
        "envtest 上（没有垃圾回收器），ModelService 留着，恰好带着那一个 finalizer，"
        "子对象已经消失；在有垃圾回收器的 tier（sim）上，它会消失，子对象也一样。",
    ),
    "check:finalizer-ordered-delete[lagging-cache]:teaches": (
        "8c3304098d",
        "informer 缓存由一个 watch 供给，落后于 API server，operator 自己的写入也不例外。"
        "一个刚创建就被删除的 ModelService 进入清理时，缓存可能还没有 operator 刚创建的 "
        "Deployment 和 Service；信任缓存的 operator 会移除它的 finalizer，ModelService 消失，"
        "而它的子对象被留下，由一个已不存在的 UID 控制（在没有垃圾回收器的集群上，永远如此），"
        "同名的后继者则会报告 ChildConflict。这里让这场竞争必然发生，而不是碰运气：operator "
        "通过 harness 的 API proxy 与 API server 通信，API proxy 扣住 Deployment 和 Service "
        "的每一个 watch 事件，所以缓存永远不会得知这些子对象；GET、LIST 和写入照常通过。"
        "两个子对象都存在后，ModelService 被删除。只要它们还在，finalizer 就不能消失；"
        "之后（事件被放行）一个同名的新 ModelService 必须收敛。",
    ),
    "check:finalizer-ordered-delete[child-finalizer]:teaches": (
        "ea88f4a4ee",
        "删除是一个请求，而不是一个事件：带 finalizer 的子对象（一个备份钩子，"
        "对它自己的依赖对象的一次 foreground 删除）会得到一个 deletionTimestamp，"
        "并一直留到那个 finalizer 消失。在 envtest 上，没有 finalizer 的子对象一被删除就消失，"
        "所以“删除，然后在同一轮里移除我的 finalizer”在那里看起来没问题，"
        "但在真实集群上会把子对象留在它已消失的所有者身后。"
        "每一轮都再删一次子对象则是相反的错误：每秒一次毫无意义的写入。这里 ModelService "
        "被删除时，Deployment 带着另一个控制器的 finalizer；在几轮清理过程中，ModelService "
        "必须保留它的 finalizer，Deployment 恰好被删除一次；等另一个 finalizer 消失，"
        "ModelService 也随之消失。",
    ),
    "check:parity:teaches": (
        "7bbd75bca2",
        "两个声称实现同一个 API 的控制器必须可以互换："
        "从一个换到另一个的用户必须看到同样的子对象和同样的 status，"
        "否则建立在其上的每一个工具（仪表盘、告警、GitOps diff）都会出问题。"
        "同样的输入交给两者，各自在自己的 namespace 里；"
        "输出在去掉那些必然不同的部分后进行比较（uid、resourceVersions、时间戳、managedFields "
        "以及随之而来的 field manager 名字、namespace、分配的 cluster IP）。",
    ),
    "check:rbac-least-privilege:teaches": (
        "9bc38791b3",
        "operator 是一个持有凭据的长期运行的进程：它能做什么，接管它的攻击者就能做什么。只授予 "
        "reconcile 循环需要的权限（它自己的资源、status 和 finalizers；它的子对象；Lease；"
        "Event），并且只限于它 watch 的那一个 namespace，就能限制这种损害。"
        "这里探测这个用户必须有和绝不能有的权限（Secret、其他 namespace、集群范围），"
        "真正发出一个被拒绝的请求，展示控制平面会拒绝一个没有所有者 finalizers 权限的用户设置 "
        "blockOwnerDeletion（OwnerReferencesPermissionEnforcement 准入插件，"
        "这个权限正是为它而设），并运行一个完整的周期（获取 Lease、创建、收敛、"
        "修复被手工修改的子对象、删除、续约 Lease），operator "
        "的请求没有一个被拒绝（审计日志中它的用户没有 403；检查在第一个 403 处就失败，"
        "这使它成为 RBAC 消融的快速见证）。这些探测检验的是 harness 绑定的 Role 和控制平面，"
        "是本检查的前提；operator 的部分是那个周期：它的工作全部完成，没有任何请求被拒绝。",
    ),
    "check:rbac-least-privilege[stops-while-refused]:teaches": (
        "e9b364261e",
        "RoleBinding 放错了 namespace，或者 CRD 还没安装，这是常见的第一次部署：operator 的 "
        "informer 发出 list，得到 403（或 404），然后带退避地永远重试，"
        "进程一直等待那些永远不会同步的缓存。它仍然必须服从 SIGTERM：修正绑定的那次滚动发布，"
        "或者 `kubectl delete`，都会发出一个 SIGTERM，而忽略它的 operator 每次都会在宽限期后被 "
        "SIGKILL。controller-runtime v0.22 的 manager 在收到信号后仍继续等待它的缓存；这时 Go "
        "operator 会自己停下来。这里 operator watch 的 namespace 里，它的 role "
        "不给它的用户任何权限，一旦它的 API proxy 看到一次 list 被拒绝，就向它发送 "
        "SIGTERM。",
    ),
    "check:ready-with-kwok:teaches": (
        "e2ff19affd",
        "`progressing-without-kubelet` 在 envtest 上展示了 status 契约的另一半，那里从来没有 "
        "Pod 运行。这里 kube-scheduler 把 Pod 绑定到 kwok 的假节点上，kwok 把它们标记为 "
        "Running 和 Ready，deployment 控制器在 Deployment 的 status 中计入它们，而 operator "
        "必须得知这次 status 变化（一个 generation 没有变的子对象的事件），并把它复制到 "
        "ModelService 中。只读取自己写入的内容、或按 generation 过滤子对象事件的 operator，"
        "永远不会变成 Ready。ModelService 经历过的状态是从 API server 的 watch 历史中读回来的，"
        "所以滚动发布期间短暂的 Progressing=True即使只持续了几毫秒也会被看到。",
    ),
    "check:garbage-collected:teaches": (
        "542ffcd316",
        "finalizer 是 operator 的承诺，但集群还有第二道防线：每个子对象都带着一个指向它的 "
        "ModelService 的 UID 的 ownerReference，垃圾回收器会删除所有者已不存在的依赖对象。这里 "
        "operator 被停住，有人去掉 finalizer 并删除 ModelService（它立即消失），"
        "然后创建一个同名的新 ModelService，这一切都发生在 operator 被冻结期间（SIGSTOP："
        "它保留着自己的内存，却什么都看不到）。解冻后，它不能相信自己创建过名为 `web` "
        "的子对象的记忆：垃圾回收器已经移除了它们，它要为后继者创建后继者自己的子对象，"
        "由后继者的 UID 控制。",
    ),
    "check:namespace-deleted:teaches": (
        "8bfc5ff06e",
        "finalizer 会阻塞 namespace 的删除，直到它被移除。如果 operator "
        "的清理需要某个正在终止的 namespace 会拒绝的东西（在那里创建任何新对象都是被禁止的），"
        "它就永远不会移除 finalizer，namespace 便永远停留在 `Terminating`，"
        "这是一张经典的支持工单。operator 的 RoleBinding 也在这个 namespace 里；harness "
        "用它自己的一个 finalizer 扣住它，直到 ModelService 都消失（就像一个集群范围的绑定会比 "
        "namespace 活得更久那样），然后才放开它。",
    ),
    "check:status-follows-rollout[played-rollout]:teaches": (
        "4f829c4e94",
        "一个 4 副本的 ModelService 改了镜像之后，检查扮演 deployment 控制器（envtest 上没有）"
        "：它通过 status 子资源写 Deployment 的 status，一步步走过一次滚动更新（4 个副本中有 2 "
        "个已更新，而 4 个都可用；一个旧副本仍在终止；新副本没有全部可用；完成），每写一次，"
        "就在 operator 完成 reconcile 并平静下来后读一次 ModelService。只凭 availableReplicas "
        "判断的 operator，会在旧 pod 仍在提供服务时就说 Ready=True `RolloutComplete`，"
        "改镜像之后的 `kubectl wait --for=condition=Ready` 也就返回得太早。最后，"
        "第二次镜像变更停滞了：Deployment 的 Progressing condition 变成 False "
        "`ProgressDeadlineExceeded`，ModelService 必须说 Progressing=False "
        "`ProgressDeadlineExceeded` 并带上 Deployment 的 message，"
        "而不是说一个没有任何东西会去完成的滚动发布仍在进行中。停滞的 status 先列 Deployment 的 "
        "Available condition，再列 Progressing，正如 deployment 控制器排列它们那样：把第一个 "
        "condition 当作 Progressing 来读的 operator 会错过这次停滞。",
    ),
    "check:status-follows-rollout[stalled-rollout]:teaches": (
        "201389609d",
        "一个 2 副本的 ModelService 在 kwok 的节点上滚动发布；检查给它的 Deployment "
        "设置一个几秒钟的进度期限（operator 留给别人的一个字段），然后把 ModelService "
        "的资源改成一个没有任何节点能容纳的 CPU request。新 pod 一直 Pending，而两个旧 pod "
        "都保持可用（maxUnavailable 向下取整为 0），期限过后，deployment 控制器把它的 "
        "Progressing condition 设为 False `ProgressDeadlineExceeded`。凭可用性判断的 operator "
        "自始至终都说 Ready=True（2 个中 2 个可用），而忽略期限的 operator 则永远说 "
        "RolloutInProgress。ModelService 必须说 Ready=False 和 Progressing=False "
        "`ProgressDeadlineExceeded`，并带上 Deployment 的 message。",
    ),
    "check:refused-write-reported[invalid-update]:teaches": (
        "0bd016ed1a",
        "ModelService 被修改，使它的 Deployment 变得无效（requests 超过 limits）：API server "
        "以 422 Invalid 回答 operator 的 update。如果不报告，这次拒绝就只出现在日志和一个 "
        "Event 里，而 status（它的 condition 还是上一个 generation 的）会说一切正常。status "
        "必须说 Ready=False 和 Progressing=False `FailedUpdate`，`observedGeneration` 为当前的 "
        'generation，并带上 Warning Event 的 message（`Failed to update Deployment "web": <the '
        "server's message>`）。拒绝持续期间，operator 以限速的退避重试，而它只写一次 status，"
        "不是每次重试都写。然后 spec 被修正：下一次 reconcile 写入 Deployment，并在 status "
        "中替换掉这次拒绝。",
    ),
    "check:refused-write-reported[admission-refused-create]:teaches": (
        "3b58472de8",
        "一个 ValidatingAdmissionPolicy 以 403 Forbidden 拒绝这个 namespace 中的每一次 "
        "Deployment create，message 的长度超过了 condition 能容纳的长度（32768 个字符）。"
        "如果不报告，新的 ModelService 就根本没有 status。如果报告时把 message 整个复制过去，"
        "status 写入本身就会被 CRD 的上限拒绝，报告也随之丢失。status 必须在 generation 1 时说 "
        "Ready=False 和 Progressing=False `FailedCreate`，Event 的 message（`Failed to create "
        'Deployment "web": <the server\'s message>`）截断为 32768 个字符，以 ` ... [truncated]` '
        "结尾。策略一旦移除，重试（仍在退避中）就会创建 Deployment，拒绝也从 status 中消失。",
    ),
    "check:refused-write-reported[two-causes]:teaches": (
        "399915464c",
        "新 ModelService 的 limits 让 Deployment 同时在两处无效（两个小数的扩展资源，一个 GPU 和一个 "
        "FPGA；负数的量 CRD 自己就会拒绝）：API server 以 422 和两个 cause 拒绝 create。它通过遍历 limits（一个 "
        "Go map）找到这两个原因，所以 message 中原因的顺序每次尝试都重新抽取。把这个顺序照抄进 "
        "condition message 的 operator，在很多次重试中会算出不同的 status 并每次都重新写入，两个 "
        "operator 最后的 message 也不同。status 必须在 generation 1 时说 Ready=False 和 "
        "Progressing=False `FailedCreate`，message 是 Event 的 message，其中的原因列表按排序后的"
        '顺序（CONTRACT.md，"A refused child write"），并且在重试退避期间只写入一次。',
    ),
    "check:vanished-owner[dead-owner-child]:teaches": (
        "71259c7a57",
        "名字在任一时刻都是唯一的，而 UID 从不重用，所以当 ModelService ``web`` 存在时，"
        "一个由另一个 ModelService ``web`` 控制的 ``web`` 子对象，属于一个已经消失的 "
        "ModelService：它是某一轮没能完成清理的过程留下的（``[finalizer-race]`` 的竞争再加上 "
        "operator 在 status update 之前被杀掉，或者一个根本不做清理的 operator）。"
        "这里手工布置这种情况：一个已收敛的 ModelService 在 operator 停机期间失去它的 "
        "finalizer 并被删除，它的子对象留了下来（envtest 没有垃圾回收器；在 sim "
        "上垃圾回收器会带走它们，这个场景展示的是后继者的收敛），然后创建一个同名的后继者。"
        "后继者的子对象是新的对象：已消失的 ModelService 的子对象被删除，绝不会被 update "
        "成后继者的（UID 不变，controller ownerReference 被改写）——按 owner 的 kind 或名字"
        "来认自己子对象的 operator 就会这样做。"
        "由其他任何东西控制的子对象仍然是 ChildConflict（``child-conflict``；由另一个活着的 "
        "ModelService 控制的：``child-conflict[other-modelservice]``）。",
    ),
    "check:child-conflict[other-modelservice]:why": (
        "f891d11b46",
        "child-conflict[other-modelservice]：由另一个活着的 ModelService（另一个名字、另一个 "
        "UID）控制的同名 Deployment 和 Service 不是我们的：operator 的任何请求都不写它们，"
        "status 报告 ChildConflict，删除我们的 ModelService 之后它们保持原样。",
    ),
    "check:child-conflict[other-modelservice]:teaches": (
        "83cab1a479",
        "决定什么是我们的，是 controller ownerReference 的 UID（CONTRACT.md，“Ownership”），"
        "而不是 owner 的 kind：``child-conflict`` 布置的子对象由一个 ConfigMap 控制，"
        "一个只问“controller 是不是 ModelService？”的 operator 同样会放过它。"
        "这里 ModelService ``other`` 存在，并控制着一个 Deployment ``web``（带着我们的 "
        "selector 标签，因此它与我们的 Deployment 在 Mutate 需要替换的字段上毫无区别）和一个 "
        "Service ``web``；然后创建 ModelService ``web``。operator 的写入从它的 API proxy "
        "读出：无论是在 ``web`` 的 reconcile 里，还是在 harness 删除它之后的清理里，"
        "都不能有一次写入指向这两种 ``web``；两个子对象都保持它们的 UID 和 resourceVersion"
        "（有 deployment controller 运行的地方，比较 Deployment 被写入的字段）。",
    ),
    "check:waits-for-crd:why": (
        "6bc6fb4bd2",
        "在 CRD 安装之前启动的 operator 会等待它：以不断增长的 backoff 重试，保持存活，"
        "并在 CRD 被 apply 之后收敛，无需重启。",
    ),
    "check:waits-for-crd:teaches": (
        "b214cfcaa4",
        "在一个私有的控制平面上，harness 先删除 ModelService 的 CRD，提供一个同 group、同版本的"
        "诱饵 CRD（``modeldecoys.modeldock.io``：对 modeldock.io/v1alpha1 的 discovery 回答 200，"
        "但其中没有 modelservices），再启动 operator（不等待 /readyz，它不可能就绪）。它在 API proxy 上属于 API group "
        "``modeldock.io`` 的请求（discovery，或一次 list）就是它的尝试：检查一直观察，"
        "直到它已尝试五次、且距第一次至少过去了五秒，或者它退出了。此时判定：进程仍在运行并应答 "
        "/healthz；每次尝试都是 discovery，没有一次是对某个资源的 list 或 watch（它的 informer 要等到 "
        "modelservices 出现）；它确实再次询问了（至少五次）；间隔在增长（前五次中最后一个间隔至少是第一个的两倍）；"
        "而且它的尝试次数不超过契约的 backoff（0.8 秒起翻倍，上限 30 秒）在它所用的时间跨度内"
        "允许的次数再加三（``allowed_attempts``），第五次之前的等待总和也不超过契约前四次等待（12 秒）"
        "再加四分之一和五秒（``contract_waits``）。然后 apply CRD 并创建一个 ModelService："
        "它要在 backoff 的上限加上通常的时限内收敛，operator 从未退出，而且它的日志里除了 reconcile "
        "自己的错误（``Reconciler error``：缓存过期带来的 409 很平常）之外没有 error 级别的行：它的启动和等待"
        "都没有失败。退出的 operator（变异体 exits-without-crd、"
        "exits-without-crd-go）、每 50 毫秒重试一次的 operator（hot-retries-crd、"
        "hot-retries-crd-go）、从 1.6 秒起退避、晚了一次翻倍的 operator（slow-crd-backoff、"
        "slow-crd-backoff-go）、把诱饵的 group 版本当成自己 CRD 的 operator（served-by-group、"
        "served-by-group-go），或把等待的结束记成错误的 operator（wait-end-error、"
        "wait-end-error-go）都会失败。",
    ),
    "check:waits-for-crd[signal-while-waiting]:why": (
        "d7490df441",
        "waits-for-crd[signal-while-waiting]：正在等待 CRD 的 operator 收到 SIGTERM 后会停止，"
        "退出码为 0，只需几秒：这个等待无论 backoff 多长，都在监听信号。",
    ),
    "check:waits-for-crd[signal-while-waiting]:teaches": (
        "a9ba544b81",
        "在 CRD 仍然缺失的时候，operator 的 Deployment 的一次滚动更新或一次删除照样会发出 "
        "SIGTERM；一个不监听它的等待会一直占着 Pod，直到 kubelet 在宽限期（默认 30 秒）之后"
        "用 SIGKILL 杀掉它，每次滚动更新都是如此。在一个没有 CRD 的私有控制平面上启动 operator，"
        "检查等到它在 API proxy 上的第二次尝试（于是它正处在等待之中，睡在一次 backoff 里），"
        "发送 SIGTERM，并允许 WAITING_STOP_S（10 秒，契约对缓存同步之前到来的信号给出的时限）。"
        "两个 operator 都在半秒之内以 0 退出；一个睡眠时不监听的等待"
        "（变异体 deaf-while-waiting-crd、deaf-while-waiting-crd-go）永远不会返回。",
    ),
    "check:errors-retried[retry-after]:why": (
        "bf5ce13de0",
        "errors-retried[retry-after]：一个说明了何时再问的回答会被遵守。operator 的 API proxy "
        "对它给 ModelService ``web`` 加 finalizer 的 update 回答 500 InternalError，"
        "对创建 Deployment ``web`` 的请求回答 429 TooManyRequests，对创建 Service ``web`` "
        "的请求回答 503 ServiceUnavailable，三者都带 ``Retry-After: 2``。operator 针对该对象的"
        "下一个请求到达 proxy 的时间，必须不早于这个回答之后 2 s（以 proxy 的时间戳为准）；"
        "不能有任何 Warning Event 提到这些回答（client 自己重新发送了请求：reconcile 根本没看到"
        "它们）；并且 ModelService 必须收敛，子对象恰好是期望的那些。",
    ),
    "check:errors-retried[retry-after]:teaches": (
        "e82b0e54c3",
        "client-go 的 REST client 自己就会这样做（rest.Request"
        "，v0.34）：一个 429 或 5xx 回答，只要带有以整秒表示的 Retry-Aft"
        "er，就会在等待那么多秒之后被重新发送，最多 10 次，都在该请求自己的超时之内；rec"
        "oncile 根本看不到它。把这个回答当作普通错误的 operator，会在几毫秒之后通"
        "过 work queue 重试，而服务器刚刚请它安静两秒：在真正过载时，这恰恰是 pri"
        "ority and fairness 正在设法削减的流量。",
    ),
    "check:errors-retried[server-error]:why": (
        "807905388a",
        "errors-retried[server-error]：一个不带 Retry-Afte"
        "r 的 5xx 会被带着退避重试，直到成功。operator 的 API proxy 对"
        "它最先十次写 ModelService（finalizer update，第 3 步）轮"
        "流回答 500 InternalError 和 503 ServiceUnavailab"
        "le，不带 Retry-After，第十一次才放行。operator 必须在每次之后重试"
        "，每次重试都不早于 work queue 的退避所安排的时间（第一次失败后 5 ms，每"
        "次失败翻倍，在 proxy 的时钟上从回答算到下一次尝试），并且收敛，子对象恰好是期望的"
        "那些。"
        "每个 503 都是不带 details 的裸 Status，就像 API server 自己的 503（apimachinery 的 NewServiceUnavailable）那样；一个用每个回答的 details 来措辞 Warning 的 operator 会在它上面 panic（no-panic oracle，harness/panics.py）。"
        "成功会重置这个 key 的退避：稳定之后，它的 status 被改写，operator 恢复它的那次 status "
        "update 也被回答 500，它的重试必须在 1 s 内到来（第一次失败后 5 ms），而不是等到连续第十一次"
        "失败才会等的 5.12 s。",
    ),
    "check:errors-retried[server-error]:teaches": (
        "e42d04db32",
        "client-go 把不带 Retry-After 的 5xx 作为 reconcile"
        " 的错误交回，由带限速的 work queue 重试这个 key：别的什么都不会把它带回"
        "来，因为失败的写入什么也没改变，不会有随之而来的 watch 事件。正因如此才选了 fi"
        "nalizer update 这次写入：在它之前还没有任何子对象，所以不会有子对象的事件"
        "引发额外的 reconcile，看到的每一次尝试都是退避安排的重试。丢掉错误的 oper"
        "ator 永远不会收敛；以固定短间隔重试的 operator，一旦翻倍的退避超过这个间隔"
        "，就会来得太早。",
    ),
}
