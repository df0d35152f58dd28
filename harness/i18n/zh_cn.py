"""Simplified Chinese of the report's teaching text: the introduction, the glossary, the
outcome names and the page labels (``harness.report.teaching``, ``harness.i18n.LABELS``).
Keys and hashes as ``harness.i18n`` describes; Kubernetes terms and identifiers stay English."""

from __future__ import annotations

#: key -> (the English text's hash, harness.i18n.text_hash; the translation)
ENTRIES: dict[str, tuple[str, str]] = {
    "intro:1": (
        "182ba2d7c9",
        "ModelService 是一种自定义资源（custom resourc"
        "e）：用户写下一个对象（镜像、副本数、端口），由 operator——一"
        "个监视 API server 的程序——为它创建并维护提供服务的 Dep"
        "loyment 和 Service。",
    ),
    "intro:2": (
        "cf4954fb12",
        "operator 在一个 reconcile 循环里工作：ModelSe"
        "rvice 或它的子对象有任何变化时，它只被告知该去看哪个 ModelS"
        "ervice（namespace/name），于是读取当前实际存在的东西"
        "，与 ModelService 的要求比较，只写入两者的差异。然后把它看"
        "到的情况记录在 ModelService 的 status 里。",
    ),
    "intro:3": (
        "5e92db2e60",
        "level-triggered（电平触发）是指 operator 依据它"
        "读到的状态行事，而不是依据唤醒它的那条通知：通知丢了、重复了或迟到了都无"
        "所谓，因为下一次 reconcile 会重新读取整个世界。下面每个检查都"
        "在真实的 API server 上检验这一点的一个推论，对象是同一个 o"
        "perator 的两个实现（Go 和 Python），并画出每个实现发出"
        "的每一个请求。",
    ),
    "glossary:check:term": (
        "20f65c2867",
        "check（检查）",
    ),
    "glossary:check": (
        "7af11487ca",
        "关于 operator 的一条论断，有固定的 id，例如 noop-stable。",
    ),
    "glossary:case:term": (
        "bbfcd4160a",
        "case（场景）",
    ),
    "glossary:case": (
        "ca4f0c4c36",
        "一个检查中的一个场景，写作 id[case]，例如 watch-recovers[connection-cut]。",
    ),
    "glossary:run:term": (
        "acba255121",
        "run（运行）",
    ),
    "glossary:run": (
        "42507e2058",
        "一个检查或场景针对一个实现的一次运行；摘要按运行计数，共有（检查与场景数）x（实现数）个。",
    ),
    "glossary:tier:term": (
        "e29ccc00b2",
        "tier（集群层级）",
    ),
    "glossary:tier": (
        "98e1075850",
        "本次运行使用的集群种类。envtest：只有 etcd 和 API se"
        "rver，没有任何控制器，所以没有谁会创建 Pod；sim：在此之上再加"
        " controller-manager、scheduler 和 kwok"
        " 的模拟节点；existing：你指定的一个现有集群；kind：运行在容"
        "器里的集群。",
    ),
    "glossary:premise:term": (
        "d68e3ec2d5",
        "premise（前提）",
    ),
    "glossary:premise": (
        "99d517a0ee",
        "实验本身必须先成立的事情，之后才谈得上评判 operator（例如 AP"
        "I server 确实拒绝了一次过期的写入、故障确实发生了）。前提不成立"
        "时，检查报告 ERROR 而不是 FAIL：operator 没有被评判"
        "。",
    ),
    "glossary:oracle:term": (
        "9202af6ce9",
        "oracle（判定）",
    ),
    "glossary:oracle": (
        "810177fb38",
        "检查中负责评判 operator 的部分，依据的是 harness 在 "
        "API server 上看到的事实，从不依据 operator 对自己的"
        "描述。",
    ),
    "glossary:crash point:term": (
        "6d138b72f0",
        "crash point（崩溃点）",
    ),
    "glossary:crash point": (
        "8025aa09bb",
        "reconcile 中一个有名字的位置（after-deployment"
        " 等）：被告知时，operator 在那里立即以退出码 86 退出，以便"
        "检查在那一刻重启它。",
    ),
    "glossary:409 Conflict:term": (
        "c7b003871d",
        "409 Conflict",
    ),
    "glossary:409 Conflict": (
        "46acff5cfc",
        "API server 对基于对象旧副本的写入的回答（其 resource"
        "Version 已过期）。正确的 operator 会重新读取并重新计算"
        "，绝不重发那个旧对象。",
    ),
    "glossary:resourceVersion:term": (
        "db046f8189",
        "resourceVersion",
    ),
    "glossary:resourceVersion": (
        "0dfcebca2f",
        "API server 给每个已存储对象的版本号；每次写入都会改变，所以 "
        "resourceVersion 没变就证明没有写入。",
    ),
    "glossary:ownerReference:term": (
        "3be01fe292",
        "ownerReference",
    ),
    "glossary:ownerReference": (
        "b10afd3b3d",
        "子对象上的一个字段，指明拥有它的对象（按名字和 UID）；owner 不"
        "在了，垃圾回收器（garbage collector）就会删除这些子对象"
        "。",
    ),
    "glossary:finalizer:term": (
        "0e168de84d",
        "finalizer",
    ),
    "glossary:finalizer": (
        "5702f84678",
        "对象 metadata 里的一个名字，它会挡住对象的删除，直到 operator 清理完毕并把它移除。",
    ),
    "glossary:observedGeneration:term": (
        "9d388a1ef1",
        "observedGeneration",
    ),
    "glossary:observedGeneration": (
        "2e166c79b7",
        "status 所描述的那一代 spec：只有当它等于 metadata.generation 时，status 才是最新的。",
    ),
    "glossary:API proxy:term": (
        "63c17f8665",
        "API proxy（API 代理）",
    ),
    "glossary:API proxy": (
        "58964f5481",
        "每个 operator 进程都经由它与 API server 通信的小代"
        "理；它记录每一个请求（即时间线），还能注入故障（扣住应答、返回 429、"
        "切断连接）。",
    ),
    "glossary:audit log:term": (
        "83825da33d",
        "audit log（审计日志）",
    ),
    "glossary:audit log": (
        "b53bbd948f",
        "API server 自己对每个请求的记录，与代理的日志逐个请求比对（a"
        "ccounting 属性：compared、audit_only、pro"
        "xy_only 应当是 N、[]、[]）。",
    ),
    "glossary:mutant:term": (
        "137b58a5a3",
        "mutant（变异体）",
    ),
    "glossary:mutant": (
        "80496323c3",
        "故意在某一方面写错的 operator 副本；kill matrix（击"
        "杀矩阵）显示哪个检查抓住了它。没有任何变异体能让它失败的检查，什么也证明"
        "不了。",
    ),
    "glossary:XFAIL:term": (
        "e320010b06",
        "XFAIL",
    ),
    "glossary:XFAIL": (
        "fd9d4079f6",
        "某个实现声明自己会失败的检查，并附上原因（例如 kopf 的）；如果它反"
        "而通过了，报告会指出来。",
    ),
    "outcome:passed": (
        "284d1e8c49",
        "通过",
    ),
    "outcome:failed": (
        "5d28a90f44",
        "失败",
    ),
    "outcome:error": (
        "560035bab9",
        "未评判（前提或 harness 出错）",
    ),
    "outcome:skipped": (
        "db5e9d83cd",
        "跳过（该 tier 缺少所需条件，或检查不适用）",
    ),
    "outcome:xfailed": (
        "8f8ca660f7",
        "按实现的声明失败（XFAIL）",
    ),
    "outcome:missing": (
        "ee6e769455",
        "缺失（运行没有完成）",
    ),
    "label:New to controllers? Read this first": (
        "85ca010fe3",
        "第一次接触控制器？请先读这里",
    ),
    "label:Words this report uses": (
        "e7b545e681",
        "本报告使用的术语",
    ),
    "label:What it proves": (
        "d810035f58",
        "它证明什么",
    ),
    "label:Why": (
        "d3ae14a50b",
        "为什么",
    ),
    "label:The lesson: the article's story with this run's evidence": (
        "a30381b0c0",
        "课程：按文章的顺序讲述，配上本次运行的证据",
    ),
    "label:No lesson in this folder yet: make lesson writes it, and the next report links to it": (
        "f65232f77a",
        "这个文件夹里还没有课程：运行 make lesson 生成它，下一份报告就会链接到它",
    ),
}
