"""Read a Hugging Face ``config.json`` (as a dict) into the fields of a model spec.

:meth:`coursekit.planner.ModelSpec.from_config` calls :func:`model_fields_from_config`; the command line's
``plan --model-config FILE.json`` calls :func:`load_model_config`. The keys are those the ``transformers``
configuration classes use (``LlamaConfig``, ``MixtralConfig``, ``DeepseekV3Config``, ``GPT2Config``,
``BloomConfig`` ...): the first key of each row below that the dict holds is read.

========================  ===================================================================
field                     config.json keys
========================  ===================================================================
layers                    num_hidden_layers, n_layer, num_layers
hidden                    hidden_size, n_embd, d_model
heads                     num_attention_heads, n_head
kv_heads                  num_key_value_heads, num_kv_heads, n_head_kv; multi_query_group_num with
                          multi_query_attention (ChatGLM); 1 with multi_query (Falcon); default: heads
head_dim                  head_dim (default: hidden / heads)
ffn_hidden                intermediate_size, n_inner, ffn_hidden_size, ffn_dim (OPT) (default 4·hidden: GPT-2,
                          BLOOM)
vocab                     vocab_size, padded_vocab_size (ChatGLM)
seq_len                   max_position_embeddings, n_positions, seq_length, model_max_length (Baichuan 2
                          13B); BLOOM and Falcon without one: 2048, their training length
experts                   n_routed_experts, num_local_experts, num_experts, moe_num_experts (ERNIE 4.5);
                          num_experts_per_tok, moe_k; a config read as dense that names experts under another
                          key is refused, naming it
expert width              moe_intermediate_size (default: intermediate_size)
shared experts            n_shared_experts, moe_num_shared_experts, or shared_expert_intermediate_size (a
                          multiple of the expert width: Qwen2-MoE); dense layers first: first_k_dense_replace,
                          mlp_only_layers = [0, ..., k - 1], or moe_layer_start_index (ERNIE 4.5)
MoE spacing               decoder_sparse_step, moe_layer_freq, interleave_moe_layer_step, moe_layer_interval,
                          expert_layer_period: must be 1, and moe_layer_end_index the last layer or -1 (a MoE
                          layer in every layer after the dense ones; other spacings are refused)
MLA                       kv_lora_rank, q_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim
mtp_layers                num_nextn_predict_layers (DeepSeek-V3's multi-token prediction modules)
dropout                   attention_dropout, hidden_dropout, resid_pdrop, attn_pdrop (the largest)
========================  ===================================================================

The MLP kind, the norm, the positions and the biases follow ``model_type`` (GPT-2, GPT-NeoX, BLOOM, OPT
and Falcon use a 2-matrix GELU MLP, LayerNorm and biases, Falcon's biases as its ``bias`` key says; the Llama
family, Mistral, Qwen, Gemma, DeepSeek and the others of :data:`GATED_TYPES` a gated 3-matrix MLP and RMSNorm
without biases but Qwen2's and Qwen2-MoE's on Q, K and V, :data:`QKV_BIAS_TYPES`, or as a ``qkv_bias`` key states),
and ``tie_word_embeddings`` (default: the model_type's transformers configuration class, False for
those of :data:`UNTIED_TYPES`, else ``PretrainedConfig``'s True). A ``model_type`` in neither list
(Phi-2, StarCoder2, Nemotron ...) is read from its own keys: a SiLU activation means a gated MLP, any other a
2-matrix one; ``norm_type`` or the norm's epsilon key (``rms_norm_eps`` / ``layer_norm_eps``) the norm;
``use_bias`` / ``bias`` / ``attention_bias`` the biases (default: biases with a 2-matrix MLP). A config naming no
activation is read as Llama-style, and the spec's ``source`` says so (in the learner's language, naming the key each
of the MLP, the norm and the biases was read from; ChatGLM's ``rmsnorm`` names its norm). The keys read there are
checked: the activation a name of transformers' table (:data:`HF_ACTIVATIONS`), ``norm_type`` a norm's name, the
norm's epsilon a positive number. An activation key is a name whatever the model type; where the type decides the MLP,
the activation changes no number computed here, and a config naming another activation than the MLP's usual one
(Gemma's GELU, a squared ReLU on a Llama) gets a note saying so; a norm's epsilon there is not read at all.
A multimodal config that keeps its language model under ``text_config`` (Llama 4, Gemma 3, Mistral 3, LLaVA) is read
from there, with the outer ``tie_word_embeddings`` when the text_config states none. A key a published config leaves
out takes the value of its transformers configuration class where that differs from the reading of an absent key
(:data:`TYPE_DEFAULTS`: Gemma 3's vocabulary, length, window pattern, heads and head width, Gemma's head width, the
untied output layers of Llama 4 and the others of :data:`UNTIED_TYPES`). Llama 4's ``moe_layers`` (the MoE layers'
indices, which transformers reads before ``interleave_moe_layer_step``) must be the last layers. Llama 4
(``model_type`` ``llama4_text``): ``intermediate_size`` is each expert's width, ``intermediate_size_mlp`` the dense
MLP's, and every MoE layer has one shared expert of the expert width (``Llama4TextMoe`` in ``transformers``).

Keys that change the cost but that the spec cannot express, or expresses only in part, are not dropped silently:
:func:`config_notes` names each one with its value and what the planner counts instead, in both languages, and the
spec's ``source`` carries them (in the language current when it is built). They are a partial rotary embedding
(``rotary_pct``, ``partial_rotary_factor``, ``rotary_dim``), attention and MLP in parallel
(``use_parallel_residual``, ``parallel_attn``, ``new_decoder_architecture``; GPT-J, CodeGen, Phi and Cohere by
``model_type``), attention limited to a window or chunk on some layers (``sliding_window`` with ``layer_types``,
``sliding_window_pattern``, ``max_window_layers`` or ``use_sliding_window``, read into the spec's ``window_tokens``
and ``window_layers``, whose note says what is counted and what is not; ``attention_chunk_size``, read only for the
model types of :data:`CHUNKED_ATTENTION_TYPES` and noted as not counted for any other), layers that are
not softmax attention (``layer_types``; Qwen3-Next's ``full_attention_interval``, Nemotron-H's
``hybrid_override_pattern`` and MiniMax's ``attn_type_list``), GPT-OSS's attention sinks and group-limited expert
routing (``n_group``, ``topk_group``). A key at its neutral value (``rotary_pct`` 1, ``sliding_window`` null,
``parallel_attn`` false ...) gets no note.

>>> fields = model_fields_from_config({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
...     "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
...     "max_position_embeddings": 8192, "hidden_act": "silu", "tie_word_embeddings": False})
>>> fields["kv_heads"], fields["mlp"], fields["norm"], fields["tied_embeddings"]
(8, 'swiglu', 'rmsnorm', False)

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import json
import math
import numbers
import os
import reprlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._validate import check_choice, check_instance, learner_functions
from .i18n import LANGUAGES, Text, register, shown_repr, shown_str, tr

__all__ = ["SourceText", "config_notes", "load_model_config", "localized_source", "model_fields_from_config"]

register(
    {
        "config.not_mapping": {
            "zh": "模型配置必须是 JSON 对象（键值对），而不是 {type}。",
            "en": "The model config must be a JSON object (keys and values), not {type}.",
        },
        "config.spec_refused": {
            "zh": "配置键 {key!r}（读作规格的 {field}）：{reason}",
            "en": "config key {key!r} (read as the spec's {field}): {reason}",
        },
        "config.spec_refused_derived": {
            "zh": "由这份配置得到的 {field} 不被接受：{reason}",
            "en": "the {field} this config gives is refused: {reason}",
        },
        "config.missing": {
            "zh": "模型配置缺少键 {key!r}（也接受：{alternatives}）。请把它补进 config.json（值见模型卡或原版模型的 "
            "config.json），或改用上面任一个同义键。",
            "en": "The model config has no key {key!r} (also accepted: {alternatives}). Add it to the config.json (the "
            "value is on the model card or in the original model's config.json), or use one of the other names.",
        },
        "config.note_quantized": {
            "zh": "quantization_config（quant_method={method}，{bits} 位）：这是量化后的权重，用于推理；训练规划按 "
            "16 位权重和完整的优化器状态计。要规划训练或微调，请用原版（未量化）模型的 config.json。",
            "en": "quantization_config (quant_method={method}, {bits} bits): these are quantized weights, for "
            "inference; the training plan counts 16-bit weights and the full optimizer states. To plan training or "
            "fine-tuning, use the original (unquantized) model's config.json.",
        },
        "config.note_quantized_method": {
            "zh": "quantization_config（quant_method={method}）：这是量化后的权重，用于推理；训练规划按 16 位权重和"
            "完整的优化器状态计。要规划训练或微调，请用原版（未量化）模型的 config.json。",
            "en": "quantization_config (quant_method={method}): these are quantized weights, for inference; the "
            "training plan counts 16-bit weights and the full optimizer states. To plan training or fine-tuning, use "
            "the original (unquantized) model's config.json.",
        },
        "config.alias_conflict": {
            "zh": "模型配置用两个键给出同一个量，值却不同：{key!r} = {value}，{other!r} = {other_value}（都读作 "
            "{field}）；不知道哪一个是想要的，请只保留一个。",
            "en": "The model config gives one quantity under two keys with different values: {key!r} = {value} and "
            "{other!r} = {other_value} (both read as {field}); it is unclear which one is meant, so keep one.",
        },
        "config.text_config_conflict": {
            "zh": "模型配置在顶层写 {key!r} = {value}，在 text_config 中却写 {other_value}；顶层有层数时读的是顶层，"
            "text_config 会被忽略，不知道语言模型是哪一个，请让两处一致或删掉一处。",
            "en": "The model config gives {key!r} = {value} at its top level but {other_value} in its text_config; "
            "with the layers at the top level the top level is read and the text_config ignored, so it is unclear "
            "which is the language model: make them agree or delete one.",
        },
        "config.text_config_type": {
            "zh": "模型配置的 'text_config' = {value}：必须是 JSON 对象（语言模型的键值对）。",
            "en": "The model config's 'text_config' = {value}: must be a JSON object (the language model's keys).",
        },
        "config.missing_in_text": {
            "zh": "{reason}（这份多模态配置的语言模型在 text_config 里读取；text_config 可能省略了与其 transformers "
            "配置类默认值相同的键，请从语言模型本身的 config.json（{origin}）把缺的键补进 text_config。）",
            "en": "{reason} (This multimodal config's language model is read from its text_config, which may leave out "
            "the keys equal to its transformers configuration class's defaults: copy the missing ones into "
            "text_config from the language model's own config.json, {origin}.)",
        },
        "config.text_origin_unknown": {"zh": "模型卡上写明的那个", "en": "the one its model card names"},
        "config.missing_one": {
            "zh": "模型配置缺少键 {key!r}。",
            "en": "The model config has no key {key!r}.",
        },
        "config.int": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是 >= {low} 的整数。",
            "en": "The model config's {key!r} = {value!r}: must be an integer >= {low}.",
        },
        "config.int_fraction": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是 >= {low} 的整数；有小数部分的数不是整数"
            "（32.0 这样的整数值可以，32.5 不行）。",
            "en": "The model config's {key!r} = {value!r}: must be an integer >= {low}; a number with a fractional "
            "part is not one (an integer value such as 32.0 is taken, 32.5 is not).",
        },
        "config.number": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是 0 到 1 之间的数（不含 1）。",
            "en": "The model config's {key!r} = {value!r}: must be a number from 0 to 1 (1 excluded).",
        },
        "config.bool": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是 true 或 false。",
            "en": "The model config's {key!r} = {value!r}: must be true or false.",
        },
        "config.layer_types": {
            "zh": "模型配置的 'layer_types' = {value}：必须是每层一项的列表（字符串，共 {layers} 项），"
            "与 num_hidden_layers 一致。",
            "en": "The model config's 'layer_types' = {value}: must be a list with one entry (a string) per layer, "
            "{layers} of them, as num_hidden_layers says.",
        },
        "config.str": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是字符串。",
            "en": "The model config's {key!r} = {value!r}: must be a string.",
        },
        "config.activation_type": {
            "zh": '模型配置的 {key!r} = {value!r}：必须是激活函数的名字（非空字符串，如 "silu"、"gelu_new"）。',
            "en": "The model config's {key!r} = {value!r}: must name an activation function (a non-empty string, such "
            'as "silu" or "gelu_new").',
        },
        "config.activation_name": {
            "zh": "模型配置的 {key!r} = {value!r}：不是 transformers 认得的激活函数（{names}）。这个 model_type 的 "
            "MLP 按激活函数判断：SiLU（silu、swish）是门控的 3 矩阵 MLP，其他是 2 矩阵 MLP，所以名字必须认得。",
            "en": "The model config's {key!r} = {value!r}: not an activation transformers knows ({names}). This "
            "model_type's MLP is read from its activation: SiLU (silu, swish) means a gated 3-matrix MLP, any other a "
            "2-matrix one, so the name must be a known one.",
        },
        "config.norm_type": {
            "zh": '模型配置的 {key!r} = {value!r}：必须是归一化的名字，含 "rms"（RMSNorm，如 "rmsnorm"）或 '
            '"layer"（LayerNorm，如 "layer_norm"）；这个 model_type 的归一化按它判断。',
            "en": 'The model config\'s {key!r} = {value!r}: must name the norm, with "rms" (RMSNorm, e.g. '
            '"rmsnorm") or "layer" (LayerNorm, e.g. "layer_norm") in it; this model_type\'s norm is read from it.',
        },
        "config.norm_eps": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是正数（归一化的 epsilon，如 1e-05）；这个 model_type 的归一化按"
            "这个键判断（{norm}）。",
            "en": "The model config's {key!r} = {value!r}: must be a positive number (the norm's epsilon, e.g. 1e-05); "
            "this model_type's norm is read from this key ({norm}).",
        },
        "config.note_activation": {
            "zh": "{key}={value}：model_type {model_type} 的 MLP 结构不随激活函数变（transformers 按 model_type 建它："
            "{mlp}），已按这个结构计；激活函数本身不改变这里算出的任何数（它的逐元素开销对任何激活函数都略去）。",
            "en": "{key}={value}: model_type {model_type}'s MLP does not change with its activation (transformers "
            "builds it by model_type: {mlp}), and is counted so; the activation function itself changes no number "
            "computed here (its elementwise cost is left out for any activation).",
        },
        "config.note_mlp_bias": {
            "zh": "attention_bias={attention}，mlp_bias={mlp}：这里的模型要么每个线性层都有偏置，要么都没有；按 "
            "attention_bias 计（{counted}），所以 MLP 的偏置（每层 2·f + h 个参数，f 为 MLP 宽度）{effect}。",
            "en": "attention_bias={attention}, mlp_bias={mlp}: a model here has biases on every linear layer or on "
            "none; counted as attention_bias says ({counted}), so the MLP's biases (2·f + h parameters a layer, f the "
            "MLP's width) {effect}.",
        },
        "config.bias_everywhere": {"zh": "每个线性层都有偏置", "en": "biases on every linear layer"},
        "config.bias_nowhere": {"zh": "没有偏置", "en": "no biases"},
        "config.bias_extra": {"zh": "被多计了（模型没有）", "en": "are counted though the model has none"},
        "config.bias_missing": {"zh": "没有计入", "en": "are left out"},
        "config.mlp_gated": {
            "zh": "门控 MLP，3 个 h × f 矩阵（gate、up、down）",
            "en": "a gated MLP, 3 matrices of h × f (gate, up, down)",
        },
        "config.mlp_plain": {"zh": "2 个 h × f 矩阵（up、down）", "en": "2 matrices of h × f (up, down)"},
        "config.file_not_object": {
            "zh": "模型配置文件 {path} 必须是一个 JSON 对象（用 {{ }} 括起的键值对，如 "
            '{{"hidden_size": 4096, ...}}），而它是{kind}：{value}。',
            "en": "The model config file {path} must be a JSON object (keys and values in {{ }}, such as "
            '{{"hidden_size": 4096, ...}}), but it holds {kind}: {value}.',
        },
        "config.kind_array": {"zh": "一个 JSON 数组", "en": "a JSON array"},
        "config.kind_string": {"zh": "一个 JSON 字符串", "en": "a JSON string"},
        "config.kind_boolean": {"zh": "一个 JSON 布尔值", "en": "a JSON boolean"},
        "config.kind_null": {"zh": "一个 JSON null 值", "en": "a JSON null"},
        "config.kind_number": {"zh": "一个 JSON 数", "en": "a JSON number"},
        "config.name_type": {
            "zh": "name = {value}：必须是字符串（规格的名字），而不是 {type}。",
            "en": "name = {value}: must be a string (the spec's label), not {type}.",
        },
        "config.name_blank": {
            "zh": "name = {value}：必须是非空、可打印的字符串（规格的名字；换行会把一行输出拆开）。",
            "en": "name = {value}: must be a non-empty string of printable characters (the spec's label; a line "
            "break would split one-line output).",
        },
        "config.path_type": {
            "zh": "path = {value}：必须是文件路径（str 或 pathlib.Path），而不是 {type}。",
            "en": "path = {value}: must be a file path (str or pathlib.Path), not {type}.",
        },
        "config.file_missing": {
            "zh": "找不到模型配置文件 {path}。",
            "en": "The model config file {path} does not exist.",
        },
        "config.file_unreadable": {
            "zh": "无法读取模型配置文件 {path}：{reason}",
            "en": "Cannot read the model config file {path}: {reason}",
        },
        "config.moe_end": {
            "zh": "模型配置的 {key!r} = {value!r}：这里只能表示“开头若干稠密层之后每层都是 MoE”，所以最后一个 MoE 层"
            "必须是最后一层（{last}）或写 -1。",
            "en": "The model config's {key!r} = {value!r}: the spec can only express a MoE layer in every layer after "
            "the first dense ones, so the last MoE layer must be the last layer ({last}) or -1.",
        },
        "config.or": {"zh": " 或 ", "en": " or "},
        "config.unread_experts": {
            "zh": "模型配置的 {key!r} = {value!r} 说的是专家，但这个键读取器不认：当作稠密模型读，"
            "混合专家模型会被算错。请把专家数写成 {keys}，每个 token 的专家数写成 num_experts_per_tok。",
            "en": "The model config's {key!r} = {value!r} names experts, but under a key the reader does not take: "
            "read as dense, a mixture of experts would be misstated. State the experts as {keys}, and the experts "
            "per token as num_experts_per_tok.",
        },
        "config.top_k_without_experts": {
            "zh": "模型配置的 {key!r} = {value!r} 把每个 token 路由给 {value} 个专家，但配置里没有专家（{stated}）："
            "当作稠密模型读会算错。请把专家数写成 {keys}；稠密模型请去掉 {key!r}。",
            "en": "The model config's {key!r} = {value!r} routes each token to {value:@expert}, but the config "
            "states no experts ({stated}): read as dense, the model would be misstated. State the experts as {keys}; "
            "for a dense model, remove {key!r}.",
        },
        "config.absent": {"zh": "没有专家数的键", "en": "no expert-count key"},
        "config.moe_spacing": {
            "zh": "模型配置的 {key!r} = {value!r}：这里只能表示“开头若干稠密层之后每层都是 MoE”，"
            "每隔几层才有一个 MoE 层的模型无法表示（需要 1）。",
            "en": "The model config's {key!r} = {value!r}: the spec can only express a MoE layer in every layer "
            "after the first dense ones; MoE layers spaced apart cannot be expressed (needs 1).",
        },
        "config.moe_layers": {
            "zh": "模型配置的 {key!r} = {value}：这里只能表示“开头若干稠密层之后每层都是 MoE”，所以列出的 MoE 层"
            "必须是最后连续的几层 [k, k + 1, ..., {last}]（transformers 先读这个列表，"
            "再读 interleave_moe_layer_step）。",
            "en": "The model config's {key!r} = {value}: the spec can only express a MoE layer in every layer after "
            "the first dense ones, so the MoE layers listed must be the last ones, [k, k + 1, ..., {last}] "
            "(transformers reads this list before interleave_moe_layer_step).",
        },
        "config.dense_layers": {
            "zh": "模型配置的 {key!r} = {value!r}：稠密层必须是开头连续的几层 [0, 1, ..., k - 1]。",
            "en": "The model config's {key!r} = {value!r}: the dense layers must be the first ones, "
            "[0, 1, ..., k - 1].",
        },
        "config.shared_width": {
            "zh": "模型配置的 {key!r} = {value!r}：必须是专家宽度 {width} 的整数倍（共享专家按个数表示）。",
            "en": "The model config's {key!r} = {value!r}: must be a whole multiple of the expert width {width} "
            "(shared experts are counted in experts).",
        },
        "config.not_utf8": {
            "zh": "模型配置文件 {path} 不是 UTF-8 文本：第 {position} 个字节（从 0 数起）无法解码。",
            "en": "The model config file {path} is not UTF-8 text: byte {position} (counted from 0) cannot be decoded.",
        },
        "config.too_large": {
            "zh": "模型配置文件 {path} 超过 {limit} 字节的上限：config.json 只有几 KB，这多半是权重文件。",
            "en": "The model config file {path} is over the limit of {limit:@byte}: a config.json is a few KB; this "
            "is likely a weights file.",
        },
        "config.too_deep": {
            "zh": "模型配置文件 {path} 不是可用的 JSON：嵌套太深（config.json 只有几层）。",
            "en": "The model config file {path} is not usable JSON: nested too deeply (a config.json has a few "
            "levels).",
        },
        "config.duplicate_key": {
            "zh": "模型配置文件 {path} 把键 '{key}' 写了两次，值不同（{first}，然后 {second}）；不知道哪一个是想要的，"
            "请删掉其中一个。",
            "en": "The model config file {path} gives the key '{key}' twice with different values ({first}, then "
            "{second}); it is unclear which one is meant, so delete one of them.",
        },
        "config.not_json": {
            "zh": "模型配置文件 {path} 不是合法的 JSON：第 {line} 行第 {column} 列，{reason}。",
            "en": "The model config file {path} is not valid JSON: line {line}, column {column}, {reason}.",
        },
        "config.too_many_digits": {
            "zh": "模型配置文件 {path} 不是可用的 JSON：有一个整数超过 {limit} 位（config.json 中的数最多十几位）。",
            "en": "The model config file {path} is not usable JSON: an integer has more than {limit:@digit} (the "
            "numbers of a config.json have at most a dozen or so).",
        },
        # The JSON decoder's reasons (json.decoder, the C scanner _json), in the learner's language.
        "config.json_value": {"zh": "这里应当是一个值", "en": "a value was expected here"},
        "config.json_name": {
            "zh": "这里应当是用双引号括起的键名",
            "en": "a key enclosed in double quotes was expected here",
        },
        "config.json_colon": {"zh": "这里应当是冒号 ':'", "en": "a ':' was expected here"},
        "config.json_comma": {"zh": "这里应当是逗号 ','", "en": "a ',' was expected here"},
        "config.json_string": {"zh": "字符串从这里开始却没有结束", "en": "a string starts here and never ends"},
        "config.json_control": {
            "zh": "字符串中有控制字符（如未转义的换行）",
            "en": "a control character (such as an unescaped line break) in a string",
        },
        "config.json_escape": {"zh": "无效的反斜杠转义", "en": "an invalid backslash escape"},
        "config.json_trailing": {"zh": "结尾多了一个逗号", "en": "a trailing comma before the end"},
        "config.json_extra": {
            "zh": "JSON 值结束后还有多余的内容",
            "en": "more text after the end of the JSON value",
        },
        "config.json_other": {"zh": "语法错误", "en": "a syntax error"},
        "config.json_comment": {
            "zh": "这里是注释（// 或 /* */ 或 #）；JSON 不允许注释，请删掉它",
            "en": "a comment starts here (// or /* */ or #); JSON has no comments, so delete it",
        },
        "config.json_python_literal": {
            "zh": "这里是 Python 的 {word}；JSON 写作小写的 {json}",
            "en": "Python's {word} is here; JSON writes it {json}, in lower case",
        },
        # What config_notes says of a key the spec does not model: the key, its value, what is counted instead.
        "config.note_rotary": {
            "zh": "{key}={value}：旋转位置编码 (RoPE) 只作用于每个注意力头 {share} 的维度；"
            "未建模：规划器不计旋转位置编码的开销（逐元素运算，略去），无论它作用于多少维度，所以估算与完整的旋转位置编码相同。",
            "en": "{key}={value}: the rotary position embedding turns {share} of each attention head's dimensions; "
            "not modelled: the planner counts no cost for the rotary embedding whatever its share (an elementwise "
            "step, left out), so the estimate is that of a full rotary embedding.",
        },
        "config.note_parallel_block": {
            "zh": "{key}={value}：注意力与 MLP 读同一个输入、并行计算；未建模：每层按先注意力、后 MLP 的顺序块计，"
            "前向与反向各有两次张量并行 (TP) 集合通信，并保存每个块的输入，所以 TP > 1 时 TP 通信可能被高估"
            "（把两个输出相加后只做一次全归约 (all-reduce) 的引擎只发一半），激活显存也略被高估；FLOP 数不变。",
            "en": "{key}={value}: attention and the MLP read the same input and run in parallel; not modelled: each "
            "layer is counted as the sequential block, attention then MLP, with two tensor-parallel (TP) "
            "collectives forward and two backward and each block's input saved, so with TP > 1 the TP "
            "communication may be overestimated (an engine that adds the two outputs before one all-reduce sends "
            "half) and the activation memory slightly; the FLOPs are the same.",
        },
        "config.note_window": {
            "zh": "{key}={value}，作用于 {layers} 层中的 {count} 层（{which}）：这些层的注意力只看最近 {value} 个 "
            "token。已计入：这些层的注意力 FLOP 只算窗口内的查询-键对；推理时这些层的 KV 缓存每个请求最多存 {value} "
            "个 token（按会释放窗口外 token 的推理引擎计，如 vLLM 的混合 KV 缓存管理器）。未建模：注意力内核在短窗口上"
            "的速度（按整段序列上的速度计）、上下文并行 (CP) 的环（按全注意力传递每层的 K/V），以及不用融合注意力内核"
            "时的注意力分数显存（按整个序列计）。",
            "en": "{key}={value} on {count} of {layers:@layer} ({which}): their attention sees only the last "
            "{value:@token}. Counted: those layers' attention FLOPs cover only the query-key pairs inside the window; "
            "in serving their KV cache holds at most {value:@token} per request (an engine that frees what leaves "
            "the window, as vLLM's hybrid KV cache manager does). Not modelled: the attention kernel's speed on a "
            "short window (taken as on a whole sequence), context parallelism's (CP) ring (it passes every layer's "
            "K/V as for full attention), and without flash attention the score memory (counted over the whole "
            "sequence).",
        },
        "config.note_chunked": {
            "zh": "{key}={value}，作用于 {layers} 层中的 {count} 层（{which}）：序列从头切成每块 {value} 个 token，"
            "这些层的查询只看本块内在它之前的 token。已计入：这些层的注意力 FLOP 只算块内的查询-键对；推理时这些层"
            "每个请求的 KV 缓存最多存 {value} 个 token（按会释放前面各块的推理引擎计，如 vLLM），解码时读的键按输出 "
            "token 的平均计。未建模：注意力内核在短块上的速度（按整段序列上的速度计）、上下文并行 (CP) 的环（按全注意力"
            "传递每层的 K/V），以及不用融合注意力内核时的注意力分数显存（按整个序列计）。",
            "en": "{key}={value} on {count} of {layers:@layer} ({which}): the sequence is cut into chunks of "
            "{value:@token} from its start, and on those layers a query sees only the earlier tokens of its own chunk. "
            "Counted: those layers' attention FLOPs cover only the query-key pairs inside a chunk; in serving their "
            "KV cache holds at most {value:@token} per request (an engine that frees the earlier chunks, as vLLM "
            "does), and a decoding query's keys are averaged over the output tokens. Not modelled: the attention "
            "kernel's speed on a short chunk (taken as on a whole sequence), context parallelism's (CP) ring (it "
            "passes every layer's K/V as for full attention), and without flash attention the score memory "
            "(counted over the whole sequence).",
        },
        # attention_chunk_size in a config whose model type does not read it (CHUNKED_ATTENTION_TYPES)
        "config.note_chunks_other_type": {
            "zh": "{key}={value}：未计入。model_type={model_type} 不读这个键：transformers 中只有 Llama 4 的文本配置 "
            "(model_type llama4_text) 有分块注意力，所以估算不把注意力切成块。",
            "en": "{key}={value}: not counted. model_type={model_type} does not read this key: in transformers only "
            "Llama 4's text config (model_type llama4_text) has chunked attention, so the estimate does not cut "
            "attention into chunks.",
        },
        # a config with both a window and chunks: the spec keeps the window (ModelSpec takes one of them)
        "config.note_chunks_beside_window": {
            "zh": "{key}={value}：未计入。这份配置同时给了滑动窗口 (sliding_window={window})，而这里的模型只能有其中"
            "一种，估算按滑动窗口计，分块注意力的块不计。",
            "en": "{key}={value}: not counted. The config also sets a sliding window (sliding_window={window}), and a "
            "model here has one or the other: the estimate counts the window, not the chunks.",
        },
        "config.no_rope_layers": {
            "zh": "模型配置的 'no_rope_layers' = {value}：必须是由 0 和 1 组成的列表，每层至少一项（共 {layers} 层），"
            "1 表示该层用旋转位置编码、做分块注意力。",
            "en": "The model config's 'no_rope_layers' = {value}: must be a list of 0s and 1s with at least one entry "
            "per layer ({layers:@layer}), 1 marking a layer with rotary positions and chunked attention.",
        },
        "config.note_layer_kind": {
            "zh": "layer_types：{layers} 层中有 {count} 层是 {kind!r}；未建模：每层都按对整个序列的 softmax 注意力计"
            "（参数、FLOP、激活与 KV 缓存），所以这些层的开销与实际不符。",
            "en": "layer_types: {count} of {layers:@layer} are {kind!r}; not modelled: every layer is counted as "
            "softmax attention over the full sequence (parameters, FLOPs, activations and KV cache), so these "
            "layers' cost is misstated.",
        },
        "config.note_layer_interval": {
            "zh": "full_attention_interval={value}：{layers} 层中每 {value} 层只有一层是全注意力，其余 {count} 层是线性"
            "注意力 (linear attention)；未建模：每层都按对整个序列的 softmax 注意力计（参数、FLOP、激活与 KV 缓存），"
            "所以这些层的开销与实际不符。",
            "en": "full_attention_interval={value}: one layer in every {value} of the {layers:@layer} is full "
            "attention, the other {count} are linear attention; not modelled: every layer is counted as softmax "
            "attention over the full sequence (parameters, FLOPs, activations and KV cache), so these layers' cost "
            "is misstated.",
        },
        "config.note_hybrid_pattern": {
            "zh": "hybrid_override_pattern：{total} 个块中 {mamba} 个是 Mamba（M）、{mlp} 个只有 MLP（-）、"
            "{attention} 个是注意力（*）、{moe} 个是 MoE（E）；未建模：num_hidden_layers 的每一层都按一个完整的"
            " Transformer 层（注意力加 MLP）计，所以开销与实际不符。",
            "en": "hybrid_override_pattern: of {total} blocks, {mamba} are Mamba (M), {mlp} MLP only (-), {attention} "
            "attention (*) and {moe} MoE (E); not modelled: each of num_hidden_layers is counted as a whole "
            "transformer layer (attention and MLP), so the cost is misstated.",
        },
        "config.note_attn_type_list": {
            "zh": "attn_type_list：{layers} 层中有 {count} 层是线性注意力（0），其余是 softmax 注意力（1）；未建模："
            "每层都按对整个序列的 softmax 注意力计（参数、FLOP、激活与 KV 缓存），所以这些层的开销与实际不符。",
            "en": "attn_type_list: {count} of {layers:@layer} are linear attention (0), the rest softmax attention "
            "(1); not modelled: every layer is counted as softmax attention over the full sequence (parameters, "
            "FLOPs, activations and KV cache), so these layers' cost is misstated.",
        },
        "config.note_mamba_layers": {
            "zh": "{key}：{layers} 层中有 {mamba} 层是 Mamba 层（状态空间模型 (state-space model)），注意力只在 "
            "{attention} 层里；未建模：每层都按一个完整的 Transformer 层（注意力加 MLP）计，所以开销与实际不符。",
            "en": "{key}: {mamba} of {layers:@layer} are Mamba (state-space model) layers, and attention runs in "
            "{attention:@layer}; not modelled: each layer is counted as a whole transformer layer (attention and MLP), "
            "so the cost is misstated.",
        },
        "config.note_mamba_keys": {
            "zh": "{key}：配置里有 Mamba（状态空间模型 (state-space model)）的设置，但没有读取器认得的、说明哪些层是 "
            "Mamba 层的键；未建模：每层都按一个完整的 Transformer 层（注意力加 MLP）计，所以开销可能与实际不符。",
            "en": "{key}: the config has Mamba (state-space model) settings, but no key the reader takes says which "
            "layers are Mamba layers; not modelled: each layer is counted as a whole transformer layer (attention "
            "and MLP), so the cost may be misstated.",
        },
        "config.note_sinks": {
            "zh": "model_type={value}：注意力汇 (attention sink)（每层每个注意力头一个学习到的 logit，加进 softmax）；"
            "未建模：略去它们的 {count} 个参数和 softmax 多出的一项。注意：拿 GPT OSS 120B 公开的 BF16 实测来核对，实测"
            "步长明显长于估算，超出估算声明的不确定度，原因尚未查明；这类模型的步长估算请看作偏乐观。",
            "en": "model_type={value}: attention sinks (one learned logit per attention head in every layer, added to "
            "the softmax); not modelled: their {count:@parameter} and the extra softmax term are left out. Note: "
            "checked against GPT OSS 120B's published BF16 measurements, the measured steps are much longer than "
            "estimated, beyond the estimate's stated uncertainty, for a cause not yet identified; read this model's "
            "step estimate as optimistic.",
        },
        "config.note_group_routing": {
            "zh": "topk_group={value}（n_group={groups}）：每个 token 的专家最多来自 {groups} 个专家组中的 {value} 个"
            "（分组限制路由）；未建模：除非负载设定了 ep_node_limit（--ep-node-limit），token 可路由到任何专家，"
            "所以专家并行 (EP) 的跨节点流量可能被高估。",
            "en": "topk_group={value} of n_group={groups}: each token's experts come from at most {value} of "
            "{groups:@expert group} (group-limited routing); not modelled: tokens are routed to any expert unless "
            "the workload sets ep_node_limit (--ep-node-limit), so expert parallelism's (EP) inter-node traffic "
            "may be overestimated.",
        },
    }
)

#: Keys that space MoE layers apart (Qwen2/3-MoE, DeepSeek, Llama 4): the spec needs them at 1.
MOE_SPACING_KEYS: tuple[str, ...] = (
    "decoder_sparse_step",
    "moe_layer_freq",
    "interleave_moe_layer_step",
    "moe_layer_interval",  # ERNIE 4.5
    "expert_layer_period",  # Jamba
)
#: model_type values whose models use a 2-matrix GELU MLP, LayerNorm and biases (their transformers configs).
GPT_STYLE_TYPES: frozenset[str] = frozenset({"gpt2", "gpt_neox", "bloom", "opt", "falcon", "gpt_bigcode", "gptj"})
#: model_type values whose models use a gated 3-matrix MLP (SwiGLU, or Gemma's GeGLU), RMSNorm and no biases but
#: what ``attention_bias`` / ``mlp_bias`` state (their transformers configs and modeling files).
GATED_TYPES: frozenset[str] = frozenset(
    {
        "llama", "llama4_text", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "deepseek",
        "deepseek_v2", "deepseek_v3", "gemma", "gemma2", "gemma3_text", "olmo", "olmo2", "olmoe", "phi3",
        "internlm2", "granite", "granitemoe", "minicpm", "exaone", "yi", "baichuan", "glm", "glm4",
    }
)  # fmt: skip
#: model_type values whose attention has biases on Q, K and V and none on its output projection (transformers'
#: Qwen2 and Qwen2-MoE modeling files build q_proj, k_proj and v_proj with bias=True, o_proj with bias=False),
#: whatever ``attention_bias`` says; a ``qkv_bias`` key, where a config states one, decides instead.
QKV_BIAS_TYPES: frozenset[str] = frozenset({"qwen2", "qwen2_moe"})
#: Activations (``hidden_act``, ``activation_function``, ``hidden_activation``) that HF models of other types use
#: only in a gated MLP: SiLU (Swish). A GELU or ReLU activation of such a model is read as a 2-matrix MLP.
GATED_ACTIVATIONS: frozenset[str] = frozenset({"silu", "swish", "swiglu"})
_ACTIVATION_KEYS: tuple[str, ...] = ("hidden_act", "activation_function", "hidden_activation")
#: model_type values with learned absolute position embeddings (a seq_len × hidden table).
LEARNED_POSITION_TYPES: frozenset[str] = frozenset({"gpt2", "opt", "gpt_bigcode"})

_ALIASES: dict[str, tuple[str, ...]] = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head"),
    "vocab": ("vocab_size", "padded_vocab_size"),
    "seq_len": ("max_position_embeddings", "n_positions", "seq_length", "model_max_length"),
    "ffn_hidden": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"),
    "experts": ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"),
}
#: The other MoE keys read under a second name: ERNIE 4.5's (Ernie4_5_MoeConfig in transformers) top-k, shared
#: experts and first MoE layer.
_TOP_K_KEYS: tuple[str, ...] = ("num_experts_per_tok", "moe_k")
_SHARED_KEYS: tuple[str, ...] = ("n_shared_experts", "moe_num_shared_experts")
_DROPOUT_KEYS: tuple[str, ...] = (
    "attention_dropout",
    "hidden_dropout",
    "resid_pdrop",
    "attn_pdrop",
    "dropout",  # OPT
    "hidden_dropout_prob",  # BERT-style configs
    "attention_probs_dropout_prob",
)


#: The config keys each :class:`~coursekit.specs.ModelSpec` field is read from, beyond :data:`_ALIASES` (first present
#: wins): what :func:`spec_error` names when the spec refuses a value.
_FIELD_KEYS: dict[str, tuple[str, ...]] = {
    **{field: keys for field, keys in _ALIASES.items() if field != "experts"},
    "num_experts": _ALIASES["experts"],
    "kv_heads": ("num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num"),
    "head_dim": ("head_dim",),
    "top_k": _TOP_K_KEYS,
    "moe_ffn_hidden": ("moe_intermediate_size",),
    "shared_experts": (*_SHARED_KEYS, "shared_expert_intermediate_size"),
    "first_k_dense": ("first_k_dense_replace", "mlp_only_layers", "moe_layer_start_index"),
    "mtp_layers": ("num_nextn_predict_layers",),
    "kv_lora_rank": ("kv_lora_rank",),
    "q_lora_rank": ("q_lora_rank",),
    "qk_rope_head_dim": ("qk_rope_head_dim",),
    "qk_nope_head_dim": ("qk_nope_head_dim",),
    "v_head_dim": ("v_head_dim",),
}


def spec_error(config: Mapping[str, Any], exc: Exception) -> Exception:
    """The error a spec built from ``config`` raised (``exc``: ``"field = value: rule"``), restated to name the config
    key the field was read from, in the learner's language; of the same type (``TypeError`` or ``ValueError``).

    >>> spec_error({"hidden_size": 10**15}, ValueError("hidden = 1000000000000000: must be <= 1048576."))
    ValueError("config key 'hidden_size' (read as the spec's hidden): hidden = 1000000000000000: must be <= 1048576.")
    """
    if not isinstance(config, Mapping):
        raise TypeError(tr("config.not_mapping", type=type(config).__name__))
    check_instance("exc", exc, Exception)
    reason = str(exc)
    field = reason.split(" = ", 1)[0] if " = " in reason else ""
    config = _language_model(config)
    key = next((k for k in _FIELD_KEYS.get(field, ()) if config.get(k) is not None), None)
    if key is not None:
        return type(exc)(tr("config.spec_refused", key=key, field=field, reason=reason))
    if field.isidentifier():
        return type(exc)(tr("config.spec_refused_derived", field=field, reason=reason))
    return exc


#: Fields whose alias keys (:data:`_ALIASES`) name one quantity, so two of them with different values contradict each
#: other (the length keys name different limits, and a padded vocabulary beside the vocabulary is a different size).
_ONE_QUANTITY_FIELDS: tuple[str, ...] = ("layers", "hidden", "heads", "ffn_hidden", "experts")


def _check_aliases(config: Mapping[str, Any]) -> None:
    """A ``ValueError`` naming both keys when two alias keys of one quantity (:data:`_ONE_QUANTITY_FIELDS`) give
    different values: the reader would take the first silently (``num_hidden_layers`` 32 beside ``n_layer`` 12)."""
    for field in _ONE_QUANTITY_FIELDS:
        given = [(key, config[key]) for key in _ALIASES[field] if config.get(key) is not None]
        for other, other_value in given[1:]:
            key, value = given[0]
            if _shown_value(other_value) != _shown_value(value) and not (_same_number(value, other_value)):
                raise ValueError(
                    tr(
                        "config.alias_conflict",
                        key=key,
                        value=shown_str(_shown_value(value)),
                        other=other,
                        other_value=shown_str(_shown_value(other_value)),
                        field=field,
                    )
                )


def _same_number(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same number (32 and 32.0; a bool is no number here)."""
    numbers_only = all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in (a, b))
    return numbers_only and bool(a == b)


def _find(config: Mapping[str, Any], field: str) -> tuple[str, Any] | None:
    for key in _ALIASES[field]:
        if config.get(key) is not None:
            return key, config[key]
    return None


def _whole(value: Any) -> int | None:
    """``value`` as a Python int when it is an integer, or a finite real number with no fractional part (32.0, as
    some exported configs write integer keys); else None (a bool, 32.5, NaN, a string ...).

    >>> _whole(32), _whole(32.0), _whole(32.5), _whole(True), _whole(float("inf"))
    (32, 32, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)  # a numpy integer as a Python int, whose arithmetic does not wrap
    number = float(value)
    return int(number) if number.is_integer() else None  # is_integer: False for NaN and the infinities


def _int(key: str, value: Any, low: int = 1) -> int:
    whole = _whole(value)
    if whole is None and _share(value) is not None and math.isfinite(float(value)):
        raise ValueError(tr("config.int_fraction", key=key, value=value, low=low))  # 32.5: a fraction
    if whole is None or whole < low:
        raise ValueError(tr("config.int", key=key, value=value, low=low))
    return whole


class _MissingKey(ValueError):
    """A required key the config does not state (:func:`_required`)."""


def _required(config: Mapping[str, Any], field: str) -> int:
    found = _find(config, field)
    if found is None:
        key, *others = _ALIASES[field]
        if not others:
            raise _MissingKey(tr("config.missing_one", key=key))
        raise _MissingKey(tr("config.missing", key=key, alternatives=", ".join(others)))
    return _int(*found)


def _optional(config: Mapping[str, Any], key: str, default: int | None, low: int = 1) -> int | None:
    value = config.get(key)
    return default if value is None else _int(key, value, low)


def _kv_heads(config: Mapping[str, Any]) -> int | None:
    """Key/value heads: ``num_key_value_heads`` (Llama and most), Falcon's ``num_kv_heads`` or ``n_head_kv``,
    ChatGLM's ``multi_query_group_num`` when its ``multi_query_attention`` is true (ChatGLM2/3, GLM-4: 2), or one
    head for Falcon's ``multi_query`` models; ``None`` (as many as the query heads) when the config names none."""
    for key in ("num_key_value_heads", "num_kv_heads", "n_head_kv"):
        if config.get(key) is not None:
            return _int(key, config[key])
    if _bool(config, "multi_query_attention", False) and config.get("multi_query_group_num") is not None:
        return _int("multi_query_group_num", config["multi_query_group_num"])
    return 1 if _bool(config, "multi_query", False) else None


def _bool(config: Mapping[str, Any], key: str, default: bool) -> bool:
    value = config.get(key)
    if value is None:  # absent or JSON null, as for the integer keys
        return default
    if not isinstance(value, bool):
        raise ValueError(tr("config.bool", key=key, value=value))
    return value


def _dropout(config: Mapping[str, Any]) -> float:
    rates = [0.0]
    for key in _DROPOUT_KEYS:
        value = config.get(key)
        if value is None:
            continue
        rate = _share(value)  # None for a non-number; an integer beyond the float range, infinite
        if rate is None or not 0 <= rate < 1:  # a probability below 1, as ModelSpec.dropout takes it
            raise ValueError(tr("config.number", key=key, value=value))
        rates.append(rate)
    return max(rates)


#: transformers' activation names (``ACT2CLS`` in ``transformers/activations.py``), what ``hidden_act`` and its kin
#: may name: a config naming another does not load in transformers.
HF_ACTIVATIONS: frozenset[str] = frozenset(
    {
        "gelu", "gelu_10", "gelu_fast", "gelu_new", "gelu_python", "gelu_pytorch_tanh", "gelu_python_tanh",
        "gelu_accurate", "hardswish", "laplace", "leaky_relu", "linear", "mish", "quick_gelu", "relu", "relu2",
        "relu6", "sigmoid", "silu", "sqrtsoftplus", "swish", "tanh", "prelu", "xielu",
    }
)  # fmt: skip
#: The keys of a norm's epsilon that name the norm of a model_type read from its own keys (the first one present).
_NORM_EPS_KEYS: dict[str, str] = {
    "rms_norm_eps": "rmsnorm",
    "layer_norm_eps": "layernorm",
    "layer_norm_epsilon": "layernorm",
}


def _activation(config: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, activation name) of the first activation key the config states, or None; a value that is not a
    non-blank string is refused by name, whatever the model type (transformers looks the name up in ``ACT2FN``)."""
    key = next((k for k in _ACTIVATION_KEYS if config.get(k) is not None), None)
    if key is None:
        return None
    value = config[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(tr("config.activation_type", key=key, value=value))
    return key, value


def _qkv_biases(config: Mapping[str, Any], model_type: str, biases: bool) -> bool:
    """Whether Q, K and V alone carry biases: a ``qkv_bias`` key when the config states one (true or false), else
    the model type (:data:`QKV_BIAS_TYPES`); False when every linear layer has biases already (``biases``).

    >>> _qkv_biases({}, "qwen2", False), _qkv_biases({}, "llama", False), _qkv_biases({"qkv_bias": True}, "x", False)
    (True, False, True)
    """
    stated = _bool(config, "qkv_bias", model_type in QKV_BIAS_TYPES)
    return stated and not biases


def _architecture(config: Mapping[str, Any], model_type: str) -> tuple[bool, str, bool, Text | None]:
    """(gated MLP, norm, biases, how they were decided: None for the model_type) of a config.

    A known ``model_type`` decides (:data:`GPT_STYLE_TYPES`, :data:`GATED_TYPES`): its activation key then changes no
    number computed here and is not read as deciding anything (:func:`config_notes` says so where it names another
    activation than the MLP's usual one). Any other type is read from its own keys, each checked: the activation (a
    name of :data:`HF_ACTIVATIONS`; SiLU only in a gated MLP), ``norm_type`` (naming RMSNorm or LayerNorm) or the
    norm's epsilon key (``rms_norm_eps``, ``layer_norm_eps`` / ``layer_norm_epsilon``: a positive number), and
    ``use_bias`` / ``bias`` / ``attention_bias`` for the biases; a config that names no activation keeps the gated
    default and says so.
    """
    found = _activation(config)
    if model_type in GPT_STYLE_TYPES:
        biases = _bool(config, "bias", True) if model_type == "falcon" else True
        return False, "layernorm", biases, None
    if model_type in GATED_TYPES:
        return True, "rmsnorm", _bool(config, "attention_bias", False), None
    if found is not None and found[1].strip().lower() not in HF_ACTIVATIONS | GATED_ACTIVATIONS:
        names = ", ".join(sorted(HF_ACTIVATIONS))
        raise ValueError(tr("config.activation_name", key=found[0], value=found[1], names=names))
    gated = found is None or found[1].strip().lower() in GATED_ACTIVATIONS
    norm, norm_how = _norm(config, gated)
    bias_key = next((k for k in ("use_bias", "bias", "attention_bias") if config.get(k) is not None), None)
    biases = _bool(config, bias_key, False) if bias_key is not None else not gated
    mlp_how = (
        Text(zh=f"MLP 按 {found[0]}={found[1]}", en=f"MLP from {found[0]}={found[1]}")
        if found is not None
        else Text(zh="假定为 Llama 式：没有激活函数键", en="assumed Llama-style: no activation key")
    )
    bias_how = (
        Text(zh=f"偏置按 {bias_key}", en=f"biases from {bias_key}")
        if bias_key is not None
        else Text(zh="偏置随 MLP", en="biases as the MLP implies")
    )
    how = Text(
        zh=f"{mlp_how.render('zh')}，{norm_how.render('zh')}，{bias_how.render('zh')}",
        en=f"{mlp_how.render('en')}; {norm_how.render('en')}; {bias_how.render('en')}",
    )
    return gated, norm, biases, how


def _norm(config: Mapping[str, Any], gated: bool) -> tuple[str, Text]:
    """(norm, how it was decided) of a config read from its own keys: ``norm_type`` (a name with "rms" is RMSNorm,
    one with "layer" LayerNorm, any other refused), else ChatGLM's ``rmsnorm`` (true or false), else the first
    epsilon key of :data:`_NORM_EPS_KEYS` (its value a positive finite number, else refused), else the MLP's
    (RMSNorm with a gated MLP, LayerNorm with a 2-matrix one)."""
    norm_type = config.get("norm_type")
    if norm_type is not None:
        name = norm_type.strip().lower() if isinstance(norm_type, str) else ""
        norm = "rmsnorm" if "rms" in name else "layernorm" if "layer" in name else None
        if norm is None:
            raise ValueError(tr("config.norm_type", key="norm_type", value=norm_type))
        return norm, Text(zh="归一化按 norm_type", en="norm from norm_type")
    if config.get("rmsnorm") is not None:  # ChatGLM: true RMSNorm, false LayerNorm
        norm = "rmsnorm" if _bool(config, "rmsnorm", True) else "layernorm"
        return norm, Text(zh="归一化按 rmsnorm", en="norm from rmsnorm")
    for key, norm in _NORM_EPS_KEYS.items():
        value = config.get(key)
        if value is None:
            continue
        eps = _share(value)
        if eps is None or not 0 < eps < math.inf:
            raise ValueError(tr("config.norm_eps", key=key, value=value, norm=norm))
        return norm, Text(zh=f"归一化按 {key}", en=f"norm from {key}")
    return ("rmsnorm" if gated else "layernorm"), Text(zh="归一化随 MLP", en="norm as the MLP implies")


#: model_type values whose blocks run attention and the MLP in parallel with no key saying so (their transformers
#: modeling files: GPTJBlock, CodeGenBlock, PhiDecoderLayer, CohereDecoderLayer).
PARALLEL_BLOCK_TYPES: frozenset[str] = frozenset({"gptj", "codegen", "phi", "cohere"})
#: model_type values whose layers alternate sliding-window and full attention when the config lists no
#: ``layer_types`` (transformers' Gemma2Config and GptOssConfig: sliding on layers 0, 2, 4, ...).
ALTERNATING_WINDOW_TYPES: frozenset[str] = frozenset({"gemma2", "gpt_oss"})
#: model_type values whose ``sliding_window`` is off unless ``use_sliding_window`` is true (Qwen2Config and kin).
OPT_IN_WINDOW_TYPES: frozenset[str] = frozenset({"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"})
#: model_type values whose ``attention_chunk_size`` turns chunked attention on: transformers' Llama4TextConfig is the
#: configuration class that has the key (its ``no_rope_layers`` marks the chunked layers, and masking_utils builds
#: the chunked mask from it); no other model type reads it, so elsewhere it changes nothing and is noted as such.
CHUNKED_ATTENTION_TYPES: frozenset[str] = frozenset({"llama4_text"})
#: ``layer_types`` entries that are softmax attention the spec counts (a window or a chunk has its own note).
#: ("attention": GraniteMoeHybridConfig's name beside "mamba".)
_ATTENTION_LAYER_TYPES: frozenset[str] = frozenset(
    {"full_attention", "sliding_attention", "chunked_attention", "attention"}
)


#: What transformers' configuration classes take for a key that a published config.json leaves out, where the
#: default differs from the reading of an absent key (the ``PretrainedConfig`` defaults, e.g. tied embeddings).
#: Gemma3TextConfig: vocab_size=262_208, max_position_embeddings=131_072, sliding_window_pattern=6,
#: num_attention_heads=8, num_key_value_heads=4, head_dim=256 (google/gemma-3-27b-it's text_config states none of the
#: first three, gemma-3-12b-it's no head_dim, gemma-3-4b-it's none of the six); GemmaConfig and Gemma2Config:
#: head_dim=256 (not hidden / heads); Llama4TextConfig: tie_word_embeddings=False (Llama 4 Scout's and Maverick's
#: text_config states none; Meta's untied 202048 x 5120 output layer). The configuration classes of
#: :data:`UNTIED_TYPES` default to untied embeddings too (mistralai/Mistral-Small-3.1-24B-Instruct-2503's text_config,
#: model_type mistral, states no tie_word_embeddings: MistralConfig's False, a 131072 x 5120 output layer of its own).
_GEMMA3_TEXT_DEFAULTS: dict[str, Any] = {
    "vocab_size": 262_208, "max_position_embeddings": 131_072, "sliding_window_pattern": 6,
    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
}  # fmt: skip
#: model_type values whose transformers configuration class defaults to ``tie_word_embeddings=False`` (LlamaConfig,
#: MistralConfig, MixtralConfig, Qwen2Config, Qwen2MoeConfig, Qwen3Config, Qwen3MoeConfig, Phi3Config, OlmoConfig,
#: Olmo2Config, OlmoeConfig, DeepseekV2Config, DeepseekV3Config, GptOssConfig, GPTNeoXConfig, GPTJConfig,
#: GraniteConfig, GraniteMoeConfig, Llama4TextConfig), where ``PretrainedConfig``'s default is True.
UNTIED_TYPES: frozenset[str] = frozenset(
    {
        "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi3", "olmo", "olmo2", "olmoe",
        "deepseek_v2", "deepseek_v3", "gpt_oss", "gpt_neox", "gptj", "granite", "granitemoe", "llama4_text",
    }
)  # fmt: skip
TYPE_DEFAULTS: dict[str, dict[str, Any]] = {
    **{model_type: {"tie_word_embeddings": False} for model_type in sorted(UNTIED_TYPES)},
    "gemma": {"head_dim": 256},
    "gemma2": {"head_dim": 256},
    "gemma3_text": _GEMMA3_TEXT_DEFAULTS,
}
#: Defaults for a key the config leaves out, where an explicit null means something else: Llama4TextConfig's
#: attention_chunk_size=8192 when absent, while a config.json's null is kept as None and turns the chunks off.
ABSENT_DEFAULTS: dict[str, dict[str, Any]] = {"llama4_text": {"attention_chunk_size": 8192}}


def _language_model(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """A multimodal config's language model (its ``text_config``, with the outer ``_name_or_path``), else it; a key
    it leaves out (or sets to null) takes its model_type's :data:`TYPE_DEFAULTS` value, one it leaves out its
    :data:`ABSENT_DEFAULTS` value."""
    text = config.get("text_config")
    if isinstance(text, Mapping) and _find(config, "layers") is None:
        outer_name = config.get("_name_or_path")
        inherited = {"_name_or_path": outer_name} if outer_name else {}
        if text.get("tie_word_embeddings") is None and config.get("tie_word_embeddings") is not None:
            inherited["tie_word_embeddings"] = config["tie_word_embeddings"]  # the outer flag, llava's and Llama 4's
        config = {**text, **inherited}
    model_type = config.get("model_type")
    defaults = TYPE_DEFAULTS.get(model_type, {}) if isinstance(model_type, str) else {}
    missing = {key: value for key, value in defaults.items() if config.get(key) is None}
    absent = ABSENT_DEFAULTS.get(model_type, {}) if isinstance(model_type, str) else {}
    missing.update({key: value for key, value in absent.items() if key not in config})
    return {**config, **missing} if missing else config


def _check_text_config(config: Mapping[str, Any]) -> None:
    """A ``text_config`` that is not an object where it would be read (no layers at the top level) is refused by name;
    one beside a top-level language model (which is read) must not give a read key a different value, which would be
    ignored without a word (``hidden_size`` 4096 at the top, 8192 in ``text_config``)."""
    text = config.get("text_config")
    if text is None:
        return
    if not isinstance(text, Mapping):
        if _find(config, "layers") is None:
            raise ValueError(tr("config.text_config_type", value=shown_str(_shown_value(text))))
        return
    if _find(config, "layers") is None:
        return
    read = dict.fromkeys(key for keys in _FIELD_KEYS.values() for key in keys)
    for key in read:
        outer, inner = config.get(key), text.get(key)
        if outer is None or inner is None:
            continue
        if _shown_value(outer) != _shown_value(inner) and not _same_number(outer, inner):
            raise ValueError(
                tr(
                    "config.text_config_conflict",
                    key=key,
                    value=shown_str(_shown_value(outer)),
                    other_value=shown_str(_shown_value(inner)),
                )
            )


def _shown_value(value: Any) -> str:
    """A config value as the file spells it (``true``, ``0.25``, ``128``)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _count(value: Any) -> int | None:
    """A positive integer (32 or 32.0), else None (a note reads what it can and never refuses a config)."""
    whole = _whole(value)
    return whole if whole is not None and whole >= 1 else None


def _share(value: Any) -> float | None:
    """A real number, else None; an integer beyond the float range (JSON allows 10**400) as an infinity of its sign."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    number: Any = value
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _note(entry: str, /, **params: Any) -> Text:
    """Catalog entry ``entry`` rendered in both languages."""
    return Text(zh=tr(entry, "zh", **params), en=tr(entry, "en", **params))


def _rotary_notes(config: Mapping[str, Any]) -> list[Text]:
    """A rotary embedding on part of each head: ``rotary_pct`` (GPT-NeoX), ``partial_rotary_factor`` (Phi,
    StableLM ...), ``rotary_dim`` (GPT-J, CodeGen); neutral at 1, at the head's width or null."""
    notes = []
    for key in ("rotary_pct", "partial_rotary_factor"):
        share = _share(config.get(key))
        if share is not None and 0 <= share < 1:
            notes.append(_note("config.note_rotary", key=key, value=_shown_value(config[key]), share=f"{share:.0%}"))
    dim, hidden, heads = (
        _count(config.get("rotary_dim")),
        _count(_value(config, "hidden")),
        _count(_value(config, "heads")),
    )
    head_dim = _count(config.get("head_dim")) or (hidden // heads if hidden and heads else None)
    if dim is not None and head_dim and dim < head_dim:
        share_text = f"{dim / head_dim:.0%}"
        notes.append(_note("config.note_rotary", key="rotary_dim", value=_shown_value(dim), share=share_text))
    return notes


def _value(config: Mapping[str, Any], field: str) -> Any:
    found = _find(config, field)
    return None if found is None else found[1]


def _parallel_block_notes(config: Mapping[str, Any], model_type: str) -> list[Text]:
    """Attention and MLP in parallel: ``use_parallel_residual`` (GPT-NeoX; transformers' default true),
    ``parallel_attn`` (Falcon; default true) or ``new_decoder_architecture`` (Falcon 40B/180B), or a model_type
    of :data:`PARALLEL_BLOCK_TYPES`; neutral when false."""
    keys = ("use_parallel_residual", "parallel_attn", "new_decoder_architecture")
    for key in keys:
        if config.get(key) is True:
            return [_note("config.note_parallel_block", key=key, value="true")]
    default = {"gpt_neox": "use_parallel_residual", "falcon": "parallel_attn"}.get(model_type)
    if default is not None and config.get(default) is None:  # absent: the transformers config's default, true
        value = Text(zh="true（缺省值）", en="true (the default)")
        return [_note("config.note_parallel_block", key=default, value=value)]
    if model_type in PARALLEL_BLOCK_TYPES:
        return [_note("config.note_parallel_block", key="model_type", value=_shown_value(model_type))]
    return []


def _windowed_layers(config: Mapping[str, Any], model_type: str, layers: int, kind: str) -> tuple[int, Text]:
    """(layers with a window or chunk, how that was read): ``layer_types`` entries ``kind`` when listed, else the
    model_type's rule (transformers' configs)."""
    types = config.get("layer_types")
    if isinstance(types, list) and types:
        count = sum(1 for item in types if item == kind)
        return count, Text(zh="按 layer_types", en="as layer_types lists")
    if kind == "chunked_attention":  # Llama 4: no_rope_layers marks the chunked (RoPE) layers, else 3 of every 4
        marks = config.get("no_rope_layers")
        if isinstance(marks, list) and marks:  # 1 = a layer with rotary positions, the chunked ones
            return sum(1 for item in marks[:layers] if item), Text(zh="按 no_rope_layers", en="as no_rope_layers marks")
        return layers - layers // 4, Text(zh="每 4 层中的前 3 层", en="the first 3 of every 4 layers")
    pattern = _count(config.get("sliding_window_pattern"))
    if pattern is not None:  # Gemma 3: every pattern-th layer is global
        return layers - layers // pattern, Text(
            zh=f"sliding_window_pattern={pattern}：每 {pattern} 层中有一层全注意力",
            en=f"sliding_window_pattern={pattern}: one full-attention layer in every {pattern}",
        )
    if model_type in ALTERNATING_WINDOW_TYPES:
        return (layers + 1) // 2, Text(
            zh=f"{model_type} 的默认：隔层交替", en=f"{model_type}'s default: alternate layers"
        )
    first = _count(config.get("max_window_layers"))
    if model_type in OPT_IN_WINDOW_TYPES and first is not None:  # Qwen2: the window from that layer on
        start = min(first, layers)
        return layers - start, Text(zh=f"max_window_layers={start} 起", en=f"from max_window_layers={start} on")
    return layers, Text(zh="每一层", en="every layer")


def _check_window_keys(config: Mapping[str, Any], model_type: str, layers: int) -> None:
    """Refuse the malformed keys that would set the spec's window fields (a note reads what it can, a field is not
    guessed): ``use_sliding_window`` true, false or null; ``sliding_window`` an integer (null, false, 0 or below: no
    window, as engines write it); and while a window is on, ``max_window_layers`` (Qwen2-style configs) an integer
    >= 0, ``sliding_window_pattern`` an integer >= 1, ``layer_types`` a list of strings, one per layer."""
    window = config.get("sliding_window")
    if not _bool(config, "use_sliding_window", model_type not in OPT_IN_WINDOW_TYPES):
        return
    if window is None or window is False:  # identity, not ==: 0.0 equals False, and is read as the integer 0 below
        return
    whole_window = _whole(window)
    if whole_window is None:
        whole_window = _int("sliding_window", window)  # raises, naming the key, the value and the rule
    if whole_window < 1:
        return
    if model_type in OPT_IN_WINDOW_TYPES and config.get("max_window_layers") is not None:
        _int("max_window_layers", config["max_window_layers"], 0)
    if config.get("sliding_window_pattern") is not None:
        _int("sliding_window_pattern", config["sliding_window_pattern"])
    types = config.get("layer_types")
    if types is not None and (
        not isinstance(types, list) or len(types) != layers or not all(isinstance(item, str) for item in types)
    ):
        raise ValueError(tr("config.layer_types", value=reprlib.repr(types), layers=layers))


def _is_mark(item: Any) -> bool:
    """A ``no_rope_layers`` entry: the integer 0 or 1 (true, false and 1.0 are none: a mark is a list entry, not one
    of the integer keys that take 32.0 for 32, and transformers compares it to the int 1)."""
    return type(item) is not bool and isinstance(item, numbers.Integral) and 0 <= int(item) <= 1


def _check_chunk_keys(config: Mapping[str, Any], model_type: str, layers: int) -> None:
    """Refuse the malformed keys that would set the spec's chunk fields (a model_type of
    :data:`CHUNKED_ATTENTION_TYPES` only: no other reads them): ``attention_chunk_size`` an integer (null, false, 0
    or below: no chunks); and while chunks are on, ``no_rope_layers`` a list of 0/1 marks covering every layer
    (transformers: at least one per layer), ``layer_types`` a list of strings, one per layer."""
    chunk = config.get("attention_chunk_size")
    if model_type not in CHUNKED_ATTENTION_TYPES:  # no other model type reads the key
        return
    if chunk is None or chunk is False:  # identity, not ==: 0.0 equals False, and is read as the integer 0 below
        return
    whole_chunk = _whole(chunk)
    if whole_chunk is None:
        whole_chunk = _int("attention_chunk_size", chunk)  # raises, naming the key, the value and the rule
    if whole_chunk < 1:
        return
    marks = config.get("no_rope_layers")
    if (
        marks is not None
        and marks != []
        and (not isinstance(marks, list) or len(marks) < layers or not all(_is_mark(item) for item in marks))
    ):
        raise ValueError(tr("config.no_rope_layers", value=reprlib.repr(marks), layers=layers))
    types = config.get("layer_types")
    if types is not None and (
        not isinstance(types, list) or len(types) != layers or not all(isinstance(item, str) for item in types)
    ):
        raise ValueError(tr("config.layer_types", value=reprlib.repr(types), layers=layers))


def _chunked_attention(
    config: Mapping[str, Any], model_type: str, layers: int, length: int | None
) -> tuple[int, int] | None:
    """(chunk_tokens, chunk_layers) of Llama 4-style chunked attention, or None: a model_type of
    :data:`CHUNKED_ATTENTION_TYPES`, ``attention_chunk_size`` a positive integer shorter than the model's length, on
    at least one layer (:func:`_windowed_layers`)."""
    chunk = _count(config.get("attention_chunk_size"))
    if model_type not in CHUNKED_ATTENTION_TYPES or chunk is None or (length is not None and chunk >= length):
        return None
    count = min(_windowed_layers(config, model_type, layers, "chunked_attention")[0], layers)
    return (chunk, count) if count > 0 else None


def _sliding_window(
    config: Mapping[str, Any], model_type: str, layers: int, length: int | None
) -> tuple[int, int] | None:
    """(window_tokens, window_layers) of a sliding window the config turns on, or None: ``sliding_window`` not null,
    not switched off (``use_sliding_window`` false, or absent for Qwen2-style configs), shorter than the model's
    length, on at least one layer (:func:`_windowed_layers`)."""
    window = _count(config.get("sliding_window"))
    use = config.get("use_sliding_window")
    off = use is False or (use is None and model_type in OPT_IN_WINDOW_TYPES)
    if window is None or off or (length is not None and window >= length):
        return None
    count = min(_windowed_layers(config, model_type, layers, "sliding_attention")[0], layers)
    return (window, count) if count > 0 else None


def _attention_span_notes(config: Mapping[str, Any], model_type: str) -> list[Text]:
    """Attention limited on some layers: a sliding window (neutral when null, off by ``use_sliding_window``, or
    at least the model's length), Llama 4's chunks, and ``layer_types`` entries that are not softmax attention."""
    layers = _count(_value(config, "layers")) or 0
    length = _count(_value(config, "seq_len"))
    notes = []
    window = _sliding_window(config, model_type, layers, length)
    if window is not None:
        which = _windowed_layers(config, model_type, layers, "sliding_attention")[1]
        notes.append(_note("config.note_window", key="sliding_window", value=window[0], count=window[1],
                           layers=layers, which=which))  # fmt: skip
    chunk = _chunked_attention(config, model_type, layers, length)
    if chunk is not None and window is not None:  # as ModelSpec.from_config reads it: the window, not the chunks
        notes.append(_note("config.note_chunks_beside_window", key="attention_chunk_size", value=chunk[0],
                           window=window[0]))  # fmt: skip
    elif chunk is not None:
        which = _windowed_layers(config, model_type, layers, "chunked_attention")[1]
        notes.append(_note("config.note_chunked", key="attention_chunk_size", value=chunk[0], count=chunk[1],
                           layers=layers, which=which))  # fmt: skip
    chunk_size = config.get("attention_chunk_size")
    if model_type not in CHUNKED_ATTENTION_TYPES and chunk_size is not None and chunk_size is not False:
        notes.append(_note("config.note_chunks_other_type", key="attention_chunk_size", value=_shown_value(chunk_size),
                           model_type=_shown_value(model_type)))  # fmt: skip
    types = config.get("layer_types")
    if isinstance(types, list):
        others: dict[str, int] = {}
        for item in types:
            if isinstance(item, str) and item not in _ATTENTION_LAYER_TYPES:
                others[item] = others.get(item, 0) + 1
        for kind, count in others.items():
            notes.append(_note("config.note_layer_kind", kind=kind, count=count, layers=len(types)))
    return notes


def _hybrid_notes(config: Mapping[str, Any]) -> list[Text]:
    """Layers that are not softmax attention, stated other than by ``layer_types``: Qwen3-Next's
    ``full_attention_interval`` (transformers' Qwen3NextConfig: layer i is linear attention unless (i + 1) is a
    multiple of it; read only when ``layer_types`` is absent, which then says it), Nemotron-H's
    ``hybrid_override_pattern`` (one character a block: M Mamba, - MLP, * attention, E MoE) and MiniMax's
    ``attn_type_list`` (one entry a layer: 0 linear, 1 softmax attention), and the Mamba layers of Jamba, Bamba,
    Granite 4.0 and Zamba (:func:`_mamba_layers`); a config with other Mamba settings (a ``mamba_*`` or ``ssm_*``
    key) and none of these says that its layers are not told apart. A value of another type is passed over.

    >>> [n.render("en")[:60] for n in _hybrid_notes({"num_hidden_layers": 48, "full_attention_interval": 4})]
    ['full_attention_interval=4: one layer in every 4 of the 48 la']
    """
    notes = []
    layers = _count(_value(config, "layers")) or 0
    interval = _count(config.get("full_attention_interval"))
    if interval is not None and interval > 1 and layers and not isinstance(config.get("layer_types"), list):
        linear = sum(1 for i in range(layers) if (i + 1) % interval)
        notes.append(_note("config.note_layer_interval", value=interval, count=linear, layers=layers))
    pattern = config.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern.strip("*"):
        counts = {mark: pattern.count(mark) for mark in "M-*E"}
        notes.append(_note("config.note_hybrid_pattern", total=len(pattern), mamba=counts["M"], mlp=counts["-"],
                           attention=counts["*"], moe=counts["E"]))  # fmt: skip
    kinds = config.get("attn_type_list")
    if isinstance(kinds, list) and kinds and all(type(k) is int and k in (0, 1) for k in kinds):
        linear = sum(1 for k in kinds if k == 0)
        if linear:
            notes.append(_note("config.note_attn_type_list", count=linear, layers=len(kinds)))
    mamba = _mamba_layers(config, layers)
    if mamba is not None:
        key, count, attention = mamba
        if count:
            notes.append(_note("config.note_mamba_layers", key=key, mamba=count, attention=attention, layers=layers))
    elif not notes and not isinstance(config.get("layer_types"), list):  # layer_types has its own note
        setting = next((k for k in config if isinstance(k, str) and k.lower().startswith(("mamba_", "ssm_"))), None)
        if setting is not None:
            notes.append(_note("config.note_mamba_keys", key=setting))
    return notes


def _mamba_layers(config: Mapping[str, Any], layers: int) -> tuple[str, int, int] | None:
    """(the keys, Mamba layers, layers with attention) of a hybrid Mamba config, from the keys transformers' configs
    place the attention layers by: Jamba's ``attn_layer_period`` / ``attn_layer_offset`` (JambaConfig: layer i has
    attention when i % period == offset, defaults 8 and 4), Bamba's and Granite 4.0's ``attn_layer_indices``
    (BambaConfig, GraniteMoeHybridConfig) and Zamba's ``layers_block_type`` (ZambaConfig, Zamba2Config: each layer
    "mamba", or "hybrid", a Mamba layer with the shared attention block); None when it states none (or a value of
    another type, passed over).

    >>> _mamba_layers({"model_type": "jamba"}, 32), _mamba_layers({"attn_layer_indices": [9, 18, 27]}, 32)
    (('attn_layer_period=8, attn_layer_offset=4', 28, 4), ('attn_layer_indices', 29, 3))
    """
    if not layers:
        return None
    if config.get("model_type") == "jamba" or config.get("attn_layer_period") is not None:
        period, offset = _count(config.get("attn_layer_period", 8)), config.get("attn_layer_offset", 4)
        if period is None or isinstance(offset, bool) or not isinstance(offset, numbers.Integral) or offset < 0:
            return None
        attention = sum(1 for i in range(layers) if i % period == offset)
        return f"attn_layer_period={period}, attn_layer_offset={int(offset)}", layers - attention, attention
    indices = config.get("attn_layer_indices")
    if isinstance(indices, list) and all(type(i) is int and 0 <= i < layers for i in indices):
        attention = len(set(indices))
        return "attn_layer_indices", layers - attention, attention
    kinds = config.get("layers_block_type")
    if isinstance(kinds, list) and kinds and all(k in ("mamba", "hybrid", "attention") for k in kinds):
        attention = sum(1 for k in kinds if k != "mamba")
        return "layers_block_type", sum(1 for k in kinds if k != "attention"), attention
    return None


def _activation_notes(config: Mapping[str, Any], model_type: str) -> list[Text]:
    """An activation key of a model type that decides its MLP by itself (:data:`GATED_TYPES`, :data:`GPT_STYLE_TYPES`)
    naming another activation than that MLP's usual one (a gated type's GELU or squared ReLU, a 2-matrix type's SiLU):
    it changes no number here, and the note says so rather than let the spec's ``mlp`` read as honouring it. Llama's
    ``attention_bias`` and ``mlp_bias`` that differ: the spec has biases everywhere or nowhere.

    >>> [n.render("en")[:58] for n in _activation_notes({"hidden_act": "gelu_pytorch_tanh"}, "gemma")]
    ["hidden_act=gelu_pytorch_tanh: model_type gemma's MLP does "]
    """
    notes = []
    key = next((k for k in _ACTIVATION_KEYS if config.get(k) is not None), None)
    value = config.get(key) if key is not None else None
    if isinstance(value, str):
        gated_name = value.strip().lower() in GATED_ACTIVATIONS
        if (model_type in GATED_TYPES and not gated_name) or (model_type in GPT_STYLE_TYPES and gated_name):
            mlp = "config.mlp_gated" if model_type in GATED_TYPES else "config.mlp_plain"
            notes.append(_note("config.note_activation", key=key, value=value, model_type=model_type,
                               mlp=_note(mlp)))  # fmt: skip
    attention, mlp_bias = config.get("attention_bias", False), config.get("mlp_bias", False)
    attention = False if attention is None else attention
    mlp_bias = False if mlp_bias is None else mlp_bias
    both_bools = isinstance(attention, bool) and isinstance(mlp_bias, bool)
    if model_type in GATED_TYPES and both_bools and attention != mlp_bias:
        notes.append(
            _note(
                "config.note_mlp_bias",
                attention=_shown_value(attention),
                mlp=_shown_value(mlp_bias),
                counted=_note("config.bias_everywhere" if attention else "config.bias_nowhere"),
                effect=_note("config.bias_extra" if attention else "config.bias_missing"),
            )
        )
    return notes


def _other_notes(config: Mapping[str, Any], model_type: str) -> list[Text]:
    """A ``quantization_config`` (AWQ / GPTQ weights: the plan counts 16-bit ones), GPT-OSS's attention sinks (no
    key: every GptOssAttention has them) and group-limited routing (DeepSeek's ``n_group`` / ``topk_group``; neutral
    when every group may be used)."""
    notes = []
    quantized = config.get("quantization_config")
    if isinstance(quantized, Mapping) and isinstance(quantized.get("quant_method"), str):
        method = quantized["quant_method"]
        bits = next((quantized[k] for k in ("bits", "w_bit") if quantized.get(k) is not None), None)
        bits = _QUANT_METHOD_BITS.get(method.strip().lower()) if bits is None else bits
        if bits is None:  # a method of no stated width (compressed-tensors ...): no "? bits"
            notes.append(_note("config.note_quantized_method", method=_shown_value(method)))
        else:
            notes.append(_note("config.note_quantized", method=_shown_value(method), bits=_shown_value(bits)))
    if model_type == "gpt_oss":
        count = (_count(_value(config, "layers")) or 0) * (_count(_value(config, "heads")) or 0)
        notes.append(_note("config.note_sinks", value=_shown_value(model_type), count=count))
    groups, top = _count(config.get("n_group")), _count(config.get("topk_group"))
    if groups is not None and top is not None and top < groups:
        notes.append(_note("config.note_group_routing", value=top, groups=groups))
    return notes


#: The weight width of a ``quant_method`` whose quantization_config states no ``bits``: FP8 (DeepSeek-V3's "fp8",
#: E4M3 weights) and MXFP4 (gpt-oss's "mxfp4": 4-bit E2M1 elements, OCP Microscaling Formats spec v1.0).
_QUANT_METHOD_BITS: dict[str, int] = {"fp8": 8, "mxfp4": 4}


class SourceText(str):
    """A spec's ``source`` read from a config.json: the string holds it in the language current when it was read (so
    ``in``, ``==`` and ``print`` read it as before), and :attr:`text` holds it in both languages, for what renders it
    later in the learner's language (``PlanResult.to_dict``'s ``model.source``).

    >>> s = SourceText(Text(zh="config.json（注）", en="config.json (note)"), "en")
    >>> s, s.text.render("zh")
    ('config.json (note)', 'config.json（注）')
    """

    text: Text

    def __new__(cls, text: Text, lang: str | None = None) -> SourceText:
        check_instance("text", text, Text)
        if lang is not None:
            check_choice("lang", lang, LANGUAGES)
        self = super().__new__(cls, text.render(lang))
        self.text = text
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copies (dataclasses.asdict, pickle) keep the text and both languages
        return (_source_text, (str(self), self.text))


def _source_text(held: str, text: Text) -> SourceText:
    source = SourceText(text)
    return source if str(source) == held else SourceText(text, "zh" if text.zh == held else "en")


def localized_source(source: str) -> str:
    """``source`` in the current language: a :class:`SourceText`'s own text rendered now, any other string as is.

    >>> localized_source("config.json (model_type llama)")
    'config.json (model_type llama)'
    """
    check_instance("source", source, str)
    return source.text.render() if isinstance(source, SourceText) else source


def _config_source(config: Mapping[str, Any], model_type: str, decided_by: Text | None) -> SourceText:
    """The ``source`` of a spec read from ``config``: the model type, what decided the MLP, norm and biases (None: the
    model type), and the keys not modelled (:func:`config_notes`), in both languages."""
    notes = config_notes(config)
    heads = {
        lang: f"config.json (model_type {model_type or 'unknown'}"
        + ("" if decided_by is None else f"; {decided_by.render(lang)}")
        for lang in LANGUAGES
    }
    return SourceText(
        Text(
            zh=heads["zh"] + ")" + "".join(f"; {note.render('zh')}" for note in notes),
            en=heads["en"] + ")" + "".join(f"; {note.render('en')}" for note in notes),
        )
    )


def config_notes(config: Mapping[str, Any]) -> tuple[Text, ...]:
    """What a Hugging Face ``config.json`` dict states that changes the cost but the spec does not model: one
    bilingual note per key, naming it, its value and what the planner counts instead (empty for a plain Llama).

    The keys are listed in the module's docstring; one at its neutral value (``rotary_pct`` 1, ``sliding_window``
    null, ``parallel_attn`` false ...) gets no note. A value of an unexpected type is passed over: the notes
    never refuse a config (:func:`model_fields_from_config` checks the keys it reads).

    >>> notes = config_notes({"model_type": "gpt_neox", "num_hidden_layers": 44, "hidden_size": 6144,
    ...     "num_attention_heads": 64, "rotary_pct": 0.25, "use_parallel_residual": True})
    >>> print(notes[0].render("en"))  # doctest: +ELLIPSIS
    rotary_pct=0.25: the rotary position embedding turns 25% of each attention head's dimensions; not modelled: ...
    >>> config_notes({"model_type": "llama", "rotary_pct": 1.0, "sliding_window": None, "parallel_attn": False})
    ()

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(config, Mapping):
        raise TypeError(tr("config.not_mapping", type=type(config).__name__))
    config = _language_model(config)
    model_type = config.get("model_type", "")
    model_type = model_type if isinstance(model_type, str) else ""
    notes = _rotary_notes(config) + _parallel_block_notes(config, model_type)
    notes += _attention_span_notes(config, model_type) + _hybrid_notes(config) + _other_notes(config, model_type)
    notes += _activation_notes(config, model_type)
    return tuple(notes)


def model_fields_from_config(config: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """The :class:`~coursekit.planner.ModelSpec` fields a Hugging Face ``config.json`` dict describes.

    Parameters:
        config: the parsed ``config.json`` (keys in the module's table; unknown keys are ignored, and those that
            change the cost unmodelled are named at the end of ``source``, as :func:`config_notes` says them).
        name: the spec's label; default the config's ``_name_or_path``, else its ``model_type``.

    A missing required key or a value of the wrong type raises ``ValueError`` naming the key, in the
    learner's language; a config that is not a mapping raises ``TypeError``.

    >>> model_fields_from_config({"hidden_size": 64})
    Traceback (most recent call last):
    ...
    ValueError: The model config has no key 'num_hidden_layers' (also accepted: n_layer, num_layers). Add it ...

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(config, Mapping):
        raise TypeError(tr("config.not_mapping", type=type(config).__name__))
    if name is not None and not isinstance(name, str):  # the caller's argument, not a config key
        raise TypeError(tr("config.name_type", value=shown_repr(name), type=type(name).__name__))
    if name is not None and (not name.strip() or not name.isprintable()):
        raise ValueError(tr("config.name_blank", value=shown_repr(name)))
    _check_text_config(config)
    language_model = _language_model(config)  # a multimodal config's language model
    try:
        return _fields(language_model, name)
    except _MissingKey as missing:
        text = config.get("text_config")
        if not isinstance(text, Mapping) or _find(config, "layers") is not None:  # the top level was read
            raise ValueError(str(missing)) from None
        origin = text.get("_name_or_path")
        origin = shown_str(origin) if isinstance(origin, str) and origin.strip() else tr("config.text_origin_unknown")
        raise ValueError(tr("config.missing_in_text", reason=str(missing), origin=origin)) from None


def _fields(config: Mapping[str, Any], name: str | None) -> dict[str, Any]:
    """:func:`model_fields_from_config` of the language model's keys (a text_config already taken out)."""
    model_type = config.get("model_type", "")
    if not isinstance(model_type, str):
        raise ValueError(tr("config.str", key="model_type", value=model_type))
    if name is None:
        path = config.get("_name_or_path")
        path = path.strip() if isinstance(path, str) and path.isprintable() else ""
        label = path or model_type.strip() or "custom"
        name = label if label.isprintable() else "custom"
    _check_aliases(config)
    layers = _required(config, "layers")
    hidden = _required(config, "hidden")
    heads = _required(config, "heads")
    gated, norm, biases, decided_by = _architecture(config, model_type)
    if model_type in GATED_TYPES:
        _bool(config, "mlp_bias", False)  # read by its note (config_notes): true or false
    gpt_style = model_type in GPT_STYLE_TYPES
    found_ffn = _find(config, "ffn_hidden")
    ffn = _int(*found_ffn) if found_ffn is not None else None
    if ffn is None:
        if not gpt_style:
            _required(config, "ffn_hidden")  # raises, naming the key
        ffn = 4 * hidden
    fields: dict[str, Any] = {
        "name": name,
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "ffn_hidden": ffn,
        "vocab": _required(config, "vocab"),
        "kv_heads": _kv_heads(config),
        "head_dim": _optional(config, "head_dim", None),
        "mlp": "swiglu" if gated else "gelu",
        "norm": norm,
        "position": "learned" if model_type in LEARNED_POSITION_TYPES else "rope",
        "biases": biases,
        "qkv_biases": _qkv_biases(config, model_type, biases),
        "tied_embeddings": _bool(config, "tie_word_embeddings", True),
        "dropout": _dropout(config),
        "source": _config_source(config, model_type, decided_by),
    }
    if model_type in ("bloom", "falcon") and _find(config, "seq_len") is None:
        # BLOOM's and Falcon's configs have no length key; both were trained on 2048-token sequences (BLOOM:
        # arXiv:2211.05100; Falcon: Almazrouei et al., arXiv:2311.16867)
        fields["seq_len"] = 2048
    else:
        fields["seq_len"] = _required(config, "seq_len")
    found = _find(config, "experts")
    experts = _int(found[0], found[1], 0) if found is not None else 0
    if experts > 0:
        fields.update(_moe_fields(config, model_type, experts, ffn))
    else:
        _refuse_unread_experts(config)
    mtp = _optional(config, "num_nextn_predict_layers", 0, low=0)  # DeepSeek-V3's multi-token prediction modules
    if mtp:
        fields["mtp_layers"] = mtp
    _check_window_keys(config, model_type, layers)
    window = _sliding_window(config, model_type, layers, fields["seq_len"])
    if window is not None:
        fields["window_tokens"], fields["window_layers"] = window
    _check_chunk_keys(config, model_type, layers)
    chunk = _chunked_attention(config, model_type, layers, fields["seq_len"])
    if chunk is not None and window is None:  # a config with both keeps the window (the spec takes one of them;
        # its note, config.note_chunks_beside_window, says the chunks are not counted)
        fields["chunk_tokens"], fields["chunk_layers"] = chunk
    if config.get("kv_lora_rank") is not None:
        fields["kv_lora_rank"] = _int("kv_lora_rank", config["kv_lora_rank"])
        fields["q_lora_rank"] = _optional(config, "q_lora_rank", None)
        fields["qk_rope_head_dim"] = _optional(config, "qk_rope_head_dim", 0, low=0)
        fields["qk_nope_head_dim"] = _optional(config, "qk_nope_head_dim", None)
        fields["v_head_dim"] = _optional(config, "v_head_dim", None)
    return fields


def _refuse_unread_experts(config: Mapping[str, Any]) -> None:
    """A config read as dense that still names experts under a key the reader does not take (a count above 1 in a key
    with "expert" in its name, such as ``moe_num_expert``): refused, naming the key, rather than planned as a dense
    model of the same width. Top-level keys only; the keys the module's table lists are read, not refused. Likewise
    a top-k (``num_experts_per_tok``, ``moe_k``) above 1 with no expert count: tokens routed to experts it does not
    state.

    >>> _refuse_unread_experts({"num_local_experts_total": 8})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: The model config's 'num_local_experts_total' = 8 names experts, but under a key ... misstated. ...
    """
    known = {*_ALIASES["experts"], *_TOP_K_KEYS, *_SHARED_KEYS, "shared_expert_intermediate_size"}
    accepted = ", ".join(_ALIASES["experts"][:-1]) + tr("config.or") + _ALIASES["experts"][-1]
    for key, value in config.items():
        if not isinstance(key, str) or "expert" not in key.lower() or key in known:
            continue
        if not isinstance(value, bool) and isinstance(value, numbers.Integral) and int(value) > 1:
            raise ValueError(tr("config.unread_experts", key=key, value=value, keys=accepted))
    for key in _TOP_K_KEYS:  # more than one expert per token, but no expert count: not a dense model
        value = config.get(key)
        if not isinstance(value, bool) and isinstance(value, numbers.Integral) and int(value) > 1:
            given = {name: config[name] for name in _ALIASES["experts"] if name in config}
            stated = ", ".join(f"{name} = {given[name]!r}" for name in given) if given else tr("config.absent")
            raise ValueError(tr("config.top_k_without_experts", key=key, value=value, stated=stated, keys=accepted))


def _moe_fields(config: Mapping[str, Any], model_type: str, experts: int, ffn: int) -> dict[str, Any]:
    """The mixture-of-experts fields: experts, top-k, expert width, shared experts, dense layers first."""
    top_key = next((key for key in _TOP_K_KEYS if config.get(key) is not None), _TOP_K_KEYS[0])
    top_k = _optional(config, top_key, None)
    if top_k is None:
        raise ValueError(tr("config.missing_one", key="num_experts_per_tok"))
    for key in MOE_SPACING_KEYS:
        if config.get(key) is not None and _int(key, config[key]) != 1:
            raise ValueError(tr("config.moe_spacing", key=key, value=config[key]))
    fields: dict[str, Any] = {"num_experts": experts, "top_k": top_k}
    if model_type == "llama4_text":  # experts of intermediate_size, one shared expert, dense MLPs wider
        fields["moe_ffn_hidden"] = ffn
        fields["ffn_hidden"] = _optional(config, "intermediate_size_mlp", ffn)
        fields["shared_experts"] = 1
    else:
        fields["moe_ffn_hidden"] = _optional(config, "moe_intermediate_size", ffn)
        shared_key = next((key for key in _SHARED_KEYS if config.get(key) is not None), _SHARED_KEYS[0])
        fields["shared_experts"] = _optional(config, shared_key, 0, low=0)
        shared_width = _optional(config, "shared_expert_intermediate_size", None, low=0)
        if shared_width:
            width = fields["moe_ffn_hidden"]
            if shared_width % width:
                key = "shared_expert_intermediate_size"
                raise ValueError(tr("config.shared_width", key=key, value=shared_width, width=width))
            fields["shared_experts"] = shared_width // width
    dense = _optional(config, "first_k_dense_replace", 0, low=0)
    start = _optional(config, "moe_layer_start_index", 0, low=0)  # ERNIE 4.5: layers before it are dense
    dense = max(dense or 0, start or 0)
    end = config.get("moe_layer_end_index")  # ERNIE 4.5: the last MoE layer; -1 or the last layer: all after start
    layers = _count(_value(config, "layers"))
    if end is not None and end != -1 and (layers is None or _int("moe_layer_end_index", end, 0) != layers - 1):
        raise ValueError(tr("config.moe_end", key="moe_layer_end_index", value=end, last=(layers or 1) - 1))
    only = config.get("mlp_only_layers")
    if only:
        plain = isinstance(only, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in only)
        if not plain or sorted(only) != list(range(len(only))):
            raise ValueError(tr("config.dense_layers", key="mlp_only_layers", value=only))
        dense = max(dense or 0, len(only))
    listed = config.get("moe_layers")  # Llama4TextConfig: the MoE layers' indices, read before the spacing key
    if listed is not None:
        plain = isinstance(listed, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in listed)
        last = (layers or 1) - 1
        if not plain or not listed or sorted(listed) != list(range(last + 1 - len(listed), last + 1)):
            raise ValueError(tr("config.moe_layers", key="moe_layers", value=reprlib.repr(listed), last=last))
        dense = max(dense or 0, last + 1 - len(listed))
    fields["first_k_dense"] = dense
    return fields


#: Largest model config file :func:`load_model_config` reads, in bytes (a Hugging Face config.json is a few KB; the
#: largest multimodal ones are tens of KB).
MAX_CONFIG_BYTES: int = 1 << 20


#: The JSON decoder's reasons (the start of ``JSONDecodeError.msg``, Python's json.decoder and its C scanner) and
#: the catalog entries that say them in the learner's language; any other is "a syntax error".
_JSON_REASONS: tuple[tuple[str, str], ...] = (
    ("Expecting value", "config.json_value"),
    ("Expecting property name", "config.json_name"),
    ("Expecting ':'", "config.json_colon"),
    ("Expecting ','", "config.json_comma"),
    ("Unterminated string", "config.json_string"),
    ("Invalid control character", "config.json_control"),
    ("Invalid \\", "config.json_escape"),
    ("Illegal trailing comma", "config.json_trailing"),
    ("Extra data", "config.json_extra"),
)


def _json_reason_key(message: str) -> str:
    """The catalog entry saying the JSON decoder's ``message`` (its English words never reach a Chinese reader)."""
    return next((key for start, key in _JSON_REASONS if message.startswith(start)), "config.json_other")


#: Python's literals a config written as a Python dict holds, and how JSON writes them.
_PYTHON_LITERALS: dict[str, str] = {"True": "true", "False": "false", "None": "null"}


def _json_reason(error: json.JSONDecodeError) -> str:
    """Why the JSON decoder stopped, in the learner's language: a comment or a Python literal where a value was expected
    is named as such (the decoder says only "Expecting value")."""
    if error.msg.startswith(("Expecting value", "Expecting property name")):
        ahead = error.doc[error.pos : error.pos + 5]
        if ahead.startswith(("//", "/*", "#")):
            return tr("config.json_comment")
        word = next((word for word in _PYTHON_LITERALS if ahead.startswith(word)), None)
        if word is not None:
            return tr("config.json_python_literal", word=word, json=_PYTHON_LITERALS[word])
    return tr(_json_reason_key(error.msg))


class _ConflictingKey(Exception):
    """A JSON object gives one key twice with different values (``args``: the key, the first value, the second)."""


def _object_without_conflicts(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict; a key given twice with different values raises :class:`_ConflictingKey`
    (``json`` would keep the last one silently), the same value twice is one key."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data and _shown_value(data[key]) != _shown_value(value):
            raise _ConflictingKey(key, data[key], value)
        data[key] = value
    return data


def load_model_config(path: str | Path) -> dict[str, Any]:
    """Read a ``config.json`` file into a dict, with one localized line for each way it can fail.

    ``ValueError`` for a missing file, an unreadable one or one that is not JSON (line and column named);
    the fields are then read by :func:`model_fields_from_config`.

    >>> load_model_config("/no/such/config.json")
    Traceback (most recent call last):
    ...
    ValueError: The model config file /no/such/config.json does not exist.

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(tr("config.path_type", value=shown_repr(path), type=type(path).__name__))
    if not str(path).strip():
        raise ValueError(tr("config.file_missing", path=repr(str(path))))
    file = Path(path)
    if not file.exists():
        raise ValueError(tr("config.file_missing", path=str(path)))
    try:
        with file.open("rb") as stream:  # read at most one byte past the limit: /dev/zero or a weights file ends here
            raw = stream.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ValueError(tr("config.too_large", path=str(path), limit=MAX_CONFIG_BYTES))
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows editors write one) is not part of the JSON
    except UnicodeDecodeError as error:
        raise ValueError(tr("config.not_utf8", path=str(path), position=error.start)) from None
    except OSError as error:
        from ._cli import os_error_reason  # the operating system's refusal in the learner's language

        raise ValueError(tr("config.file_unreadable", path=str(path), reason=os_error_reason(error))) from None
    try:  # NaN, Infinity, -Infinity as the numbers they name
        data = json.loads(text, parse_constant=float, object_pairs_hook=_object_without_conflicts)
    except _ConflictingKey as conflict:
        key, first, second = conflict.args
        raise ValueError(
            tr(
                "config.duplicate_key",
                path=str(path),
                key=shown_str(key),
                first=shown_str(_shown_value(first)),
                second=shown_str(_shown_value(second)),
            )
        ) from None
    except json.JSONDecodeError as error:
        reason = _json_reason(error)
        raise ValueError(
            tr("config.not_json", path=str(path), line=error.lineno, column=error.colno, reason=reason)
        ) from None
    except RecursionError:
        raise ValueError(tr("config.too_deep", path=str(path))) from None
    except ValueError:  # the one other refusal of json.loads: an integer of more digits than Python converts
        raise ValueError(tr("config.too_many_digits", path=str(path), limit=sys.get_int_max_str_digits())) from None
    if not isinstance(data, dict):
        kind = "config.kind_" + _JSON_KINDS.get(type(data), "number")
        raise TypeError(tr("config.file_not_object", path=str(path), kind=tr(kind), value=_shown_value(data)[:40]))
    return data


#: What a JSON document that is not an object holds, by the Python type json.loads gives it (a catalog entry).
_JSON_KINDS: dict[type, str] = {list: "array", str: "string", bool: "boolean", type(None): "null"}


learner_functions(globals())
