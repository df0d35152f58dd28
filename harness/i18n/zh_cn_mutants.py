"""Simplified Chinese of the mutants' titles (``mutant:<id>:title``, from
harness/mutants/mutants.toml), which lead each mutant's card in a Chinese report and name it in
the lesson. Keys and hashes as ``harness.i18n`` describes."""

from __future__ import annotations

#: key -> (the English text's hash, harness.i18n.text_hash; the translation)
ENTRIES: dict[str, tuple[str, str]] = {
    "mutant:replay-event:title": (
        "26a2fe2a0f",
        "edge-triggered（边沿触发）：按事件所说的去做，从不看世界的实际状态",
    ),
    "mutant:always-update:title": (
        "955b891f2b",
        "每次 reconcile 都把完整的期望子对象写一遍",
    ),
    "mutant:children-first:title": (
        "5e4d394308",
        "先创建子对象，再加它的 finalizer",
    ),
    "mutant:retry-stale:title": (
        "2f04334487",
        "遇到 409 Conflict，就用同一个对象循环重试 Update",
    ),
    "mutant:finalizer-first:title": (
        "ccb062a1ff",
        "在子对象消失之前就移除 finalizer",
    ),
    "mutant:delete-by-name:title": (
        "1f263efd2c",
        "清理时按名字删除子对象，不检查它们属于谁",
    ),
    "mutant:ignores-vanished-owner:title": (
        "af8db11627",
        "保留已消失的 ModelService 的子对象，还把它们叫作冲突",
    ),
    "mutant:ready-on-write:title": (
        "919c2437ee",
        "一写完 Deployment 就报告 Ready",
    ),
    "mutant:fresh-timestamp:title": (
        "519107d70e",
        "每次写 status 都把 lastTransitionTime 设为当前时间",
    ),
    "mutant:status-every-time:title": (
        "93799fef2a",
        "即使 status 没有变化也写入",
    ),
    "mutant:no-owns:title": (
        "bf350f1902",
        "不 watch Deployment 和 Service",
    ),
    "mutant:adopt-foreign:title": (
        "0e15ea16e0",
        "接管一个由别人控制的同名子对象",
    ),
    "mutant:no-relist:title": (
        "86ebcb58fd",
        "遇到 410 Gone 时从同一个 resourceVersion 重新 watch，而不是重新 list",
    ),
    "mutant:zombie-leader:title": (
        "bfec6f542d",
        "失去 Lease 之后仍然继续 reconcile",
    ),
    "mutant:release-gives-up:title": (
        "56167c8b64",
        "收到 SIGTERM 时，释放 Lease 的 update 一遇到 409 Conflict 就放弃",
    ),
    "mutant:holds-lease-on-exit:title": (
        "bf7897ff03",
        "收到 SIGTERM 时停下，却不释放它持有的 Lease",
    ),
    "mutant:deaf-until-synced:title": (
        "fe51fd6c7d",
        "在 informer 缓存同步完成之前忽略 SIGTERM",
    ),
    "mutant:deaf-until-synced-go:title": (
        "d35a85c830",
        "在 informer 缓存同步完成之前忽略 SIGTERM（Go）",
    ),
    "mutant:owner-handler-raises:title": (
        "e446095ada",
        "它的子对象 watch 的 handler 遇到没有 controller 的子对象时出错",
    ),
    "mutant:owner-handler-panics-go:title": (
        "66cc40305c",
        "它的子对象 watch 的 handler 遇到没有 controller 的子对象时 panic（Go）",
    ),
    "mutant:reads-namespace:title": (
        "ea84820acc",
        "每次 reconcile 都读取它的 Namespace，而它从未被授予这项权限",
    ),
    "mutant:optional-as-required:title": (
        "3dc90e1f55",
        "把可选的 spec 字段当作总是存在的来取值",
    ),
    "mutant:cached-cleanup:title": (
        "2cea016ff4",
        "依据 informer 缓存判定没有子对象剩下，于是移除 finalizer",
    ),
    "mutant:error-only-in-ready:title": (
        "16d0d5c25e",
        "只在 Ready 里报告子对象冲突；Progressing 保持原样，或者从不设置",
    ),
    "mutant:owns-all-conditions:title": (
        "c8484da145",
        "把 status.conditions 写成恰好它自己的两个，抹掉其他所有人的",
    ),
    "mutant:ignores-orphan:title": (
        "67d87a629f",
        "即使用户要求保留（orphan）子对象，也把它们删除",
    ),
    "mutant:clears-finalizers:title": (
        "4fc74a5a0d",
        "清理完成时移除所有的 finalizer，而不只是它自己的",
    ),
    "mutant:no-watch-timeout:title": (
        "72ccedd21f",
        "watch 时既没有超时也没有读期限，信任一个已打开的连接",
    ),
    "mutant:keeps-dead-connections:title": (
        "9f9b0f1d5a",
        "放弃一个被发现沉默的连接，却把接下来的请求发到它旁边那些同样沉默的连接上",
    ),
    "mutant:no-reconnect:title": (
        "2278d59d13",
        "连接断开的 watch 不会被重新建立",
    ),
    "mutant:no-events:title": (
        "06c69b32f4",
        "不记录任何 Event：kubectl describe 什么也说不出",
    ),
    "mutant:event-flood:title": (
        "0b12071903",
        "每次都创建一个新的 Event，从不把重复的计入同一个",
    ),
    "mutant:event-every-reconcile:title": (
        "f040d3c51a",
        "每次 reconcile 都记录一个 Normal Event，什么都没变时也是",
    ),
    "mutant:forgets-children:title": (
        "66f2875c59",
        "一发出删除请求就移除它的 finalizer，不等子对象消失",
    ),
    "mutant:redeletes-children:title": (
        "148e87fd9e",
        "子对象还在删除中时，每次清理都再删除它一次",
    ),
    "mutant:generation-predicate:title": (
        "6cb9db72eb",
        "忽略不改变 generation 的子对象更新（例如 Deployment 的 status）",
    ),
    "mutant:remembers-created:title": (
        "48e1668868",
        "不重新创建它记得自己创建过的子对象",
    ),
    "mutant:tombstone-event:title": (
        "21ea1c2d48",
        "清理之前必须写一条删除记录；一次被拒绝的写入就让它停下",
    ),
    "mutant:raw-quantities:title": (
        "b7a9f72ff3",
        "按用户的写法保留资源数量，而不是按 API server 存储的形式",
    ),
    "mutant:raw-quantities-go:title": (
        "4e73324300",
        "按用户的写法保留资源数量，而不是按 API server 存储的形式（Go）",
    ),
    "mutant:rounds-to-millis:title": (
        "8fa4385b44",
        "把取整后的数量写成毫单位（1e-4 写成 1m），而不是保留原写法的格式",
    ),
    "mutant:rounds-to-millis-go:title": (
        "9cc6e693ae",
        "把取整后的数量写成毫单位（1e-4 写成 1m），而不是保留原写法的格式（Go）",
    ),
    "mutant:ready-when-available:title": (
        "90628a511c",
        "只凭可用性判断滚动更新：旧 Pod 在服务时就是 Ready，停滞从不被点明",
    ),
    "mutant:unsorted-causes:title": (
        "5cee072122",
        "拒绝的原因按应答给出的顺序排列，而该顺序每次尝试都重新抽取：每次重试都写一次 status",
    ),
    "mutant:unsorted-causes-go:title": (
        "3e3820c235",
        "拒绝的原因按应答给出的顺序排列，而该顺序每次尝试都重新抽取：每次重试都写一次 status（Go）",
    ),
    "mutant:refuses-http-catalog:title": (
        "1498f620dc",
        "拒绝一个合法的 http:// catalog URL，以退出码 2 退出",
    ),
    "mutant:refuses-http-catalog-go:title": (
        "282eb9e4c5",
        "拒绝一个合法的 http:// catalog URL，以退出码 2 退出（Go）",
    ),
    "mutant:panics-after-finalizer:title": (
        "91eb8e761e",
        "finalizer 加上之后 panic：用一个为 None 的错误去构造写入失败的 Event",
    ),
    "mutant:panics-after-finalizer-go:title": (
        "1c04e60aca",
        "finalizer 加上之后 panic：用一个为 nil 的错误去构造写入失败的 Event（Go）",
    ),
    "mutant:refusal-not-reported:title": (
        "428f01cb80",
        "被拒绝的子对象写入只出现在日志和一个 Event 里，从不进入 status",
    ),
    "mutant:ready-when-available-go:title": (
        "8ad78c1e61",
        "只凭可用性判断滚动更新：旧 Pod 在服务时就是 Ready，停滞从不被点明（Go）",
    ),
    "mutant:refusal-not-reported-go:title": (
        "742e3ab48a",
        "被拒绝的子对象写入只出现在日志和一个 Event 里，从不进入 status（Go）",
    ),
    "mutant:single-worker:title": (
        "3f26a1a527",
        "默认只有一个 worker，请求没有时限：一个慢的 ModelService 拖住所有其他的",
    ),
    "mutant:single-worker-go:title": (
        "dea2c5d4da",
        "默认只有一个 worker，请求没有时限：一个慢的 ModelService 拖住所有其他的（Go）",
    ),
    "mutant:ignores-vanished-owner-go:title": (
        "195e7c1fe7",
        "保留已消失的 ModelService 的子对象，还把它们叫作冲突（Go）",
    ),
    "mutant:never-adopts-go:title": (
        "30a9f023a9",
        "对它自己的 ModelService 创建的无主子对象报告 ChildConflict（Go）",
    ),
    "mutant:updates-immutable-go:title": (
        "efb88722d8",
        "对一个不可变 selector 已改变的 Deployment 不停地发送 Update（Go）",
    ),
    "mutant:status-after-writes:title": (
        "eeea4d6471",
        "只在写了别的东西的那次 reconcile 里才写 status",
    ),
    "mutant:remembers-status:title": (
        "0a78e348e4",
        "拿 status 与它以为自己写过的那个比较",
    ),
    "mutant:step-annotation:title": (
        "7b49ee1517",
        "在执行一个滚动步骤之前先记录它，恢复时跳过已记录的步骤",
    ),
    "mutant:blind-create:title": (
        "99939d915a",
        "启动之后，不管缓存怎么说都先创建每个子对象，并吞掉 AlreadyExists",
    ),
    "mutant:blind-create-go:title": (
        "b2d21382f4",
        "启动之后，不管缓存怎么说都先创建每个子对象，并吞掉 AlreadyExists（Go）",
    ),
    "mutant:never-adopts:title": (
        "bda6a62bd7",
        "对它自己的 ModelService 创建的无主子对象报告 ChildConflict",
    ),
    "mutant:updates-immutable:title": (
        "9c16d81fbe",
        "对一个不可变 selector 已改变的 Deployment 不停地发送 Update",
    ),
    "mutant:heartbeat:title": (
        "cdc14d10fd",
        "不管有没有变化，每 20 秒写一次 status",
    ),
    "mutant:heartbeat-go:title": (
        "31b42d7cd5",
        "不管有没有变化，每 20 秒写一次 status（Go）",
    ),
    "mutant:rewrites-spec:title": (
        "e4288a276f",
        "把它应用的默认值写回用户的 spec",
    ),
    "mutant:rewrites-spec-go:title": (
        "a3531f6053",
        "把它应用的默认值写回用户的 spec（Go）",
    ),
    "mutant:recreates-drifted:title": (
        "4599c56ce5",
        "修复被手工修改的子对象的方式是删除它再重新创建",
    ),
    "mutant:recreates-drifted-go:title": (
        "9082286ee6",
        "修复被手工修改的子对象的方式是删除它再重新创建（Go）",
    ),
    "mutant:library-user-agent:title": (
        "4b6a3d38d6",
        "发送客户端库默认的 User-Agent（OpenAPI-Generator）：没有自己的 field manager",
    ),
    "mutant:library-user-agent-go:title": (
        "b1ff4b2b11",
        "发送某个库默认的 User-Agent（Go-http-client）：没有自己的 field manager（Go）",
    ),
    "mutant:remembers-status-go:title": (
        "45a7afa6f2",
        "拿 status 与它认为自己写过的那个比较（Go）",
    ),
    "mutant:fresh-request-key:title": (
        "83fc0cceb1",
        "每次尝试都用一个新的幂等键向 catalog 注册：一次重试就是第二次效果",
    ),
    "mutant:fresh-request-key-go:title": (
        "8fd222680a",
        "每次尝试都用一个新的幂等键向 catalog 注册：一次重试就是第二次效果（Go）",
    ),
    "mutant:object-request-key:title": (
        "6ba5b3591f",
        "只用 ModelService 的 UID 向 catalog 注册：新的 generation 被当成一次重试，永远不会被注册",
    ),
    "mutant:object-request-key-go:title": (
        "edc23f9f1b",
        "只用 ModelService 的 UID 向 catalog 注册：新的 generation 被当成一次重试，"
        "永远不会被注册（Go）",
    ),
    "mutant:clobbers-foreign:title": (
        "d1270ac634",
        "把 pod template 和 Service 的 spec 当作完全属于自己的，删掉其他写入者加上的内容",
    ),
    "mutant:clobbers-foreign-go:title": (
        "a06cbf7b65",
        "把 pod template 和 Service 的 spec 当作完全属于自己的，删掉其他写入者加上的内容（Go）",
    ),
    "mutant:annotates-owner:title": (
        "ecf98836c3",
        "给用户的 ModelService 打上标签，注明是谁在管理它",
    ),
    "mutant:annotates-owner-go:title": (
        "70760ffcfa",
        "给用户的 ModelService 打上标签，注明是谁在管理它（Go）",
    ),
    "mutant:status-from-memory:title": (
        "c383b50b87",
        "只在某个 generation 变化时才重新计算 status；否则返回它上次算出的 status",
    ),
    "mutant:status-from-memory-go:title": (
        "0333fa562d",
        "只在某个 generation 变化时才重新计算 status；否则返回它上次算出的 status（Go）",
    ),
    "mutant:reconciles-deleting:title": (
        "e5a6b5cfd3",
        "即使 ModelService 正在被删除，也先把 spec 的变化滚动发布出去",
    ),
    "mutant:reconciles-deleting-go:title": (
        "68b8b2e310",
        "即使 ModelService 正在被删除，也先把 spec 的变化滚动发布出去（Go）",
    ),
    "mutant:polls-children:title": (
        "8a5743f79f",
        "不 watch 它的子对象，而是每 20 s 重新查看一遍",
    ),
    "mutant:polls-children-go:title": (
        "c4db066d52",
        "不 watch 它的子对象，而是每 20 s 重新查看一遍（Go）",
    ),
    "mutant:no-backoff:title": (
        "96204e0b6a",
        "每 100 ms 重试一次失败的 reconcile，从不退避",
    ),
    "mutant:no-backoff-go:title": (
        "04b21b113c",
        "每 100 ms 重试一次失败的 reconcile，从不退避（Go）",
    ),
    "mutant:owner-by-kind:title": (
        "4f2451e7a9",
        "把任何一个 ModelService 控制的同名子对象当成自己的，不管它的名字和 UID",
    ),
    "mutant:owner-by-kind-go:title": (
        "da8928c6ec",
        "把任何一个 ModelService 控制的同名子对象当成自己的，不管它的名字和 UID（Go）",
    ),
    "mutant:exits-without-crd:title": (
        "76d03a867c",
        "启动时若它的 CRD 尚未安装就退出",
    ),
    "mutant:exits-without-crd-go:title": (
        "dec3734181",
        "启动时若它的 CRD 尚未安装就退出（Go）",
    ),
    "mutant:hot-retries-crd:title": (
        "16b21d5095",
        "等待它的 CRD 时每 50 毫秒就再问一次，从不退避",
    ),
    "mutant:hot-retries-crd-go:title": (
        "c2388721f2",
        "等待它的 CRD 时每 50 毫秒就再问一次，从不退避（Go）",
    ),
    "mutant:deaf-while-waiting-crd:title": (
        "df37f5167a",
        "在一个不监听 SIGTERM 的循环里等待它的 CRD",
    ),
    "mutant:deaf-while-waiting-crd-go:title": (
        "48c89649e9",
        "在一个不监听 SIGTERM 的循环里等待它的 CRD（Go）",
    ),
    "mutant:pads-lease:title": (
        "e52f3df6b0",
        "把 Lease 时长设为配置值的两倍，备用实例因此接管得晚",
    ),
    "mutant:pads-lease-go:title": (
        "ea87e881e2",
        "把 Lease 时长设为配置值的两倍，备用实例因此接管得晚（Go）",
    ),
    "mutant:ignores-retry-after:title": (
        "24cbf2bd01",
        "把要求等待的 429 或 503 当作普通失败，几毫秒内就重试",
    ),
    "mutant:ignores-retry-after-go:title": (
        "0375b29b31",
        "把要求等待的 429 或 503 当作普通失败，几毫秒内就重试（Go）",
    ),
    "mutant:gives-up-on-server-errors:title": (
        "1228f5cf94",
        "丢掉 API server 以 5xx 回答的 reconcile 错误，这个 key 再也不会被重试",
    ),
    "mutant:gives-up-on-server-errors-go:title": (
        "34d6cd9f3e",
        "丢掉 API server 以 5xx 回答的 reconcile 错误，这个 key 再也不会被重试（Go）",
    ),
    "mutant:forgets-refused-event:title": (
        "45bc30b4e6",
        "忘掉 API server 拒绝过的 Event：它的下一次发生从 1 重新计数",
    ),
    "mutant:forgets-refused-event-go:title": (
        "9c6c86772a",
        "忘掉 API server 拒绝过的 Event：它的下一次发生从 1 重新计数（Go）",
    ),
    "mutant:gives-up-after-refusal:title": (
        "d4bff69c44",
        "子对象写入被拒绝后丢掉这个 key：拒绝期间修改的 spec 在拒绝解除后再也不会被写入",
    ),
    "mutant:gives-up-after-refusal-go:title": (
        "709c883cc1",
        "子对象写入被拒绝后丢掉这个 key：拒绝期间修改的 spec 在拒绝解除后再也不会被写入（Go）",
    ),
    "mutant:drops-status-errors:title": (
        "7c1ea72429",
        "失败的 status 写入只记日志后被丢掉：拒绝解除后，被拒绝的 status 再也不会被写入",
    ),
    "mutant:drops-status-errors-go:title": (
        "17da1b7c5d",
        "失败的 status 写入只记日志后被丢掉：拒绝解除后，被拒绝的 status 再也不会被写入（Go）",
    ),
    "mutant:gives-up-on-refused-delete:title": (
        "dc80f3b8a4",
        "删除被拒绝的子对象被当作已经消失：finalizer 被移除，子对象被留下",
    ),
    "mutant:gives-up-on-refused-delete-go:title": (
        "d692cbe6f1",
        "删除被拒绝的子对象被当作已经消失：finalizer 被移除，子对象被留下（Go）",
    ),
    "mutant:swallows-service-refusal:title": (
        "4ec1c480c2",
        "因为 Deployment 没问题，被拒绝的 Service 写入只记日志后被丢掉：Service 过时却报告 Ready",
    ),
    "mutant:swallows-service-refusal-go:title": (
        "f0f5398395",
        "因为 Deployment 没问题，被拒绝的 Service 写入只记日志后被丢掉：Service 过时却报告 Ready（Go）",
    ),
    "mutant:replicas-from-spec:title": (
        "00a9ed6782",
        "把要求的副本数当作 status.replicas 报告，而不是 Deployment 实际运行的副本数",
    ),
    "mutant:replicas-from-spec-go:title": (
        "08db9ce1b7",
        "把要求的副本数当作 status.replicas 报告，而不是 Deployment 实际运行的副本数（Go）",
    ),
    "mutant:relist-ignores-new:title": (
        "5f2e0ac5c6",
        "410 Gone 之后的重新 list 只刷新缓存已知的对象，丢掉新对象",
    ),
    "mutant:relist-ignores-new-go:title": (
        "b8fe86638b",
        "410 Gone 之后的重新 list 只刷新缓存已知的对象，丢掉新对象（Go）",
    ),
    "mutant:ignores-held-port:title": (
        "8a41f07402",
        "启动时不试它的 metrics 和探针地址：被另一个进程占着的端口让 manager 之后才失败，以 1 退出",
    ),
    "mutant:ignores-held-port-go:title": (
        "51b8838d63",
        "启动时不试它的 metrics 和探针地址：被另一个进程占着的端口让 manager 之后才失败，以 1 退出（Go）",
    ),
    "mutant:refuses-metrics-off:title": (
        "bb5d6bb7eb",
        "把 METRICS_BIND_ADDRESS=0（关掉 metrics）当成地址去试，以 2 退出",
    ),
    "mutant:refuses-metrics-off-go:title": (
        "88d86c444a",
        "把 METRICS_BIND_ADDRESS=0（关掉 metrics）当成地址去试，以 2 退出（Go）",
    ),
    "mutant:served-by-group:title": (
        "bd420acf8e",
        "只要 discovery 提供了它的 group 版本、不管里面是什么资源，就认为它的 CRD 已经被提供",
    ),
    "mutant:served-by-group-go:title": (
        "ae21705050",
        "只要 discovery 提供了它的 group 版本、不管里面是什么资源，就认为它的 CRD 已经被提供（Go）",
    ),
    "mutant:wait-end-error:title": (
        "78a3a2eddc",
        '把等待 CRD 的结束记成错误：每次等过的启动都有一行 "probe server stopped"',
    ),
    "mutant:wait-end-error-go:title": (
        "283d6c8d24",
        '把等待 CRD 的结束记成错误：每次等过的启动都有一行 "probe server stopped"（Go）',
    ),
    "mutant:trusts-failed-registration:title": (
        "53808f1d42",
        "不管状态码，把带 id 的 catalog 回答当成一次注册：一个什么也没记录的 500 填进了 status.catalog",
    ),
    "mutant:trusts-failed-registration-go:title": (
        "cb43ffd3d6",
        "不管状态码，把带 id 的 catalog 回答当成一次注册：一个什么也没记录的 500 填进了 status.catalog（Go）",
    ),
    "mutant:takes-live-lease:title": (
        "fdf4e6f336",
        "standby 在持有者仍在续约时拿走 Lease：Lease 每个重试周期就换一次手",
    ),
    "mutant:takes-live-lease-go:title": (
        "5a6f6f1527",
        "standby 在持有者仍在续约时拿走 Lease：Lease 每个重试周期就换一次手（Go）",
    ),
    "mutant:release-unreported:title": (
        "d8285fc6ad",
        "收到 SIGTERM 时释放了 Lease，却没有在日志里说明",
    ),
    "mutant:release-unreported-go:title": (
        "fafb74e8b3",
        "收到 SIGTERM 时释放了 Lease，却没有在日志里说明（Go）",
    ),
}
