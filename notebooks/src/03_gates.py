# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 3 课：Q3 按约束筛选并行策略
#
# [English version](../en/03_gates.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 2 课 通信成本](02_communication.ipynb) · 下一课：[第 4 课 组合与风险](04_composition.ipynb)
#
# > **时间：** 约 50 分钟（讲解与阅读 35 分钟，练习 15 分钟）
# >
# > **问题：**
# > - 怎样按硬约束一步步排除并行策略候选？
# > - 候选要公开写出哪些要求，环境要提供哪些事实？
# > - 为什么只给结论和拒绝原因，而不给候选打综合分？
# >
# > **目标：**
# > - 按顺序说出六道门槛 (gate)：容量、互连、结构、上下文、模式、服务角色，并说明第 1 节的第五道“服务门槛”为什么在代码里拆成两道。
# > - 用 `coursekit.gates` 做 Q3 的第一个筛选例子：DP 被拒绝，TP 通过。
# > - 读懂一条拒绝原因，并说出要改变哪个事实它才会通过。
# > - 把选择并行度时的三条排除规则（全局批大小限制 DP、TP 整除注意力头且留在节点内、PP 不超过层数）当作门槛使用。
# >
# > **前置：** 第 1 课的容量账本 (ledger)（每个 rank 的显存需求从这里来），第 2 课的通信账本（为什么 TP 要留在节点内）。

# %% [markdown] lang="en"
# # Lesson 3: Q3 screening parallel strategies by constraints
#
# [中文版](../zh/03_gates.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 2, communication](02_communication.ipynb) · Next: [lesson 4, composition and risk](04_composition.ipynb)
#
# > **Time:** about 50 min (teaching and reading 35 min, exercises 15 min)
# >
# > **Questions:**
# > - How do we reject parallel-strategy candidates step by step with hard constraints?
# > - What must a candidate publish about its needs, and what facts must the environment provide?
# > - Why do we give a verdict and its reasons, never a combined score?
# >
# > **Objectives:**
# > - Name the six gates in order: fit, interconnect, structure, context, mode, serving role; explain why section 1's fifth gate ("serving") becomes two in the code.
# > - Work Q3's first screening example with `coursekit.gates`: DP is rejected, TP accepted.
# > - Read a rejection reason and say which fact must change for the candidate to pass.
# > - Use the three exclusions for parallel degrees as gates: the global batch limits DP, TP must divide the attention heads and stay inside a node, PP cannot exceed the layers.
# >
# > **Prerequisites:** lesson 1's capacity ledger (where the memory per rank comes from), lesson 2's communication ledger (why TP stays inside a node).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from dataclasses import replace

from IPython.display import Markdown, display

from coursekit.exercises import check, show_solution, verify
from coursekit.gates import (
    COURSE_CANDIDATES,
    EXAMPLE_CANDIDATES,
    EXAMPLE_ENVIRONMENT,
    GATES,
    LINK_SCOPES,
    REASON_TEXTS_EN,
    WARNING_CODES,
    Candidate,
    Environment,
    check_global_batch,
    check_pp_degree,
    check_tp_degree,
    dp_degrees_for_batch,
    evaluate_candidate,
    evaluate_candidates,
    max_dp_degree,
)
from coursekit.i18n import Text
from coursekit.shapes import model_shape
from coursekit.widgets.gates import GATE_SHORT_LABELS, OPTION_TEXTS, GatesWidget


def md_table(header, rows):
    """Show rows as a Markdown table, its cells in the current language."""
    lines = [
        "| " + " | ".join(str(h) for h in header) + " |",
        "|" + " --- |" * len(header),
    ]
    lines += [
        "| " + " | ".join(str(cell) for cell in row) + " |" for row in rows
    ]
    display(Markdown("\n".join(lines)))


# %% [markdown] lang="zh"
# ## 1. 从约束到门槛
#
# 第 1 课登记了容量约束（每个设备要放下多少模型状态、激活和运行时预留），第 2 课登记了通信约束
# （每一步有多少次集合通信 (collective communication)、走哪条链路）。第 3 课把这些**可测量的事实**变成**硬门槛**：
# 候选策略只要有一条不满足，就被排除，并且写明原因。筛选的顺序是：
#
# 1. **容量门槛 (fit gate)**：单卡能不能放下模型主体。放得下，数据并行 (data parallelism, DP) 才有基础；
#    放不下，流水线并行 (pipeline parallelism, PP) 和 ZeRO 先进入候选。
# 2. **互连门槛 (interconnect gate)**：节点内互连能不能支撑高频通信。强互连更支持张量并行 (tensor parallelism, TP)
#    和专家并行 (expert parallelism, EP)；弱互连更偏向降低同步频率的策略。
# 3. **结构门槛 (structure gate)**：模型是稠密模型 (dense model) 还是混合专家模型 (mixture of experts, MoE)。
#    稠密模型常见组合是 DP / TP / PP；MoE 要把 EP 纳入主决策。
# 4. **上下文门槛 (context gate)**：上下文是否长到要跨卡切分注意力状态。单卡放不下时，
#    上下文并行 (context parallelism, CP) 才进入候选。
# 5. **服务门槛 (serving gate)**：目标是同步训练状态，还是分发独立请求。多副本服务优先评估服务副本 (serving replica, Replica) 路由，
#    不把它误写成训练 DP。
#
# 候选页要公开写出自己的设备显存需求、允许的工作负载、模型结构和链路域 (link scope)；只有这些要求都被当前环境满足，候选才进入后续实测。

# %% [markdown] lang="en"
# ## 1. From constraints to gates
#
# Lesson 1 recorded the capacity constraint (how much model state, activations and runtime reserve each device must
# hold); lesson 2 recorded the communication constraint (how many collectives per step, on which link). Lesson 3 turns
# these **measurable facts** into **hard gates**: a candidate that fails any one of them is rejected, and the rejection
# says why. The order is:
#
# 1. **Fit gate**: can one device hold the bulk of the model? If it can, data parallelism (DP) has a basis; if not,
#    pipeline parallelism (PP) and ZeRO enter the candidates first.
# 2. **Interconnect gate**: can the links inside a node carry high-frequency communication? Strong links favour tensor
#    parallelism (TP) and expert parallelism (EP); weak links favour strategies that synchronize less often.
# 3. **Structure gate**: is the model dense or a mixture of experts (MoE)? Dense models usually combine DP / TP / PP;
#    an MoE model brings EP into the main decision.
# 4. **Context gate**: is the context so long that the attention state must be split across devices? Only when one
#    device cannot hold it does context parallelism (CP) enter the candidates.
# 5. **Serving gate**: is the goal to synchronize training state or to distribute independent requests? Multi-copy
#    serving evaluates serving-replica (Replica) routing first and never calls it training DP.
#
# Each candidate page publishes its memory need per device, the workloads it allows, the model structures it applies to
# and its link domain; only a candidate whose requirements the environment meets goes on to measurement.

# %% [markdown] lang="zh"
# ## 2. 六道门槛，按顺序
#
# `coursekit.gates.GATES` 按这个顺序列出门槛；每道门槛是一个函数 `(候选, 环境) -> Reason 或 None`，
# `Reason` 带一个稳定的代码 (code) 和当前语言的说明。下面的表由 `GATES` 生成：

# %% [markdown] lang="en"
# ## 2. Six gates, in order
#
# `coursekit.gates.GATES` lists the gates in this order; each gate is a function
# `(candidate, environment) -> Reason or None`, and a `Reason` carries a stable code plus a message in the current
# language. The table below is generated from `GATES`:

# %%
md_table(
    [
        Text(zh="顺序", en="#"),
        Text(zh="代码", en="code"),
        Text(zh="门槛", en="gate"),
    ],
    [
        (number, f"`{gate.code}`", gate.description)
        for number, gate in enumerate(GATES, start=1)
    ],
)
assert [gate.code for gate in GATES] == [
    "memory",
    "interconnect",
    "structure",
    "context",
    "mode",
    "serving",
]

# %% [markdown] lang="zh"
# 第 1 节列了五道门槛，代码（上表）里是六道：**第 1 节的第五道“服务门槛”问了两件不同的事，所以拆成两道。**
#
# - `mode`（模式）：工作负载 (训练 training / 服务 serving) 是否在候选声明的模式之中
#   （对应英文原因 `'workload mode is unsupported'`）。
# - `serving`（服务角色）：候选的**执行角色 (execution role)** 是否与工作负载相符。服务副本和训练 DP 都复制整个模型，
#   但 DP 每步同步梯度，副本从不同步；所以服务副本不能承担训练，每步同步训练状态的候选也不用来分发服务请求。
#   这就是上面“不把它误写成训练 DP”那句话的检查。
#
# 拆开之后，每条拒绝原因只说一件事。上下文门槛也写成了代码：
# 切分上下文的候选 (CP) 只有在 `context_len > max_context_per_device` 时才通过；环境没有声明这两个数字时，
# CP 也不通过，因为没有证据表明需要它。

# %% [markdown] lang="en"
# Section 1 lists five gates; the code (the table above) has six: **section 1's fifth gate, "serving", asks two
# different questions, so it becomes two gates.**
#
# - `mode`: is the workload (training / serving) among the modes the candidate declares? (Its English reason is
#   `'workload mode is unsupported'`.)
# - `serving`: does the candidate's **execution role** match the workload? Serving replicas and training DP both copy
#   the whole model, but DP synchronizes gradients every step and replicas never do; so a serving replica cannot
#   carry training, and a candidate that synchronizes training state every step is not how we distribute serving
#   requests. This checks the sentence "never call it training DP" above.
#
# Split this way, every rejection reason says one thing. The context gate is code too: a context-splitting candidate (CP) passes only when `context_len > max_context_per_device`, and it does not pass
# when the environment declares neither number, because nothing shows it is needed.

# %% [markdown] lang="zh"
# ## 3. 候选公开自己的要求
#
# 一个候选 (`Candidate`) 就是一页公开的声明：每个 rank 需要多少显存 (GiB)、允许哪些工作负载模式、适用于哪些模型结构、
# 它的组至少需要什么链路域（由弱到强：`none` < `cross_node` < `intra_node`），以及是否切分上下文、扮演什么执行角色。
# 环境 (`Environment`) 则给出当前的事实。下表是第一个筛选例子的四个候选，加上本课程补充的 PP、CP 和 Replica
# （补充候选的数字是示意值，用来让每道门槛都有一个会被它拒绝的候选）：

# %% [markdown] lang="en"
# ## 3. Candidates publish their requirements
#
# A `Candidate` is a public declaration: the memory each rank needs (GiB), the workload modes it allows, the model
# structures it applies to, the weakest link scope its group can live with (weakest to strongest: `none` <
# `cross_node` < `intra_node`), whether it splits the context and which execution role it plays. An `Environment`
# states the current facts. The table shows the four candidates of the first screening example plus the course's PP,
# CP and Replica (their
# numbers are illustrative: they give every gate a candidate it can reject):

# %%
candidates = (*EXAMPLE_CANDIDATES, *COURSE_CANDIDATES)
md_table(
    [
        Text(zh="候选", en="candidate"),
        Text(zh="显存/rank (GiB)", en="GiB per rank"),
        Text(zh="模式", en="modes"),
        Text(zh="模型结构", en="model kinds"),
        Text(zh="链路域", en="link scope"),
        Text(zh="切分上下文", en="splits context"),
        Text(zh="执行角色", en="role"),
        Text(zh="说明", en="description"),
    ],
    [
        (
            c.name,
            f"{c.memory_per_rank_gib:g}",
            str(Text(zh="、", en=", ")).join(
                str(OPTION_TEXTS[m])
                for m in ("training", "serving")
                if m in c.modes
            ),
            str(Text(zh="、", en=", ")).join(
                str(OPTION_TEXTS[k])
                for k in ("dense", "moe")
                if k in c.model_kinds
            ),
            OPTION_TEXTS[c.required_link_scope],
            Text(zh="是", en="yes") if c.splits_context else "—",
            OPTION_TEXTS[c.role] if c.role else "—",
            c.description,
        )
        for c in candidates
    ],
)
env = EXAMPLE_ENVIRONMENT
print(
    Text(
        zh=f"本课的示例环境：单设备 {env.memory_per_device_gib:g} GiB，"
        f"工作负载：{OPTION_TEXTS[env.mode].zh}，模型结构："
        f"{OPTION_TEXTS[env.model_kind].zh}，链路域："
        f"{OPTION_TEXTS[env.link_scope].zh}，上下文长度未声明",
        en=f"the lesson's example environment: {env.memory_per_device_gib:g} "
        f"GiB per device, workload: {OPTION_TEXTS[env.mode].en}, model: "
        f"{OPTION_TEXTS[env.model_kind].en}, link scope: "
        f"{OPTION_TEXTS[env.link_scope].en}, context length not declared",
    )
)
assert env.context_len is None and env.max_context_per_device is None

# %% [markdown] lang="zh"
# ## 4. 第一个筛选例子
#
# 四个候选和一个环境，用普通的字典写成（不少团队就这样记录候选）。`evaluate_candidate` 直接接受这些字典
# （内部转换成 `Candidate` / `Environment`，并检查每个键和值），结果用属性 `report.accepted` 读取：

# %% [markdown] lang="en"
# ## 4. The first screening example
#
# Four candidates and one environment, written as plain dicts (as many teams record candidates). `evaluate_candidate`
# accepts those dicts directly (it turns them into `Candidate` / `Environment` and validates every key and value), and
# the result is read from the attribute `report.accepted`:

# %%
environment = {
    'memory_per_device_gib': 24,
    'mode': 'training',
    'model_kind': 'dense',
    'link_scope': 'intra_node',
}
first_candidates = [
    {
        'name': 'DP',
        'memory_per_rank_gib': 29,
        'modes': {'training'},
        'model_kinds': {'dense', 'moe'},
        'required_link_scope': 'cross_node',
    },
    {
        'name': 'ZeRO-3',
        'memory_per_rank_gib': 18,
        'modes': {'training'},
        'model_kinds': {'dense', 'moe'},
        'required_link_scope': 'cross_node',
    },
    {
        'name': 'TP',
        'memory_per_rank_gib': 16,
        'modes': {'training', 'serving'},
        'model_kinds': {'dense', 'moe'},
        'required_link_scope': 'intra_node',
    },
    {
        'name': 'EP',
        'memory_per_rank_gib': 14,
        'modes': {'training', 'serving'},
        'model_kinds': {'moe'},
        'required_link_scope': 'intra_node',
    },
]
reports = [
    evaluate_candidate(candidate, environment) for candidate in first_candidates
]
assert not next(report for report in reports if report.name == 'DP').accepted
assert next(report for report in reports if report.name == 'TP').accepted
verdicts = {
    True: Text(zh="通过", en="accepted"),
    False: Text(zh="拒绝", en="rejected"),
}
for report in reports:
    reasons = str(Text(zh="；", en="; ")).join(
        reason.message for reason in report.reasons
    )
    why = (
        Text(zh=f"。原因：{reasons}", en=f". Reasons: {reasons}")
        if reasons
        else ""
    )
    print(
        Text(
            zh=f"{report.name}：{verdicts[report.accepted]}{why}",
            en=f"{report.name}: {verdicts[report.accepted]}{why}",
        )
    )

# %% [markdown] lang="zh"
# 每条原因都带一个稳定的代码，每个代码还对应一句固定的英文短句（`REASON_TEXTS_EN`），方便和只认英文原因的脚本对照。
# 下面的断言检查：字典形式与 `coursekit` 自带的 `EXAMPLE_CANDIDATES` 是同一组声明；DP 只被容量门槛拒绝，
# EP 只被结构门槛拒绝，ZeRO-3 和 TP 通过；代码换回英文短句后是预期的那两句。

# %% [markdown] lang="en"
# Every reason carries a stable code, and each code maps to one fixed English phrase (`REASON_TEXTS_EN`), for
# scripts that only understand English reasons. The asserts below check that the dicts are the same declarations as
# coursekit's `EXAMPLE_CANDIDATES`; that DP is rejected by the fit gate only and EP by the structure gate only, while
# ZeRO-3 and TP pass; and that the codes map back to the expected two phrases.

# %%
assert [Candidate.from_dict(c) for c in first_candidates] == [
    replace(c, description=None) for c in EXAMPLE_CANDIDATES
]
assert Environment.from_dict(environment) == EXAMPLE_ENVIRONMENT
codes = {report.name: report.codes for report in reports}
assert codes == {
    'DP': ('memory',),
    'ZeRO-3': (),
    'TP': (),
    'EP': ('structure',),
}
assert [REASON_TEXTS_EN[code] for code in codes['DP']] == [
    'per-rank memory exceeds device memory'
]
assert [REASON_TEXTS_EN[code] for code in codes['EP']] == [
    'model structure is unsupported'
]

# %% [markdown] lang="zh"
# ## 5. 为什么不打综合分
#
# 设想给每个候选打一个“通过了几道门槛”的分数。下面用同一批报告算出这个分数：

# %% [markdown] lang="en"
# ## 5. Why never a blended score
#
# Imagine scoring each candidate by "how many gates it passed". The cell below computes that score from the same
# reports:

# %%
reports = evaluate_candidates(candidates, EXAMPLE_ENVIRONMENT)
md_table(
    [
        Text(zh="候选", en="candidate"),
        Text(zh="通过的门槛数", en="gates passed"),
        Text(zh="拒绝原因", en="reasons"),
    ],
    [
        (
            r.name,
            f"{len(GATES) - len(r.reasons)} / {len(GATES)}",
            "<br>".join(x.message for x in r.reasons) or "—",
        )
        for r in reports
    ],
)
by_name = {r.name: r for r in reports}
assert len(by_name['DP'].reasons) == len(by_name['EP'].reasons) == 1
assert by_name['DP'].codes != by_name['EP'].codes

# %% [markdown] lang="zh"
# DP 和 EP 的“分数”一样（6 道门槛通过 5 道），可二者的处境完全不同：
#
# - DP 被拒绝，是因为每个 rank 要 29 GiB、设备只有 24 GiB。这个缺口可以补：把状态分片（同一张表里 ZeRO-3 只要 18 GiB，已经通过），
#   或者换更大的设备。
# - EP 被拒绝，是因为模型是稠密的。对一个稠密模型，再怎么调参数 EP 也不会通过。
#
# 分数把“差 5 GiB，可以修”和“结构上不适用”压成了同一个数。更糟的是，加权求和还允许一项的高分抵消另一项的硬失败：
# 一个放不下的候选，通信再好也跑不起来。所以门槛只给**结论 + 原因**，原因里写明是哪条规则、差多少，
# 读者据此知道该改变哪个事实，而不是去调权重。

# %% [markdown] lang="en"
# DP and EP get the same "score" (5 of 6 gates), yet they are in completely different situations:
#
# - DP is rejected because each rank needs 29 GiB and the device has 24 GiB. That gap can be closed: shard the states
#   (ZeRO-3 in the same table needs 18 GiB and already passes) or use a larger device.
# - EP is rejected because the model is dense. No tuning will ever make EP pass for a dense model.
#
# The score squeezes "5 GiB short, fixable" and "structurally inapplicable" into one number. Worse, a weighted sum lets a
# high mark on one axis make up for a hard failure on another: a candidate that does not fit cannot run, however good
# its communication. So the gates return only **a verdict and its reasons**; each reason names the rule and the
# numbers, and the reader learns which fact to change, not which weight to tune.

# %% [markdown] lang="zh"
# ## 6. 补充候选：上下文门槛与服务门槛
#
# 本课的示例环境没有声明上下文长度，所以 CP 被拒绝（没有证据表明需要它）。声明一个单卡放不下的长上下文后，CP 就通过了：

# %% [markdown] lang="en"
# ## 6. The course's candidates: the context and serving gates
#
# The lesson's example environment declares no context length, so CP is rejected (nothing shows it is needed). Declare a long
# context that one device cannot hold, and CP passes:

# %%
long_context = replace(
    EXAMPLE_ENVIRONMENT, context_len=131072, max_context_per_device=32768
)
short_context = replace(
    EXAMPLE_ENVIRONMENT, context_len=4096, max_context_per_device=32768
)
cp = next(c for c in COURSE_CANDIDATES if c.name == 'CP')
for env in (EXAMPLE_ENVIRONMENT, short_context, long_context):
    report = evaluate_candidate(cp, env)
    declared = Text(zh="未声明", en="not declared")
    context = declared if env.context_len is None else f"{env.context_len:,}"
    per_device = (
        declared
        if env.max_context_per_device is None
        else f"{env.max_context_per_device:,}"
    )
    reasons = str(Text(zh="；", en="; ")).join(
        r.message for r in report.reasons
    )
    why = (
        Text(zh=f"。原因：{reasons}", en=f". Reasons: {reasons}")
        if reasons
        else ""
    )
    print(
        Text(
            zh=f"上下文 {context}，单卡可容纳 {per_device}：CP "
            f"{verdicts[report.accepted]}{why}",
            en=f"context {context}, one device holds {per_device}: CP "
            f"{verdicts[report.accepted]}{why}",
        )
    )
assert evaluate_candidate(cp, long_context).accepted
assert evaluate_candidate(cp, short_context).codes == ('context',)

# %% [markdown] lang="zh"
# 服务角色这道门槛为什么要单独存在？假设有人把一个服务副本的候选页写错了，声明它也支持训练。
# 下面这页就叫 `Replica*`：星号只是提醒这是写错的那一页，不是另一种策略。
# 模式门槛拦不住它（训练“在声明之中”），服务角色门槛会拦住：

# %% [markdown] lang="en"
# Why does the serving-role gate exist on its own? Suppose someone mislabels a serving-replica candidate page and
# declares that it supports training too. The page below is called `Replica*`: the star only marks it as the
# mislabelled page, not another strategy. The mode gate cannot stop it (training is "declared"); the serving-role gate
# does:

# %%
mislabelled = Candidate(
    "Replica*",
    20,
    {"training", "serving"},
    {"dense", "moe"},
    "none",
    role="serving-replica",
)
report = evaluate_candidate(mislabelled, EXAMPLE_ENVIRONMENT)
gates = Text(
    zh="、".join(
        GATE_SHORT_LABELS[code].zh + f" ({code})" for code in report.codes
    ),
    en=", ".join(report.codes),
)
print(
    Text(
        zh=f"拒绝它的门槛：{gates}。原因：{report.reasons[0].message}",
        en=f"gates that reject it: {gates}. Reason: "
        f"{report.reasons[0].message}",
    )
)
assert report.codes == ('serving',)

# %% [markdown] lang="zh"
# ## 7. 动手：改变环境，看门槛怎样变化
#
# 下面的小部件 (widget) 用当前环境跑七个候选。控件正下方的网格每行一个候选、每列一道门槛（按顺序）：
# 绿色格通过，红色格加叉不通过，黑框标出该候选**第一道**不通过的门槛；行名后的文字是结论。
# 网格下方的消息框用颜色和开头的文字给出结论，框里的表列出每个候选的结论和全部原因（加粗的是第一道不通过的门槛）。
#
# 试一试：
# 1. 把单设备显存改成 32：DP 通过了吗？为什么？
# 2. 把链路域改成 `cross_node`：哪些候选被互连门槛拒绝？
# 3. 把工作负载改成服务：DP、ZeRO-3 和 Replica 的结论怎样变化？
# 4. 上下文长度选 131,072，单卡可容纳选 32,768：CP 怎样变化？

# %% [markdown] lang="en"
# ## 7. Hands on: change the environment, watch the gates
#
# The widget below runs the seven candidates against the environment you set. In the grid right under the controls
# each row is a candidate and each column a gate (in order): a green cell passes, a red cell with a cross fails, and
# a black frame marks each candidate's **first** failing gate; the word after each row's name is its verdict. The
# message box below the grid says the overall verdict in words and colour, and its table lists every candidate's
# verdict and all its reasons (the first failing gate in bold).
#
# Try:
# 1. Set the device memory to 32: does DP pass now? Why?
# 2. Set the link scope to `cross_node`: which candidates does the interconnect gate reject?
# 3. Switch the workload to serving: how do DP, ZeRO-3 and Replica change?
# 4. Pick a context length of 131,072 and a per-device context of 32,768: what happens to CP?

# %%
gates_widget = GatesWidget()
gates_widget

# %%
# zh: 用直接调用核对小部件（小部件只调用 coursekit）。
# en: Check the widget against a direct call (the widget only calls coursekit).
assert gates_widget.status == "ok"
assert [r.accepted for r in gates_widget.result.reports] == [
    r.accepted for r in evaluate_candidates(candidates, EXAMPLE_ENVIRONMENT)
]

# %% [markdown] lang="zh"
# ## 8. 并行度的排除规则，也是门槛
#
# 上面的门槛筛的是**候选**。还有三条规则筛的是**并行度 (parallel degree)**（第 5 课的选择矩阵也用它们），它们同样返回代码和原因，而不是分数。

# %% [markdown] lang="en"
# ## 8. The exclusions for parallel degrees are gates too
#
# The gates above screen **candidates**. Three more rules screen **parallel degrees** (lesson 5's selection matrix
# uses them too); they too return a
# code and a reason, not a score.

# %% [markdown] lang="zh"
# ### 8.1 全局批大小 (global batch size) 限制 DP
#
# 每个优化器步处理的序列数是全局批大小 = dp × 微批次 (micro-batch) × 梯度累积 (gradient accumulation)。
# DP 并行度太大，要么迫使全局批大小变大（影响优化），要么迫使每个 rank 的微批次变小（影响内核 (kernel) 效率）。
# 例如 4 个节点 × 8 张 GPU = 32 张卡，全局批大小 = 64 条序列：

# %% [markdown] lang="en"
# ### 8.1 The global batch size limits DP
#
# The sequences of one optimizer step are global batch = dp × micro-batch × gradient accumulation. Too large a DP
# degree either forces a larger global batch (hurting optimization) or a smaller micro-batch per rank (hurting kernel
# efficiency). For example 4 nodes × 8 GPUs = 32 devices with a global batch of 64 sequences:

# %%
global_batch, devices = 64, 4 * 8
print(
    Text(
        zh="微批次 = 1 时可行的 DP 并行度：",
        en="DP degrees admissible at micro-batch 1:",
    ),
    dp_degrees_for_batch(global_batch, micro_batch=1),
)
print(
    Text(zh="最大 DP（微批次 = 1、2）：", en="largest DP (micro-batch 1, 2):"),
    max_dp_degree(global_batch, micro_batch=1),
    max_dp_degree(global_batch, micro_batch=2),
)
assert (
    check_global_batch(
        devices, micro_batch=1, grad_accum=2, global_batch=global_batch
    )
    is None
)
too_wide = check_global_batch(
    devices, micro_batch=4, grad_accum=1, global_batch=global_batch
)
print(too_wide.message)
assert too_wide.code == "global_batch"

# %% [markdown] lang="zh"
# 微批次 = 1 时，32 路 DP 可行（每步累积 2 次）；微批次提到 4 后，32 路 DP 每步至少处理 128 条序列，
# 超过了 64，被排除。纯 DP 用不满 32 张卡时，剩下的并行度要交给 TP、PP 等其他维度（第 4 课）。

# %% [markdown] lang="en"
# With micro-batch 1, 32-way DP works (2 accumulation steps); with micro-batch 4, 32-way DP processes at least 128
# sequences per step, more than 64, and is excluded. When pure DP cannot fill 32 devices, the remaining degrees go to
# other dimensions such as TP and PP (lesson 4).

# %% [markdown] lang="zh"
# ### 8.2 TP 要整除注意力头，并留在节点内
#
# 每个 TP rank 必须持有整数个注意力头 (attention heads)；而且 TP 每层都有集合通信，组要放在一个节点的高速链路上。
# 以 Megatron 论文表 1 的 18.4B 模型（48 个头、40 层）和每节点 8 张 GPU 为例：

# %% [markdown] lang="en"
# ### 8.2 TP must divide the attention heads and stay inside a node
#
# Every TP rank must hold whole attention heads, and TP runs collectives in every layer, so its group belongs on one
# node's fast links. Take the 18.4B model of Megatron's Table 1 (48 heads, 40 layers) on nodes of 8 GPUs:

# %%
shape = model_shape("megatron-18.4b")
gpus_per_node = 8
rows = []
for tp in (1, 2, 4, 5, 6, 8, 12):
    reason = check_tp_degree(tp, shape.heads, gpus_per_node)
    rows.append(
        (
            tp,
            Text(zh="通过", en="pass")
            if reason is None
            else f"`{reason.code}`",
            "—" if reason is None else reason.message,
        )
    )
md_table(
    [
        Text(zh="TP", en="TP"),
        Text(zh="结论", en="verdict"),
        Text(zh="原因", en="reason"),
    ],
    rows,
)
assert check_tp_degree(8, shape.heads, gpus_per_node) is None
assert check_tp_degree(5, shape.heads, gpus_per_node).code == "tp_heads"
assert check_tp_degree(12, shape.heads, gpus_per_node).code == "interconnect"

# %% [markdown] lang="zh"
# TP = 6 虽然整除 48 个头，也不超过 8，却不能整除每节点 8 张卡：rank 连续放置时，有的 TP 组会横跨两个节点。

# %% [markdown] lang="en"
# TP = 6 divides the 48 heads and does not exceed 8, yet it does not divide the 8 GPUs per node: with contiguous ranks
# some TP groups straddle two nodes.

# %% [markdown] lang="zh"
# ### 8.3 PP 不超过层数
#
# 每个流水线阶段 (stage) 至少要一层。层数不能被 PP 整除时仍然可以运行，但层数最多的阶段决定节奏——
# 这一条是**警告**（代码在 `WARNING_CODES` 里），不是拒绝：

# %% [markdown] lang="en"
# ### 8.3 PP cannot exceed the layers
#
# Every pipeline stage needs at least one layer. When PP does not divide the layers the pipeline still runs, but the
# stage with the most layers sets the pace; that rule is a **warning** (its code is in `WARNING_CODES`), not a
# rejection:

# %%
rows = []
for pp in (2, 3, 4, 8, 40, 48):
    reason = check_pp_degree(pp, shape.layers)
    warning = (
        Text(zh="（警告）", en=" (warning)")
        if reason is not None and reason.code in WARNING_CODES
        else ""
    )
    verdict = (
        Text(zh="通过", en="pass")
        if reason is None
        else f"`{reason.code}`{warning}"
    )
    rows.append((pp, verdict, "—" if reason is None else reason.message))
md_table(
    [
        Text(zh="PP", en="PP"),
        Text(zh="结论", en="verdict"),
        Text(zh="原因", en="reason"),
    ],
    rows,
)
assert check_pp_degree(3, shape.layers).code in WARNING_CODES
assert check_pp_degree(48, shape.layers).code == "pp_layers"

# %% [markdown] lang="zh"
# 流水线气泡 (pipeline bubble) 和阶段平衡的定量分析在第 6 课。

# %% [markdown] lang="en"
# The pipeline bubble and stage balance are quantified in lesson 6.

# %% [markdown] lang="zh"
# ## 9. 练习
#
# ### 练习 3.1
#
# 本课的示例环境（24 GiB、训练、稠密模型），但 TP 组只能放在跨节点的链路上（`link_scope = 'cross_node'`）。
# 第一个拒绝 TP 的门槛是哪个？用门槛代码作答（如 `'memory'`；也可以写小部件网格里的中文名，如 `'容量'`）。

# %% [markdown] lang="en"
# ## 9. Exercises
#
# ### Exercise 3.1
#
# The lesson's example environment (24 GiB, training, dense model), but the TP group can only be placed on cross-node links
# (`link_scope = 'cross_node'`). Which gate rejects TP first? Answer with the gate's code (e.g. `'memory'`; the
# gate's name in the widget's grid, e.g. `'fit'`, is taken too).

# %% tags=["learner"]
answer = ...
check("q3.first_gate", answer)

# %% tags=["solution"]
tp = next(c for c in EXAMPLE_CANDIDATES if c.name == "TP")
answer = evaluate_candidate(
    tp, replace(EXAMPLE_ENVIRONMENT, link_scope="cross_node")
).codes[0]
verify("q3.first_gate", answer)

# %% [markdown] lang="zh"
# ### 练习 3.2
#
# 环境改为：**服务**一个**混合专家 (MoE)** 模型，24 GiB 设备，节点内链路，上下文未声明。
# 七个候选（DP、ZeRO-3、TP、EP、PP、CP、Replica）中哪些通过全部门槛？用集合作答，如 `{'TP'}`。

# %% [markdown] lang="en"
# ### Exercise 3.2
#
# New environment: **serving** a **mixture-of-experts (MoE)** model on 24 GiB devices with intra-node links, context not
# declared. Which of the seven candidates (DP, ZeRO-3, TP, EP, PP, CP, Replica) pass every gate? Answer with a set,
# e.g. `{'TP'}`.

# %% tags=["learner"]
answer = ...
check("q3.accepted", answer)

# %% tags=["solution"]
serving_moe = replace(EXAMPLE_ENVIRONMENT, mode="serving", model_kind="moe")
answer = {
    r.name for r in evaluate_candidates(candidates, serving_moe) if r.accepted
}
verify("q3.accepted", answer)

# %% [markdown] lang="zh"
# ### 练习 3.3
#
# 全局批大小是 64 条序列，每个 rank 的微批次是 4。哪些 DP 并行度能让 dp × 微批次 × 梯度累积正好等于全局批大小？
# 用从小到大的元组作答，如 `(1, 2)`。

# %% [markdown] lang="en"
# ### Exercise 3.3
#
# The global batch is 64 sequences and the micro-batch per rank is 4. Which DP degrees make dp × micro-batch ×
# gradient accumulation equal the global batch exactly? Answer with an ascending tuple, e.g. `(1, 2)`.

# %% tags=["learner"]
answer = ...
check("q3.dp_degrees", answer)

# %% tags=["solution"]
answer = dp_degrees_for_batch(64, micro_batch=4)
verify("q3.dp_degrees", answer)

# %% [markdown] lang="zh"
# ### 练习 3.4
#
# 模型有 32 个注意力头，每节点 8 张 GPU。TP = 16 被哪条规则拒绝？用 `check_tp_degree` 的代码作答：
# `'tp_heads'`、`'interconnect'`，或 `'none'`（不被拒绝）；
# 也可以写中文名：`'注意力头'`、`'互连'`、`'不被拒绝'`。

# %% [markdown] lang="en"
# ### Exercise 3.4
#
# The model has 32 attention heads and each node has 8 GPUs. Which rule rejects TP = 16? Answer with
# `check_tp_degree`'s code: `'tp_heads'`, `'interconnect'`, or `'none'` (not rejected); the rule's name is taken
# too: `'attention heads'`, `'interconnect'`, `'not rejected'`.

# %% tags=["learner"]
answer = ...
check("q3.tp_rule", answer)

# %% tags=["solution"]
reason = check_tp_degree(16, heads=32, gpus_per_node=8)
answer = "none" if reason is None else reason.code
verify("q3.tp_rule", answer)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 哪个条件会直接排除纯 DP？
# 2. 为什么 TP 往往更依赖高速的节点内互连？
# 3. 全局批大小的限制如何反过来约束 DP 并行度？
# 4. 一位同事提议：“给每个候选按显存、通信、复杂度各打 1-5 分，加权求和取最高。”用本课的门槛说明这样做会丢掉什么。

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. Which condition rules out pure DP outright?
# 2. Why does TP usually depend more on fast intra-node links?
# 3. How does the global batch limit constrain the DP degree in turn?
# 4. A colleague proposes: "score each candidate 1-5 on memory, communication and complexity, and take the highest
#    weighted sum." Using this lesson's gates, explain what that loses.

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 完整训练状态（参数、梯度、优化器状态，记作 M_model）超过单卡可用显存（记作 C_device，第 5 课沿用这两个记号）：纯 DP 每个 rank 复制全部状态，容量门槛直接拒绝（第一个筛选例子里 29 GiB > 24 GiB）。
#    此时 ZeRO / FSDP 分片、PP 或 TP 先进入候选。
# 2. TP 每层前向和反向都要做集合通信，调用次数多、单次载荷不大，时延和带宽都被放大；跨节点链路慢得多（第 0、2 课），
#    所以 TP 的组要放在节点内，`check_tp_degree` 和互连门槛都检查这一点。
# 3. 全局批大小 = dp × 微批次 × 梯度累积，梯度累积至少是 1，所以 dp ≤ 全局批大小 / 微批次；
#    而且 dp × 微批次要整除全局批大小。DP 再大，只能增大全局批大小（影响收敛）或缩小微批次（影响内核效率）。
# 4. 会丢掉三件事：哪条规则没通过、差多少、能不能修。分数相同的 DP 和 EP 一个差 5 GiB 可修、一个结构上不适用；
#    加权求和还会让某一项的高分掩盖一次硬失败（放不下的候选根本跑不起来）。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. The full training state (parameters, gradients, optimizer state; call it M_model) exceeding the usable memory of
#    one device (call it C_device; lesson 5 keeps both symbols): pure DP copies all of it to every rank, so the fit gate rejects it outright (29 GiB > 24 GiB in the first screening example). ZeRO / FSDP sharding, PP or TP
#    then enter the candidates first.
# 2. TP runs collectives in the forward and backward pass of every layer: many calls with modest payloads, so both the
#    latency and the bandwidth term are multiplied; cross-node links are much slower (lessons 0 and 2), so TP groups
#    belong inside a node, which both `check_tp_degree` and the interconnect gate check.
# 3. global batch = dp × micro-batch × gradient accumulation, and accumulation is at least 1, so
#    dp ≤ global batch / micro-batch, and dp × micro-batch must divide the global batch. Beyond that, DP can only grow
#    by enlarging the global batch (hurting convergence) or shrinking the micro-batch (hurting kernel efficiency).
# 4. It loses three things: which rule failed, by how much, and whether it can be fixed. DP and EP with the same score
#    are 5 GiB short (fixable) and structurally inapplicable respectively; a weighted sum also lets a high mark on one
#    axis hide a hard failure (a candidate that does not fit cannot run at all).

# %% [markdown] lang="zh"
# ## 要点
#
# - 筛选顺序：容量 → 互连 → 结构 → 上下文 → 模式 → 服务角色。“服务门槛”拆成模式和服务角色两道，每条原因只说一件事。
# - 候选公开自己的要求（显存/rank、模式、结构、链路域、是否切分上下文、执行角色），环境给出事实；任何一项不满足就拒绝。
# - 不打综合分：结论加原因，原因写明规则和数字，告诉你该改变哪个事实。
# - 三条排除规则筛并行度：dp × 微批次要整除全局批大小；TP 整除注意力头且留在节点内；PP 不超过层数（不整除只是警告）。
# - 通过门槛只是进入实测的资格，不是性能的保证；组合之后的检查见第 4 课。

# %% [markdown] lang="en"
# ## Key points
#
# - Screening order: fit → interconnect → structure → context → mode → serving role. The "serving" gate becomes two (mode and serving role), so every reason says one thing.
# - Candidates publish their requirements (memory per rank, modes, structures, link scope, context splitting, execution role); the environment states the facts; failing any one rejects.
# - No blended score: a verdict with reasons, each naming its rule and numbers, telling you which fact to change.
# - Three exclusions screen degrees: dp × micro-batch must divide the global batch; TP divides the heads and stays inside a node; PP cannot exceed the layers (an uneven split is only a warning).
# - Passing the gates earns a candidate measurement, not a performance guarantee; lesson 4 checks the combination.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - 张量、流水线和数据并行怎样组合，TP 为什么留在节点内：D. Narayanan et al., [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473)，SC 2021（本课 18.4B 模型的形状取自其表 1）。
# - 专家并行：D. Lepikhin et al., [GShard](https://arxiv.org/abs/2006.16668)，ICLR 2021；W. Fedus et al., [Switch Transformers](https://arxiv.org/abs/2101.03961)，JMLR 2022。
# - 上下文并行：H. Liu et al., [Ring Attention](https://arxiv.org/abs/2310.01889)，ICLR 2024；Megatron-Core 的[并行策略指南](https://docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/index.html)。
# - PyTorch 的分布式训练概览：[PyTorch Distributed Overview](https://pytorch.org/tutorials/beginner/dist_overview.html)。
#
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 2 课 通信成本](02_communication.ipynb) · 下一课：[第 4 课 组合与风险](04_composition.ipynb)

# %% [markdown] lang="en"
# ## Related reading
#
# - How tensor, pipeline and data parallelism combine, and why TP stays inside a node: D. Narayanan et al., [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473), SC 2021 (this lesson's 18.4B shape is from its Table 1).
# - Expert parallelism: D. Lepikhin et al., [GShard](https://arxiv.org/abs/2006.16668), ICLR 2021; W. Fedus et al., [Switch Transformers](https://arxiv.org/abs/2101.03961), JMLR 2022.
# - Context parallelism: H. Liu et al., [Ring Attention](https://arxiv.org/abs/2310.01889), ICLR 2024; Megatron-Core's [parallelism guide](https://docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/index.html).
# - PyTorch's distributed training overview: [PyTorch Distributed Overview](https://pytorch.org/tutorials/beginner/dist_overview.html).
#
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 2, communication](02_communication.ipynb) · next: [lesson 4, composition and risk](04_composition.ipynb)

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的环境（设备显存、训练还是服务、稠密还是 MoE、链路域、上下文）：
# - 在我的环境里，第一个拒绝我原本想用的策略的门槛是：
# - 为了让它通过，我需要改变的事实是：
# - 我的全局批大小和微批次允许的 DP 并行度：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - My environment (device memory, training or serving, dense or MoE, link scope, context):
# - In my environment, the first gate that rejects the strategy I meant to use:
# - The fact I would need to change for it to pass:
# - The DP degrees my global batch and micro-batch allow:
