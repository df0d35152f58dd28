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
}
