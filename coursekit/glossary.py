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

import re
import unicodedata
from dataclasses import dataclass

from ._validate import check_choice, learner_functions
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

    @property
    def name(self) -> Text:
        """The term itself, in both languages."""
        return Text(zh=self.zh, en=self.en)


def _e(name: Text, abbr: str, definition: Text) -> GlossaryEntry:
    """A glossary entry from its bilingual ``name``, ``abbr`` and bilingual ``definition``."""
    return GlossaryEntry(zh=name.zh, en=name.en, abbr=abbr, definition=definition)


#: The course terms, grouped: strategies, memory, batches, communication, hardware, method.
GLOSSARY: tuple[GlossaryEntry, ...] = (
    # -- parallel strategies -------------------------------------------------------------
    _e(
        Text(zh="数据并行", en="data parallelism"),
        "DP",
        Text(
            zh="每个 rank 持有完整模型，处理全局批次中不同的样本；每个优化器步之前，各 rank 的梯度通过集合通信（通常"
            "是全归约）求平均。",
            en="Every rank holds the whole model and processes different samples of the global batch; before each "
            "optimizer step the ranks average their gradients with a collective (usually an all-reduce).",
        ),
    ),
    _e(
        Text(zh="零冗余优化器", en="Zero Redundancy Optimizer"),
        "ZeRO",
        Text(
            zh="把模型状态在数据并行的 rank 之间切分而不是复制：阶段 1 切分优化器状态，阶段 2 再切分梯度，阶段 3 再切"
            "分参数 (Rajbhandari et al., 2020)。",
            en="Partitions the model states across data-parallel ranks instead of replicating them: stage 1 the "
            "optimizer state, stage 2 also the gradients, stage 3 also the parameters (Rajbhandari et al., 2020).",
        ),
    ),
    _e(
        Text(zh="全分片数据并行", en="fully sharded data parallel"),
        "FSDP",
        Text(
            zh="PyTorch 中类似 ZeRO-3 的实现：参数、梯度和优化器状态都被切分；每层参数在使用前全收集，反向之后梯度做"
            "归约散射。",
            en="PyTorch's ZeRO-3-style data parallelism: parameters, gradients and optimizer state are sharded; each "
            "layer's parameters are all-gathered just before use and its gradients reduce-scattered after backward.",
        ),
    ),
    _e(
        Text(zh="张量并行", en="tensor parallelism"),
        "TP",
        Text(
            zh="把一层内部的权重矩阵切到多个 rank 上（如 Megatron-LM 的列切分与行切分）；每层的前向和反向都要做集合通"
            "信，频率高，所以通常放在节点内的高速互连上。",
            en="Splits the weight matrices inside a layer across ranks (e.g. Megatron-LM's column- and row-parallel "
            "linear layers); every layer needs collectives in forward and backward, so TP usually stays on a node's "
            "fast links.",
        ),
    ),
    _e(
        Text(zh="流水线并行", en="pipeline parallelism"),
        "PP",
        Text(
            zh="把模型的层按顺序分成若干流水线阶段 (stage) 放在不同 rank 上；相邻阶段之间用点对点通信传递激活及其梯度"
            "，用微批次让各阶段同时工作。",
            en="Splits the model's layers into consecutive stages on different ranks; neighbouring stages pass "
            "activations and their gradients by point-to-point send/recv, and micro-batches keep the stages busy.",
        ),
    ),
    _e(
        Text(zh="上下文并行", en="context parallelism"),
        "CP",
        Text(
            zh="沿序列（上下文）维度把每层的激活切到多个 rank 上；注意力需要其他分块的键和值，因此要交换注意力状态（"
            "例如按环传递）。",
            en="Splits every layer's activations along the sequence (context) dimension across ranks; attention "
            "needs the keys and values of the other chunks, so the ranks exchange attention state (e.g. around a "
            "ring).",
        ),
    ),
    _e(
        Text(zh="专家并行", en="expert parallelism"),
        "EP",
        Text(
            zh="在混合专家模型中把不同专家放在不同 rank 上；token "
            "用全对全通信发往所属专家（分发，dispatch）再取回（汇合，combine），负载取决于路由是否均衡。",
            en="In a mixture-of-experts model, places different experts on different ranks; tokens travel to their "
            "experts and back with all-to-all (dispatch and combine), and the load depends on how evenly they are "
            "routed.",
        ),
    ),
    _e(
        Text(zh="专家数据并行", en="expert data parallelism"),
        "EDP",
        Text(
            zh="专家层里持有同一组专家副本的 rank 数；它们之间对这些专家的梯度做归约。Megatron-Core 把同一批 rank 在"
            "专家层重新排成 ETP · EP · EDP · PP，所以 EP 复用 DP · CP 的 rank，不增加 rank 数。",
            en="The number of ranks in the expert layers that hold copies of the same experts and reduce their "
            "gradients among themselves. Megatron-Core re-folds the same ranks as ETP · EP · EDP · PP in the expert "
            "layers, so EP reuses the DP · CP ranks instead of adding ranks.",
        ),
    ),
    _e(
        Text(zh="专家张量并行", en="expert tensor parallelism"),
        "ETP",
        Text(
            zh="专家层自己的张量并行度，可以和注意力层的 TP 不同（Megatron-Core 的 --expert-tensor-parallel-size，"
            "默认等于 TP）；细粒度的 MoE 常用 ETP = 1：专家矩阵乘更宽，专家块没有张量并行通信。",
            en="The expert layers' own tensor-parallel degree, which may differ from attention's TP (Megatron-Core's "
            "--expert-tensor-parallel-size, TP by default); fine-grained MoE often runs ETP = 1: wider expert "
            "matmuls and no tensor-parallel traffic in the expert block.",
        ),
    ),
    _e(
        Text(zh="并行折叠", en="parallel folding"),
        "",
        Text(
            zh="Megatron-Core 的 MoE 布局：注意力层把 rank 排成 TP · CP · DP · PP，专家层把同一批 rank 重新排成 "
            "ETP · EP · EDP · PP（没有 CP，CP 的 rank 并入 EDP）；要求 ETP · EP · PP 整除总 rank 数。",
            en="Megatron-Core's MoE layout: attention lays the ranks out as TP · CP · DP · PP, the expert layers lay "
            "the same ranks out again as ETP · EP · EDP · PP (no CP: its ranks join EDP); ETP · EP · PP must divide "
            "the world size.",
        ),
    ),
    _e(
        Text(zh="分组矩阵乘", en="grouped GEMM"),
        "",
        Text(
            zh="一次内核调用里做多个独立的矩阵乘：MoE 层的每个本地专家用自己的权重乘路由给它的那些 token。"
            "每个专家分到的行数约为 token 数 · top_k / 专家数，行数少时计算强度低，达不到大矩阵乘的效率。",
            en="Many independent matmuls in one kernel call: each local expert of an MoE layer multiplies the tokens "
            "routed to it by its own weights. An expert gets about tokens · top_k / experts rows; few rows mean a "
            "low arithmetic intensity, below what large matmuls reach.",
        ),
    ),
    _e(
        Text(zh="token 重排", en="token permutation"),
        "",
        Text(
            zh="MoE 层在专家计算前把每个 token 复制 top_k 份并按专家排好 (permute)，算完再按路由概率加权合回原位"
            " (unpermute)；只搬数据不做矩阵乘，耗时由显存带宽决定。",
            en="Before the experts run, an MoE layer copies each token top_k times and sorts the copies by expert "
            "(permute); afterwards it sums them back in place, weighted by the router's probabilities (unpermute). "
            "It moves data and does no matmul, so memory bandwidth sets its time.",
        ),
    ),
    _e(
        Text(zh="序列并行", en="sequence parallelism"),
        "SP",
        Text(
            zh="Megatron-LM 中配合张量并行使用 (Korthikanti et al., 2022)：层归一化、丢弃 (dropout) 等不在矩阵乘"
            "切分内的部分沿序列维度切分，把张量并行的全归约换成归约散射加全收集，这部分激活显存也除以 TP 度。",
            en="Megatron-LM's companion to tensor parallelism (Korthikanti et al., 2022): the parts of a layer "
            "outside the split matrix multiplies (layer norm, dropout) are split along the sequence, TP's all-reduce "
            "becomes a reduce-scatter plus an all-gather, and those activations shrink by the TP degree.",
        ),
    ),
    _e(
        Text(zh="服务副本", en="serving replica"),
        "Replica",
        Text(
            zh="一份独立提供推理服务的模型副本；副本之间不同步模型状态，由路由器分发请求。它和训练中的数据并行都复制"
            "模型，但同步语义不同，不能混用名称。",
            en="An independent copy of a model that serves requests; replicas do not synchronize model state, a "
            "router spreads the requests. Like training DP it copies the model, but with different synchronization, "
            "so the two names are not interchangeable.",
        ),
    ),
    _e(
        Text(zh="混合并行", en="hybrid parallelism"),
        "",
        Text(
            zh="同时使用几种并行（如 TP × PP × DP）；各维度并行度的乘积就是所需的 rank 数。",
            en="Several kinds of parallelism at once (e.g. TP × PP × DP); the product of the degrees is the number "
            "of ranks needed.",
        ),
    ),
    _e(
        Text(zh="并行度", en="parallel degree"),
        "",
        Text(
            zh="一个并行维度切分到的 rank 数，例如 TP=4 表示每层由 4 个 rank 共同计算。",
            en="The number of ranks one parallel dimension splits across; TP=4 means 4 ranks compute each layer "
            "together.",
        ),
    ),
    _e(
        Text(zh="混合专家模型", en="mixture of experts"),
        "MoE",
        Text(
            zh="每层有多个前馈“专家”，路由器为每个 token 只选其中少数几个；参数多而每个 token 的计算少。",
            en="A model whose layers hold several feed-forward experts, of which a router picks only a few per "
            "token: many parameters, little compute per token.",
        ),
    ),
    _e(
        Text(zh="稠密模型", en="dense model"),
        "",
        Text(
            zh="每个 token 都经过全部参数的模型（与混合专家模型相对）。",
            en="A model in which every token goes through all parameters (as opposed to a mixture of experts).",
        ),
    ),
    _e(
        Text(zh="注意力头", en="attention head"),
        "",
        Text(
            zh="多头注意力中独立计算的一组 Q/K/V 投影；张量并行按头切分，所以 TP 并行度必须整除头数。",
            en="One of the independently computed Q/K/V projections of multi-head attention; tensor parallelism "
            "splits by heads, so the TP degree must divide the number of heads.",
        ),
    ),
    _e(
        Text(zh="文本单元", en="token"),
        "",
        Text(
            zh="模型处理文本的基本单位（一个词、词的一部分或一个符号）；序列长度、KV 缓存和服务吞吐都按 token 计。本"
            "课程中文正文直接写 token，不另译（同 rank）。",
            en="The unit of text a model processes (a word, part of a word or a symbol); sequence length, the KV "
            "cache and serving throughput are all counted in tokens.",
        ),
    ),
    # -- memory ---------------------------------------------------------------------------
    _e(
        Text(zh="吉比字节", en="gibibyte"),
        "GiB",
        Text(
            zh="2^30 = 1,073,741,824 字节；课程的显存和带宽都以 GiB、GiB/s 计。MiB（兆比字节，mebibyte）是 2^20 字节，"
            "1 GiB = 1024 MiB；厂商写的 GB、MB（带宽、磁盘、论文里的内存数）是 10^9、10^6 字节，1 GiB ≈ 1.074 GB。"
            "GPU 显存容量例外：显存按二进制造，数据手册的 80 GB 约是 80 GiB"
            "（A100 80GB 的 nvidia-smi 显示 81920 MiB）。",
            en="2^30 = 1,073,741,824 bytes; the course counts memory and bandwidth in GiB and GiB/s. A MiB (mebibyte) "
            "is 2^20 bytes and 1 GiB = 1024 MiB; a vendor's GB and MB (bandwidths, disks, papers' memory figures) are "
            "10^9 and 10^6 bytes, so 1 GiB ≈ 1.074 GB. A GPU's memory size is the exception: memory is built in binary "
            "sizes, so a datasheet's 80 GB is about 80 GiB (an A100 80GB shows 81920 MiB in nvidia-smi).",
        ),
    ),
    _e(
        Text(zh="模型状态", en="model states"),
        "",
        Text(
            zh="训练时每个参数伴随的张量：参数本身、梯度和优化器状态（ZeRO 论文的用语）。第 5、6 课也叫它训练状态 "
            "(training state)。",
            en="The tensors that come with each parameter in training: the parameter itself, its gradient and the "
            "optimizer state (the ZeRO paper's term). Lessons 5 and 6 also call them the training state.",
        ),
    ),
    _e(
        Text(zh="优化器状态", en="optimizer state"),
        "",
        Text(
            zh="优化器为每个参数额外保存的张量；混合精度 Adam 保存 fp32 参数副本、一阶矩和二阶矩，共 12 字节/参数。",
            en="The extra tensors an optimizer keeps per parameter; mixed-precision Adam keeps an fp32 copy of the "
            "parameters, the momentum and the variance: 12 bytes per parameter.",
        ),
    ),
    _e(
        Text(zh="混合精度训练", en="mixed-precision training"),
        "",
        Text(
            zh="用 16 位浮点 (fp16/bf16) 做计算，同时保留 fp32 的主权重和优化器状态；按 ZeRO 论文，配合 Adam 时模型状"
            "态为 2 + 2 + 12 = 16 字节/参数。",
            en="Computes in 16-bit floats (fp16/bf16) while keeping fp32 master weights and optimizer state; with "
            "Adam the model states take 2 + 2 + 12 = 16 bytes per parameter (ZeRO paper).",
        ),
    ),
    _e(
        Text(zh="激活", en="activations"),
        "",
        Text(
            zh="前向计算的中间结果，保存下来供反向使用；随微批次大小和序列长度增长。",
            en="Intermediate results of the forward pass kept for the backward pass; they grow with micro-batch size "
            "and sequence length.",
        ),
    ),
    _e(
        Text(zh="丢弃", en="dropout"),
        "",
        Text(
            zh="训练时按给定概率把激活中的元素随机置零、其余按比例放大的正则化方法；反向要用同一个掩码，"
            "每个元素存 1 字节，计入激活显存。",
            en="A regularisation that zeroes activation elements at random with a given probability during training "
            "and scales the rest up; backward reuses the same mask, stored at 1 byte per element and counted in "
            "activation memory.",
        ),
    ),
    _e(
        Text(zh="输出分数", en="logits"),
        "",
        Text(
            zh="输出层给词表中每一项打的未归一化分数，经过归一化 (softmax) 才成为概率；每个 token 有词表大小那么多个，"
            "末阶段按 fp32 保存时是一块不小的显存。",
            en="The output layer's unnormalised scores for every vocabulary entry, which softmax turns into "
            "probabilities; each token has as many as the vocabulary has entries, a sizeable block of memory on the "
            "last stage when kept in fp32.",
        ),
    ),
    _e(
        Text(zh="激活重计算", en="activation recomputation"),
        "",
        Text(
            zh="前向只保存部分激活，反向时重新计算其余部分，用额外计算换显存（也叫 activation checkpointing）。",
            en="Keeps only some activations in the forward pass and recomputes the rest during backward, trading "
            "extra compute for memory (also called activation checkpointing).",
        ),
    ),
    _e(
        Text(zh="选择性重计算", en="selective recomputation"),
        "",
        Text(
            zh="只在反向时重算注意力核心（softmax、dropout 和注意力加权），不保存随序列长度平方增长的那几项激活；"
            "额外计算很少（Korthikanti 等人 2022）。第 1 课的账本和交互图默认用它；对照的是不重计算 (none) "
            "和每层只存输入的完全重计算 (full)。",
            en="Recomputes only the attention core (softmax, dropout and the attention-weighted values) in the "
            "backward pass and does not keep the activations that grow with the square of the sequence length; the "
            "extra compute is small (Korthikanti et al. 2022). Lesson 1's ledger and interactive figure use it by "
            "default; the alternatives are none and full recomputation, which keeps only each layer's input.",
        ),
    ),
    _e(
        Text(zh="激活卸载", en="activation offloading"),
        "",
        Text(
            zh="前向时把部分层保存给反向的激活拷到主机 (CPU) 内存，反向用到之前再拷回来：用 CPU 与 GPU 之间链路的"
            "带宽换显存，链路越快越能藏在计算之下（Megatron-Core 的 cpu_offloading_num_layers）。"
            "工作台的搜索在 pp = 1、不重计算时尝试它 (recompute=offload)。",
            en="Copies the activations some layers save for backward to host (CPU) memory during the forward pass "
            "and back before the backward pass needs them: memory bought with the CPU-GPU link's bandwidth, which "
            "hides under compute the better the faster the link (Megatron-Core's cpu_offloading_num_layers). The "
            "workbench's search tries it with pp = 1 and no recomputation (recompute=offload).",
        ),
    ),
    _e(
        Text(zh="检查点", en="checkpoint"),
        "",
        Text(
            zh="训练中定期写到存储上的模型状态（参数、优化器状态、进度），作业中断后从它恢复；它的格式和大小"
            "随并行方式而变（每个 rank 存自己的分片，还是合成一份完整的模型）。",
            en="The model state (parameters, optimizer state, progress) a training job writes to storage at "
            "intervals and resumes from after an interruption; its format and size depend on the parallel layout "
            "(each rank saving its own shard, or one whole model).",
        ),
    ),
    _e(
        Text(zh="模块级重计算", en="module-level recomputation"),
        "",
        Text(
            zh="只重计算指定的模块（Megatron-Core 的 --recompute-modules，例如 MoE 层前的归一化 layernorm、"
            "专家激活函数 moe_act、整个 MoE 块 moe）：丢掉它们保存的输出，反向前再算一遍；"
            "比完全重计算省的显存少，多花的计算也少。",
            en="Recomputes only the named modules (Megatron-Core's --recompute-modules, e.g. the MoE layer's pre-MLP "
            "norm layernorm, the experts' activation moe_act, the whole MoE block moe): their saved outputs are "
            "dropped and computed again before backward; it saves less memory than full recomputation and costs "
            "less compute.",
        ),
    ),
    _e(
        Text(zh="精度方案", en="precision recipe"),
        "",
        Text(
            zh="训练时参数、梯度和优化器状态各用什么数据类型，决定每个参数占多少字节（如混合精度 Adam 为 2 + 2 + 12 "
            "= 16）。",
            en="The data types training keeps for parameters, gradients and optimizer state, which fix the bytes per "
            "parameter (mixed-precision Adam: 2 + 2 + 12 = 16).",
        ),
    ),
    _e(
        Text(zh="运行时预留", en="runtime reserve"),
        "",
        Text(
            zh="为 CUDA 上下文、通信缓冲区、内存碎片等预留的显存；它不属于模型状态和激活，但同样占用设备。",
            en="Device memory set aside for the CUDA context, communication buffers, fragmentation and the like; not "
            "model state or activations, but it occupies the device all the same.",
        ),
    ),
    _e(
        Text(zh="余量", en="headroom"),
        "",
        Text(
            zh="设备显存减去所需显存（所需显存已含运行时预留）后剩下的空闲显存；为负表示放不下。"
            "不要把它和运行时预留混为一谈。",
            en="The free device memory left after the required memory (runtime reserve included) is taken; negative "
            "means it does not fit. Not to be confused with the runtime reserve.",
        ),
    ),
    _e(
        Text(zh="KV 缓存", en="KV cache"),
        "",
        Text(
            zh="推理时保存的已生成 token 的注意力键和值，随并发请求数和上下文长度增长。",
            en="The attention keys and values of the tokens seen so far, kept during inference; it grows with the "
            "number of concurrent requests and the context length.",
        ),
    ),
    _e(
        Text(zh="全收集峰值", en="gather peak"),
        "",
        Text(
            zh="FSDP / ZeRO-3 每个 rank 在分片之外要临时放下的完整参数：预取时约两层参数加一层未分片的梯度；"
            "一层太大时，即使总状态分片后放得下，这个峰值也可能放不下。",
            en="What an FSDP / ZeRO-3 rank must hold unsharded on top of its shard: with prefetch about two layers "
            "of parameters and one layer of unsharded gradients; with a very large layer this peak may not fit even "
            "when the sharded state does.",
        ),
    ),
    # -- batches and pipeline ---------------------------------------------------------------
    _e(
        Text(zh="全局批大小", en="global batch size"),
        "GBS",
        Text(
            zh="一次优化器步所用的样本总数 = 微批次大小 × 梯度累积步数 × 数据并行度（性能表里写作 GBS）。",
            en="The number of samples in one optimizer step = micro-batch size × gradient-accumulation steps × "
            "data-parallel degree (GBS in performance tables).",
        ),
    ),
    _e(
        Text(zh="微批次", en="micro-batch"),
        "",
        Text(
            zh="一次前向/反向所处理的那一小份批次；流水线和梯度累积都把批次切成微批次。",
            en="The slice of a batch processed by one forward/backward pass; pipelines and gradient accumulation "
            "split the batch into micro-batches.",
        ),
    ),
    _e(
        Text(zh="微批次大小", en="micro-batch size"),
        "mb",
        Text(
            zh="一个微批次里的序列数；工作台的组合标签里写作 mb，例如 mb=1。",
            en="The number of sequences in one micro-batch; written mb in the workbench's composition labels, e.g. "
            "mb=1.",
        ),
    ),
    _e(
        Text(zh="梯度累积", en="gradient accumulation"),
        "",
        Text(
            zh="在一次优化器步之前把多个微批次的梯度累加起来，用时间换取更大的全局批而不增加显存。",
            en="Sums the gradients of several micro-batches before one optimizer step, reaching a larger global "
            "batch with time instead of memory.",
        ),
    ),
    _e(
        Text(zh="梯度累积步数", en="gradient-accumulation steps"),
        "ga",
        Text(
            zh="一个优化器步里累加梯度的微批次数 = 全局批大小 ÷ (dp × mb)；工作台的组合标签里写作 ga。",
            en="The number of micro-batches whose gradients one optimizer step sums = global batch ÷ (dp × mb); "
            "written ga in the workbench's composition labels.",
        ),
    ),
    _e(
        Text(zh="流水线气泡", en="pipeline bubble"),
        "",
        Text(
            zh="流水线填充和排空时各段空闲的时间；p 段、m 个微批次的朴素调度中，气泡约占一步的 (p-1)/(m+p-1)，"
            "这个比例叫气泡比例 (bubble fraction)。",
            en="Time in which pipeline stages sit idle while the pipeline fills and drains; with p stages and m "
            "micro-batches in the simple schedule it is about (p-1)/(m+p-1) of a step, the bubble fraction.",
        ),
    ),
    _e(
        Text(zh="流水线阶段", en="pipeline stage"),
        "",
        Text(
            zh="流水线并行中连续的一段层，放在一个设备（或一组设备）上；相邻阶段之间点对点传递激活和梯度。",
            en="A contiguous group of layers placed on one device (or group of devices) under pipeline parallelism; "
            "neighbouring stages pass activations and gradients point to point.",
        ),
    ),
    _e(
        Text(zh="GPipe 调度", en="GPipe schedule"),
        "GPipe",
        Text(
            zh="朴素流水线调度之一 (Huang et al., 2019)：先做完全部 m 个微批次的前向，再做全部反向；气泡与 1F1B 相同"
            "，但要同时保存 m 个微批次的激活。",
            en="A simple pipeline schedule (Huang et al., 2019): the forward of all m micro-batches, then all "
            "backwards; the same bubble as 1F1B, but the activations of m micro-batches are kept at once.",
        ),
    ),
    _e(
        Text(zh="一前一后调度", en="one forward, one backward"),
        "1F1B",
        Text(
            zh="朴素流水线调度之一（PipeDream-Flush、Megatron-LM）：灌满流水线后每个阶段交替做一个微批次的前向和一个"
            "微批次的反向；气泡与 GPipe 相同，第一个阶段最多同时保存 p 个微批次的激活。",
            en="A simple pipeline schedule (PipeDream-Flush, Megatron-LM): once the pipeline is full, each stage "
            "alternates one micro-batch's forward with one micro-batch's backward; the same bubble as GPipe, and the "
            "first stage keeps at most p micro-batches' activations.",
        ),
    ),
    _e(
        Text(zh="交错调度", en="interleaved schedule"),
        "",
        Text(
            zh="Megatron-LM 的流水线调度：每个设备持有 v 个不相邻的模型块，气泡开销缩小为 (p-1)/(v·m)，代价是更多点对"
            "点传输。",
            en="Megatron-LM's pipeline schedule in which each device holds v non-adjacent model chunks; the bubble "
            "overhead shrinks to (p-1)/(v·m) at the cost of more point-to-point transfers.",
        ),
    ),
    _e(
        Text(zh="虚拟阶段数", en="virtual stages"),
        "v",
        Text(
            zh="交错调度中每个设备持有的模型块数；v = 1 即不交错。工作台的组合标签里写作 v。",
            en="The number of model chunks each device holds under the interleaved schedule; v = 1 means not "
            "interleaved. Written v in the workbench's composition labels.",
        ),
    ),
    _e(
        Text(zh="双向流水线调度", en="DualPipe"),
        "DualPipe",
        Text(
            zh="DeepSeek-V3 的流水线调度：微批次从流水线两端同时送入，前向、反向的计算与专家并行的全对全通信相互重叠"
            "，气泡几乎为零，代价是每个设备保存两份模型块。",
            en="DeepSeek-V3's pipeline schedule: micro-batches enter from both ends of the pipeline and forward and "
            "backward compute overlap expert parallelism's all-to-all, leaving almost no bubble at the cost of two "
            "copies of the model chunks per device.",
        ),
    ),
    _e(
        Text(zh="多 token 预测", en="multi-token prediction"),
        "MTP",
        Text(
            zh="DeepSeek-V3 训练时在模型之后多接的模块：每个模块再跑一个 Transformer 块，预测更远一个位置的 token，"
            "与模型共用嵌入层和输出层；它放在流水线的最后一段，让那一段多出一个块和一次输出层的计算，所以不写切分时"
            "最后一段为它和损失少放 3 层（一个模块时；Megatron-Bridge 对 DeepSeek-V3 就这样切）。",
            en="Modules DeepSeek-V3 trains after the model: each runs one more transformer block to predict the token "
            "one position further ahead, sharing the model's embedding and output layer; it sits on the pipeline's "
            "last stage, which then runs one more block and the output layer once more, so with no split stated that "
            "stage holds 3 layers fewer for it and the loss (one module; Megatron-Bridge splits DeepSeek-V3 so).",
        ),
    ),
    _e(
        Text(zh="参数高效微调", en="parameter-efficient fine-tuning"),
        "PEFT",
        Text(
            zh="冻结预训练权重、只训练少量新增参数（如 LoRA 适配器）的微调方法；梯度和优化器状态只属于这一小部分参数。",
            en="Fine-tuning that freezes the pretrained weights and trains only a few added parameters (e.g. LoRA "
            "adapters); gradients and optimizer state exist only for that small part.",
        ),
    ),
    _e(
        Text(zh="低秩适配", en="low-rank adaptation"),
        "LoRA",
        Text(
            zh="一种参数高效微调：冻结全部权重，在每个线性层旁训练两个小矩阵 A (in × r) 与 B (r × out)，"
            "共 r·(in + out) 个参数；反向只算激活的梯度，不算被冻结权重的梯度，梯度和优化器状态只属于这些适配器。",
            en="A parameter-efficient fine-tuning: every weight frozen, two small matrices A (in × r) and B (r × out) "
            "trained beside each linear layer, r·(in + out) parameters; backward computes the activations' gradient "
            "but not the frozen weights', and gradients and optimizer state belong to the adapters alone.",
        ),
    ),
    # -- communication ----------------------------------------------------------------------
    _e(
        Text(zh="梯度桶", en="gradient bucket"),
        "",
        Text(
            zh="DP 把梯度分成若干桶 (bucket)：一个桶的梯度都算完，就开始归约它，与其余的反向计算重叠；"
            "最后一个桶要等反向结束才开始，总是暴露。",
            en="DP splits the gradients into buckets: once all of a bucket's gradients are computed, its reduction "
            "starts and overlaps the rest of backward; the last bucket starts only when backward ends, so it is "
            "always exposed.",
        ),
    ),
    _e(
        Text(zh="预取", en="prefetch"),
        "",
        Text(
            zh="FSDP / ZeRO-3 在计算当前层时，提前全收集下一层的参数，让通信藏在计算之下；代价是显存里同时多放一层"
            "未分片的参数。",
            en="FSDP / ZeRO-3 all-gather the next layer's parameters while the current layer computes, so the "
            "communication hides under compute; the cost is one more unsharded layer in memory at a time.",
        ),
    ),
    _e(
        Text(zh="关键路径", en="critical path"),
        "",
        Text(
            zh="一步里首尾相接、彼此依赖的一串操作；它上面的时间不能靠重叠藏住，决定了步时。",
            en="The chain of operations in a step that each wait for the one before; time on it cannot hide behind "
            "overlap, and it sets the step time.",
        ),
    ),
    _e(
        Text(zh="集合通信", en="collective communication"),
        "",
        Text(
            zh="一组 rank 全部参与的通信操作，如全归约、全收集、归约散射、全对全和广播。",
            en="A communication operation in which every rank of a group takes part: all-reduce, all-gather, "
            "reduce-scatter, all-to-all, broadcast.",
        ),
    ),
    _e(
        Text(zh="分桶", en="bucketing"),
        "",
        Text(
            zh="把许多小张量（例如各层的梯度）拼进几个较大的缓冲区（桶），每个桶发起一次集合通信：调用次数少了，"
            "每次的载荷高于分界载荷，通信由带宽主导；PyTorch DDP 按桶做梯度全归约，并让它与反向计算重叠。",
            en="Packs many small tensors (each layer's gradients, say) into a few larger buffers (buckets) and issues "
            "one collective per bucket: fewer calls, each above the crossover payload, so the communication is "
            "bandwidth-bound; PyTorch DDP all-reduces gradients bucket by bucket, overlapped with the backward pass.",
        ),
    ),
    _e(
        Text(zh="全归约", en="all-reduce"),
        "",
        Text(
            zh="每个 rank 最终都得到所有 rank 缓冲区按元素求和（或其他归约）的结果；环形算法中每个 rank "
            "发送缓冲区的 2(n-1)/n，相当于一次归约散射加一次全收集。",
            en="Every rank ends up with the element-wise sum (or other reduction) of all ranks' buffers; in the ring "
            "algorithm each rank sends 2(n-1)/n of the buffer, a reduce-scatter followed by an all-gather.",
        ),
    ),
    _e(
        Text(zh="全收集", en="all-gather"),
        "",
        Text(
            zh="每个 rank 贡献一个分片，最终都得到所有分片拼接的结果；环形算法中每个 rank 发送输出大小的 (n-1)/n。",
            en="Every rank contributes one shard and ends up with all shards concatenated; in the ring algorithm "
            "each rank sends (n-1)/n of the output size.",
        ),
    ),
    _e(
        Text(zh="归约散射", en="reduce-scatter"),
        "",
        Text(
            zh="各 rank 的缓冲区按元素归约后，每个 rank 只保留结果的一个分片；环形算法中每个 rank 发送输入大小的 "
            "(n-1)/n。",
            en="The ranks' buffers are reduced element-wise and each rank keeps one shard of the result; in the ring "
            "algorithm each rank sends (n-1)/n of the input size.",
        ),
    ),
    _e(
        Text(zh="全对全", en="all-to-all"),
        "",
        Text(
            zh="每个 rank 给其他每个 rank 各发送一块不同的数据（分布式转置）；专家并行用它分发和收回 token。",
            en="Every rank sends a different chunk to every other rank (a distributed transpose); expert parallelism "
            "uses it to dispatch and combine tokens.",
        ),
    ),
    _e(
        Text(zh="广播", en="broadcast"),
        "",
        Text(
            zh="把一个 rank 的缓冲区复制到组内所有 rank。",
            en="Copies one rank's buffer to every rank of the group.",
        ),
    ),
    _e(
        Text(zh="点对点通信", en="point-to-point communication"),
        "send/recv",
        Text(
            zh="一个 rank 把缓冲区发给另一个 rank；流水线各段之间这样传递激活。",
            en="One rank sends a buffer to one other rank; pipeline stages pass activations this way.",
        ),
    ),
    _e(
        Text(zh="通信协议", en="NCCL protocol"),
        "LL / LL128 / Simple",
        Text(
            zh="NCCL 写数据和“已到达”标志的方式：LL 每 8 字节里 4 字节数据、4 字节标志，LL128 每 128 字节里 120 字节"
            "数据、8 字节标志，时延低；Simple 整块写完再同步，带宽高。NCCL 按消息大小选择。",
            en='How NCCL writes data together with its "arrived" flag: LL puts 4 bytes of data and a 4-byte flag in '
            "every 8 bytes, LL128 120 bytes of data and an 8-byte flag in every 128 bytes (low latency); Simple "
            "writes whole blocks and then synchronises (high bandwidth). NCCL picks one by message size.",
        ),
    ),
    _e(
        Text(zh="环形算法", en="ring algorithm"),
        "",
        Text(
            zh="n 个 rank 排成环，每步只和邻居交换 1/n 的数据；所需带宽与 n 几乎无关，但步数（时延项）随 n 增长。",
            en="The n ranks form a ring and each step exchanges 1/n of the data with a neighbour; the bandwidth "
            "needed hardly depends on n, but the number of steps (the latency term) grows with n.",
        ),
    ),
    _e(
        Text(zh="单向带宽", en="unidirectional bandwidth"),
        "",
        Text(
            zh="一个方向上每秒能传送的字节数。本课程中的带宽一律指每块 GPU 每个方向的带宽：H100 的 NVLink 标称 900 "
            "GB/s 是 18 条链路、两个方向之和，每块 GPU 每个方向是 450 GB/s。",
            en="The bytes per second carried in one direction. Bandwidth in this course always means per GPU, per "
            "direction: the H100's quoted 900 GB/s of NVLink sums 18 links and both directions, so each GPU gets 450 "
            "GB/s per direction.",
        ),
    ),
    _e(
        Text(zh="双向带宽", en="bidirectional bandwidth"),
        "",
        Text(
            zh="两个方向带宽之和，厂商常用它标注 NVLink；对称链路上它是单向带宽的两倍，不能直接代入传输时间。",
            en="The sum of both directions, often quoted by vendors for NVLink; on a symmetric link it is twice the "
            "unidirectional bandwidth and must not be used directly as the transfer rate.",
        ),
    ),
    _e(
        Text(zh="时延", en="latency"),
        "",
        Text(
            zh="发起一次通信的固定开销（微秒级），与消息大小无关；小消息的耗时主要由它决定。",
            en="The fixed cost of starting one communication (microseconds), independent of its size; it dominates "
            "small messages.",
        ),
    ),
    _e(
        Text(zh="算法带宽", en="algorithm bandwidth"),
        "algbw",
        Text(
            zh="nccl-tests 的度量：数据大小 ÷ 耗时。",
            en="nccl-tests' measure: data size ÷ time.",
        ),
    ),
    _e(
        Text(zh="总线带宽", en="bus bandwidth"),
        "busbw",
        Text(
            zh="nccl-tests 的度量：把算法带宽乘以集合操作的系数（全归约为 2(n-1)/n），使它可以与硬件链路带宽直接比较。",
            en="nccl-tests' measure: algorithm bandwidth times the collective's factor (2(n-1)/n for all-reduce), so "
            "it can be compared with the hardware link bandwidth.",
        ),
    ),
    _e(
        Text(zh="NVIDIA 集合通信库", en="NVIDIA Collective Communications Library"),
        "NCCL",
        Text(
            zh="NVIDIA 的集合通信库：在 GPU 之间做全归约、全收集等集合通信，按消息大小和拓扑选择算法（环形、树形、"
            "NVLS）与协议（LL、LL128、Simple）；PyTorch 在 GPU 上默认用它做通信后端 (backend)。",
            en="NVIDIA's library of collectives: all-reduce, all-gather and the rest between GPUs, choosing the "
            "algorithm (ring, tree, NVLS) and protocol (LL, LL128, Simple) by message size and topology; PyTorch's "
            "default communication backend on GPUs.",
        ),
    ),
    _e(
        Text(zh="Gloo 集合通信库", en="Gloo collective library"),
        "gloo",
        Text(
            zh="Meta 的集合通信库，PyTorch 在 CPU 上的通信后端 (backend)：数据经操作系统的网络栈（本机是回环地址）"
            "收发，没有 NVLink 或 InfiniBand 那样的专用硬件；第 8 课在本机用它做实验。",
            en="Meta's library of collectives, PyTorch's communication backend on CPUs: data goes through the "
            "operating system's network stack (the loopback address on one machine), with no dedicated hardware "
            "such as NVLink or InfiniBand; lesson 8 runs its experiments with it.",
        ),
    ),
    _e(
        Text(zh="计算与通信重叠", en="compute-communication overlap"),
        "",
        Text(
            zh="让通信在计算进行时同时进行，把通信时间藏在计算后面；本课程的通信账本给出不计重叠的下界。",
            en="Running communication while computation proceeds, hiding its time; the course's communication ledger "
            "gives the lower bound without overlap.",
        ),
    ),
    _e(
        Text(zh="时延主导", en="latency-bound"),
        "",
        Text(
            zh="一次通信的固定时延项大于传输项（载荷 ÷ 带宽）：减少调用次数、合并小消息比增加带宽更有效。",
            en="The fixed latency term of a call exceeds its transfer term (payload ÷ bandwidth): fewer calls and "
            "merged small messages help more than more bandwidth.",
        ),
    ),
    _e(
        Text(zh="带宽主导", en="bandwidth-bound"),
        "",
        Text(
            zh="一次通信的传输项（载荷 ÷ 带宽）不小于时延项：减少载荷或提高带宽最有效。",
            en="The transfer term of a call (payload ÷ bandwidth) is at least its latency term: less payload or more "
            "bandwidth helps most.",
        ),
    ),
    _e(
        Text(zh="分界载荷", en="crossover payload"),
        "payload*",
        Text(
            zh="时延项正好等于传输项的单次载荷，payload* = 时延 × 带宽；小于它的调用由时延主导，大于它的由带宽主导。",
            en="The payload per call at which the latency term equals the transfer term, payload* = latency × "
            "bandwidth; smaller calls are latency-bound, larger ones bandwidth-bound.",
        ),
    ),
    # -- hardware ---------------------------------------------------------------------------
    _e(
        Text(zh="内核", en="kernel"),
        "",
        Text(
            zh="在 GPU 上执行的一段程序，例如一次矩阵乘或一次融合注意力；主机 (CPU) 逐个发射内核，GPU 依次执行。"
            "“内核效率”指它达到峰值算力的比例，矩阵越小通常越低。另外两种“内核”是别的东西：Jupyter 的内核是运行笔记本"
            "代码的 Python 进程（第 0 课的“重启内核”），操作系统的内核管着网络协议栈（第 8 课回环上的 TCP）。",
            en="A program that runs on the GPU, such as one matrix multiplication or one fused attention; the host "
            "(CPU) launches kernels one by one and the GPU runs them in turn. A kernel's efficiency is the share of "
            "peak FLOP/s it reaches, usually lower for smaller matrices. Two other kernels are other things: Jupyter's "
            "kernel is the Python process that runs a notebook's code (lesson 0's kernel restart), and the operating "
            "system's kernel runs the network stack (lesson 8's TCP over loopback).",
        ),
    ),
    _e(
        Text(zh="拓扑", en="topology"),
        "",
        Text(
            zh="设备与链路的连接方式：节点内哪些 GPU 通过 NVLink 相连，节点之间如何经 InfiniBand/以太网交换机相连。",
            en="How devices and links are connected: which GPUs share NVLink inside a node, how nodes connect "
            "through InfiniBand or Ethernet switches.",
        ),
    ),
    _e(
        Text(zh="张量核心", en="tensor core"),
        "",
        Text(
            zh="GPU 上专做小块矩阵乘的单元；数据手册按精度分别给出它的峰值算力。A100 的张量核心支持 TF32、BF16、"
            "FP16、INT8、INT4，没有 FP8；H100 加了 FP8，峰值是 bf16 的两倍。",
            en="The units of a GPU that do small matrix multiplications; the datasheet gives their peak FLOP/s for "
            "each precision. A100's tensor cores take TF32, BF16, FP16, INT8 and INT4, not FP8; H100 adds FP8, at "
            "twice bf16's peak.",
        ),
    ),
    _e(
        Text(zh="节点", en="node"),
        "",
        Text(
            zh="一台服务器，内有若干加速器，由节点内高速链路相连；节点之间通过较慢的网络相连。",
            en="One server holding several accelerators joined by fast intra-node links; nodes connect through a "
            "slower network.",
        ),
    ),
    _e(
        Text(zh="NVLink 域", en="NVLink domain"),
        "",
        Text(
            zh="由 NVLink 交换机连在一起、彼此都走 NVLink 的一组 GPU。通常就是一个节点（8 张）；GB200 NVL72 一个机柜的"
            " 72 张 GPU 分在 18 个节点（计算托盘，每个 4 张）上，却同在一个域里，跨节点的组也不用走网络。",
            en="The GPUs an NVLink switch fabric joins, so that any two of them talk over NVLink. Usually one node (8 "
            "GPUs); a GB200 NVL72 rack's 72 GPUs sit in 18 nodes (compute trays of 4) yet share one domain, so a group "
            "across nodes need not use the network.",
        ),
    ),
    _e(
        Text(zh="节点内互连", en="intra-node interconnect"),
        "",
        Text(
            zh="同一节点内 GPU 之间的高速链路（如 NVLink/NVSwitch），带宽比跨节点网络高一个数量级左右。",
            en="The fast links between the GPUs of one node (e.g. NVLink/NVSwitch), roughly an order of magnitude "
            "faster than the network between nodes.",
        ),
    ),
    _e(
        Text(zh="跨节点网络", en="inter-node network"),
        "",
        Text(
            zh="连接不同节点的网络，如 InfiniBand 或 RoCE 以太网，每张网卡通常数十 GB/s（单向）。",
            en="The network between nodes, such as InfiniBand or RoCE Ethernet, typically tens of GB/s per NIC "
            "(unidirectional).",
        ),
    ),
    _e(
        Text(zh="进程编号", en="rank"),
        "",
        Text(
            zh="分布式作业中的一个进程，通常驱动一个加速器；编号为 0 到 world size - 1。本课程正文直接写 rank，不另译"
            "。",
            en="One process of a distributed job, usually driving one accelerator; numbered 0 to world size - 1.",
        ),
    ),
    _e(
        Text(zh="世界大小", en="world size"),
        "",
        Text(
            zh="分布式作业的 rank 总数。",
            en="The total number of ranks of a distributed job.",
        ),
    ),
    _e(
        Text(zh="rank 顺序", en="rank order"),
        "",
        Text(
            zh="给 rank 编号时各并行维度的先后，排在前面的变化最快（Megatron-Core 默认 TP-CP-EP-DP-PP）；它决定每个组"
            "由哪些 rank 组成、落在哪些节点上。",
            en="The order in which the parallel dimensions number the ranks, the first varying fastest "
            "(Megatron-Core's default is TP-CP-EP-DP-PP); it decides which ranks form each group and which nodes a "
            "group lands on.",
        ),
    ),
    _e(
        Text(zh="链路域", en="link scope"),
        "",
        Text(
            zh="一个并行组的成员之间能用的最强链路：none（不保证）< cross_node（跨节点网络）< intra_node（节点内互连"
            "）。",
            en="The strongest link the members of a parallel group can use: none (nothing promised) < cross_node "
            "(the inter-node network) < intra_node (the intra-node interconnect).",
        ),
    ),
    _e(
        Text(zh="主机开销", en="host overhead"),
        "",
        Text(
            zh="CPU 一侧为每次计算付出的时间：Python 代码、内核启动、等待 GPU 结果的同步。GPU 上每个内核很短时（TP 大、"
            "微批次小、MoE 的小矩阵乘），GPU 会空等 CPU；减小 TP、加大微批次或用 CUDA Graph 可以缓解。",
            en="Time the CPU spends per computation: Python code, kernel launches, synchronisations that wait for a "
            "GPU result. When each GPU kernel is short (large TP, small micro-batches, MoE's small matmuls) the GPU "
            "waits for the CPU; a smaller TP, a larger micro-batch or CUDA graphs relieve it.",
        ),
    ),
    # -- compute efficiency (lesson 7) -------------------------------------------------------
    _e(
        Text(zh="高带宽显存", en="high-bandwidth memory"),
        "HBM",
        Text(
            zh="GPU 自带的显存：DRAM 芯片堆叠在 GPU 芯片旁、同一封装内；权重、激活和 KV 缓存都放在这里。"
            "它的带宽是屋顶线中访存的那一侧（数据手册：H100 SXM 80 GB，3.35 TB/s）。",
            en="The GPU's own memory: DRAM stacked beside the GPU chip in the same package, holding the weights, the "
            "activations and the KV cache. Its bandwidth is the memory side of the roofline (datasheet: H100 SXM, "
            "80 GB at 3.35 TB/s).",
        ),
    ),
    _e(
        Text(zh="屋顶线模型", en="roofline model"),
        "",
        Text(
            zh="内核可达算力的上限：min(峰值算力, 计算强度 × "
            "显存带宽)；在双对数坐标上先斜升、后变平，形似屋顶 (Williams et al., 2009)。",
            en="An upper bound on a kernel's attainable FLOP/s: min(peak FLOP/s, arithmetic intensity × memory "
            "bandwidth); on log-log axes it rises and then goes flat, like a roof (Williams et al., 2009).",
        ),
    ),
    _e(
        Text(zh="计算强度", en="arithmetic intensity"),
        "",
        Text(
            zh="一个内核的浮点运算次数除以它至少要搬运的字节数（FLOP/字节）；bf16 矩阵乘 (m × k) @ (k × n) 的计算强度"
            "是 m·k·n / (m·k + k·n + m·n)。",
            en="A kernel's floating-point operations divided by the bytes it must at least move (FLOP per byte); a "
            "bf16 matmul (m × k) @ (k × n) has m·k·n / (m·k + k·n + m·n).",
        ),
    ),
    _e(
        Text(zh="脊点", en="ridge point"),
        "",
        Text(
            zh="屋顶线的拐点：峰值算力 ÷ 显存带宽（FLOP/字节）；按数据手册，A100 约 153，H100 约 295。",
            en="Where the roofline bends: peak FLOP/s ÷ memory bandwidth (FLOP per byte); from the datasheets about "
            "153 on A100 and 295 on H100.",
        ),
    ),
    _e(
        Text(zh="访存受限", en="memory-bound"),
        "",
        Text(
            zh="计算强度低于脊点：内核的速度由显存带宽决定，算力在等数据（如小批量的解码）。",
            en="Arithmetic intensity below the ridge point: the kernel's speed is set by memory bandwidth and the "
            "arithmetic units wait for data (e.g. decode with a small batch).",
        ),
    ),
    _e(
        Text(zh="计算受限", en="compute-bound"),
        "",
        Text(
            zh="计算强度高于脊点：内核的速度由峰值算力决定（如每张 GPU 有几千个 token 的训练矩阵乘）。",
            en="Arithmetic intensity above the ridge point: the kernel's speed is set by peak FLOP/s (e.g. training "
            "matmuls with thousands of tokens per GPU).",
        ),
    ),
    _e(
        Text(zh="模型浮点利用率", en="model FLOPs utilization"),
        "MFU",
        Text(
            zh="每秒完成的模型 FLOP（每 token 6N + 12·L·h·s，不含重计算）÷ 所有设备峰值之和（PaLM 附录 B）；比较不同"
            "布局和论文时用它。",
            en="Model FLOPs per second (6N + 12·L·h·s per token, recomputation excluded) ÷ the devices' summed peak "
            "(PaLM, appendix B); the figure to compare layouts and papers by.",
        ),
    ),
    _e(
        Text(zh="硬件浮点利用率", en="hardware FLOPs utilization"),
        "HFU",
        Text(
            zh="每秒实际执行的 FLOP（包括激活重计算重做的部分）÷ 所有设备峰值之和；完全重计算时约为 MFU 的 4/3。",
            en="FLOPs actually executed per second (including what activation recomputation redoes) ÷ the devices' "
            "summed peak; about 4/3 of MFU with full recomputation.",
        ),
    ),
    # -- method -------------------------------------------------------------------------------
    _e(
        Text(zh="账本", en="ledger"),
        "",
        Text(
            zh="带单位的具名数量表及其合计（如以 GiB 计的容量账本、以 ms 计的通信账本），每个数字都能追溯来源。",
            en="A table of named quantities with units and their total (a capacity ledger in GiB, a communication "
            "ledger in ms), so that every number can be traced.",
        ),
    ),
    _e(
        Text(zh="门槛", en="gate"),
        "",
        Text(
            zh="候选策略必须通过的硬约束（容量、互连范围、工作负载、模型结构、上下文、服务）；不通过就带着明确原因被"
            "排除，不算综合分。",
            en="A hard constraint a candidate strategy must pass (capacity, interconnect scope, workload, model "
            "structure, context, serving); failing one rejects it with a stated reason, with no combined score.",
        ),
    ),
    _e(
        Text(zh="硬排除", en="hard exclusion"),
        "",
        Text(
            zh="候选因没通过某道门槛而被排除（如放不下、一层拆不开、批大小不允许）；选择矩阵里记作“不优先（硬排除）”，"
            "与“不需要”（能用但没有收益）区分开。",
            en="A candidate ruled out because it fails a gate (it does not fit, a layer cannot be split, the batch "
            'does not allow it); the selection matrix writes it "not preferred (hard exclusion)", apart from '
            '"not needed" (it would work but gains nothing).',
        ),
    ),
    _e(
        Text(zh="朴素规则", en="naive rule"),
        "",
        Text(
            zh="第 4 课的第一种 rank 计数：把所有并行度（EP 也算一维）相乘。Megatron-Core 的 EP 复用 DP·CP 的 rank，"
            "所以带 EP 的方案按引擎计数会更少。",
            en="Lesson 4's first rank count: multiply every degree, EP as a dimension of its own. Megatron-Core's EP "
            "reuses the DP·CP ranks, so an engine counts fewer ranks for a plan with EP.",
        ),
    ),
    _e(
        Text(zh="漏斗", en="funnel"),
        "",
        Text(
            zh="第 9 课工作台的搜索记录：每个候选组合记在它第一道没通过的门槛上，逐行列出每道门槛排除了多少，"
            "各行加上最后剩下的正好等于搜索空间的大小。",
            en="The workbench's record of a search (lesson 9): each candidate composition is counted at the first gate "
            "it fails, one row per gate, so the rows plus what is left add up to the size of the search space.",
        ),
    ),
    _e(
        Text(zh="假设分析", en="what-if"),
        "",
        Text(
            zh="只改一个假设（链路变慢、上下文变长、模型变成 MoE 等）再规划一次，看结论变不变、变成什么；"
            "结论依赖哪些假设由此看出。",
            en="Planning again with one assumption changed (a slower link, a longer context, an MoE model and so on) "
            "to see whether and how the conclusion changes; it shows which assumptions the conclusion rests on.",
        ),
    ),
    _e(
        Text(zh="执行角色", en="execution role"),
        "",
        Text(
            zh="一组模型副本怎样协作：训练同步（如 DP，每步同步梯度）或服务副本（各自处理独立请求，从不同步）。",
            en="How a set of model copies cooperates: training-sync (e.g. DP, gradients synchronized every step) or "
            "serving replica (each answers its own requests, never synchronized).",
        ),
    ),
    _e(
        Text(zh="吞吐", en="throughput"),
        "",
        Text(
            zh="单位时间完成的工作量，如每秒处理的 token 或样本数。",
            en="Work done per unit of time, e.g. tokens or samples per second.",
        ),
    ),
    _e(
        Text(zh="扩展效率", en="scaling efficiency"),
        "",
        Text(
            zh="E(P) = 吞吐(P) / (P × 吞吐(1))；1 表示线性扩展。效率下降需要拆解步内时间线才能找到原因。",
            en="E(P) = throughput(P) / (P × throughput(1)); 1 means linear scaling. A drop needs the step timeline "
            "taken apart to find its cause.",
        ),
    ),
    _e(
        Text(zh="弱扩展", en="weak scaling"),
        "",
        Text(
            zh="设备增加时每个设备的工作量（如每设备 batch）保持不变，总工作量随设备数增长；与总工作量固定的强扩展相"
            "对。",
            en="Each device keeps its share of work (e.g. its batch) as devices are added, so the total work grows "
            "with the device count; the opposite of strong scaling, where the total work is fixed.",
        ),
    ),
    _e(
        Text(zh="加速比", en="speed-up"),
        "S(P)",
        Text(
            zh="S(P) = 吞吐(P) / 吞吐(1)：P 个设备比一个设备快多少倍；理想时等于 P。扩展效率 E(P) = S(P) / P。",
            en="S(P) = throughput(P) / throughput(1): how many times faster P devices are than one; P when scaling "
            "is ideal. The scaling efficiency is E(P) = S(P) / P.",
        ),
    ),
    _e(
        Text(zh="步时间线", en="step timeline"),
        "",
        Text(
            zh="把一个训练步拆成首尾相接的几段：计算、暴露的通信、等待（流水线气泡、输入、掉队者）；被计算掩盖的通信"
            "不占时间。E(P) 下降时，用它找出是哪一段变长了。",
            en="One training step split into segments laid end to end: compute, exposed communication and waits "
            "(pipeline bubble, input, stragglers); communication hidden under compute takes no time. When E(P) drops, "
            "it shows which segment grew.",
        ),
    ),
    _e(
        Text(zh="掉队者", en="straggler"),
        "",
        Text(
            zh="比其他 rank 慢的 rank；在下一个同步点，其他所有 rank 都要等它。",
            en="A rank slower than the others; at the next synchronization point every other rank waits for it.",
        ),
    ),
    _e(
        Text(zh="尾延迟", en="tail latency"),
        "",
        Text(
            zh="请求延迟分布的高分位（如 p99）；服务副本路由不均会先把它放大。",
            en="A high percentile (e.g. p99) of request latency; uneven routing across serving replicas inflates it "
            "first.",
        ),
    ),
    # -- serving ------------------------------------------------------------------------------
    _e(
        Text(zh="预填充", en="prefill"),
        "",
        Text(
            zh="服务请求的第一阶段：一次读完整个提示，把每个 token 的键和值写进 KV 缓存，并产生第一个输出 token；每个"
            " token 约 2·N 次浮点运算，所以是计算受限。",
            en="The first phase of a request: read the whole prompt in one pass, write every token's keys and values "
            "into the KV cache and produce the first output token; about 2·N FLOPs per token, so compute-bound.",
        ),
    ),
    _e(
        Text(zh="解码", en="decode"),
        "",
        Text(
            zh="服务请求的第二阶段：每步为批次里每个请求生成一个 token；每步要读全部权重和整个批次的 KV 缓存，运算却"
            "很少，所以是访存受限。",
            en="The second phase of a request: each step makes one token for every request in the batch; a step "
            "reads all the weights and the batch's whole KV cache but does little arithmetic, so it is memory-bound.",
        ),
    ),
    _e(
        Text(zh="首 token 时间", en="time to first token"),
        "TTFT",
        Text(
            zh="从请求到达到第一个输出 token 的时间：排队加预填充。",
            en="Time from a request's arrival to its first output token: queueing plus prefill.",
        ),
    ),
    _e(
        Text(zh="每输出 token 时间", en="time per output token"),
        "TPOT",
        Text(
            zh="解码阶段相邻两个输出 token 之间的时间，即一个解码步的时间；它的下限是每 GPU 的权重字节数除以显存带宽。",
            en="Time between two output tokens during decode, i.e. one decode step; it is never below the weight "
            "bytes per GPU divided by the memory bandwidth.",
        ),
    ),
    _e(
        Text(zh="8 位权重与激活", en="8-bit weights and activations"),
        "W8A8",
        Text(
            zh="FP8 服务的常见做法（vLLM、TensorRT-LLM 的 FP8 模型）：权重和线性层的输入都是 FP8，每个权重 1 字节，"
            "解码读权重的下限减半，线性层的矩阵乘按 FP8 峰值算；注意力与 KV 缓存可以仍是 16 位。"
            "量化对输出质量的影响要靠评测来看。",
            en="A common way to serve in FP8 (vLLM's and TensorRT-LLM's FP8 models): the weights and the linear "
            "layers' inputs are FP8, 1 byte a weight, so decode's weight floor halves and the linear layers' matmuls "
            "run at the FP8 peak; attention and the KV cache may stay 16-bit. What quantisation does to the output's "
            "quality is for an evaluation to show.",
        ),
    ),
    _e(
        Text(zh="分组查询注意力", en="grouped-query attention"),
        "GQA",
        Text(
            zh="几个查询头共享一组键值头（如 Llama-3 70B 的 64 个查询头共享 8 个 KV 头），KV 缓存按比例变小；只有一个"
            " KV 头时叫多查询注意力 (MQA)。",
            en="Several query heads share one key/value head (Llama-3 70B: 64 query heads, 8 KV heads), shrinking "
            "the KV cache in proportion; with a single KV head it is multi-query attention (MQA).",
        ),
    ),
    _e(
        Text(zh="多头潜在注意力", en="multi-head latent attention"),
        "MLA",
        Text(
            zh="DeepSeek-V2/V3 的注意力：键和值先压缩成一个低秩潜在向量（加一个共享的 RoPE 键）再缓存，每个 token 每"
            "层只缓存 kv_lora_rank + qk_rope_head_dim 个元素（DeepSeek-V3 为 512 + 64 = 576），计算时再投影回每个头。",
            en="DeepSeek-V2/V3's attention: keys and values are compressed into one low-rank latent (plus a shared "
            "RoPE key) and cached as such, kv_lora_rank + qk_rope_head_dim elements per token and layer "
            "(DeepSeek-V3: 512 + 64 = 576), projected back to every head when computed.",
        ),
    ),
    _e(
        Text(zh="融合注意力", en="flash attention"),
        "",
        Text(
            zh="把注意力的 QKᵀ、softmax 和乘 V 融合成一个分块计算的内核：不把 s×s 的分数写回显存，反向时重算；只为每"
            "个头、每个查询保存一个 fp32 的 softmax 统计量，所以激活里没有随 s² 增长的一项。",
            en="A fused attention kernel that computes QKᵀ, the softmax and the product with V block by block: the "
            "s×s scores never reach device memory and are recomputed in backward; only one fp32 softmax statistic "
            "per head and query is kept, so activations have no term growing with s².",
        ),
    ),
    _e(
        Text(zh="滑动窗口注意力", en="sliding-window attention"),
        "SWA",
        Text(
            zh="每个查询只看最近 w 个 token（含自己）的注意力（Mistral 7B：w = 4096；"
            "Gemma 3 每 6 层中有 5 层 w = 1024；GPT-OSS 隔层 w = 128）。"
            "序列比窗口长时，这些层算的查询-键对从约 s²/2 降到约 s·w，"
            "推理时每个请求在这些层最多缓存 w 个 token 的 K/V。",
            en="Attention in which each query sees only the last w tokens, itself included (Mistral 7B: w = 4096; "
            "Gemma 3: w = 1024 on 5 of every 6 layers; GPT-OSS: w = 128 on alternate layers). On sequences longer than "
            "the window those layers compute about s·w query-key pairs instead of s²/2, and in serving cache at most "
            "w tokens of K/V per request.",
        ),
    ),
    _e(
        Text(zh="分块注意力", en="chunked attention"),
        "",
        Text(
            zh="把序列从头切成每块 C 个 token，查询只看本块内在它之前的 token（含自己）的注意力（Llama 4：C = 8192，"
            "每 4 层中有 3 层，其余一层看整个序列）。序列比块长时，这些层算的查询-键对约为 s·C/2 而不是 s²/2；"
            "推理时每个请求在这些层最多缓存一块的 K/V，每块开头的查询只看它自己这一个键。",
            en="Attention in which the sequence is cut into chunks of C tokens from its start and each query sees only "
            "the earlier tokens of its own chunk, itself included (Llama 4: C = 8192 on 3 of every 4 layers, the "
            "fourth attending the whole sequence). On sequences longer than a chunk those layers compute about s·C/2 "
            "query-key pairs instead of s²/2; in serving they cache at most one chunk of K/V per request, and the "
            "query at a chunk's start sees a single key.",
        ),
    ),
    _e(
        Text(zh="共享专家", en="shared expert"),
        "",
        Text(
            zh="MoE 层里每个 token 都经过的专家，与路由选出的 top-k 个专家并列（DeepSeek-V3：1 个共享专家 + 256 个路"
            "由专家中的 8 个）。",
            en="An expert of an MoE layer that every token passes through, beside its top-k routed experts "
            "(DeepSeek-V3: 1 shared expert plus 8 of 256 routed ones).",
        ),
    ),
    _e(
        Text(zh="8 位浮点训练", en="FP8 training"),
        "FP8",
        Text(
            zh="线性层的矩阵乘用 8 位浮点 (E4M3/E5M2) 计算，H100/H800 的 FP8 峰值是 bf16 的两倍；主参数、梯度和优化器"
            "状态仍用更高精度保存（Transformer Engine、DeepSeek-V3）。线性层为反向保存的输入是转成 FP8 后的，"
            "每元素 1 字节，其余激活仍按 16 位存。A100 没有 FP8 张量核心。",
            en="The linear layers' matmuls run in 8-bit floating point (FP8: E4M3/E5M2), whose peak on H100/H800 is "
            "twice bf16's; master weights, gradients and optimizer states stay in higher precision (Transformer "
            "Engine, DeepSeek-V3). The inputs the linear layers save for backward are the FP8 casts, 1 byte per "
            "element; the other activations stay 16-bit. A100 has no FP8 tensor cores.",
        ),
    ),
    _e(
        Text(zh="延迟缩放", en="delayed scaling"),
        "",
        Text(
            zh="FP8 转换的一种缩放方式：比例因子取自前几步记下的最大绝对值 (amax)，本次的 amax 在转换时顺带求出，"
            "不必先把张量读一遍；Transformer Engine 与 Megatron-Core 的默认方式。",
            en="A way of scaling FP8 casts: the scale comes from the largest absolute values (amax) recorded in "
            "earlier steps, and this cast's amax is found while casting, with no extra pass over the tensor; "
            "Transformer Engine's and Megatron-Core's default.",
        ),
    ),
    _e(
        Text(zh="当前缩放", en="current scaling"),
        "",
        Text(
            zh="FP8 转换的另一种缩放方式：先把张量读一遍求出它自己的 amax，再按它转换；多一次显存遍历，"
            "换来不依赖历史的比例因子（Megatron-Bridge 的 FP8-CS 配置）。",
            en="The other way of scaling FP8 casts: the tensor is read once for its own amax, then cast with it; one "
            "more pass over memory for a scale that does not depend on history (Megatron-Bridge's FP8-CS configs).",
        ),
    ),
    _e(
        Text(zh="微缩放 FP8", en="microscaling FP8"),
        "MXFP8",
        Text(
            zh="Blackwell GPU 上的 FP8 缩放方式：每 32 个相邻元素共用一个只含指数的 8 位缩放因子 (E8M0)。"
            "按行与按列的分块方向不同，所以反向要用的按列副本不能由按行副本转置得到，两份都从 bf16 量化；"
            "不需要先求整个张量的 amax。"
            "Transformer Engine 只在计算能力 10.x 的 GPU（B200、GB200、B300、GB300）上运行它。",
            en="An FP8 scaling on Blackwell GPUs: every 32 consecutive elements share one exponent-only 8-bit scale "
            "(E8M0). Row-wise and column-wise blocks run in different directions, so the column-wise copy the backward "
            "needs cannot be a transpose of the row-wise one: both are quantised from bf16, with no pass for a "
            "whole-tensor amax. Transformer Engine runs it only on GPUs of compute capability 10.x (B200, GB200, "
            "B300, GB300).",
        ),
    ),
    _e(
        Text(zh="计算能力", en="compute capability"),
        "",
        Text(
            zh="NVIDIA 给每代 GPU 的版本号：A100 是 8.0，H100 是 9.0，B200 是 10.0，B300 是 10.3。"
            "训练引擎按它决定能用哪些内核：例如计算能力 10.x 的 FP8 矩阵乘接受任意操作数布局，"
            "不必另做 FP8 转置副本，而 9.0 (Hopper) 要做。",
            en="The version number NVIDIA gives each GPU generation: A100 8.0, H100 9.0, B200 10.0, B300 10.3. "
            "Training engines choose kernels by it: FP8 GEMMs at compute capability 10.x take any operand layout, so "
            "no transposed FP8 copy is needed, while 9.0 (Hopper) needs one.",
        ),
    ),
    _e(
        Text(zh="多头注意力", en="multi-head attention"),
        "MHA",
        Text(
            zh="每个查询头都有自己的一组键值头（KV 头数 = 查询头数），KV 缓存最大；GPT-2、GPT-3 用它。",
            en="Every query head has its own key/value head (KV heads = query heads), so the KV cache is largest; "
            "GPT-2 and GPT-3 use it.",
        ),
    ),
    _e(
        Text(zh="多查询注意力", en="multi-query attention"),
        "MQA",
        Text(
            zh="所有查询头共享一个键值头，KV 缓存只有多头注意力的 1/查询头数；PaLM 用它。"
            "分组查询注意力 (GQA) 介于两者之间。",
            en="All query heads share a single key/value head, so the KV cache is 1/heads of multi-head attention's; "
            "PaLM uses it. Grouped-query attention (GQA) sits between the two.",
        ),
    ),
    _e(
        Text(zh="通用矩阵乘", en="general matrix multiply"),
        "GEMM",
        Text(
            zh="C = A·B 形式的稠密矩阵乘，Transformer 的线性层都是它；"
            "矩阵越小（TP 越大、微批次越小），越难跑满张量核心。",
            en="A dense matrix multiply C = A·B; every linear layer of a Transformer is one. The smaller the matrices "
            "(larger TP, smaller micro-batches), the harder it is to keep the tensor cores busy.",
        ),
    ),
    _e(
        Text(zh="前缀缓存", en="prefix caching"),
        "",
        Text(
            zh="推理引擎保留共享提示前缀（如同一段系统提示）的 KV 缓存；新请求命中时跳过这段预填充。"
            "命中率取决于真实流量，只能实测。",
            en="An inference engine keeps the KV cache of a shared prompt prefix (such as a common system prompt); a "
            "new request that hits it skips that part of the prefill. The hit rate depends on real traffic and can "
            "only be measured.",
        ),
    ),
    _e(
        Text(zh="连续批处理", en="continuous batching"),
        "",
        Text(
            zh="推理引擎在每个解码步之间让完成的请求离开、让新请求加入，使批次保持满；也叫 in-flight batching。",
            en="An inference engine lets finished requests leave and new ones join between decode steps, keeping the "
            "batch full; also called in-flight batching.",
        ),
    ),
    _e(
        Text(zh="利特尔定律", en="Little's law"),
        "",
        Text(
            zh="稳态下系统中的请求数 = 到达速率 × 每个请求在系统中的时间（N = λ·W）；由请求速率和时延推出并发数。",
            en="In steady state, requests in the system = arrival rate × time each spends in it (N = λ·W); it turns "
            "a request rate and a latency into a concurrency.",
        ),
    ),
    _e(
        Text(zh="服务目标", en="service-level objective"),
        "SLO",
        Text(
            zh="服务对时延的承诺，如 TTFT 不超过 500 ms、TPOT 不超过 50 ms（常对某个分位数而言）。",
            en="A service's promise on latency, e.g. TTFT at most 500 ms and TPOT at most 50 ms (often for a "
            "percentile).",
        ),
    ),
    _e(
        Text(zh="并列组", en="tie group"),
        "",
        Text(
            zh="估算相差小于模型自身不确定度的候选放在同一组、不再排先后：估算分不出它们，要靠实测来定。",
            en="Candidates whose estimates differ by less than the model's own uncertainty share a group and are not "
            "ranked against each other: the estimate cannot tell them apart, a measurement must.",
        ),
    ),
    _e(
        Text(zh="实测可重复性", en="measurement repeatability"),
        "",
        Text(
            zh="同一配置各测一次、两次结果能差多远。课程取 NVIDIA 两次发表的同一张性能表：12 行两次实测之差的均方根的"
            "两倍，4.5%；估算相差不到它的候选算并列，因为各跑一次也分不出先后。",
            en="How far apart two single measurements of one configuration can land. The course takes NVIDIA's two "
            "publications of one performance table: twice the root-mean-square difference of its 12 rows, 4.5 %; "
            "candidates whose estimates are closer are tied, since one run of each could not order them either.",
        ),
    ),
    _e(
        Text(zh="代理模型", en="proxy model"),
        "",
        Text(
            zh="照某个模型的形状（层数、宽度、专家数）搭出来、只用来测速度的模型，"
            "例如 DGX Cloud 配方里的 Grok-1 代理模型。",
            en="A model built to another model's shape (layers, widths, experts) only to measure speed, e.g. the "
            "Grok-1 proxy of NVIDIA's DGX Cloud recipes.",
        ),
    ),
    _e(
        Text(zh="Transformer 引擎", en="Transformer Engine"),
        "TE",
        Text(
            zh="NVIDIA 的 Transformer 层内核库：在 H100 上用 FP8 做矩阵乘并融合相邻算子。工作台的 bf16 效率天花板在"
            "不用它的 Megatron-LM 表 1 上标定，FP8 矩阵乘保留的提速份额在用它的 DGX Cloud 运行上标定。",
            en="NVIDIA's library of transformer-layer kernels: FP8 matmuls on H100 and fused neighbouring "
            "operations. The workbench's bf16 efficiency ceiling is fitted on Megatron-LM's Table 1, which ran without "
            "it; the share of the FP8 speed-up its matmuls keep is fitted on DGX Cloud runs that use it.",
        ),
    ),
    _e(
        Text(zh="节点限制路由", en="node-limited routing"),
        "",
        Text(
            zh="混合专家 (MoE) 路由的一种约束：每个 token 最多被发往 M 个节点上的专家，限制跨节点的全对全流量。",
            en="A constraint on mixture-of-experts routing: each token goes to experts on at most M nodes, which "
            "bounds the all-to-all traffic between nodes.",
        ),
    ),
    _e(
        Text(zh="性能分析时间线", en="profiler timeline"),
        "trace",
        Text(
            zh="性能分析器 (profiler) 记录的每个算子、每次通信的起止时间；按时间排开，才能看出重叠、等待和输入停顿。",
            en="The start and end of every operator and every communication call, as a profiler records them; laid "
            "out in time, it shows overlap, waiting and input stalls.",
        ),
    ),
)


def _term_key(text: str) -> str:
    """``text`` as :func:`lookup` compares it: NFKC (an input method's full-width ``ＤＰ`` is ``DP``), case-folded,
    without spaces, hyphens, underscores or zero-width characters (``all-reduce``, ``allreduce`` and ``All Reduce`` are
    one term; no two entries' names differ only in these)."""
    return _SEPARATORS.sub("", unicodedata.normalize("NFKC", text)).casefold()


_SEPARATORS = re.compile(r"[\s\-_\u200b-\u200d\u2060\ufeff]+")


def lookup(term: str) -> GlossaryEntry:
    """The entry whose Chinese name, English name or abbreviation is ``term``, read as a learner may type it: case,
    full-width letters, spaces, hyphens and underscores aside.

    >>> lookup("data parallelism").abbr
    'DP'
    >>> lookup("ＤＰ").abbr, lookup("allreduce").en, lookup("数据 并行").abbr
    ('DP', 'all-reduce', 'DP')
    >>> lookup("warp drive")
    Traceback (most recent call last):
    ...
    ValueError: term = 'warp drive': no glossary entry has this Chinese name, English name or abbreviation ...
    """
    if not isinstance(term, str):
        raise TypeError(tr("validate.type_choice", name="term", value=term, type=type(term).__name__))
    wanted = _term_key(term)
    if wanted:
        for entry in GLOSSARY:
            if wanted in {_term_key(entry.zh), _term_key(entry.en), _term_key(entry.abbr)} - {""}:
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
            "本页由课程代码里的术语表生成，所以与课程代码用的术语一致。",
            "en": "Bandwidth in this course is always unidirectional (one direction) per GPU. This page is generated "
            "from the glossary in the course code, so it uses the same terms as the code.",
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
        # the term in the page's language first, then in the other one
        names = [entry.name.render(lang)] + [entry.name.render(other) for other in LANGUAGES if other != lang]
        cells = (*names, entry.abbr, entry.definition.render(lang))
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


learner_functions(globals())
