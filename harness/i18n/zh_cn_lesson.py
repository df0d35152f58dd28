"""Simplified Chinese of the lesson (``harness.lesson.story``: ``lesson:...`` keys). Keys and
hashes as ``harness.i18n`` describes."""

from __future__ import annotations

#: key -> (the English text's hash, harness.i18n.text_hash; the translation)
ENTRIES: dict[str, tuple[str, str]] = {
    "lesson:title": (
        "7612e56859",
        "为什么 level-triggered 的控制器错过一次更新之后仍然能做对",
    ),
    "lesson:lede": (
        "b7d3d99971",
        "这是对一个想法的逐步讲解，分六个部分。下面每一张图，都画自写出这个页面的"
        "那次运行中，两个真实的 operator（一个用 Go，一个用 Pyth"
        "on）对一个真实的 API server 发出的请求；旁边是一个 mut"
        "ant（变异体）的请求：同一个 operator，但带着一个现实中常见的"
        "错误。你不需要读任何代码：每一部分都会说明该看图上的什么，以及它证明了什"
        "么。",
    ),
    "lesson:how-to-read": (
        "c504a745d9",
        "怎么读图：时间向右流动，每个 operator 一条泳道。泳道线上方带编号的圆圈"
        "是一次写入（create、update、patch、delete），线下方的小点是一次读取（g"
        "et、list、watch）。红色标记是 API server 没有满足的请求：要么是拒绝，"
        "要么是对一个已经不存在的东西得到的 404——operator 预料到了这一点，所以"
        "它不算拒绝（对比报告会给出每一个的原因）。竖直的虚线是 harness 自己做"
        "的事：它杀掉或重启了 operator，或者手工改了某个对象。把鼠标停在标记上"
        "可以看到那个请求。每个 operator 都经由 harness 的 API proxy 与 API ser"
        "ver 通信：这是夹在两者之间、能看到每一个请求的一个小程序；当某个检查需"
        "要一个本来只能靠运气碰上的时序时，它会扣住一个请求或它的应答，或者自己"
        "来应答。在通过了的泳道里，status 写入上的红色 409 是正常的：那次 recon"
        "cile 读到的缓存还没有跟上（最常见的是没有跟上 operator 自己上一次的写"
        "入），API server 拒绝了较旧的 resourceVersion，于是 operator 重新读取"
        "（create 上的 409 则表示对象已经存在：它由更早的一次 reconcile 创建，"
        "而那次的应答缓存还没有送到）。崩溃点是 operator 在设置了 MODELDOCK_CRA"
        "SH_AT 的情况下启动后，自己以退出码 86 退出的地方：harness 在那里什么也"
        "没做，所以没有虚线标出它；它的请求只是停下，直到重启。从一次重启到该泳"
        "道下一个请求之间的时间，是新进程在启动（它最初的请求是重新做的 list）"
        "；在负载很高的机器上这可能要好几秒，而没有任何检查按时钟来评判它。时间"
        "是从每条泳道的第一个请求算起的秒数，而各泳道的时间刻度可能不同：mutant"
        " 总有自己单独的一条时间轴（一个永远不收敛的 mutant 会一直运行到检查的"
        "时限），请求分布的时间远长于另一个的真实 operator 也是如此。请按每条轴"
        "上的秒数来读。",
    ),
    "lesson:md-legend": (
        "7b3dd0d4df",
        "怎么读这个页面上的图：每条泳道只显示它的写入（create、update、patch、d"
        "elete），按顺序，每个请求一个从 operator 指向 API server 的箭头，标注"
        "着从该泳道第一个请求算起的秒数；带叉的箭头是 API server 没有满足的写入"
        "。读取不画出来，harness 做的事列在图的上方（负的时间表示在该泳道第一个"
        "请求之前）。说明文字里提到的点、带编号的圆圈或虚线，指的是 HTML 页面（"
        "lesson.html）上的图，那里也画出了读取和 harness 的动作。",
    ),
    "lesson:no-evidence": (
        "ade2bc1a16",
        "本次运行没有这张图的证据（它的检查没有运行，或者没有留下请求）；运行 m"
        "ake lesson 来画出它。",
    ),
    "lesson:needs-check": (
        "aca50582a1",
        "这一部分的现场证据需要检查 {check}，而本次运行没有它：这一部分只有论证，没有图。",
    ),
    "lesson:back": (
        "0061d02d6f",
        "完整的对比报告，逐个检查",
    ),
    "lesson:mutant": (
        "b2030c0051",
        "错误的做法",
    ),
    "lesson:right": (
        "2988b59eeb",
        "正确的做法",
    ),
    "lesson:in-report": (
        "d764139538",
        "对比报告中的这个检查",
    ),
    "lesson:proves": (
        "e477d55b6b",
        "这一部分证明了什么",
    ),
    "lesson:outcome": (
        "fac773f048",
        "本次运行",
    ),
    "lesson:acts": (
        "c1049bc0c9",
        "harness 做了什么",
    ),
    "lesson:part-1:title": (
        "efb1a85cce",
        "通知携带的是地址，不是指令",
    ),
    "lesson:part-1:p1": (
        "719d22fbf8",
        "当 ModelService，或者它拥有的某个 Deployment、S"
        "ervice 有任何变化时，operator 并不会被告知变了什么。wa"
        "tch 送来一个事件，控制器的连线（For：它所服务的 ModelSer"
        "vice 这个 kind；Owns：它创建的 Deployment 和 "
        "Service）把它归结为一件事：要去看的那个 ModelService"
        " 的 namespace/name。Deployment 的变化通过 D"
        "eployment 的 ownerReference 映射到它的 own"
        "er。随后 reconcile 读取当前存在的东西，写入差异。",
    ),
    "lesson:part-1:p2": (
        "957a5a7336",
        "那就考虑最糟的时机。operator 写完了 Deployment，在写"
        " Service 之前被杀掉。它停机期间，用户把 replicas 从 "
        "1 改成了 2。一个重放自己死时打算做的事（“创建一个 1 副本的 De"
        "ployment，再创建一个 Service”）的 operator 会"
        "错两次：它会创建第二个 Deployment，或者用旧值覆盖 repli"
        "cas。一个只知道地址的 operator 重启后进行 list，看到一"
        "个 1 副本的 Deployment、没有 Service，于是恰好做两"
        "件事：把 replicas 设为 2，创建 Service。",
    ),
    "lesson:part-1:look1": (
        "2f80e1aeeb",
        "operator 在它 create deployments 之后立即自己停下（崩溃点：它自己以退"
        "出码 86 退出，所以没有标记；它的请求在那里停止）。虚线 harness: patch "
        "modelservices 是用户在它停机期间把 replicas 改成 2，restart 是它再次启"
        "动的地方。之后，正确的 operator 对 deployments 做一次 update、对 servi"
        "ces 做一次 create。mutant 重放它原来在做的事：它再次创建 Deployment（"
        "红色的 409：它已经存在了），并且从不把 replicas 设为 2，所以检查超时。",
    ),
    "lesson:part-1:proves": (
        "f72193f1f3",
        "每次 reconcile 都读取世界的控制器，用处理普通变化的同一套代码"
        "，修复了一次崩溃和一次错过的更新。",
    ),
    "lesson:part-2:title": (
        "836dca07ad",
        "两个缓存，以及为什么 reconcile 的次数不等于编辑的次数",
    ),
    "lesson:part-2:p1": (
        "5e4686bd0d",
        "operator 并不是每次读取都去问 API server。它的 in"
        "former 维护一个本地缓存，由 watch 填充；API serve"
        "r 本身也用自己的 watch cache 来应答 watch。两者都略"
        "有滞后。工作队列里放的是 key，不是事件：一个 key 在队列里等待时"
        "又变了，只 reconcile 一次；一个 key 在被 reconci"
        "le 的过程中变了，会再次入队，再运行一次。",
    ),
    "lesson:part-2:p2": (
        "533b82cd09",
        "operator 自己的写入也会作为事件回到它这里：写 Deployme"
        "nt 或写 status 都会产生一个 watch 事件，让同一个 ke"
        "y 再次入队。所以 reconcile 的次数从来不等于用户编辑的次数，"
        "也不需要相等。重要的是，一次发现没什么可改的 reconcile 什么也"
        "不写；否则每次写入都会引发下一个事件，控制器永远安静不下来。",
    ),
    "lesson:part-2:look1": (
        "80d5fa3680",
        "重启之后，harness 加上两个无关的 annotation。只有 mutant 的泳道标出了"
        "它们：一条泳道只画到它的 operator 的最后一个请求为止，而正确的 operato"
        "r 的最后几个请求，就是重启之后重新做的 list 和 watch。从那以后，它们没"
        "有再向 API server 发送任何请求：它们的 reconcile 在 informer 的缓存上"
        "运行，发现没有什么要写（图下方的 successful_writes: 0）。mutant 的泳道"
        "上有带编号的圆圈：它每次都发送完整的 Deployment，而它的写入让 Deployme"
        "nt 的 resourceVersion 变了：对比图下方的 before 和 after。",
    ),
    "lesson:part-2:proves": (
        "4f667963e3",
        "reconcile 廉价而频繁；一次正确的 reconcile 发现无事"
        "可做时什么都不写，正因如此 operator 才可以随意运行它。",
    ),
    "lesson:part-3:title": (
        "e8ebf4b63a",
        "两个最糟的时刻",
    ),
    "lesson:part-3:p1": (
        "28beaa469d",
        "第一个最糟的时刻是在两次写入之间被杀掉。控制器不能从头再来，也不能相信它"
        "记住的任何东西：它从已经存在的东西继续。finalizer 最先写入，所"
        "以在它之后立即崩溃时，operator 会发现它已经在那里，然后创建子对"
        "象，每个恰好一次。",
    ),
    "lesson:part-3:p2": (
        "f30a289aae",
        "第二个是过期的更新。每次写入都注明它所基于的 resourceVersi"
        "on；如果对象在那之后变了，API server 回答 409 Conf"
        "lict。唯一正确的应对是退避、重新读取、重新计算这次写入。重发被拒绝的"
        "对象，无论一次还是循环地重发，要么永远失败，要么在去掉版本号之后覆盖别人"
        "的修改。",
    ),
    "lesson:part-3:look1": (
        "0e4b22eb06",
        "正确的 operator 在创建任何子对象之前先写 finalizer（对 modelservices "
        "的一次 update）；在崩溃点退出并重启之后，没有第二次 finalizer 写入。mu"
        "tant 先创建两个子对象，之后才加上 finalizer，所以当它到达崩溃点（就在"
        "它写入 finalizer 之后）时，finalizer 已经在了，但两个子对象也已经在了"
        "（下面的证据 at_crash 列出了它们）。在那两次 create 和 finalizer 写入"
        "之间，子对象已经存在，却没有任何东西让 ModelService 的删除等待它们的清"
        "理：检查之所以失败，是因为在这个崩溃点上已经有子对象存在。",
    ),
    "lesson:part-3:look2": (
        "2716c8803e",
        "找到 modelservices 的 update 上那个红色的 409：API proxy 把这次写入（o"
        "perator 的第一次写入，即它的 finalizer update）扣住了几秒钟，其间 harn"
        "ess 修改了对象（标记 harness: patch modelservices web），然后才把它带"
        "着旧的 resourceVersion 转发出去。标记画在请求发出的时刻，而不是得到应"
        "答的时刻，所以被扣住的那个 409 可能正好位于 harness 的 patch 之前。正"
        "确的 operator 重新读取，下一次写入成功；mutant 再次发送同一个被拒绝的"
        "对象：第二个红色的 409，基于同一个旧的 resourceVersion（下面的 operato"
        "r_writes 给出了每次写入所带的 rv）。",
    ),
    "lesson:part-3:proves": (
        "031df83f67",
        "崩溃和冲突的应对都是重新读取：从世界继续，绝不从记忆继续，也绝不重发 A"
        "PI server 拒绝过的对象。",
    ),
    "lesson:part-4:title": (
        "855c0f8a0c",
        "删除有中间状态",
    ),
    "lesson:part-4:p1": (
        "c54d13600d",
        "删除一个 ModelService 不是一瞬间的事。带着 operato"
        "r 的 finalizer 时，删除只是设置 deletionTimes"
        "tamp；对象一直可见，直到 operator 删除了它的子对象并移除了"
        " finalizer，按这个顺序。先移除 finalizer，会让对象带"
        "着没做完的工作消失。",
    ),
    "lesson:part-4:p2": (
        "d2a60151c5",
        "同名的子对象不一定是我们的。在读取和删除之间，可能有人把 Service 换成"
        "了他们自己的；按名字删除会毁掉它。operator 只删除那些 controller owner"
        "Reference 带着它的 ModelService 的 UID 的子对象，并把这个 UID 作为 pre"
        "condition 发送。API server 自己也有一个竞态：一个在 finalizer 加上之前"
        "刚读过对象的 DELETE 仍然可以删掉它，所以 operator 手里可能握着一个已经"
        "消失的对象的、带 finalizer 的副本；一旦某次写入告诉它这一点（404），它"
        "必须清理掉刚创建的子对象。这个竞态是 API server 的一个真实的 bug（kube"
        "rnetes#77988，在这个 harness 运行的 1.34 API server 中它又重新打开了）"
        "；下面的检查以确定的方式布置出它的结果，而不是等着它靠运气发生。",
    ),
    "lesson:part-4:look1": (
        "bf2227d200",
        "这个检查删除三个 ModelService。first 在 operator 运行时删除。随后检查"
        "停掉 operator（SIGTERM），再带着一个崩溃点重新启动它：删除 second，ope"
        "rator 在它的第一次子对象 delete 之后立即自己退出（退出码 86，所以没有"
        "标记），然后被重启。third 在 operator 停机时删除（SIGTERM、删除，然后 "
        "restart）。对每一个，正确的 operator 对 deployments 和 services 的 del"
        "ete 都出现在移除 finalizer 的那次 modelservices update 之前。mutant 的"
        " modelservices update 排在最前面，检查在第一个 ModelService 上就失败了"
        "。",
    ),
    "lesson:part-4:look2": (
        "a936344a5d",
        "正确的 operator 只删除 deployment；没有对 serv"
        "ices 的 delete，因为那个 Service 现在属于别人。mu"
        "tant 按名字把两个都删了。",
    ),
    "lesson:part-4:look3": (
        "77f8f88103",
        "这个竞态是真实存在的，但它的时机全凭运气，所以检查借助 API proxy 布置"
        "出它留下的局面：proxy 立即转发 operator 的 finalizer update，但扣住它"
        "的应答；harness 移除 finalizer 并删除 ModelService（它立即消失）；然后"
        " proxy 送出被扣住的应答：200，上面带着 finalizer（证据中的 held_answer"
        "）。operator 创建两个子对象；随后它的 status update 得到 404（画成红色"
        "，但它不是拒绝：对象已经不在了）。正确的 operator 随后删除两个子对象；"
        "mutant 保留了它们。它标题的另一半“还把它们叫作冲突”，是这个检查的另一"
        "个 testcase（dead-owner-child）：在那里，一个同名的后继者会针对它们报"
        "告 ChildConflict，这张图没有显示这一点。之后那次 modelservices web 的 "
        "create，是 harness 创建了一个同名的后继者（新的 UID），正确的 operator"
        " 像对待任何新的 ModelService 一样让它收敛；这些写入中出现的 409 就是页"
        "面顶部所说的缓存滞后。",
    ),
    "lesson:part-4:proves": (
        "d1eedc7f81",
        "清理同样是 level-triggered 的：顺序是 finalize"
        "r 最后，归属由 UID 决定，而对象可能在 operator 仍握着它"
        "时消失。",
    ),
    "lesson:part-5:title": (
        "f53e4dbedd",
        "看起来成功，不等于做对了",
    ),
    "lesson:part-5:p1": (
        "a7e742c5eb",
        "有三样东西看起来像成功，却证明不了什么。这一部分画出第二样；第一样在第"
        "二部分判定，第三样在第三部分。“还是只有一个 Deployment”看起来像是 reco"
        "ncile 什么都没改的证明，但一个每次都重写 Deployment 的 operator 同样只"
        "留下一个。证据是 resourceVersion：没变就是没写。这就是第二部分的检查 n"
        "oop-stable，当作判决来读：它记录每个子对象在安静窗口之前和之后的 resou"
        "rceVersion，并比较它们。",
    ),
    "lesson:part-5:p2": (
        "d83b853fac",
        "Ready 的 status 看起来像成功，但这个控制平面上没有 kub"
        "elet，所以从来没有 Pod 在运行：诚实的 status 是 Pro"
        "gressing。一写完 Deployment 就报告 Ready 的 "
        "operator 是在对用户撒谎。而 409 看起来像失败，但在第三部分"
        "，过期写入的 Conflict 是 API server 在尽它的职责："
        "这是实验的前提（premise），不是 operator 的过错。",
    ),
    "lesson:part-5:look1": (
        "f005389767",
        "每条泳道都写了 status（update modelservices/"
        "status）；区别在于写进去的内容，见图下方：正确的 operator"
        " 的 condition 是 Ready False、Progressi"
        "ng True，而 mutant 的检查失败，因为它在没有任何 Pod "
        "运行时说了 Ready。",
    ),
    "lesson:part-5:proves": (
        "284ba117ad",
        "要依据 API server 记录下的东西（resourceVersio"
        "n、与世界相符的 condition）来评判一个 operator，而不"
        "是依据它的结果看起来怎样。",
    ),
    "lesson:part-6:title": (
        "b50e13d3c2",
        "至少一次的投递，与集群之外的效果",
    ),
    "lesson:part-6:p1": (
        "2f5c56144d",
        "到目前为止的一切都可以重新计算：replicas、一个 Service、"
        "一个 finalizer。把一次 reconcile 运行两遍是无害的，"
        "因为它的结果是一个状态，把同一个状态写两遍什么都不会改变。这正是控制器的"
        "承诺：每个变化至少被 reconcile 一次（at-least-onc"
        "e），有些会是两次，因为崩溃之后，operator 无法知道它最后一步是"
        "否生效，所以它会再做一遍。",
    ),
    "lesson:part-6:p2": (
        "3f3ac91e9b",
        "集群之外的效果则不同。向 catalog（外部的模型登记服务）登记一个模型，或"
        "者从账本上扣一笔钱，不能简单地再运行一次：第二次运行就是第二个效果。要"
        "能再运行，就需要一个持久的请求标识（request identity），例如 ModelServ"
        "ice 的 UID 加上 generation，随请求一起发送，让对方认出这是一次重复，用"
        "第一次的结果来回答，而不是执行两次。",
    ),
    "lesson:part-6:look1": (
        "af1061815d",
        "图上画的是最基本的情形：catalog（外部的模型登记服务）记录下这次登记并"
        "扣住它的应答，harness 在应答到达之前杀掉 operator（SIGKILL），再重启它"
        "。其他情形（在调用 catalog 之前崩溃、在记录其应答的 status 写入处崩溃"
        "，以及那次 status 写入得到 409 Conflict 后再崩溃）是这个检查的其他 tes"
        "tcase，列在对比报告中。在每一种情形里，catalog 中每个 generation 必须"
        "恰好只有一个效果；没有请求标识的 operator 会登记两次。",
    ),
    "lesson:part-6:proves": (
        "a4fbcb6b82",
        "level-triggered 的 reconcile 只让针对状态的重"
        "复工作变得安全；外部效果需要一个标识，使它的重复能被认出来。",
    ),
}
