"""The course glossary (术语表): Chinese term, English term, abbreviation, definition.

``docs/GLOSSARY.md`` and the glossary notebooks ``notebooks/zh/glossary.ipynb`` /
``notebooks/en/glossary.ipynb`` (what the lessons link to, so the link works
whichever folder is served) are generated from :data:`GLOSSARY` by
``python tools/build_notebooks.py``; a test checks that they are current.
Prose follows the course rule: Chinese term first, English on first use.
Bandwidth in this course is per GPU and per direction (unidirectional) unless a name says otherwise.

>>> lookup("ZeRO").zh
'零冗余优化器'
>>> lookup("全归约").en
'all-reduce'

Taught in: lesson 0 (course index); each lesson uses its terms.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import check_choice
from .i18n import LANGUAGES, Text, register, tr

register(
    {
        "glossary.unknown": {
            "zh": "term = {value!r}：词汇表中没有这个中文名、英文名或缩写"
            "（例如 '数据并行'、'data parallelism' 或 'DP'）。",
            "en": "term = {value!r}: no glossary entry has this Chinese name, English name or abbreviation "
            "(e.g. 'data parallelism' or 'DP').",
        },
    }
)


@dataclass(frozen=True)
class GlossaryEntry:
    """One term: ``zh`` and ``en`` names, ``abbr`` (or ``""``) and a bilingual ``definition``."""

    zh: str
    en: str
    abbr: str
    definition: Text


def _e(zh: str, en: str, abbr: str, def_zh: str, def_en: str) -> GlossaryEntry:
    return GlossaryEntry(zh=zh, en=en, abbr=abbr, definition=Text(zh=def_zh, en=def_en))


#: The course terms, grouped: strategies, memory, batches, communication, hardware, method.
GLOSSARY: tuple[GlossaryEntry, ...] = (
    # -- parallel strategies -------------------------------------------------------------
    _e(
        "数据并行",
        "data parallelism",
        "DP",
        "每个 rank 持有完整模型，处理全局批次中不同的样本；每个优化器步之前，各 rank 的梯度通过集合通信"
        "（通常是全归约）求平均。",
        "Every rank holds the whole model and processes different samples of the global batch; before each "
        "optimizer step the ranks average their gradients with a collective (usually an all-reduce).",
    ),
    _e(
        "零冗余优化器",
        "Zero Redundancy Optimizer",
        "ZeRO",
        "把模型状态在数据并行的 rank 之间切分而不是复制：阶段 1 切分优化器状态，阶段 2 再切分梯度，"
        "阶段 3 再切分参数（Rajbhandari et al., 2020）。",
        "Partitions the model states across data-parallel ranks instead of replicating them: stage 1 the "
        "optimizer state, stage 2 also the gradients, stage 3 also the parameters (Rajbhandari et al., 2020).",
    ),
    _e(
        "全分片数据并行",
        "fully sharded data parallel",
        "FSDP",
        "PyTorch 中类似 ZeRO-3 的实现：参数、梯度和优化器状态都被切分；每层参数在使用前全收集，"
        "反向之后梯度做归约散射。",
        "PyTorch's ZeRO-3-style data parallelism: parameters, gradients and optimizer state are sharded; each "
        "layer's parameters are all-gathered just before use and its gradients reduce-scattered after backward.",
    ),
    _e(
        "张量并行",
        "tensor parallelism",
        "TP",
        "把一层内部的权重矩阵切到多个 rank 上（如 Megatron-LM 的列切分与行切分）；每层的前向和反向都要做"
        "集合通信，频率高，所以通常放在节点内的高速互连上。",
        "Splits the weight matrices inside a layer across ranks (e.g. Megatron-LM's column- and row-parallel "
        "linear layers); every layer needs collectives in forward and backward, so TP usually stays on a "
        "node's fast links.",
    ),
    _e(
        "流水线并行",
        "pipeline parallelism",
        "PP",
        "把模型的层按顺序分成若干流水线阶段（stage）放在不同 rank 上；相邻阶段之间用点对点通信传递激活及其梯度，"
        "用微批次让各阶段同时工作。",
        "Splits the model's layers into consecutive stages on different ranks; neighbouring stages pass "
        "activations and their gradients by point-to-point send/recv, and micro-batches keep the stages busy.",
    ),
    _e(
        "上下文并行",
        "context parallelism",
        "CP",
        "沿序列（上下文）维度把每层的激活切到多个 rank 上；注意力需要其他分块的键和值，因此要交换注意力状态"
        "（例如按环传递）。",
        "Splits every layer's activations along the sequence (context) dimension across ranks; attention needs "
        "the keys and values of the other chunks, so the ranks exchange attention state (e.g. around a ring).",
    ),
    _e(
        "专家并行",
        "expert parallelism",
        "EP",
        "在混合专家模型中把不同专家放在不同 rank 上；token 用全对全通信发往所属专家（dispatch）再取回"
        "（combine），负载取决于路由是否均衡。",
        "In a mixture-of-experts model, places different experts on different ranks; tokens travel to their "
        "experts and back with all-to-all (dispatch and combine), and the load depends on how evenly they are "
        "routed.",
    ),
    _e(
        "专家数据并行",
        "expert data parallelism",
        "EDP",
        "专家层里持有同一组专家副本的 rank 数；它们之间对这些专家的梯度做归约。Megatron-Core 把同一批 rank 在专家层"
        "重新排成 ETP · EP · EDP · PP，所以 EP 复用 DP · CP 的 rank，不增加 rank 数。",
        "The number of ranks in the expert layers that hold copies of the same experts and reduce their gradients "
        "among themselves. Megatron-Core re-folds the same ranks as ETP · EP · EDP · PP in the expert layers, so EP "
        "reuses the DP · CP ranks instead of adding ranks.",
    ),
    _e(
        "序列并行",
        "sequence parallelism",
        "SP",
        "Megatron-LM 中配合张量并行使用（Korthikanti et al., 2022）：层归一化、dropout 等不在矩阵乘切分内的部分"
        "沿序列维度切分，把张量并行的全归约换成归约散射加全收集，这部分激活显存也除以 TP 度。",
        "Megatron-LM's companion to tensor parallelism (Korthikanti et al., 2022): the parts of a layer outside "
        "the split matrix multiplies (layer norm, dropout) are split along the sequence, TP's all-reduce becomes "
        "a reduce-scatter plus an all-gather, and those activations shrink by the TP degree.",
    ),
    _e(
        "服务副本",
        "serving replica",
        "Replica",
        "一份独立提供推理服务的模型副本；副本之间不同步模型状态，由路由器分发请求。它和训练中的数据并行"
        "都复制模型，但同步语义不同，不能混用名称。",
        "An independent copy of a model that serves requests; replicas do not synchronize model state, a router "
        "spreads the requests. Like training DP it copies the model, but with different synchronization, so the "
        "two names are not interchangeable.",
    ),
    _e(
        "混合并行",
        "hybrid parallelism",
        "",
        "同时使用几种并行（如 TP × PP × DP）；各维度并行度的乘积就是所需的 rank 数。",
        "Several kinds of parallelism at once (e.g. TP × PP × DP); the product of the degrees is the number of "
        "ranks needed.",
    ),
    _e(
        "并行度",
        "parallel degree",
        "",
        "一个并行维度切分到的 rank 数，例如 TP=4 表示每层由 4 个 rank 共同计算。",
        "The number of ranks one parallel dimension splits across; TP=4 means 4 ranks compute each layer together.",
    ),
    _e(
        "混合专家模型",
        "mixture of experts",
        "MoE",
        "每层有多个前馈“专家”，路由器为每个 token 只选其中少数几个；参数多而每个 token 的计算少。",
        "A model whose layers hold several feed-forward experts, of which a router picks only a few per token: "
        "many parameters, little compute per token.",
    ),
    _e(
        "稠密模型",
        "dense model",
        "",
        "每个 token 都经过全部参数的模型（与混合专家模型相对）。",
        "A model in which every token goes through all parameters (as opposed to a mixture of experts).",
    ),
    _e(
        "注意力头",
        "attention head",
        "",
        "多头注意力中独立计算的一组 Q/K/V 投影；张量并行按头切分，所以 TP 度数必须整除头数。",
        "One of the independently computed Q/K/V projections of multi-head attention; tensor parallelism splits "
        "by heads, so the TP degree must divide the number of heads.",
    ),
    _e(
        "文本单元",
        "token",
        "",
        "模型处理文本的基本单位（一个词、词的一部分或一个符号）；序列长度、KV 缓存和服务吞吐都按 token 计。"
        "本课程中文正文直接写 token，不另译（同 rank）。",
        "The unit of text a model processes (a word, part of a word or a symbol); sequence length, the KV cache "
        "and serving throughput are all counted in tokens.",
    ),
    # -- memory ---------------------------------------------------------------------------
    _e(
        "模型状态",
        "model states",
        "",
        "训练时每个参数伴随的张量：参数本身、梯度和优化器状态（ZeRO 论文的用语）。",
        "The tensors that come with each parameter in training: the parameter itself, its gradient and the "
        "optimizer state (the ZeRO paper's term).",
    ),
    _e(
        "优化器状态",
        "optimizer state",
        "",
        "优化器为每个参数额外保存的张量；混合精度 Adam 保存 fp32 参数副本、一阶矩和二阶矩，共 12 字节/参数。",
        "The extra tensors an optimizer keeps per parameter; mixed-precision Adam keeps an fp32 copy of the "
        "parameters, the momentum and the variance: 12 bytes per parameter.",
    ),
    _e(
        "混合精度训练",
        "mixed-precision training",
        "",
        "用 16 位浮点（fp16/bf16）做计算，同时保留 fp32 的主权重和优化器状态；按 ZeRO 论文，配合 Adam 时"
        "模型状态为 2 + 2 + 12 = 16 字节/参数。",
        "Computes in 16-bit floats (fp16/bf16) while keeping fp32 master weights and optimizer state; with "
        "Adam the model states take 2 + 2 + 12 = 16 bytes per parameter (ZeRO paper).",
    ),
    _e(
        "激活",
        "activations",
        "",
        "前向计算的中间结果，保存下来供反向使用；随微批次大小和序列长度增长。",
        "Intermediate results of the forward pass kept for the backward pass; they grow with micro-batch size "
        "and sequence length.",
    ),
    _e(
        "激活重计算",
        "activation recomputation",
        "",
        "前向只保存部分激活，反向时重新计算其余部分，用额外计算换显存（也叫 activation checkpointing）。",
        "Keeps only some activations in the forward pass and recomputes the rest during backward, trading extra "
        "compute for memory (also called activation checkpointing).",
    ),
    _e(
        "精度方案",
        "precision recipe",
        "",
        "训练时参数、梯度和优化器状态各用什么数据类型，决定每个参数占多少字节（如混合精度 Adam 为 2 + 2 + 12 = 16）。",
        "The data types training keeps for parameters, gradients and optimizer state, which fix the bytes per "
        "parameter (mixed-precision Adam: 2 + 2 + 12 = 16).",
    ),
    _e(
        "运行时预留",
        "runtime reserve",
        "",
        "为 CUDA 上下文、通信缓冲区、内存碎片等预留的显存；它不属于模型状态和激活，但同样占用设备。",
        "Device memory set aside for the CUDA context, communication buffers, fragmentation and the like; not "
        "model state or activations, but it occupies the device all the same.",
    ),
    _e(
        "余量",
        "headroom",
        "",
        "设备显存减去所需显存；为负表示放不下。",
        "Device memory minus required memory; negative means it does not fit.",
    ),
    _e(
        "KV 缓存",
        "KV cache",
        "",
        "推理时保存的已生成 token 的注意力键和值，随并发请求数和上下文长度增长。",
        "The attention keys and values of the tokens seen so far, kept during inference; it grows with the "
        "number of concurrent requests and the context length.",
    ),
    # -- batches and pipeline ---------------------------------------------------------------
    _e(
        "全局批大小",
        "global batch size",
        "",
        "一次优化器步所用的样本总数 = 微批次大小 × 梯度累积步数 × 数据并行度。",
        "The number of samples in one optimizer step = micro-batch size × gradient-accumulation steps × "
        "data-parallel degree.",
    ),
    _e(
        "微批次",
        "micro-batch",
        "",
        "一次前向/反向所处理的那一小份批次；流水线和梯度累积都把批次切成微批次。",
        "The slice of a batch processed by one forward/backward pass; pipelines and gradient accumulation split "
        "the batch into micro-batches.",
    ),
    _e(
        "微批次大小",
        "micro-batch size",
        "mb",
        "一个微批次里的序列数；工作台的组合标签里写作 mb，例如 mb=1。",
        "The number of sequences in one micro-batch; written mb in the workbench's composition labels, e.g. mb=1.",
    ),
    _e(
        "梯度累积",
        "gradient accumulation",
        "",
        "在一次优化器步之前把多个微批次的梯度累加起来，用时间换取更大的全局批而不增加显存。",
        "Sums the gradients of several micro-batches before one optimizer step, reaching a larger global batch "
        "with time instead of memory.",
    ),
    _e(
        "梯度累积步数",
        "gradient-accumulation steps",
        "ga",
        "一个优化器步里累加梯度的微批次数 = global batch ÷ (dp × mb)；工作台的组合标签里写作 ga。",
        "The number of micro-batches whose gradients one optimizer step sums = global batch ÷ (dp × mb); written "
        "ga in the workbench's composition labels.",
    ),
    _e(
        "流水线气泡",
        "pipeline bubble",
        "",
        "流水线填充和排空时各段空闲的时间；p 段、m 个微批次的朴素调度中，气泡约占一步的 (p-1)/(m+p-1)。",
        "Time in which pipeline stages sit idle while the pipeline fills and drains; with p stages and m "
        "micro-batches in the simple schedule it is about (p-1)/(m+p-1) of a step.",
    ),
    _e(
        "流水线阶段",
        "pipeline stage",
        "",
        "流水线并行中连续的一段层，放在一个设备（或一组设备）上；相邻阶段之间点对点传递激活和梯度。",
        "A contiguous group of layers placed on one device (or group of devices) under pipeline parallelism; "
        "neighbouring stages pass activations and gradients point to point.",
    ),
    _e(
        "GPipe 调度",
        "GPipe schedule",
        "GPipe",
        "朴素流水线调度之一（Huang et al., 2019）：先做完全部 m 个微批次的前向，再做全部反向；气泡与 1F1B 相同，"
        "但要同时保存 m 个微批次的激活。",
        "A simple pipeline schedule (Huang et al., 2019): the forward of all m micro-batches, then all backwards; "
        "the same bubble as 1F1B, but the activations of m micro-batches are kept at once.",
    ),
    _e(
        "一前一后调度",
        "one forward, one backward",
        "1F1B",
        "朴素流水线调度之一（PipeDream-Flush、Megatron-LM）：灌满流水线后每个阶段交替做一个微批次的前向和一个微批次的"
        "反向；气泡与 GPipe 相同，第一个阶段最多同时保存 p 个微批次的激活。",
        "A simple pipeline schedule (PipeDream-Flush, Megatron-LM): once the pipeline is full, each stage alternates "
        "one micro-batch's forward with one micro-batch's backward; the same bubble as GPipe, and the first stage "
        "keeps at most p micro-batches' activations.",
    ),
    _e(
        "交错调度",
        "interleaved schedule",
        "",
        "Megatron-LM 的流水线调度：每个设备持有 v 个不相邻的模型块，气泡开销缩小为 (p-1)/(v·m)，代价是更多点对点传输。",
        "Megatron-LM's pipeline schedule in which each device holds v non-adjacent model chunks; the bubble "
        "overhead shrinks to (p-1)/(v·m) at the cost of more point-to-point transfers.",
    ),
    _e(
        "虚拟阶段数",
        "virtual stages",
        "v",
        "交错调度中每个设备持有的模型块数；v = 1 即不交错。工作台的组合标签里写作 v。",
        "The number of model chunks each device holds under the interleaved schedule; v = 1 means not "
        "interleaved. Written v in the workbench's composition labels.",
    ),
    _e(
        "双向流水线调度",
        "DualPipe",
        "DualPipe",
        "DeepSeek-V3 的流水线调度：微批次从流水线两端同时送入，前向、反向的计算与专家并行的全对全通信相互重叠，"
        "气泡几乎为零，代价是每个设备保存两份模型块。",
        "DeepSeek-V3's pipeline schedule: micro-batches enter from both ends of the pipeline and forward and "
        "backward compute overlap expert parallelism's all-to-all, leaving almost no bubble at the cost of two "
        "copies of the model chunks per device.",
    ),
    _e(
        "参数高效微调",
        "parameter-efficient fine-tuning",
        "PEFT",
        "冻结预训练权重、只训练少量新增参数（如 LoRA 适配器）的微调方法；梯度和优化器状态只属于这一小部分参数。",
        "Fine-tuning that freezes the pretrained weights and trains only a few added parameters (e.g. LoRA "
        "adapters); gradients and optimizer state exist only for that small part.",
    ),
    # -- communication ----------------------------------------------------------------------
    _e(
        "集合通信",
        "collective communication",
        "",
        "一组 rank 全部参与的通信操作，如全归约、全收集、归约散射、全对全和广播。",
        "A communication operation in which every rank of a group takes part: all-reduce, all-gather, "
        "reduce-scatter, all-to-all, broadcast.",
    ),
    _e(
        "全归约",
        "all-reduce",
        "",
        "每个 rank 最终都得到所有 rank 缓冲区按元素求和（或其他归约）的结果；环形算法中每个 rank 发送缓冲区的"
        "2(n-1)/n，相当于一次归约散射加一次全收集。",
        "Every rank ends up with the element-wise sum (or other reduction) of all ranks' buffers; in the ring "
        "algorithm each rank sends 2(n-1)/n of the buffer, a reduce-scatter followed by an all-gather.",
    ),
    _e(
        "全收集",
        "all-gather",
        "",
        "每个 rank 贡献一个分片，最终都得到所有分片拼接的结果；环形算法中每个 rank 发送输出大小的 (n-1)/n。",
        "Every rank contributes one shard and ends up with all shards concatenated; in the ring algorithm each "
        "rank sends (n-1)/n of the output size.",
    ),
    _e(
        "归约散射",
        "reduce-scatter",
        "",
        "各 rank 的缓冲区按元素归约后，每个 rank 只保留结果的一个分片；环形算法中每个 rank 发送输入大小的 (n-1)/n。",
        "The ranks' buffers are reduced element-wise and each rank keeps one shard of the result; in the ring "
        "algorithm each rank sends (n-1)/n of the input size.",
    ),
    _e(
        "全对全",
        "all-to-all",
        "",
        "每个 rank 给其他每个 rank 各发送一块不同的数据（分布式转置）；专家并行用它分发和收回 token。",
        "Every rank sends a different chunk to every other rank (a distributed transpose); expert parallelism "
        "uses it to dispatch and combine tokens.",
    ),
    _e(
        "广播",
        "broadcast",
        "",
        "把一个 rank 的缓冲区复制到组内所有 rank。",
        "Copies one rank's buffer to every rank of the group.",
    ),
    _e(
        "点对点通信",
        "point-to-point communication",
        "send/recv",
        "一个 rank 把缓冲区发给另一个 rank；流水线各段之间这样传递激活。",
        "One rank sends a buffer to one other rank; pipeline stages pass activations this way.",
    ),
    _e(
        "通信协议",
        "NCCL protocol",
        "LL / LL128 / Simple",
        "NCCL 写数据和“已到达”标志的方式：LL 每 8 字节里 4 字节数据、4 字节标志，LL128 每 128 字节里 120 字节数据、"
        "8 字节标志，时延低；Simple 整块写完再同步，带宽高。NCCL 按消息大小选择。",
        'How NCCL writes data together with its "arrived" flag: LL puts 4 bytes of data and a 4-byte flag in every '
        "8 bytes, LL128 120 bytes of data and an 8-byte flag in every 128 bytes (low latency); Simple writes whole "
        "blocks and then synchronises (high bandwidth). NCCL picks one by message size.",
    ),
    _e(
        "环形算法",
        "ring algorithm",
        "",
        "n 个 rank 排成环，每步只和邻居交换 1/n 的数据；所需带宽与 n 几乎无关，但步数（时延项）随 n 增长。",
        "The n ranks form a ring and each step exchanges 1/n of the data with a neighbour; the bandwidth needed "
        "hardly depends on n, but the number of steps (the latency term) grows with n.",
    ),
    _e(
        "单向带宽",
        "unidirectional bandwidth",
        "",
        "一个方向上每秒能传送的字节数。本课程中的带宽一律指每块 GPU 每个方向的带宽：H100 的 NVLink 标称 "
        "900 GB/s 是 18 条链路、两个方向之和，每块 GPU 每个方向是 450 GB/s。",
        "The bytes per second carried in one direction. Bandwidth in this course always means per GPU, per "
        "direction: the H100's quoted 900 GB/s of NVLink sums 18 links and both directions, so each GPU gets "
        "450 GB/s per direction.",
    ),
    _e(
        "双向带宽",
        "bidirectional bandwidth",
        "",
        "两个方向带宽之和，厂商常用它标注 NVLink；对称链路上它是单向带宽的两倍，不能直接代入传输时间。",
        "The sum of both directions, often quoted by vendors for NVLink; on a symmetric link it is twice the "
        "unidirectional bandwidth and must not be used directly as the transfer rate.",
    ),
    _e(
        "时延",
        "latency",
        "",
        "发起一次通信的固定开销（微秒级），与消息大小无关；小消息的耗时主要由它决定。",
        "The fixed cost of starting one communication (microseconds), independent of its size; it dominates "
        "small messages.",
    ),
    _e(
        "算法带宽",
        "algorithm bandwidth",
        "algbw",
        "nccl-tests 的度量：数据大小 ÷ 耗时。",
        "nccl-tests' measure: data size ÷ time.",
    ),
    _e(
        "总线带宽",
        "bus bandwidth",
        "busbw",
        "nccl-tests 的度量：把算法带宽乘以集合操作的系数（全归约为 2(n-1)/n），使它可以与硬件链路带宽直接比较。",
        "nccl-tests' measure: algorithm bandwidth times the collective's factor (2(n-1)/n for all-reduce), so "
        "it can be compared with the hardware link bandwidth.",
    ),
    _e(
        "计算与通信重叠",
        "compute-communication overlap",
        "",
        "让通信在计算进行时同时进行，把通信时间藏在计算后面；本课程的通信账本给出不计重叠的下界。",
        "Running communication while computation proceeds, hiding its time; the course's communication ledger "
        "gives the lower bound without overlap.",
    ),
    _e(
        "时延主导",
        "latency-bound",
        "",
        "一次通信的固定时延项大于传输项（载荷 ÷ 带宽）：减少调用次数、合并小消息比增加带宽更有效。",
        "The fixed latency term of a call exceeds its transfer term (payload ÷ bandwidth): fewer calls and "
        "merged small messages help more than more bandwidth.",
    ),
    _e(
        "带宽主导",
        "bandwidth-bound",
        "",
        "一次通信的传输项（载荷 ÷ 带宽）不小于时延项：减少载荷或提高带宽最有效。",
        "The transfer term of a call (payload ÷ bandwidth) is at least its latency term: less payload or more "
        "bandwidth helps most.",
    ),
    _e(
        "分界载荷",
        "crossover payload",
        "payload*",
        "时延项正好等于传输项的单次载荷，payload* = 时延 × 带宽；小于它的调用由时延主导，大于它的由带宽主导。",
        "The payload per call at which the latency term equals the transfer term, payload* = latency × bandwidth; "
        "smaller calls are latency-bound, larger ones bandwidth-bound.",
    ),
    # -- hardware ---------------------------------------------------------------------------
    _e(
        "拓扑",
        "topology",
        "",
        "设备与链路的连接方式：节点内哪些 GPU 通过 NVLink 相连，节点之间如何经 InfiniBand/以太网交换机相连。",
        "How devices and links are connected: which GPUs share NVLink inside a node, how nodes connect through "
        "InfiniBand or Ethernet switches.",
    ),
    _e(
        "节点",
        "node",
        "",
        "一台服务器，内有若干加速器，由节点内高速链路相连；节点之间通过较慢的网络相连。",
        "One server holding several accelerators joined by fast intra-node links; nodes connect through a "
        "slower network.",
    ),
    _e(
        "节点内互连",
        "intra-node interconnect",
        "",
        "同一节点内 GPU 之间的高速链路（如 NVLink/NVSwitch），带宽比跨节点网络高一个数量级左右。",
        "The fast links between the GPUs of one node (e.g. NVLink/NVSwitch), roughly an order of magnitude "
        "faster than the network between nodes.",
    ),
    _e(
        "跨节点网络",
        "inter-node network",
        "",
        "连接不同节点的网络，如 InfiniBand 或 RoCE 以太网，每张网卡通常数十 GB/s（单向）。",
        "The network between nodes, such as InfiniBand or RoCE Ethernet, typically tens of GB/s per NIC "
        "(unidirectional).",
    ),
    _e(
        "进程编号",
        "rank",
        "",
        "分布式作业中的一个进程，通常驱动一个加速器；编号为 0 到 world size - 1。本课程正文直接写 rank，不另译。",
        "One process of a distributed job, usually driving one accelerator; numbered 0 to world size - 1.",
    ),
    _e(
        "世界大小",
        "world size",
        "",
        "分布式作业的 rank 总数。",
        "The total number of ranks of a distributed job.",
    ),
    _e(
        "rank 顺序",
        "rank order",
        "",
        "给 rank 编号时各并行维度的先后，排在前面的变化最快（Megatron-Core 默认 TP-CP-EP-DP-PP）；"
        "它决定每个组由哪些 rank 组成、落在哪些节点上。",
        "The order in which the parallel dimensions number the ranks, the first varying fastest (Megatron-Core's "
        "default is TP-CP-EP-DP-PP); it decides which ranks form each group and which nodes a group lands on.",
    ),
    _e(
        "链路域",
        "link scope",
        "",
        "一个并行组的成员之间能用的最强链路：none（不保证）< cross_node（跨节点网络）< intra_node（节点内互连）。",
        "The strongest link the members of a parallel group can use: none (nothing promised) < cross_node "
        "(the inter-node network) < intra_node (the intra-node interconnect).",
    ),
    # -- compute efficiency (lesson 7) -------------------------------------------------------
    _e(
        "屋顶线模型",
        "roofline model",
        "",
        "内核可达算力的上限：min(峰值算力, 计算强度 × 显存带宽)；在双对数坐标上先斜升、后变平，形似屋顶"
        "（Williams et al., 2009）。",
        "An upper bound on a kernel's attainable FLOP/s: min(peak FLOP/s, arithmetic intensity × memory "
        "bandwidth); on log-log axes it rises and then goes flat, like a roof (Williams et al., 2009).",
    ),
    _e(
        "计算强度",
        "arithmetic intensity",
        "",
        "一个内核的浮点运算次数除以它至少要搬运的字节数（FLOP/字节）；bf16 矩阵乘 (m × k) @ (k × n) 的计算强度是 "
        "m·k·n / (m·k + k·n + m·n)。",
        "A kernel's floating-point operations divided by the bytes it must at least move (FLOP per byte); a bf16 "
        "matmul (m × k) @ (k × n) has m·k·n / (m·k + k·n + m·n).",
    ),
    _e(
        "脊点",
        "ridge point",
        "",
        "屋顶线的拐点：峰值算力 ÷ 显存带宽（FLOP/字节）；按数据手册，A100 约 153，H100 约 295。",
        "Where the roofline bends: peak FLOP/s ÷ memory bandwidth (FLOP per byte); from the datasheets about 153 "
        "on A100 and 295 on H100.",
    ),
    _e(
        "访存受限",
        "memory-bound",
        "",
        "计算强度低于脊点：内核的速度由显存带宽决定，算力在等数据（如小批量的解码）。",
        "Arithmetic intensity below the ridge point: the kernel's speed is set by memory bandwidth and the "
        "arithmetic units wait for data (e.g. decode with a small batch).",
    ),
    _e(
        "计算受限",
        "compute-bound",
        "",
        "计算强度高于脊点：内核的速度由峰值算力决定（如每张 GPU 有几千个 token 的训练矩阵乘）。",
        "Arithmetic intensity above the ridge point: the kernel's speed is set by peak FLOP/s (e.g. training "
        "matmuls with thousands of tokens per GPU).",
    ),
    _e(
        "模型浮点利用率",
        "model FLOPs utilization",
        "MFU",
        "每秒完成的模型 FLOP（每 token 6N + 12·L·h·s，不含重计算）÷ 所有设备峰值之和（PaLM 附录 B）；"
        "比较不同布局和论文时用它。",
        "Model FLOPs per second (6N + 12·L·h·s per token, recomputation excluded) ÷ the devices' summed peak "
        "(PaLM, appendix B); the figure to compare layouts and papers by.",
    ),
    _e(
        "硬件浮点利用率",
        "hardware FLOPs utilization",
        "HFU",
        "每秒实际执行的 FLOP（包括激活重计算重做的部分）÷ 所有设备峰值之和；完全重计算时约为 MFU 的 4/3。",
        "FLOPs actually executed per second (including what activation recomputation redoes) ÷ the devices' "
        "summed peak; about 4/3 of MFU with full recomputation.",
    ),
    # -- method -------------------------------------------------------------------------------
    _e(
        "账本",
        "ledger",
        "",
        "带单位的具名数量表及其合计（如以 GiB 计的容量账本、以 ms 计的通信账本），每个数字都能追溯来源。",
        "A table of named quantities with units and their total (a capacity ledger in GiB, a communication "
        "ledger in ms), so that every number can be traced.",
    ),
    _e(
        "门槛",
        "gate",
        "",
        "候选策略必须通过的硬约束（容量、互连范围、工作负载、模型结构、上下文、服务）；不通过就带着明确原因被排除，"
        "不算综合分。",
        "A hard constraint a candidate strategy must pass (capacity, interconnect scope, workload, model "
        "structure, context, serving); failing one rejects it with a stated reason, with no combined score.",
    ),
    _e(
        "执行角色",
        "execution role",
        "",
        "一组模型副本怎样协作：训练同步（如 DP，每步同步梯度）或服务副本（各自处理独立请求，从不同步）。",
        "How a set of model copies cooperates: training-sync (e.g. DP, gradients synchronized every step) or "
        "serving replica (each answers its own requests, never synchronized).",
    ),
    _e(
        "吞吐",
        "throughput",
        "",
        "单位时间完成的工作量，如每秒处理的 token 或样本数。",
        "Work done per unit of time, e.g. tokens or samples per second.",
    ),
    _e(
        "扩展效率",
        "scaling efficiency",
        "",
        "E(P) = throughput(P) / (P × throughput(1))；1 表示线性扩展。效率下降需要拆解步内时间线才能找到原因。",
        "E(P) = throughput(P) / (P × throughput(1)); 1 means linear scaling. A drop needs the step timeline "
        "taken apart to find its cause.",
    ),
    _e(
        "弱扩展",
        "weak scaling",
        "",
        "设备增加时每个设备的工作量（如每设备 batch）保持不变，总工作量随设备数增长；与总工作量固定的强扩展相对。",
        "Each device keeps its share of work (e.g. its batch) as devices are added, so the total work grows with "
        "the device count; the opposite of strong scaling, where the total work is fixed.",
    ),
    _e(
        "掉队者",
        "straggler",
        "",
        "比其他 rank 慢的 rank；在下一个同步点，其他所有 rank 都要等它。",
        "A rank slower than the others; at the next synchronization point every other rank waits for it.",
    ),
    _e(
        "尾延迟",
        "tail latency",
        "",
        "请求延迟分布的高分位（如 p99）；服务副本路由不均会先把它放大。",
        "A high percentile (e.g. p99) of request latency; uneven routing across serving replicas inflates it first.",
    ),
    # -- serving ------------------------------------------------------------------------------
    _e(
        "预填充",
        "prefill",
        "",
        "服务请求的第一阶段：一次读完整个提示，把每个 token 的键和值写进 KV 缓存，并产生第一个输出 token；"
        "每个 token 约 2·N 次浮点运算，受算力限制。",
        "The first phase of a request: read the whole prompt in one pass, write every token's keys and values into "
        "the KV cache and produce the first output token; about 2·N FLOPs per token, so compute-bound.",
    ),
    _e(
        "解码",
        "decode",
        "",
        "服务请求的第二阶段：每步为批次里每个请求生成一个 token；每步要读全部权重和整个批次的 KV 缓存，"
        "运算却很少，所以受显存带宽限制。",
        "The second phase of a request: each step makes one token for every request in the batch; a step reads "
        "all the weights and the batch's whole KV cache but does little arithmetic, so it is memory-bound.",
    ),
    _e(
        "首 token 时间",
        "time to first token",
        "TTFT",
        "从请求到达到第一个输出 token 的时间：排队加预填充。",
        "Time from a request's arrival to its first output token: queueing plus prefill.",
    ),
    _e(
        "每输出 token 时间",
        "time per output token",
        "TPOT",
        "解码阶段相邻两个输出 token 之间的时间，即一个解码步的时间；它的下限是每 GPU 的权重字节数除以显存带宽。",
        "Time between two output tokens during decode, i.e. one decode step; it is never below the weight bytes "
        "per GPU divided by the memory bandwidth.",
    ),
    _e(
        "分组查询注意力",
        "grouped-query attention",
        "GQA",
        "几个查询头共享一组键值头（如 Llama-3 70B 的 64 个查询头共享 8 个 KV 头），KV 缓存按比例变小；"
        "只有一个 KV 头时叫多查询注意力 (MQA)。",
        "Several query heads share one key/value head (Llama-3 70B: 64 query heads, 8 KV heads), shrinking the KV "
        "cache in proportion; with a single KV head it is multi-query attention (MQA).",
    ),
    _e(
        "多头潜在注意力",
        "multi-head latent attention",
        "MLA",
        "DeepSeek-V2/V3 的注意力：键和值先压缩成一个低秩潜在向量（加一个共享的 RoPE 键）再缓存，每个 token 每层只缓存 "
        "kv_lora_rank + qk_rope_head_dim 个元素（DeepSeek-V3 为 512 + 64 = 576），计算时再投影回每个头。",
        "DeepSeek-V2/V3's attention: keys and values are compressed into one low-rank latent (plus a shared RoPE key) "
        "and cached as such, kv_lora_rank + qk_rope_head_dim elements per token and layer (DeepSeek-V3: 512 + 64 = "
        "576), projected back to every head when computed.",
    ),
    _e(
        "融合注意力",
        "flash attention",
        "",
        "把注意力的 QKᵀ、softmax 和乘 V 融合成一个分块计算的内核：不把 s×s 的分数写回显存，反向时重算；"
        "只为每个头、每个查询保存一个 fp32 的 softmax 统计量，所以激活里没有随 s² 增长的一项。",
        "A fused attention kernel that computes QKᵀ, the softmax and the product with V block by block: the s×s "
        "scores never reach device memory and are recomputed in backward; only one fp32 softmax statistic per head "
        "and query is kept, so activations have no term growing with s².",
    ),
    _e(
        "共享专家",
        "shared expert",
        "",
        "MoE 层里每个 token 都经过的专家，与路由选出的 top-k 个专家并列"
        "（DeepSeek-V3：1 个共享专家 + 256 个路由专家中的 8 个）。",
        "An expert of an MoE layer that every token passes through, beside its top-k routed experts (DeepSeek-V3: 1 "
        "shared expert plus 8 of 256 routed ones).",
    ),
    _e(
        "8 位浮点训练",
        "FP8 training",
        "FP8",
        "线性层的矩阵乘用 8 位浮点（E4M3/E5M2）计算，H100/H800 的 FP8 峰值是 bf16 的两倍；主参数、梯度和优化器状态"
        "仍用更高精度保存（Transformer Engine、DeepSeek-V3）。A100 没有 FP8 张量核心。",
        "The linear layers' matmuls run in 8-bit floating point (FP8: E4M3/E5M2), whose peak on H100/H800 is "
        "twice bf16's; master weights, gradients and optimizer states stay in higher precision (Transformer Engine, "
        "DeepSeek-V3). A100 has no FP8 tensor cores.",
    ),
    _e(
        "连续批处理",
        "continuous batching",
        "",
        "推理引擎在每个解码步之间让完成的请求离开、让新请求加入，使批次保持满；也叫 in-flight batching。",
        "An inference engine lets finished requests leave and new ones join between decode steps, keeping the "
        "batch full; also called in-flight batching.",
    ),
    _e(
        "利特尔定律",
        "Little's law",
        "",
        "稳态下系统中的请求数 = 到达速率 × 每个请求在系统中的时间（L = λ·W）；由请求速率和时延推出并发数。",
        "In steady state, requests in the system = arrival rate × time each spends in it (L = λ·W); it turns a "
        "request rate and a latency into a concurrency.",
    ),
    _e(
        "服务目标",
        "service-level objective",
        "SLO",
        "服务对时延的承诺，如 TTFT 不超过 500 ms、TPOT 不超过 50 ms（常对某个分位数而言）。",
        "A service's promise on latency, e.g. TTFT at most 500 ms and TPOT at most 50 ms (often for a percentile).",
    ),
    _e(
        "并列组",
        "tie group",
        "",
        "估算相差小于模型自身不确定度的候选放在同一组、不再排先后：估算分不出它们，要靠实测来定。",
        "Candidates whose estimates differ by less than the model's own uncertainty share a group and are not "
        "ranked against each other: the estimate cannot tell them apart, a measurement must.",
    ),
    _e(
        "Transformer 引擎",
        "Transformer Engine",
        "TE",
        "NVIDIA 的 Transformer 层内核库：在 H100 上用 FP8 做矩阵乘并融合相邻算子；工作台的效率曲线没有标定它。",
        "NVIDIA's library of transformer-layer kernels: FP8 matmuls on H100 and fused neighbouring operations; the "
        "workbench's efficiency curve is not calibrated for it.",
    ),
    _e(
        "节点限制路由",
        "node-limited routing",
        "",
        "混合专家 (MoE) 路由的一种约束：每个 token 最多被发往 M 个节点上的专家，限制跨节点的全对全流量。",
        "A constraint on mixture-of-experts routing: each token goes to experts on at most M nodes, which bounds the "
        "all-to-all traffic between nodes.",
    ),
    _e(
        "性能剖析时间线",
        "profiler timeline",
        "trace",
        "性能剖析器 (profiler) 记录的每个算子、每次通信的起止时间；按时间排开，才能看出重叠、等待和输入停顿。",
        "The start and end of every operator and every communication call, as a profiler records them; laid out in "
        "time, it shows overlap, waiting and input stalls.",
    ),
)


def lookup(term: str) -> GlossaryEntry:
    """The entry whose Chinese name, English name or abbreviation is ``term`` (case-insensitive).

    >>> lookup("data parallelism").abbr
    'DP'
    >>> lookup("warp drive")
    Traceback (most recent call last):
    ...
    ValueError: term = 'warp drive': no glossary entry has this Chinese name, English name or abbreviation ...
    """
    if not isinstance(term, str):
        raise TypeError(tr("validate.type_choice", name="term", value=term, type=type(term).__name__))
    wanted = term.strip().lower()
    if wanted:
        for entry in GLOSSARY:
            if wanted in {entry.zh.lower(), entry.en.lower(), entry.abbr.lower()} - {""}:
                return entry
    raise ValueError(tr("glossary.unknown", value=term))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown() -> str:
    """``docs/GLOSSARY.md``: a bilingual table of every entry, in course order.

    >>> render_markdown().splitlines()[0]
    '# 术语表 / Glossary'
    """
    lines = [
        "# 术语表 / Glossary",
        "",
        "<!-- Generated from coursekit/glossary.py by `python tools/build_notebooks.py`; do not edit by hand. -->",
        "",
        "中文术语在前，英文原文在后；本课程中的带宽一律指每块 GPU 每个方向的带宽（单向）。",
        "",
        "Chinese term first, English original after; bandwidth in this course is per GPU and per direction "
        "(unidirectional).",
        "",
        "| 中文 | English | 缩写 / abbr. | 释义 | Definition |",
        "| --- | --- | --- | --- | --- |",
    ]
    for entry in GLOSSARY:
        cells = (entry.zh, entry.en, entry.abbr, entry.definition.zh, entry.definition.en)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


register(
    {
        "glossary.notebook.title": {"zh": "# 术语表", "en": "# Glossary"},
        "glossary.notebook.links": {
            "zh": "[课程导引](00_index.ipynb) · [English version](../en/glossary.ipynb)",
            "en": "[Course index](00_index.ipynb) · [中文版](../zh/glossary.ipynb)",
        },
        "glossary.notebook.intro": {
            "zh": "中文术语在前，英文原文在后；本课程中的带宽一律指每块 GPU 每个方向的单向带宽。"
            "本页由 `coursekit/glossary.py` 生成，与课程代码中的术语一致。",
            "en": "Bandwidth in this course is always unidirectional (one direction) per GPU. This page is generated "
            "from `coursekit/glossary.py`, so it uses the same terms as the course code.",
        },
        "glossary.notebook.header": {
            "zh": "| 术语 | 英文 | 缩写 | 释义 |",
            "en": "| Term | Chinese | Abbr. | Definition |",
        },
    }
)


def render_notebook_markdown(lang: str) -> str:
    """The markdown of the glossary notebook in ``lang`` (``"zh"`` or ``"en"``): links, intro and one table.

    >>> render_notebook_markdown("en").splitlines()[0]
    '# Glossary'
    >>> "| 数据并行 | data parallelism | DP |" in render_notebook_markdown("zh")
    True
    """
    check_choice("lang", lang, LANGUAGES)
    parts = ("title", "links", "intro", "header")
    title, links, intro, header = (tr(f"glossary.notebook.{part}", lang) for part in parts)
    lines = [title, "", links, "", intro, "", header, "| --- | --- | --- | --- |"]
    for entry in GLOSSARY:
        first, second = (entry.zh, entry.en) if lang == "zh" else (entry.en, entry.zh)
        definition = entry.definition.zh if lang == "zh" else entry.definition.en
        lines.append("| " + " | ".join(_cell(c) for c in (first, second, entry.abbr, definition)) + " |")
    return "\n".join(lines) + "\n"
