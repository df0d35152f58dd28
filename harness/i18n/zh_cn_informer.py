"""Simplified Chinese for the informer's and work queue's cases (issue 25, stop 40):
``rbac-least-privilege[watch-refused]`` and the hand-made mutants hot-rewatch,
resumes-from-list, relist-drops-deletions and never-forgets. Same shape as ``harness.i18n.zh_cn_checks``: key -> (hash of the English,
translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:rbac-least-privilege[watch-refused]:why": (
        "be3fbbc70c",
        "rbac-least-privilege[watch-refused]：一个可以 list 但不能 watch 的 operator，"
        "带着退避重试它被拒绝的 watch。在一个 namespace 里，它的 role 是 operator 自己的 role "
        "去掉每个 ``watch``：每个 informer 先 list，然后它的 watch 被拒绝（403）；该资源的下一次 "
        "watch 到达 operator 的 API proxy 的时间，必须不早于第一次拒绝被回答之后 0.8 s、第二次之后 "
        "1.6 s、第三次之后 3.2 s（reflector 的退避，连续每失败一次翻倍；以 proxy 的时钟为准）。",
    ),
    "check:rbac-least-privilege[watch-refused]:teaches": (
        "7080acf924",
        "缺一个 verb 是只有人才能修正的部署错误，修正要花几分钟；在此期间立即重发 watch 的 "
        "informer 每秒发出几百个被拒绝的请求，每一个都要由所有其他客户端共用的 API server "
        "鉴权、审计、记录日志。client-go 的 reflector 在 list 或 watch 第一次失败后等 0.8 s，"
        "翻倍直到 30 s（再乘一个至多为 2 的随机因子）；Go operator 在每次 watch 之前重新 list，"
        "Python operator 从 list 的 resourceVersion 再次 watch，两者都必须等待。",
    ),
    "mutant:hot-rewatch:title": (
        "27c28ab3b2",
        "被拒绝的 watch 在 50 ms 后重发，每次都如此，从不退避",
    ),
    "mutant:hot-rewatch-go:title": (
        "8438b4ee8d",
        "被拒绝的 watch 立即重发，从不退避（Go）",
    ),
    "mutant:resumes-from-list:title": (
        "177f743c6a",
        "每个 watch 都从上一次 list 的 resourceVersion 恢复，从不从此后看到的事件恢复",
    ),
    "mutant:resumes-from-list-go:title": (
        "dbd4e073f2",
        "每个 watch 都从第一次 list 的 resourceVersion 恢复，从不从此后看到的事件恢复（Go）",
    ),
    "mutant:relist-drops-deletions:title": (
        "3279ecb9a7",
        "重新 list 发现的删除不会到达任何 event handler：watch 中断期间被删除的子对象不会被重建",
    ),
    "mutant:relist-drops-deletions-go:title": (
        "c57a7ec5e8",
        "重新 list 发现的删除（client-go 的 tombstone）不会到达任何 event handler：watch "
        "中断期间被删除的子对象不会被重建（Go）",
    ),
    "mutant:never-forgets:title": (
        "62fec18497",
        "成功之后从不重置 key 的退避：它的下一次失败要等完之前所有失败的退避",
    ),
    "mutant:never-forgets-go:title": (
        "bf29623e98",
        "成功之后从不重置 key 的退避：它的下一次失败要等完之前所有失败的退避（Go）",
    ),
}
