"""The three specs of the decision workbench — model, cluster, workload — and the course's constants.

The specs themselves live in :mod:`coursekit.specs`, below every formula module; this module re-exports them
under their planner names and keeps the planner's messages and Megatron-LM's own formulas.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from .._validate import check_choice, check_int, learner_functions
from ..i18n import register, tr
from ..specs import (
    ACTIVATION_BYTES,
    DEFAULT_ACHIEVABLE_FLOPS_FRACTION,
    DEFAULT_MAX_MICRO_BATCH,
    DEFAULT_MAX_VIRTUAL_STAGES,
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_OVERLAP_FRACTION,
    DEFAULT_RUNTIME_RESERVE_GIB,
    DEGREE_KEYS,
    LOGITS_BYTES,
    MAX_CONCURRENCY,
    MAX_GLOBAL_BATCH,
    MAX_NODES,
    MAX_SEQ_LEN,
    MAX_WORLD_SIZE,
    MEGATRON_2021_SOURCE,
    MLP_KINDS,
    NORM_KINDS,
    OVERLAP_DEFAULTS,
    OVERLAP_SOURCES,
    POSITION_KINDS,
    WORKLOAD_MODES,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
    divisors,
    group_link,
    ring_nics,
)

register(
    {
        "planner.part.embedding": {"zh": "输入嵌入", "en": "embedding"},
        "planner.part.attention": {"zh": "注意力", "en": "attention"},
        "planner.part.norms": {"zh": "归一化层", "en": "norms"},
        "planner.part.output": {"zh": "输出层", "en": "output layer"},
        "planner.part.mlp": {"zh": "前馈层 (MLP)", "en": "MLP"},
        "planner.part.router": {"zh": "路由器", "en": "router"},
        "planner.part.experts": {"zh": "专家", "en": "experts"},
        "planner.part.shared_experts": {"zh": "共享专家", "en": "shared experts"},
    }
)
#: The parts of :meth:`ModelSpec.param_ledger`; each has a name in each course language (:func:`param_part_name`).
PARAM_PARTS: tuple[str, ...] = (
    "embedding",
    "attention",
    "norms",
    "output",
    "mlp",
    "router",
    "experts",
    "shared experts",
)


def param_part_name(part: str) -> str:
    """The name of a :meth:`ModelSpec.param_ledger` part in the current language.

    >>> from coursekit.i18n import set_language
    >>> set_language("zh"); param_part_name("mlp"), param_part_name("embedding")
    ('前馈层 (MLP)', '输入嵌入')
    >>> set_language("en"); param_part_name("output")
    'output layer'

    Taught in: lesson 9 (the parameter ledger).
    """
    check_choice("part", part, PARAM_PARTS)
    return tr(f"planner.part.{part.replace(' ', '_')}")


__all__ = [
    "ACTIVATION_BYTES",
    "DEFAULT_ACHIEVABLE_FLOPS_FRACTION",
    "DEFAULT_MAX_MICRO_BATCH",
    "DEFAULT_MAX_VIRTUAL_STAGES",
    "DEFAULT_OUTPUT_TOKENS",
    "DEFAULT_OVERLAP_FRACTION",
    "DEFAULT_RUNTIME_RESERVE_GIB",
    "DEGREE_KEYS",
    "LOGITS_BYTES",
    "MAX_CONCURRENCY",
    "MAX_GLOBAL_BATCH",
    "MAX_NODES",
    "MAX_SEQ_LEN",
    "MAX_WORLD_SIZE",
    "MEGATRON_2021_SOURCE",
    "MEGATRON_CORE_FLOP_RELEASES",
    "MEGATRON_VOCAB_DIVISOR",
    "MLP_KINDS",
    "NORM_KINDS",
    "OVERLAP_DEFAULTS",
    "OVERLAP_SOURCES",
    "PARAM_PARTS",
    "POSITION_KINDS",
    "WORKLOAD_MODES",
    "ClusterSpec",
    "ModelSpec",
    "WorkloadSpec",
    "divisors",
    "group_link",
    "megatron_core_flops_per_step",
    "megatron_core_model_flops_per_step",
    "megatron_padded_vocab",
    "megatron_paper_flops_per_step",
    "megatron_paper_param_count",
    "param_part_name",
    "ring_nics",
]

register(
    {
        "planner.degrees_syntax": {
            "zh": "{name} = {value!r}：{item!r} 不是 key=value 形式（例如 'tp=8,pp=4,dp=4'）。",
            "en": "{name} = {value!r}: {item!r} is not of the form key=value (e.g. 'tp=8,pp=4,dp=4').",
        },
        "planner.degrees_key": {
            "zh": "{name} = {value!r}：未知的键 {key!r}；可用的键是 {keys}。",
            "en": "{name} = {value!r}: unknown key {key!r}; the keys are {keys}.",
        },
        "planner.degrees_workload_key": {
            "zh": "{name} = {value!r}：{key!r} 是工作负载 (workload) 的设置，不是布局的并行度："
            "命令行用 {flag} 给出，代码里用 {spec} 的字段 {field}。",
            "en": "{name} = {value!r}: {key!r} is a setting of the workload, not a degree of the layout: give it with "
            "{flag} on the command line, or {spec}'s field {field} in code.",
        },
        "planner.degrees_sp_key": {
            "zh": "{name} = {value!r}：{key!r} 不是布局的并行度：序列并行 (sequence parallelism) 在 tp > 1 时默认开启；"
            "要关掉它，命令行用 {flag}，代码里用 {spec}({field}={off})。",
            "en": "{name} = {value!r}: {key!r} is not a degree of the layout: sequence parallelism is on by default "
            "whenever tp > 1; to turn it off, use {flag} on the command line, or {spec}({field}={off}) in code.",
        },
        "planner.degrees_int": {
            "zh": "{name} = {value!r}：{key} = {item!r} 必须是 {low} 到 {high} 之间的整数。",
            "en": "{name} = {value!r}: {key} = {item!r} must be an integer from {low} to {high}.",
        },
        "planner.etp_dense": {
            "zh": "etp = {etp}：专家张量并行 (expert tensor parallelism, ETP) 只适用于混合专家 (MoE) 模型的训练；"
            "{model} 在这里没有专家层",
            "en": "etp = {etp}: expert tensor parallelism (ETP) applies only to training a mixture-of-experts (MoE) "
            "model; {model} has no expert layers here",
        },
        "planner.replicas_with_training": {
            "zh": "replicas = {replicas}：服务副本只由 tp、pp 与 replicas 描述，不能再给训练的 {given}。",
            "en": "replicas = {replicas}: a serving copy is described by tp, pp and replicas only; the training "
            "arguments {given} cannot be given with it.",
        },
        "planner.degrees_mixed": {
            "zh": "{name} = {value!r}：replicas 描述服务副本，不能与训练的 dp、zero、ga 同时给出。",
            "en": "{name} = {value!r}: replicas describe serving copies and cannot be given together with the "
            "training keys dp, zero or ga.",
        },
        "planner.layout_serving_key": {
            "zh": "{name} = {value!r}：{key} 是训练的并行度；服务规划的布局只由 tp、pp 与 replicas 描述。",
            "en": "{name} = {value!r}: {key} is a training degree; a serving plan's layouts are described by tp, pp "
            "and replicas.",
        },
        "planner.layout_training_key": {
            "zh": "{name} = {value!r}：replicas 描述服务副本；训练规划的布局没有它（数据并行用 dp）。",
            "en": "{name} = {value!r}: replicas describe serving copies; a training plan's layouts have none (data "
            "parallelism is dp).",
        },
        # ---- reports
        "planner.header": {
            "zh": "决策工作台：{model} 在 {cluster}（{nodes} 个节点 × {gpn} 个设备 = {world} 个 rank）上{mode}",
            "en": "Decision workbench: {model} on {cluster} ({nodes:@node} × {gpn:@device} = {world:@rank}), {mode}",
        },
        "planner.mode_training": {
            "zh": "训练，全局批大小 {global_batch} 条序列 × {seq_len} token",
            "en": "training, global batch {global_batch:@sequence} × {seq_len:@token}",
        },
        "planner.mode_serving": {
            "zh": "服务，{global_batch} 个并发请求，每个提示 {seq_len} token、输出 {output_tokens} token",
            "en": "serving, {global_batch:@concurrent request}, prompts of {seq_len:@token}, "
            "{output_tokens:@output token}",
        },
        "planner.assumptions": {
            "zh": "假设：峰值 {peak_tflops:.0f~} TFLOP/s（bf16 稠密），计算效率：{mfu}，通信重叠（按维度）：{overlap}，"
            "精度方案 {recipe}，运行时预留 {reserve_gib:.1f} GiB/设备；带宽为每 {device} 单向："
            "节点内 {intra_gb_s:.0f~} GB/s，跨节点 {inter_gb_s:.1f~} GB/s；估算的不确定度约 ±{uncertainty:.0%}",
            "en": "Assumptions: peak {peak_tflops:.0f~} TFLOP/s (bf16 dense), compute efficiency {mfu}, overlap per "
            "dimension {overlap}, recipe {recipe}, runtime reserve {reserve_gib:.1f} GiB per device; bandwidth "
            "unidirectional per {device}: intra-node {intra_gb_s:.0f~} GB/s, inter-node {inter_gb_s:.1f~} GB/s; the "
            "estimate's uncertainty is about ±{uncertainty:.0%}",
        },
        "planner.nvlink_domain": {
            "zh": "；一个 NVLink 域跨节点连起 {domain} 张 GPU（每个节点 {gpn} 张）：这个作业每个域用 {filled} 张"
            "（按 Megatron-Bridge 启动脚本设定的 Slurm 分段），域内的组都走节点内链路，跨域才走网络",
            "en": "; one NVLink domain joins {domain:@GPU} across nodes of {gpn}: this job fills {filled} of them in "
            "each domain (the Slurm segments Megatron-Bridge's launcher asks for), and every group inside a domain "
            "uses the intra-node link, only groups across domains the network",
        },
        "planner.list_separator": {"zh": "、", "en": ", "},
        "planner.attention_kernel_carried": {
            "zh": "；注意力用本设备自己的融合注意力内核（FlashAttention-3 只在计算能力 9.x 的 GPU（如 H100）上运行，"
            "这里按它的速度外推；不保存 s×s 分数，完全重计算的工作集也按此计；因果掩码下只算 {share:g} 的查询-键对，"
            "在 4K 到 16K 个 token 的序列上速度约是最佳矩阵乘的 {rate:.3f}（H100 上的测量），序列更短或被上下文并行"
            "切开时更慢）",
            "en": "; attention in this device's own fused kernel (FlashAttention-3 runs only on GPUs of compute "
            "capability 9.x such as H100, and its speed is carried over here; no s×s scores kept; full "
            "recomputation's working set assumes it too; under the causal mask it computes {share:g} of the "
            "query-key pairs at about {rate:.3f} of the best matmul's speed on sequences of 4K to 16K tokens, as "
            "measured on H100, slower on shorter ones and where context parallelism splits the sequence)",
        },
        "planner.attention_kernel_flash": {
            "zh": "；注意力用融合注意力内核 {kernel}（不保存 s×s 分数，完全重计算的工作集也按此计；因果掩码下只算 "
            "{share:g} 的查询-键对，在 4K 到 16K 个 token 的序列上速度约是最佳矩阵乘的 {rate:.3f}（H100 上的测量），"
            "序列更短或被上下文并行切开时更慢）",
            "en": "; attention in the fused kernel {kernel} (no s×s scores kept; full recomputation's working "
            "set assumes it too; under the causal mask it computes {share:g} of the query-key pairs at about "
            "{rate:.3f} of the best matmul's speed on sequences of 4K to 16K tokens, as measured on H100, slower on "
            "shorter ones and where context parallelism splits the sequence)",
        },
        "planner.tp_overlap_needs_sp": {
            "zh": "；TP 通信重叠要求 {asked:.0%}，但它只在序列并行 (sequence parallelism) 下运行"
            "（Megatron-LM 不开序列并行就拒绝 --tp-comm-overlap）：按 0% 计",
            "en": "; TP overlap {asked:.0%} asked, but it runs only with sequence parallelism (Megatron-LM refuses "
            "--tp-comm-overlap without it): 0% in force",
        },
        "planner.offload_assumption": {
            "zh": "；激活卸载（recompute=offload）：每张 GPU 主机内存 {host_gib:.1f} GiB、主机链路单向 "
            "{link_gb_s:.1f} GB/s，每层的拷贝与下一层的计算重叠，拷贝占用的显存带宽不计",
            "en": "; activation offloading (recompute=offload): host memory {host_gib:.1f} GiB and a "
            "host link of {link_gb_s:.1f} GB/s one way per GPU, each layer's copy overlapping the next layer's "
            "compute, the device memory bandwidth the copies take not counted",
        },
        "planner.recompute_modules": {
            "zh": "；模块级重计算：{modules}",
            "en": "; module-level recomputation: {modules}",
        },
        "planner.attention_kernel_eager": {
            "zh": "；注意力分数显式保存（每层 5·a·s²·b 字节，Korthikanti 等）",
            "en": "; attention scores materialised (5·a·s²·b bytes per layer, Korthikanti et al.)",
        },
        "planner.precision_fp8": {
            "zh": "；FP8：线性层矩阵乘按 FP8 峰值 {fp8_tflops:.0f} TFLOP/s 计，但只保留峰值翻倍带来的提速的 "
            "{share:.3f}（{share_source}），注意力核心与输出层按 bf16 计；线性层为反向保存的输入按每元素 1 字节计；"
            "MFU 仍以 bf16 峰值为分母",
            "en": "; FP8: the linear layers' matmuls at the FP8 peak {fp8_tflops:.0f} TFLOP/s, keeping {share:.3f} of "
            "the speed-up the doubled peak promises ({share_source}), attention's core and the output layer at bf16; "
            "the inputs the linear layers save for backward at 1 byte per element; MFU is still counted against the "
            "bf16 peak",
        },
        "planner.moe_uncertainty": {
            "zh": "；混合专家 (mixture of experts, MoE) 模型的估算比 ±{uncertainty:.0%} 更不确定：登记的 "
            "{moe_runs} 个 MoE 实测上，估算吞吐是实测的 {moe_low:.2f} 到 {moe_high:.2f} 倍（{moe_outside} 个超出 "
            "±{tolerance:.0%}，偏快的一侧：全对全通信的重叠方式、分发器、路由是否均衡，估算都看不到），稠密模型的 "
            "{dense_runs} 个实测是 {dense_low:.2f} 到 {dense_high:.2f} 倍",
            "en": "; for a mixture-of-experts (MoE) model the estimate is less certain than ±{uncertainty:.0%}: over "
            "the {moe_runs} registered MoE runs its throughput was {moe_low:.2f} to {moe_high:.2f} times the "
            "measured ({moe_outside} outside ±{tolerance:.0%}, on the fast side: the all-to-all's overlap, the "
            "dispatcher and the routing's balance are not in the estimate), against {dense_low:.2f} to "
            "{dense_high:.2f} over the {dense_runs} dense runs",
        },
        "planner.fp8_share_fitted": {
            "zh": "在 DGX Cloud 的一对 H100 BF16/FP8 实测上标定，另外十对检验：稠密模型不确定度约一成，"
            "MoE 的提速估高达两成；其他设备按实测的 FP8/bf16 最佳矩阵乘比例换算，未在那些设备的训练上标定",
            "en": "fitted on one DGX Cloud H100 BF16/FP8 pair of measurements, checked on ten others: uncertain by "
            "about a tenth for dense models, the speed-up up to a fifth too high for MoE; carried to other devices by "
            "their measured FP8/bf16 best-matmul ratio, not fitted on their training runs",
        },
        "planner.lora": {
            "zh": "；低秩适配 (LoRA) 微调，秩 {rank}：全部权重冻结，没有它们的梯度、优化器状态和权重梯度矩阵乘，"
            "只训练每个线性层旁的低秩适配器（每个 token 经过 {adapters_m:,.1f}M 个适配器参数）；激活不变",
            "en": "; LoRA fine-tuning, rank {rank}: every weight frozen, with no gradients, optimizer states or "
            "weight-gradient matmuls, only the low-rank adapters beside the linear layers train ({adapters_m:,.1f}M "
            "adapter parameters on each token's path); activations unchanged",
        },
        "planner.fp8_weights_replace": {
            "zh": "；FP8 权重取代 bf16 权重（--fp8-param-gather），权重字节数按配方计",
            "en": "; FP8 weights replace the bf16 ones (--fp8-param-gather): the weights at the recipe's bytes",
        },
        "planner.fp8_activation_cache_deepseek": {
            "zh": "；激活按 DeepSeek-V3 的 FP8 框架保存（技术报告 §3.3.4）：路由专家的 SwiGLU 输入存为 FP8"
            "（重计算 moe_act 时其输出反向时重算），不重计算注意力核心时注意力输出只存一份 E5M6（每元素 1.5 字节）",
            "en": "; activations saved as DeepSeek-V3's FP8 framework saves them (report §3.3.4): the routed experts' "
            "SwiGLU input in FP8 (its output recomputed in backward with moe_act), and without recomputation of the "
            "attention core the attention output once, in E5M6 (1.5 bytes an element)",
        },
        "planner.fp8_weight_cache": {
            "zh": "；bf16 权重之外，每个线性层的 FP8 权重及其转置在微批次之间缓存，每个线性层参数多 {bytes:g} 字节"
            "（ZeRO-3 不缓存）",
            "en": "; beside the bf16 weights, each linear layer's FP8 weight and its transpose cached between "
            "micro-batches, {bytes:g@byte} more per linear-layer weight (none at ZeRO-3)",
        },
        "planner.fp8_weight_cache_copies": {
            "zh": "；bf16 权重之外，每个线性层的 FP8 权重副本在微批次之间缓存（{copies}），"
            "每个线性层参数多 {bytes:g} 字节（ZeRO-3 不缓存）",
            "en": "; beside the bf16 weights, each linear layer's FP8 weight copies cached between micro-batches "
            "({copies}), {bytes:g@byte} more per linear-layer weight (none at ZeRO-3)",
        },
        "planner.fp8_copies_none": {"zh": "一份，不要转置", "en": "one copy, no transpose"},
        "planner.fp8_copies_cast": {
            "zh": "按行与按列两份，带缩放因子",
            "en": "a row-wise and a column-wise copy with their scales",
        },
        "planner.fp8_layout_transpose": {
            "zh": "；FP8 缩放配方 {recipe}：反向所需的 FP8 转置副本另行生成"
            "（计算能力 {cc} 的 FP8 矩阵乘只接受 TN 布局）",
            "en": "; FP8 scaling recipe {recipe}: the backward's transposed FP8 copies are made (FP8 GEMMs at compute "
            "capability {cc} take only the TN layout)",
        },
        "planner.fp8_layout_none": {
            "zh": "；FP8 缩放配方 {recipe}：不生成 FP8 转置副本（计算能力 {cc} 的 FP8 矩阵乘接受任意布局）",
            "en": "; FP8 scaling recipe {recipe}: no transposed FP8 copies (FP8 GEMMs at compute capability {cc} "
            "take any layout)",
        },
        "planner.fp8_layout_cast": {
            "zh": "；FP8 缩放配方 mxfp8：按行与按列两份 FP8 副本都从 bf16 量化得到，每 32 个元素一个 E8M0 缩放因子；"
            "为反向保存的输入连同缩放因子按每元素 1 + 1/32 字节计",
            "en": "; FP8 scaling recipe mxfp8: the row-wise and the column-wise FP8 copies are both quantised from "
            "bf16, one E8M0 scale per 32 elements; the inputs saved for backward at 1 + 1/32 bytes per element with "
            "their scales",
        },
        "planner.fp8_share_set": {
            "zh": "由 fp8_matmul_share 设定",
            "en": "set by fp8_matmul_share",
        },
        "planner.efficiency_model": {
            "zh": "按每个 {device} 的矩阵乘形状在屋顶线上估算（在 Megatron-LM 表 1 的 A100 GPU 上标定一次）",
            "en": "from each {device}'s matmul shapes on the roofline (calibrated once on Megatron-LM Table 1's A100 "
            "GPUs)",
        },
        "planner.not_accepted": {
            "zh": "index = {index}：这个候选没有通过全部门槛，没有名次。",
            "en": "index = {index}: this candidate does not pass every gate and has no rank.",
        },
        "planner.space": {
            "zh": "搜索空间：{size} 个组合（{dims}），用时 {elapsed_ms:.0f} ms",
            "en": "Search space: {size:@composition} ({dims}), searched in {elapsed_ms:.0f} ms",
        },
        "planner.funnel_header": {
            "zh": "漏斗（按门槛顺序，每个候选记在它第一个没通过的门槛上）：",
            "en": "Funnel (gate order; each candidate counted at the first gate it fails):",
        },
        "planner.funnel_row": {
            "zh": "  {code:<13} 排除 {removed:>7}，剩余 {remaining:>7}",
            "en": "  {code:<13} removed {removed:>7}, remaining {remaining:>7}",
        },
        "planner.accepted_header": {
            "zh": "通过的候选：{count} 个；按估算的步时排序（估算，不是测量），前 {top} 个：",
            "en": "Accepted: {count}; ordered by estimated step time (an estimate, not a measurement), top {top}:",
        },
        "planner.accepted_header_serving": {
            "zh": "通过的布局：{count} 个；按每 GPU 吞吐的下界估计排序（与 plan_serving 相同；估算，不是测量），"
            "前 {top} 个：",
            "en": "Accepted: {count}; ordered by the lower-bound throughput per GPU (as plan_serving ranks them; an "
            "estimate, not a measurement), top {top}:",
        },
        # top = 0 (lesson 9's first report, ``--top 0``): the count, and no "top 0:" heading an empty list (review 25)
        "planner.accepted_header_unlisted": {
            "zh": "通过的候选：{count} 个；按估算的步时排序（估算，不是测量）。`top = 0`，所以这里一个也不列出；"
            "要看估算最快的几个，把 `top` 设为正数（命令行用 --top）。",
            "en": "Accepted: {count}; ordered by estimated step time (an estimate, not a measurement). With top = 0 "
            "none is listed here; set top to a positive number (--top on the command line) to see the fastest.",
        },
        "planner.accepted_header_serving_unlisted": {
            "zh": "通过的布局：{count} 个；按每 GPU 吞吐的下界估计排序（与 plan_serving 相同；估算，不是测量）。"
            "`top = 0`，所以这里一个也不列出；要看估算最好的几个，把 `top` 设为正数（命令行用 --top）。",
            "en": "Accepted: {count}; ordered by the lower-bound throughput per GPU (as plan_serving ranks them; an "
            "estimate, not a measurement). With top = 0 none is listed here; set top to a positive number (--top on "
            "the command line) to see the best.",
        },
        "planner.none_accepted": {
            # a notebook has no --explain: name the method lesson 9 teaches too (review 25)
            "zh": "没有候选通过全部门槛。上面漏斗里排除最多的那道门槛是主要障碍；要看某个组合被拒绝的全部原因，"
            "在笔记本里对规划结果调用 `explain('tp=...,pp=...')`（写上组合的标签），命令行用 --explain。",
            "en": "No candidate passes every gate. The gate that removes the most in the funnel above is the main "
            "obstacle; to see every reason a composition was rejected, call explain('tp=...,pp=...') on the plan's "
            "result in a notebook (with the composition's label), or use --explain on the command line.",
        },
        "planner.accepted": {"zh": "通过", "en": "accepted"},
        "planner.rejected": {"zh": "拒绝", "en": "rejected"},
        "planner.candidate_line": {
            "zh": "{status}：{label}",
            "en": "{status}: {label}",
        },
        "planner.reasons": {"zh": "  原因：", "en": "  Reasons:"},
        "planner.warnings": {"zh": "  提醒：", "en": "  Warnings:"},
        "planner.no_ledger": {
            "zh": "  组合本身不成立，没有计算显存账本和步时。",
            "en": "  The composition itself is malformed; no memory ledger or step time was computed.",
        },
        "planner.memory_line": {
            "zh": "  每 rank 显存：参数 {params} + 梯度 {grads} + 优化器 {optimizer} "
            "+ 工作区 {workspace} + {act_label} {activations} + 运行时预留 {reserve} "
            "= {total} GiB / 设备 {device:.1f} GiB",
            "en": "  Memory per rank: params {params} + grads {grads} + optimizer {optimizer} + workspace "
            "{workspace} + {act_label} {activations} + reserve {reserve} = {total} GiB of {device:.1f} GiB",
        },
        "planner.offload_line": {
            "zh": "  激活卸载 (activation offloading)：{layers} 层的激活在前向时拷到主机内存、反向前取回"
            "（每张 GPU 在主机上占 {host_gib:.1f} GiB；上面的激活只算留在设备上的层，再加一层在拷贝中）；"
            "拷贝共 {copy}/步，其中 {exposed} 没藏在计算下（估计：假设每层的拷贝与下一层的计算重叠，"
            "不计拷贝占用的显存带宽）",
            "en": "  Activation offloading: the activations of {layers:@layer} go to host memory in the forward and "
            "come back before the backward ({host_gib:.1f} GiB per GPU on the host; the activations above count "
            "the layers kept on the device plus one layer in flight); copies {copy} per step, of which {exposed} "
            "not hidden under compute (an estimate: each layer's copy overlaps the next layer's compute; the "
            "device memory bandwidth the copies take is not counted)",
        },
        "planner.act_label": {"zh": "激活", "en": "activations"},
        "planner.kv_label": {"zh": "KV 缓存", "en": "KV cache"},
        "planner.comm_header": {"zh": "  每步通信（每 rank）：", "en": "  Communication per step (per rank):"},
        "planner.comm_line": {
            "zh": "    {dim:<3} {ranks:>5} 个 rank，{link}：{calls} 次调用，载荷 {payload_gib:.3f} GiB，{time}",
            "en": "    {dim:<3} {ranks:>5@rank}, {link}: {calls:@call}, payload {payload_gib:.3f} GiB, {time}",
        },
        "planner.link_intra_node": {"zh": "节点内链路", "en": "intra-node link"},
        "planner.link_inter_node": {"zh": "跨节点链路", "en": "inter-node link"},
        "planner.step_line": {
            "zh": "  估算步时 {step_s} {unit} = 计算 {compute_s} + 暴露的通信 {exposed_s} "
            "+ 气泡 {bubble_s}{host} （通信共 {comm_s} {unit}，其中 {hidden_s} {unit} 藏在计算下；"
            "气泡占比 {bubble:.1%~}{host_note}）",
            "en": "  Estimated step {step_s} {unit} = compute {compute_s} + exposed communication "
            "{exposed_s} + bubble {bubble_s}{host} (communication {comm_s} {unit}, {hidden_s} {unit} hidden "
            "under compute; bubble share {bubble:.1%~}{host_note})",
        },
        # the step line's host parts, only where MoE layers wait for the host (empty otherwise)
        "planner.step_host": {
            "zh": " + 等待主机发射 MoE 层 {host_s}",
            "en": " + waiting for the host to launch MoE layers {host_s}",
        },
        "planner.step_host_note": {
            "zh": "；主机时间是估算，见注释",
            "en": "; the host time is an estimate, see the notes",
        },
        "planner.throughput_line": {
            "zh": "  估算吞吐每秒 {tokens_per_s:,.0f~} 个 token，模型 FLOP/s 利用率 {mfu:.1%~}",
            "en": "  Estimated throughput {tokens_per_s:,.0f~} tokens/s, model FLOP/s utilisation {mfu:.1%~}",
        },
        "planner.not_in_space": {
            "zh": "  （这个组合不在搜索空间内：{why}）",
            "en": "  (this composition is outside the searched space: {why})",
        },
    }
)


# --------------------------------------------------------------------------- Megatron-LM's own formulas


def megatron_paper_param_count(layers: int, hidden: int, vocab: int = 51200, seq_len: int = 2048) -> float:
    """Parameters of a GPT model by Megatron-LM's formula: P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)).

    Narayanan et al. 2021 (arXiv:2104.04473), §5.1; Table 1 uses V = 51200 and s = 2048.

    >>> round(megatron_paper_param_count(128, 25600) / 1e9, 1)  # the 1T model of Table 1
    1008.0

    Taught in: lesson 9 (decision workbench).
    """
    l_ = check_int("layers", layers, ge=1, le=1 << 20)
    h = check_int("hidden", hidden, ge=1, le=1 << 20)
    v = check_int("vocab", vocab, ge=1, le=MAX_SEQ_LEN)
    s = check_int("seq_len", seq_len, ge=1, le=MAX_SEQ_LEN)
    return 12 * l_ * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l_ * h))


def _flop_count_inputs(layers: int, hidden: int, global_batch: int, vocab: int, seq_len: int) -> tuple[int, ...]:
    """The shape a published FLOP count takes, checked: (layers, hidden, global batch, vocabulary, sequence)."""
    return (
        check_int("layers", layers, ge=1, le=1 << 20),
        check_int("hidden", hidden, ge=1, le=1 << 20),
        check_int("global_batch", global_batch, ge=1, le=MAX_GLOBAL_BATCH),
        check_int("vocab", vocab, ge=1, le=MAX_SEQ_LEN),
        check_int("seq_len", seq_len, ge=1, le=MAX_SEQ_LEN),
    )


def megatron_core_flops_per_step(layers: int, hidden: int, global_batch: int, vocab: int, seq_len: int) -> float:
    """Model FLOPs of one training step as Megatron-Core r0.8.0 logs them, for a GPT layer (multi-head attention, a
    GELU MLP of width 4h): no recomputation, the attention scores counted over all s keys.

    F = 12·B·s·l·h²·(2 + s/h + 4 + V/(2·l·h)) — Megatron-LM core_r0.8.0, megatron/training/training.py,
    ``num_floating_point_operations`` (query groups = heads, ffn = 4h, not gated); its "teraFLOP/s per GPU" (the 2024
    H100 scaling table, MFU against the bf16 peak) is F / (step time · GPUs).

    >>> f"{megatron_core_flops_per_step(24, 2048, 192, 131072, 4096):.4e}"
    '8.8665e+15'

    Taught in: lesson 9 (decision workbench).
    """
    l_, h, b, v, s = _flop_count_inputs(layers, hidden, global_batch, vocab, seq_len)
    return 12 * b * s * l_ * h * h * (2 + s / h + 4 + v / (2 * l_ * h))


#: Megatron-Core's model-FLOP counts by release: ``"r0.8"`` is Megatron-LM core_r0.8.0 to core_r0.10.0
#: (``megatron/training/training.py``, ``num_floating_point_operations``); ``"2025"`` is the count from
#: commit 8873b55 (March 2025, "Fixes in number of floating-point operation estimates for MoE and attention layer")
#: on: causal attention counted at half, dense and MoE layers apart, ``moe_ffn_hidden_size``, shared experts, MLA.
MEGATRON_CORE_FLOP_RELEASES: tuple[str, ...] = ("r0.8", "2025")
#: Megatron-LM pads the vocabulary to a multiple of ``make_vocab_size_divisible_by`` (default 128) times TP
#: (``megatron/training/tokenizer``, ``_vocab_size_with_padding``); its FLOP count uses the padded size.
MEGATRON_VOCAB_DIVISOR: int = 128


def megatron_padded_vocab(vocab: int, tp: int = 1) -> int:
    """The vocabulary Megatron-LM builds: ``vocab`` rounded up to a multiple of 128·tp.

    >>> megatron_padded_vocab(151936, 2), megatron_padded_vocab(32000, 8)
    (152064, 32768)
    """
    vocab = check_int("vocab", vocab, ge=1, le=MAX_SEQ_LEN)
    tp = check_int("tp", tp, ge=1, le=MAX_WORLD_SIZE)
    multiple = MEGATRON_VOCAB_DIVISOR * tp
    return -(-vocab // multiple) * multiple


def megatron_core_model_flops_per_step(
    model: ModelSpec, global_batch: int, seq_len: int, release: str = "r0.8", tp: int = 1
) -> float:
    """Model FLOPs of one training step as Megatron-Core logs them (its "throughput per GPU (TFLOP/s/GPU)"), for any
    :class:`ModelSpec`: grouped-query attention, head_dim, SwiGLU, mixture of experts and, from ``release``
    ``"2025"``, multi-head latent attention. No recomputation is counted; the logits use the padded vocabulary V
    (:func:`megatron_padded_vocab` at ``tp``).

    Per token, with L layers, h hidden, a heads of width d, g KV heads, F = ``ffn_hidden``, k = ``top_k`` (1 when
    dense) and γ = 3/2 for SwiGLU (else 1) — Megatron-LM ``num_floating_point_operations``:

    * ``"r0.8"`` (core_r0.8.0 to core_r0.10.0, 2024): 12·L·h²·[(1 + g/a + s/h)·(a·d/h) + (F/h)·k·γ] + 6·h·V.
      A mixture of experts counts every layer's k routed experts at width F (the config's ``ffn_hidden_size``);
      attention counts all s keys.
    * ``"2025"`` (commit 8873b55, March 2025, on): 12·L·h²·(1 + g/a + s/(2h))·(a·d/h) — causal attention at half
      — plus 12·h·γ·(L_dense·F + L_moe·(k·F_e + F_s)) + 6·h·V, with F_e = ``moe_ffn_hidden`` and F_s the shared
      experts' width. MLA replaces the attention term by 6·L·[q + r_kv·(h + a·(d_nope + d_v) + 1) + h·d_rope +
      a·d_v·h + s·a·(d_nope + d_rope + d_v)/2], q = r_q·(h + a·(d_nope + d_rope) + 1) (or h·a·(d_nope + d_rope)
      without a query low rank). Multi-token-prediction layers are not counted (the course's presets have none).

    A GPT layer (a = g, d = h/a, F = 4h, no gate) under ``"r0.8"`` is :func:`megatron_core_flops_per_step`.

    >>> from coursekit.presets import MODELS
    >>> f"{megatron_core_model_flops_per_step(MODELS['mixtral-8x7b'], 256, 4096):.4e}"
    '8.6956e+16'

    Taught in: lesson 9 (decision workbench).
    """
    from ..specs import type_error

    if not isinstance(model, ModelSpec):
        raise type_error("model", model, "ModelSpec")
    b = check_int("global_batch", global_batch, ge=1, le=MAX_GLOBAL_BATCH)
    s = check_int("seq_len", seq_len, ge=1, le=MAX_SEQ_LEN)
    release = check_choice("release", release, MEGATRON_CORE_FLOP_RELEASES)
    v = megatron_padded_vocab(model.vocab, tp)
    L, h, a = model.layers, model.hidden, model.heads
    gate = 1.5 if model.mlp == "swiglu" else 1.0
    k = model.top_k if model.is_moe else 1
    logits = 6.0 * h * v
    if release == "r0.8":
        q_ratio = a * model.head_dim / h
        attention = (1 + model.kv_heads / a + s / h) * q_ratio
        return float(b * s * (12.0 * L * h * h * (attention + model.ffn_hidden / h * k * gate) + logits))
    if model.attention_kind == "mla":
        d_nope, d_rope, d_v, r_kv = model.qk_nope_head_dim, model.qk_rope_head_dim, model.v_head_dim, model.kv_lora_rank
        assert r_kv is not None
        r_q = model.q_lora_rank
        q_term = h * a * (d_nope + d_rope) if r_q is None else r_q * (h + a * (d_nope + d_rope) + 1)
        per_layer = q_term + r_kv * (h + a * (d_nope + d_v) + 1) + h * d_rope + a * d_v * h
        attention = 6.0 * L * (per_layer + s * a * (d_nope + d_rope + d_v) / 2)
    else:
        q_ratio = a * model.head_dim / h
        attention = 12.0 * L * h * h * (1 + model.kv_heads / a + s / (2 * h)) * q_ratio
    dense_layers = L - model.moe_layers
    expert_width = model.moe_ffn_hidden or model.ffn_hidden
    moe_width = k * expert_width + model.shared_experts * expert_width if model.is_moe else 0
    mlp = 12.0 * h * gate * (dense_layers * model.ffn_hidden + model.moe_layers * moe_width)
    return float(b * s * (attention + mlp + logits))


def megatron_paper_flops_per_step(
    layers: int, hidden: int, global_batch: int, vocab: int = 51200, seq_len: int = 2048
) -> float:
    """FLOPs of one training step as Megatron-LM counts them (activation recomputation included).

    F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) — Narayanan et al. 2021 (arXiv:2104.04473), §5.1;
    the paper's "achieved teraFLOP/s per GPU" is F / (step time · GPUs).

    >>> f"{megatron_paper_flops_per_step(128, 25600, 3072):.3e}"
    '5.139e+19'

    Taught in: lesson 9 (decision workbench).
    """
    l_, h, b, v, s = _flop_count_inputs(layers, hidden, global_batch, vocab, seq_len)
    return 96 * b * s * l_ * h * h * (1 + s / (6 * h) + v / (16 * l_ * h))


learner_functions(globals())
