"""Simplified Chinese of the checks' texts (``check:<testcase>:why``/``:teaches``, from the
conformance tests' docstrings) and of the mutants' titles (``mutant:<id>:title``, from
harness/mutants/mutants.toml). Keys and hashes as ``harness.i18n`` describes; a text not
here is shown in English (``python -m harness.i18n`` lists them)."""

from __future__ import annotations

#: key -> (the English text's hash, harness.i18n.text_hash; the translation)
ENTRIES: dict[str, tuple[str, str]] = {
    "check:create-converges:why": (
        "9a740a57ef",
        "新建的 ModelService 收敛到契约所描述的那些子对象和 status，不多也不少。",
    ),
    "check:noop-stable:why": (
        "09622ef7ce",
        "没有东西要改的 reconcile 什么也不写。",
    ),
    "check:noop-stable:teaches": (
        "5b6783532e",
        "level-triggered 的控制器会频繁地 reconcile：重"
        "启后它会重新 list 并 reconcile 每一个对象，而任何事件（"
        "有人加了一个 annotation，它自己的一次 status 更新）都"
        "会让整个对象重新走一遍 Reconcile。如果每一次都写点什么——一个"
        "新的时间戳，一次抹掉服务端默认值的完整 Update——每次写入都会引发"
        "下一个事件，控制器就永远安静不下来，给 API server 和 etc"
        "d 增加负担，也掩盖了真正的变化。这里先重启 operator，再加上两"
        "个无关的 annotation；审计日志必须显示 operator 的用"
        "户成功写入次数为零，Event 也算在内（在什么都没改的 reconci"
        "le 上记一个 Event 也是一次写入，而且是一份假报告），metri"
        "cs 必须显示 reconcile 确实运行过，子对象的 resourc"
        "eVersion 也不能变。",
    ),
    "check:progressing-without-kubelet:why": (
        "6d86081298",
        "没有 kubelet，就不会有 Pod 变为可用：status 必须说 "
        "Progressing 而不是 Ready，而且在 condition "
        "的 status 不变时，它的 lastTransitionTime 也"
        "不能变。",
    ),
    "check:stale-update-conflict:why": (
        "159bacb92b",
        "基于旧 resourceVersion 的更新会被以 409 Confl"
        "ict 拒绝，而一个只知道对象 key 的控制器仍然会收敛到最新的 sp"
        "ec。",
    ),
    "check:stale-update-conflict[operator-409]:why": (
        "21d6f997a6",
        "stale-update-conflict[operator-409]："
        "故意让 operator 自己的写入过期，API server 以 40"
        "9 拒绝它，operator 必须从一次新的读取重新计算，而不是重发被拒"
        "绝的对象。",
    ),
    "check:restart-reconverges:why": (
        "9ecb3e0340",
        "在两次写入之间被杀掉的控制器，从世界的实际状态出发把事情做完，而不是从它记住的意图出发。",
    ),
    "check:restart-reconverges:teaches": (
        "d0a1ad6b57",
        "operator 在写完 Deployment 之后、写 Service"
        " 之前被杀掉（crash point after-deployment，"
        "退出码 86）。它停机期间，replicas 改成了 2。level-t"
        "riggered 的控制器重启后，list 现有的东西，计算差异：保留它"
        "建的那个 Deployment（同一个 UID）并把 replicas "
        "设为 2，创建缺少的那一个 Service，什么都不重复创建。重放它死时"
        "的意图（“创建一个 1 副本的 Deployment”）会错上加错。",
    ),
    "check:restart-reconverges[after-finalizer]:why": (
        "738ea08dba",
        "restart-reconverges[after-finalizer]"
        "：operator 在它的 finalizer 写入成功后立即被杀掉（c"
        "rash point after-finalizer），其他什么都还没做"
        "。",
    ),
    "check:child-repaired:why": (
        "5659d234fc",
        "控制器依据子对象自己的事件修复它所拥有的对象上的漂移，无须任何人碰 Mo"
        "delService，并保留其他写入者加上的内容。",
    ),
    "check:finalizer-ordered-delete:why": (
        "65a39dba5a",
        "删除 ModelService 时先删它的子对象、最后移除 finali"
        "zer；即使 operator 在清理中途崩溃，或者删除发生时它正停机，"
        "清理也会完成。",
    ),
    "check:replaced-child-kept:why": (
        "813173b996",
        "清理时，控制器只删除那些 controller ownerReferen"
        "ce 带着它的 ModelService 的 UID 的子对象，而且每次"
        "删除都把这个 UID 作为 precondition。",
    ),
    "check:vanished-owner[finalizer-race]:why": (
        "3d311c7df8",
        "vanished-owner[finalizer-race]：一次 re"
        "concile 的 ModelService 被删除了，尽管它的 fin"
        "alizer 更新得到了 200 的回答；一旦它的 status 更新得"
        "到 404，它就按 UID precondition 删除它刚创建的子对"
        "象；随后同名的后继者正常收敛。",
    ),
    "check:invalid-rejected:why": (
        "2db33a6b8a",
        "行不通的 spec 会被 API server 拒绝，消息里带着字段的路"
        "径，operator 根本看不到它们；未知字段会被裁剪掉。",
    ),
    "check:child-conflict:why": (
        "2f901bc481",
        "另一个控制器拥有的同名 Deployment 永远不会被接管或覆盖；st"
        "atus 会说明这一点，等那个外来对象消失后，控制器再收敛。",
    ),
    "check:child-conflict[adopt-ownerless]:why": (
        "bdc8b3d93e",
        "child-conflict[adopt-ownerless]：带着我们"
        "的 selector 标签、却没有 controller ownerRe"
        "ference 的子对象（``--cascade=orphan`` 留下"
        "的那种），会被同名的 ModelService 接管；没有这个标签的无主"
        "同名子对象则不会。",
    ),
    "check:child-repaired[immutable-selector]:why": (
        "b0c287d15f",
        "child-repaired[immutable-selector]：我"
        "们的 Deployment 的 spec.selector 与期望的不同"
        "时，它会被替换（以它的 UID 为 precondition、propa"
        "gationPolicy Background 删除，再重新创建），而不"
        "是在一个 API server 一直拒绝的循环里反复 update。",
    ),
    "check:noop-stable[rewritten-values]:why": (
        "c533130b1a",
        "“什么都没变”是相对于 API server 存储的内容来判断的，而不是用户写下的内容。",
    ),
    "check:noop-stable[exponent-spelling]:why": (
        "3b1644c411",
        "子对象里的数量就是 API server 为用户的写法存储的文本，一个字节都不差。",
    ),
    "check:noop-stable[long-quiet]:why": (
        "b6c82e649d",
        "无事可做的 operator 会保持安静，时间比任何短窗口都长。",
    ),
    "check:noop-stable[long-quiet-minutes]:why": (
        "d2e102c193",
        "noop-stable[long-quiet]，窗口为 LONG_QUI"
        "ET_FULL 秒（五分半钟）：一个定时写入的频率低于每 30 秒一次、"
        "但至少每五分钟一次的 operator（例如会写 status 的周期性"
        " resync），会在这里失败。",
    ),
    "check:foreign-conditions-kept:why": (
        "632f15004d",
        "operator 只拥有它自己的 condition 类型（Ready、"
        "Progressing）和它计算的 status 字段，仅此而已：另一个"
        "控制器加上的 condition 在每次 status 写入后都原样保留"
        "，它的存在也不会引起任何写入。",
    ),
    "check:create-converges[names-itself]:why": (
        "3daae650f8",
        "operator 报上自己的名字：它发出的每个请求都带着一个属于它自己的"
        " User-Agent 产品名（“/”之前的部分，例如 modeldoc"
        "k-go、modeldock-python），从不使用客户端库的默认值，"
        "例如 OpenAPI-Generator；这样审计日志和 managed"
        "Fields（对于没有指明 field manager 的写入，API "
        "server 会把产品名当作 field manager）就能说明是谁写"
        "的。依据审计日志（operator 用户的 userAgent）和子对象"
        "的 managedFields 判断。",
    ),
    "check:events-recorded:why": (
        "8bc04a4eed",
        "operator 做的每一处改动、遇到的每一个问题，都作为 Event "
        "记录在 ModelService 上，每个实现都一样；重复出现的问题是一"
        "个计数不断增加的 Event，而不是每次一个新的 Event。",
    ),
    "check:watch-recovers[apiserver-restart]:why": (
        "ceec41e03e",
        "watch-recovers[apiserver-restart]：kube-a"
        "piserver 停下（SIGTERM：它的优雅关闭会同时、干净地结束每一个 w"
        "atch 流），又在同一个端口上回来，带着一个新的 watch cache，所以"
        "从旧 resourceVersion 恢复的 watch 可能遇到 410 Go"
        "ne。（连接在流的中途断开属于 connection-cut。）它一回来（ope"
        "rator 还在重连的时候）就做的修改必须被修复：informer 重新 wat"
        "ch（或重新 list），事件送达 Reconcile。operator 必须自"
        "始至终保持运行：API server 暂时拒绝连接是普通的故障，应该带退避地重试"
        "。怎样恢复（从它的 resourceVersion 恢复 watch，或者重新 "
        "list）由实现自己决定：被评判的是在 RECOVERY_BOUND_S 之内完"
        "成修复。",
    ),
    "check:watch-recovers[connection-cut]:why": (
        "84a6a42825",
        "watch-recovers[connection-cut]：opera"
        "tor 与 API server 之间的所有连接都被切断，新连接也会被拒"
        "绝一段时间；其间世界发生了变化。一旦又能连接，operator 必须恢复"
        "它的 watch 并进行修复。切断之后每个资源的第一次 watch 所请求的 resourceVersion，"
        "不得早于切断之前该 watch 送达的最后一个事件（两者都在 operator 的 API proxy 上读取）："
        "watch 从看到的最后一个 resourceVersion 恢复，或者从此后做的一次 list 恢复。",
    ),
    "check:watch-recovers[connection-stall]:why": (
        "7ab4bd6ed7",
        "watch-recovers[connection-stall]：已打开"
        "的连接保持着，却变得沉默：字节被接收，却一个也不转发，就像 NAT 表项"
        "失效或负载均衡器卡住时那样。一个信任已打开 socket 的 watch"
        " 会永远失明。operator 必须察觉这种沉默（HTTP/2 ping"
        "、读超时、watch 超时）并重连，然后修复变化了的东西。",
    ),
    "check:watch-recovers[connection-stall-defaults]:why": (
        "80bd111731",
        "watch-recovers[connection-stall-defa"
        "ults]：使用客户端默认期限的 connection-stall 场景"
        "（client-go：沉默 30 秒后发一个 15 秒的 ping；Py"
        "thon operator：30-60 秒的 watch，socket "
        "读超时比它多 5 秒）。很慢，所以只在 ``--full`` 时运行。",
    ),
    "check:watch-recovers[compaction-410]:why": (
        "e27f84e66b",
        "watch-recovers[compaction-410]：在 ope"
        "rator 看不到的时候，世界发生变化，etcd 在当前 revisio"
        "n 上被压缩，API server 的 watch cache 是关闭的"
        "。随后它的 watch 结束，就像 watch 到了超时那样，opera"
        "tor 从它看到的最后一个 resourceVersion 恢复每个 w"
        "atch：那个版本已被压缩掉，所以 API server 回答 410 "
        "Gone（Expired）。无法恢复：informer 必须重新 lis"
        "t，与它的缓存比较，并送出它错过的东西，包括一个它从未收到过事件的 Se"
        "rvice 的删除，以及期间创建的一个 ModelService（``late``）：只有重新 list "
        "才带来它，它也必须收敛（只通知重新 list 中的变化和删除、不通知其中新对象的 "
        "informer，会让它一直没有子对象）。然后对单独一个 informer 再做两次：Service "
        "``web`` 被删除时 Service 的 watch 过期，然后 ``web`` 被扩到 4 时 ModelService 的 "
        "watch 过期；每次都必须由那次重新 list 自己的删除或更新来修复（所有 informer "
        "同时重新 list 时，每个 owner 反正都会收到一次更新，这会掩盖丢掉其中之一的重新 list）。",
    ),
    "check:reconcile-isolated:why": (
        "42cfc23600",
        "当一个 ModelService 的 Deployment 写入被一个缓"
        "慢的 admission webhook 扣住时，同时创建的其他每个 M"
        "odelService 都会收敛；慢的那个随后收敛。",
    ),
    "check:reconcile-isolated[lost-answer]:why": (
        "c9e40c5589",
        "reconcile-isolated[lost-answer]：一个得不"
        "到回答的请求，会在 operator 的请求超时之后被放弃，所以即使只有"
        "一个 worker，它也会被释放出来处理其他对象。",
    ),
    "check:leader-failover:why": (
        "dfb46b03f2",
        "开启 leader election 时，两个运行中的实例里只有 Lease 的"
        "持有者在 reconcile；持有者被 SIGKILL 时，lease 一过期另"
        "一个就接手（由审计日志评判：在死去的 leader 最后一次续约加上 lease"
        " 时长之后，它读 Lease 最多 MAX_READS_AFTER_EXPIRY"
        " 次，而不是看 harness 的时钟，负载高的机器会把时钟拉长）；持有者被 S"
        "IGTERM 时，它释放 Lease，让另一个立即接手。",
    ),
    "check:leader-failover[partitioned-leader]:why": (
        "8f29469e77",
        "leader-failover[partitioned-leader]："
        "leader 在继续运行的同时与 API server 断开（它的连接悄"
        "无声息地停滞），因此无法续约它的 Lease。lease 过期后另一个实"
        "例接手。当旧 leader 的连接恢复时，它不能再 reconcile："
        "一个在 renew deadline 内未能续约的 leader 必须停"
        "下（controller-runtime 会退出进程）。否则两个实例会同"
        "时行动，这正是 leader election 要防止的脑裂（split"
        " brain）。",
    ),
    "check:leader-failover[release-conflict]:why": (
        "541de9cf73",
        "leader-failover[release-conflict]：被告"
        "知停止（SIGTERM）的 leader，即使它的前四次释放写入都被以 40"
        "9 Conflict 拒绝，也会释放它的 Lease。",
    ),
    "check:deletion-policy[orphan]:why": (
        "c066e7a4a8",
        "deletion-policy[orphan]：`kubectl del"
        "ete --cascade=orphan` 删除 ModelServic"
        "e 并让它的子对象继续运行；operator 只移除它自己的 final"
        "izer，并且绝不为一个正在删除的对象重新创建子对象。",
    ),
    "check:deletion-policy[foreground]:why": (
        "abcbb318f0",
        "deletion-policy[foreground]：`kubectl"
        " delete --cascade=foreground` 之后，ope"
        "rator 照常清理并移除它自己的 finalizer，而且只移除它自己"
        "的。",
    ),
    "check:finalizer-ordered-delete[lagging-cache]:why": (
        "ad3a6601a3",
        "finalizer-ordered-delete[lagging-cac"
        "he]：“没有子对象剩下了，移除 finalizer”这个决定要从 AP"
        "I server 得到确认，绝不依据一个还没看到 operator 自己"
        "那些 create 的 informer 缓存来做。",
    ),
    "check:finalizer-ordered-delete[child-finalizer]:why": (
        "ba44a8a291",
        "finalizer-ordered-delete[child-final"
        "izer]：一个被它自己的 finalizer 挡住的子对象只删除一次，"
        "然后等待；operator 的 finalizer 一直保留，直到 AP"
        "I server 显示那个子对象已经消失。",
    ),
    "check:parity:why": (
        "e848f95e30",
        "被测实现与参考实现对相同的 ModelService 产生相同的 Deployment、Service 和 status。",
    ),
    "check:rbac-least-privilege:why": (
        "ef934222bd",
        "每个检查都以 operator 自己的用户运行它，这个用户只通过其 na"
        "mespace 里的一个 RoleBinding 绑定到 config/"
        "rbac/ 中的 ClusterRole；这足以完成全部工作，不多也不少"
        "。",
    ),
    "check:rbac-least-privilege[stops-while-refused]:why": (
        "c19f62eeb9",
        "rbac-least-privilege[stops-while-ref"
        "used]：一个每次 list 都被拒绝（403）的 operator，"
        "收到 SIGTERM 时仍然会停下，立即停下，退出码为 0。",
    ),
    "check:ready-with-kwok:why": (
        "2b5841c9a6",
        "当 Pod 真的变为 Ready 时，status 如实说明：一旦 De"
        "ployment 的副本可用，就是 Ready=True（Replica"
        "sAvailable）和 Progressing=False（Rollo"
        "utComplete）；扩容、缩容以及缩到零都能一路反映出来；镜像变更会"
        "触发一次滚动更新，Progressing 先变 True 再变 Fals"
        "e；每个 lastTransitionTime 只在它的 conditi"
        "on 的 status 变化时才变。",
    ),
    "check:garbage-collected:why": (
        "d4012225fb",
        "一个没有经过 finalizer 就消失的 ModelService 留"
        "下的子对象，由垃圾回收器移除，随后同名的后继者带着它自己的子对象收敛。",
    ),
    "check:namespace-deleted:why": (
        "a3f1815730",
        "删除一个还有活着的 ModelService 的 namespace 能"
        "够完成：namespace 控制器删除它们，operator 的 fin"
        "alizer 在一个正在终止的 namespace 里完成清理，然后 n"
        "amespace 消失。",
    ),
    "check:status-follows-rollout[played-rollout]:why": (
        "eb926ddf8e",
        "status 按 `kubectl rollout status` 的判"
        "断来跟随 Deployment 的滚动更新，而不只看可用性：只有当每个副"
        "本都运行当前的 template 并且可用时才是 Ready=True，"
        "而 deployment 控制器已经放弃的滚动更新会被报告为停滞（sta"
        "lled）。",
    ),
    "check:status-follows-rollout[stalled-rollout]:why": (
        "e269146c5a",
        "真实的 deployment 控制器放弃的滚动更新会被报告为停滞，附上它的消息，绝不报告为 Ready。",
    ),
    "check:refused-write-reported[invalid-update]:why": (
        "03b9b235fe",
        "API server 拒绝的子对象写入会被报告在 status 里，标明"
        "引起它的那一代 generation，附上服务器的消息；重试会退避；修正"
        "之后它立即被清除。",
    ),
    "check:refused-write-reported[admission-refused-create]:why": (
        "7c5a9cf7ed",
        "被 admission 策略拒绝的子对象 create，会被报告在一个还"
        "没有 status 的 ModelService 的 status 里，"
        "附上策略的消息，并按 CRD 的上限明显地截断。",
    ),
    "check:refused-write-reported[two-causes]:why": (
        "8c16f26c0f",
        "一个带有两个原因的拒绝被报告时列出两个原因，按排序后的顺序，并且只写入一次。",
    ),
    "check:vanished-owner[dead-owner-child]:why": (
        "685b2ae0d7",
        "vanished-owner[dead-owner-child]：一个同"
        "名子对象，它的 controller ownerReference 是一"
        "个与我们同名、但 UID 不同的 ModelService，那它就是一个"
        "已经不存在的 ModelService 的子对象；operator 删除"
        "它（UID precondition）并创建自己的，在有垃圾回收器的地方"
        "它本来也会被回收，而不是永远报告 ChildConflict。",
    ),
    "check:progressing-without-kubelet:teaches": (
        "0341c2f227",
        "condition 是用户和其他控制器了解发生了什么的途径。在副本可用之"
        "前就声称 Ready 会误导他们；每次 reconcile 都重写 la"
        "stTransitionTime，会毁掉它存在的唯一意义（这种状态从什么"
        "时候开始的？），并把每次 reconcile 都变成一次 status "
        "写入。这里 ModelService 被再次 reconcile 了好几"
        "次，其中包括一次让 condition 的 status 保持不变的 s"
        "pec 修改（generation 2），而它的 status 写入被 operator 的 API proxy "
        "回答 409（过期的写入：要从一次新的读取重新计算，绝不能当作 ModelService 已经消失，"
        "否则它的子对象会被删掉）；ModelService 在 operator 启动之前就已存在，所以它的第一次 "
        "list 必须把它带来。然后另一个客户端把 Ready"
        " 的 lastTransitionTime 写成同一时刻、但带小数秒和时"
        "区偏移的形式（一个合法的 date-time），下一次 reconcil"
        "e 必须让它保持原样：一个重新编码自己存储的 condition 的 o"
        "perator，会改写一个没有人改过的时间。最后，检查扮演 deployment "
        "controller（envtest 没有）：2 个副本中创建了 1 个、没有一个可用，然后超过了 "
        "progress deadline。前者只改变 condition 的 message，它必须说出 Deployment 的 2 "
        "个副本，而不是默认的 1（之后的一次 spec 修改又只把 message 改回等待 deployment "
        "controller）；后者只改变 Ready 的 reason（False，"
        "ProgressDeadlineExceeded），它必须被写入，而 Ready 的 lastTransitionTime "
        "保持原样：一个 condition 不只是它的 status。"
        "它同时让 Progressing 从 True 变为 False，这时 Progressing 的 lastTransitionTime 必须移到这次转变：不早于 API server 接受停滞的 Deployment status 的时间（它的 managedFields 时间）；不管 status 怎么说都保留存储时间的 operator，会用另一个状态的时间来回答“从什么时候开始？”。",
    ),
    "check:restart-reconverges[after-finalizer]:teaches": (
        "e4d4f7327d",
        "finalizer 是 operator 的承诺：删除会等它清理完毕，所"
        "以它必须在第一个子对象出现之前就位：在这个崩溃点上，ModelServi"
        "ce 带着 finalizer，还没有任何 Deployment 或 S"
        "ervice。operator 停机期间 replicas 改成 2；重"
        "启后，它发现 finalizer 已经在那里（没有第二次 finaliz"
        "er 写入），并恰好创建一个 2 副本的 Deployment 和一个 "
        "Service。",
    ),
    "check:stale-update-conflict[operator-409]:teaches": (
        "bd9f99d67b",
        "operator 通过 harness 的 API proxy 与 AP"
        "I server 通信，代理把 operator 的第一次写入（新 Mo"
        "delService 的 finalizer Update）扣住几秒钟再"
        "转发。扣住期间，ModelService 被直接修改；于是这次写入带着一"
        "个旧的 resourceVersion 到达，得到 409 Confli"
        "ct。只允许有一次写入带着那个被拒绝的 resourceVersion，"
        "而 operator 对 ModelService 的下一次写入必须基于"
        "一次看到了这个修改的读取：resourceVersion 至少是那次修改"
        "的。重发被拒绝的对象（一次或循环地）的控制器会失败；再也不写的控制器也会"
        "失败。",
    ),
    "check:replaced-child-kept:teaches": (
        "3facda5894",
        "在控制器读取和删除之间，一个子对象可能被别人删除，并以同一个名字替换。按"
        "名字删除会毁掉这个替代品。这里 operator 停机期间，Servic"
        "e 被替换成一个声明了同名同 kind、但 UID 不同的 owner "
        "的 Service；随后 ModelService 被删除。operat"
        "or 必须删除它的 Deployment（带 UID precondit"
        "ion），不碰那个替代的 Service，最后移除它的 finalize"
        "r。",
    ),
    "check:finalizer-ordered-delete:teaches": (
        "3d705c527b",
        "finalizer 是对 API server 的一个承诺：“在我清理完"
        "之前，不要忘掉这个对象”。在子对象消失之前就移除它，会让对象带着没做完的"
        "工作消失（没有垃圾回收器时，比如这里，子对象会永远留下）。因为正在删除的"
        "对象保持可见、带着 deletionTimestamp，重启的控制器会再"
        "次看到它并完成清理：清理也是 level-triggered 的。顺序依"
        "据审计日志判断。",
    ),
    "check:child-repaired:teaches": (
        "b0f3c9f63b",
        "Service 被手工删除：删除事件经由 Service 的 controlle"
        "r ownerReference 到达控制器，它重新创建 Service。Dep"
        "loyment 的 replicas 和 Service 的端口被手工修改：恢复"
        "为 spec 的值。每次修复只写一次，而且在修改之后 CHILD_REACT_B"
        "OUND（10 s）之内开始，从修改得到应答算起，到 operator 在它的 "
        "API proxy 上第一次请求这个子对象为止：带来修复的是子对象的事件，而不是"
        "定时器（每 20 s 轮询一次子对象的控制器也会修复，只是太晚）。任何修复都不改"
        "变 ModelService 本身（它的 resourceVersion 不变）"
        "。另一个工具给两个子对象加上的外来 annotation 和 label 会被保"
        "留，也不会随之出现写入循环：控制器不管理的字段不关它的事，为它们与另一个写入者争"
        "夺将永无止境。",
    ),
    "check:create-converges:teaches": (
        "34b71547ad",
        "Deployment 和 Service 带着期望的字段，以及一个指向 "
        "ModelService 的 UID 的 controller owne"
        "rReference（controller=true，blockOwne"
        "rDeletion=true）：控制器的 watch 正是靠它把子对象的"
        "事件映射回父对象，垃圾回收也靠它知道该移除什么。finalizer 在任"
        "何子对象存在之前就已就位，所以删除永远不会跑在清理前面。status.o"
        "bservedGeneration 等于 metadata.genera"
        "tion：status 描述的是用户最后写下的 spec，而不是更早的；"
        "metadata.generation 为 1：spec 是用户的，op"
        "erator 从未改写它。它的 reconcile 耗时直方图（CONTRACT.md 的“Metrics”）已经记下了这些 "
        "reconcile，每一次都是以秒计的时长：没有哪次 reconcile 能比进程活得更久，所以直方图的 sum "
        "至多是它的 count 乘以 operator 启动以来的秒数（_assert_reconcile_time；mutant："
        "reconcile-time-wall-clock、reconcile-time-wall-clock-go）。",
    ),
    "check:config-refused:why": (
        "9f3a70f5af",
        "拿到无法使用的配置的 operator 拒绝启动：它立即以退出码 2 退出，说出出错的变量以及如何改正，并且不发出任何请"
        "求；可用的配置则照常运行。",
    ),
    "check:events-recorded[refused-event]:why": (
        "5732611d8c",
        "API server 拒绝的 Event 会被丢弃，但仍被计数：Event 写入被拒绝期间 operator 照样收敛，"
        "拒绝解除后被拒绝的 Event 不会出现，其中一个的下一次发生以 count 2 创建。",
    ),
    "check:events-recorded[refused-event]:teaches": (
        "fbed3ddc8b",
        "一个 admission policy 拒绝（403）operator 对 Event 的每一次 create 和 patch；创建一个 "
        "ModelService，它必须收敛（Event 写入从不让 reconcile 失败或变慢），它的两个 Event，"
        "CreatedDeployment 和 CreatedService，都被拒绝。移除策略后，admin 删除 Deployment："
        "operator 重新创建它，并再次记录同一个 CreatedDeployment。namespace 的 Event 稳定下来之后，"
        "必须只有一个 count 为 2 的 CreatedDeployment Event（被拒绝的那次也计入，和 client-go 的 "
        "correlator 一样计数）并带有 firstTimestamp（被拒绝那次的），并且没有 CreatedService "
        "Event：被拒绝的写入不会重试。",
    ),
    "check:refused-write-reported[refusal-lifted]:why": (
        "faf25c87e3",
        "在 Deployment 更新被拒绝期间修改的 spec，在拒绝解除后会被写入，时间不晚于迄今失败次数"
        "所允许的退避。",
    ),
    "check:refused-write-reported[refusal-lifted]:teaches": (
        "048a0178f4",
        "一个 admission policy 拒绝（403）operator 对 Deployment 的写入；image 被改了两次（srv:2，"
        "然后 srv:3），每次拒绝都报告在 status 中。operator 被拒绝六次之后，策略被移除。此时 "
        "operator 监听的任何东西都没有变化：只有 work queue 对失败 key 的重试才能写入新的 spec。"
        "Deployment 必须带上 srv:3，也就是现在的 spec，而不是第一次被拒绝时的 spec；status 必须在 "
        "generation 3 时给出 rollout 的各行而不再是拒绝；时限是按已数到的被拒绝尝试次数算出的契约退避"
        "（每次失败 5 ms 翻倍，最多 1000 s）加上套件的收敛上限；并且解除之后只有一次被接受的更新。",
    ),
    "check:refused-write-reported[status-refused]:why": (
        "a62e5a21e3",
        "API server 拒绝的 status 写入会被重试，直到写入成功；拒绝一旦解除，时间不晚于迄今失败次数"
        "所允许的退避。",
    ),
    "check:refused-write-reported[status-refused]:teaches": (
        "73c43f6deb",
        "一个 admission policy 拒绝（403）这个 namespace 中对 ModelService status 的每一次更新；"
        "然后 image 被修改。operator 更新 Deployment（被接受），在第 6 步遇到拒绝：它无法在不允许写的 "
        "status 中报告这次拒绝，于是记录 Warning Event 并返回错误，work queue 带退避地重试这个 key。"
        "六次 status 写入被拒绝之后，策略被移除：operator 监听的任何东西都没有变化，所以只有这次重试"
        "才能写入 status。status 必须到达 generation 2（新 image 的 Deployment rollout，没有拒绝），"
        "时限是按已数到的被拒绝尝试次数算出的契约退避（每次失败 5 ms 翻倍，最多 1000 s）加上套件的"
        "收敛上限。把 status 当作尽力而为、记录失败的写入后返回成功的 operator，会让 status 永远停在 "
        "generation 1。",
    ),
    "check:finalizer-ordered-delete[delete-refused]:why": (
        "73d9a8a82a",
        "删除被拒绝的子对象会让 operator 的 finalizer 留在 ModelService 上，直到拒绝解除、子对象真正"
        "消失。",
    ),
    "check:finalizer-ordered-delete[delete-refused]:teaches": (
        "8705bbd649",
        "一个 admission policy 拒绝（403）operator 对 Deployment 的删除；然后 ModelService 被删除。"
        "operator 的清理会遇到拒绝，既不能把 Deployment 当作已经消失，也不能放弃：在六次删除被拒绝"
        "（work queue 的重试）之后，ModelService 必须仍然存着、带着 operator 的 finalizer，Deployment "
        '也必须仍然存着，并且有一条 Warning FailedDelete Event 写出 Deployment "web" 和策略的消息。'
        "被拒绝的删除结束它所在的那一轮（子对象按先 Deployment、后 Service 的顺序删除）：Service "
        "也必须仍然存着，只要它把流量导向的那些 pod 所属的 Deployment 还在，它就绝不能被删除。"
        "然后策略被移除，operator 监听的任何东西都看不出这一点：Deployment、Service 和 ModelService "
        "必须在按已数到的被拒绝删除次数算出的契约退避（每次失败 5 ms 翻倍，最多 1000 s）加上套件的"
        "收敛上限之内消失。把删除失败的子对象当作已经消失的 operator 会移除自己的 finalizer，留下 "
        "Deployment，它的 owner 是一个已不存在的 UID。",
    ),
    "check:refused-write-reported[service-refused]:why": (
        "4a772c4075",
        "即使同一 spec 的 Deployment 写入已被接受，被拒绝的 Service 写入也要被报告并重试；拒绝解除后 "
        "Service 会被写入。",
    ),
    "check:refused-write-reported[service-refused]:teaches": (
        "d36ddff325",
        "一个 admission policy 拒绝（403）operator 对 Service 的写入，但不拒绝对 Deployment 的写入；"
        "随后 spec 的 image 和端口都改了（srv:2，端口 9000），两个子对象都得跟上。Deployment 必须带上"
        "这两项（第 4 步被接受），而 status 必须说明 Service 被拒绝：generation 2 时 Ready 和 "
        'Progressing 为 FailedUpdate，写出 Service "web" 和策略的消息，并有一条同样文字的 Warning '
        "FailedUpdate Event；Deployment 的成功不能掩盖它，所以在六次 Service 更新被拒绝（work queue "
        "的重试，key 从不被丢掉）之后，status 仍然写着这次拒绝。然后策略被移除，operator 监听的任何"
        "东西都看不出这一点：Service 必须带上端口 9000，status 必须离开拒绝，时限是按已数到的被拒绝"
        "尝试次数算出的契约退避（每次失败 5 ms 翻倍，最多 1000 s）加上套件的收敛上限。因为 Deployment "
        "没问题就丢掉 Service 错误的 operator 会报告 Ready，而且永远不写 Service。",
    ),
    "check:stale-update-conflict[child-409]:why": (
        "1dc2232808",
        "stale-update-conflict[child-409]：子对象写入遇到的 409 会被重试，而且是安静地重试。"
        "ModelService 已经收敛；它的 replicas 从 1 改成 2，operator 的 API proxy 对它接下来 8 次 "
        "Deployment web 的 update 回答 409 Conflict（写入所基于的对象在此期间变了），第九次才放行。"
        "operator 必须重试，直到 Deployment 有 2 个副本，而在此期间对此什么都不说：没有带 "
        "FailedUpdate 的 status（409 持续期间 harness 每 50 ms 读一次 ModelService），也没有 "
        "Warning Event。",
    ),
    "check:stale-update-conflict[child-409]:teaches": (
        "7158fd00b8",
        "409 只说明 operator 的缓存落后了：下一次 reconcile 会读到更新的缓存并重新计算（CONTRACT.md，"
        "第 7 步和“A refused child write”）。把它报告成被拒绝的写入，会告诉用户 spec 错了，而其实什么都没错，"
        "每次 409 都要写一次 status，之后再写一次把它撤回；而一个 Warning 会要求有人去处理乐观并发"
        "在正常工作这件事。",
    ),
    "check:refused-write-reported[webhook-answer]:why": (
        "e8e42d3427",
        "refused-write-reported[webhook-answer]：拒绝按它到来时的措辞被报告。operator 的 API proxy "
        "以 403 Forbidden 回答它对 Deployment 的 create，就像 admission webhook 的回答到达客户端时那样："
        "一条 webhook 自己措辞的 message，以及两个 details.causes，message 并不以它们结尾。message "
        '的长度使得 condition 的 message，`Failed to create Deployment "web": <message>`，恰好是 '
        "32768 个字符，即 CRD 的 maxLength（其中许多是 em dash：每个三个字节）。Ready 和 Progressing "
        "必须是 False `FailedCreate`，message 恰好是这一条，完整无缺：不被截断（它放得下），也不被改写"
        "（只有当 message 以 apimachinery 列出 causes 的方式结尾时，才把 causes 排序；webhook 的措辞"
        "保持原样）。然后 proxy 不再拒绝，ModelService 收敛。",
    ),
    "check:noop-stable[exponent-spelling]:teaches": (
        "8bc30c7988",
        "API server 会保留数量书写时的格式（指数写法仍是指数写法），向上取整到千分之一时也不改变"
        "这个格式：给它 1e-4 它存 1e-3，给它 15e-4 它存 2e-3；而把取整结果写成毫单位的 operator "
        "会写 1m 和 2m。按值相等，所以谁都不会再写；但同一份契约的两个实现留下的 Deployment "
        "不同，字节取决于最后写的是谁。这里 ModelService 的资源用指数写法（EXPONENT_SPELLINGS），"
        "API server 自己说出它会存什么（用相同资源的 Deployment 做一次 dry-run 创建并读回；"
        "它至少改写了一个值，这是前提），收敛后的 Deployment 必须恰好是这些内容。然后是 "
        "noop-stable 的窗口：一次重启和两个无关的 annotation 都不能带来任何写入；1000E 也一样，"
        'API server 把它存为 "1"：拿拼写的值而不是存储文本的值去比较的 operator，'
        "每次 reconcile 都会再写一遍。"
        "（ModelService 必须收敛：API server 接受这些资源，所以不收敛是 operator 的失败，而不是前提不成立；0.125 就是这样一个三位小数，指数检查可能把它误读成超过 99 的指数。）",
    ),
}
