"""Simplified Chinese for the cases of the client's Retry-After rules (issue 25, stop 40,
Python's HTTP client): ``errors-retried[retry-after-deadline]`` and
``errors-retried[retry-after-exhausted]``, and a watch start refused,
``watch-recovers[watch-refused]`` and ``[watch-retry-after]``. Same shape as ``harness.i18n.zh_cn_checks``: key ->
(hash of the English, translation)."""

from __future__ import annotations

ENTRIES: dict[str, tuple[str, str]] = {
    "check:errors-retried[retry-after-deadline]:why": (
        "8c5b8a3257",
        "errors-retried[retry-after-deadline]：一个超出请求超时的 Retry-After，会让请求在它的"
        "截止时间结束。operator 以 3 s 的请求超时运行（REQUEST_TIMEOUT_SECONDS）；它创建 "
        "Deployment ``web`` 的请求被回答 429，带 ``Retry-After: 7``。operator 针对该对象的下一个"
        "请求（work queue 对拿到超时错误的 reconcile 的重试）到达 proxy 的时间，必须不早于被拒绝"
        "的 create 之后 3 s（减去 0.25 s：client 的时钟先于 proxy 开始计时），并且早于所要求的 "
        "7 s；在 429 之后，API server 只能收到一次 create，且 operator 读到了它的回答（一个 Normal "
        "CreatedDeployment Event），而不是在截止时间又发出一次、回答没人读的 create（下一次"
        "被回答 AlreadyExists）；在截止时间结束的那次 create 必须作为一次失败的写入被报告（一个 "
        "Warning FailedCreate），既不能在截止时间再发一次并采用它的回答，也不能悄无声息；然后它收敛，"
        "子对象恰好是期望的那些。Mutant：waits-past-deadline(-go)；timeout-unreported(-go)。",
    ),
    "check:errors-retried[retry-after-deadline]:teaches": (
        "040e749950",
        "client-go 的 REST client 在请求的 context 之下等待 Retry-After，而这个 context 的截止"
        "时间就是 client 的 Timeout：一个会越过它的等待在截止时间结束，给出超时错误，请求不会"
        "再被发送。把整个 Retry-After 都等完的 client 会占着一个 worker 超过它的超时（而在截止"
        "时间之后才发出的请求，可能在调用方早已放弃之后才做完它的事）。",
    ),
    "check:errors-retried[retry-after-exhausted]:why": (
        "71514c7b7f",
        "errors-retried[retry-after-exhausted]：以 client 不遵循的方式、或者太多次地要求重试的"
        "回答，会作为请求的错误到达 reconcile。operator 的 API proxy 对它创建 Deployment "
        "``web`` 的请求连续十一次回答 429，带 ``Retry-After: 0``；对它第一次创建 Service "
        "``web`` 的请求回答 429，Retry-After 是 HTTP-date 形式（一小时之后）；第二次回答 502，"
        "带一个负载均衡器的 text/html 页面，没有 Status。",
    ),
    "check:errors-retried[retry-after-exhausted]:teaches": (
        "4eaa68b520",
        "client-go 在一个带 Retry-After 的回答之后最多重新发送请求 10 次（11 次尝试）：第十一个 "
        "429 就是这次 create 的错误，reconcile 把它报告为被拒绝的写入（一个关于 ModelService 的 "
        "Warning Event），由 work queue 重试。它只把 Retry-After 读作整秒数：HTTP-date 不算 "
        "Retry-After，所以那个 429 立刻就是 create 的错误（一个 Warning），而不是等上一小时。"
        "没有 Status 的回答和别的错误一样：它的 Warning 带着页面的文字，而且什么都不会 panic"
        "（no-panic oracle）。然后 ModelService 收敛，子对象恰好是期望的那些。",
    ),
    "check:watch-recovers[watch-refused]:why": (
        "c9a2db76eb",
        "watch-recovers[watch-refused]：一个在开始时就被拒绝的 watch，按拒绝所说的去应对。"
        "operator 在它的 API proxy 之后运行；proxy 结束它对 ModelService 的 watch，并对新的 "
        "watch 回答 410 Gone（reason Expired：所要的 resourceVersion 已被压缩掉）；之后再结束"
        "一次，对下一个回答 429 TooManyRequests（不带 Retry-After）。410 之后，operator 必须先 "
        "list ModelService 再重新 watch（一次 relist）；429 之后，它必须重新 watch，中间不能有 "
        "list。然后，之后创建的一个 ModelService 会收敛（informer 仍在工作）。",
    ),
    "check:watch-recovers[watch-refused]:teaches": (
        "ed77923035",
        "client-go 的 reflector 只在 resourceVersion 已不存在时才 relist（410 结束它的 "
        "ListAndWatch），遇到 429 则退避，从原来的位置重试 watch（``isWatchErrorRetriable``）："
        "relist 是 informer 发出的最昂贵的请求，正是过载的 API server 用 429 请它别发的那种。"
        "把每次拒绝都当作 410 的 informer 会在过载之中 relist；把 410 当作普通错误的 informer "
        "会一直重试一个永远无法再开始的 watch。",
    ),
    "check:watch-recovers[watch-retry-after]:why": (
        "4c91e20d30",
        "watch-recovers[watch-retry-after]：一个被回答 429、带 ``Retry-After: 3`` 的 watch 开始，"
        "会在 3 s 之后由 client 重新发送。operator 的 API proxy 结束它对 ModelService 的 watch，"
        "并对下一个 watch 回答带这个头的 429；operator 对 ModelService 的下一个 watch 到达 proxy "
        "的时间，必须不早于这个回答之后 3 s，中间没有 list；之后创建的一个 ModelService 会收敛。",
    ),
    "check:watch-recovers[watch-retry-after]:teaches": (
        "55dcd38611",
        'Retry-After 约束进程的每一个请求，watch 和写入一样（CONTRACT.md "Errors"）：'
        "client-go 的 REST client 在重新发送一个 watch 之前会等待它，和对任何别的请求一样。"
        "把这个回答交给 informer 自己的退避（不到一秒）的 client，会在 API server 要求的时间"
        "之前回来。",
    ),
}
