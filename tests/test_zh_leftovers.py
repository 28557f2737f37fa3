"""A Chinese learner reads Chinese: no English prose word is left in what coursekit prints under ``zh``.

The scan renders, with the language set to ``zh``, a representative set of outputs — the planner's report for a
dense and an MoE preset (training and serving), the explanation of a candidate that fails each of the planner's
gates, the estimate's assumption notes, the Q3 gates' reasons and the Q4 composition reports, and the published
runs' notes and labels — and asserts that no word of three or more ASCII letters appears in them outside an explicit
allow-list (:func:`english_words` says exactly what counts).

Allowed, because the course rule allows them: established abbreviations and units (GPU, MoE, GiB, TFLOP …); the two
words the course keeps in Chinese prose (token, rank: see the glossary's "token 重排", "rank 顺序"); proper names of
frameworks, papers and models; and code the learner types, when it is marked as code — in backticks, in quotes (a
``repr``), as ``name=value``, a gate's ``[code]``, a preset name, or the English original in parentheses after its
Chinese term (``丢弃 (dropout)``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

from coursekit import get_language, set_language
from coursekit.composition import topology_report, validate_megatron_composition, validate_parallel_composition
from coursekit.gates import Candidate, Environment, evaluate_candidate
from coursekit.planner import PLAN_GATES, PlanResult, WorkloadSpec, plan
from coursekit.planner.result import ESTIMATE_NOTES
from coursekit.planner.validation import published_degrees
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs
from coursekit.specs import PRECISION_RECIPES, RECOMPUTE_MODES

#: Abbreviations and units the course writes in Chinese prose as they are.
ABBREVIATIONS = frozenset(
    {"GPU", "CPU", "HBM", "NCCL", "ZeRO", "MoE", "MFU", "TFLOP", "TFLOPs", "FLOP", "FLOPs", "GiB", "ETP", "EDP"}
    | {"GQA", "MLA", "MTP", "TTFT", "TPOT", "DGX", "Replica"}
)
#: English words the course keeps in Chinese prose (the glossary's zh names use them).
COURSE_WORDS = frozenset({"token", "rank"})
#: Names: frameworks, libraries, products, a paper's author, a model family and an activation function.
PROPER_NAMES = frozenset(
    {"Megatron", "Core", "NeMo", "DeepEP", "CUDA", "FlashAttention", "PaLM", "ModelZoo", "Korthikanti", "Cloud"}
    | {"GPT", "SwiGLU", "DeepSeek"}
    | {"NVLink", "Bridge", "Slurm"}  # the interconnect, Megatron-Bridge, the cluster scheduler
)
#: Formula notation (max(a, b)) and Python's None.
MATH = frozenset({"max", "min", "None"})


@cache
def code_words() -> frozenset[str]:
    """Words of the codes a learner types or reads as codes: preset names, gate codes (the funnel's first column),
    recipe and recompute names, the planner's search dimensions and NCCL's algorithm names."""
    names = [*MODELS, *CLUSTERS, *PRECISION_RECIPES, *RECOMPUTE_MODES]
    names += [gate.code for gate in PLAN_GATES] + ["etp", "replicas", "zero", "recompute"]
    names += ["ring", "tree"]  # NCCL's algorithms as NCCL_ALGO names them (the serving report's "NCCL 选 ring/LL")
    return frozenset(word for name in names for word in re.findall(r"[A-Za-z]+", name))


ALLOWED = ABBREVIATIONS | COURSE_WORDS | PROPER_NAMES | MATH

#: Code marked as code, and the English original in parentheses after a Chinese term: not prose.
MARKED = re.compile(
    r"`[^`\n]*`"  # `code`
    r"|'[^'\n]*'"  # 'repr'
    r"|\[[a-z_]+\]"  # [gate_code]
    r"|[A-Za-z_][\w.]*=[\w.,=/+-]*"  # name=value, a layout label tp=1,pp=2,...
    r"|\b[A-Za-z_]\w* = "  # name = value, how the course names a parameter in a message
    r"|--[\w-]+"  # a command-line flag
    r"|\b\w+(?:\.\w+)+|\b\w+\(\)"  # a dotted name (coursekit.Text), a call (rank_groups())
    r"|\((?:[A-Za-z][\w'-]*[ /,]*)+\)"  # (English original), also (expert parallelism, EP)
)
#: A word: a maximal run of ASCII letters and digits (and _); prose when it is letters only, three or more.
WORD = re.compile(r"[A-Za-z0-9_]+")
PROSE = re.compile(r"[A-Za-z]{3,}")


def english_words(text: str, allowed: frozenset[str] | None = None) -> list[str]:
    """Every English word of three or more letters in ``text`` outside code, glosses and the allow-list."""
    allowed = ALLOWED | code_words() if allowed is None else allowed
    words = WORD.findall(MARKED.sub(" ", text))
    return [word for word in words if PROSE.fullmatch(word) and word not in allowed]


def test_the_scan_finds_english_and_nothing_else() -> None:
    assert english_words("llama3-70b · 64 × H100 · s = 8192 · GBS 256 · TP 4 PP 4") == ["GBS"]
    assert english_words("末阶段 fp32 logits；激活（GQA、dropout）") == ["logits", "dropout"]
    assert english_words("ZeRO-3 每个微批次前向、反向各 all-gather 一次参数") == ["all", "gather"]
    # glosses, code, labels, names, abbreviations and units: nothing
    assert english_words("丢弃 (dropout)、输出分数 (logits)、`moe_layer_host_s`、'dense'、[ep_fold]") == []
    assert english_words("#1 通过：tp=1,pp=1,dp=16,cp=1,ep=1,v=1,zero=2,mb=1,ga=4,recompute=none") == []
    assert english_words("每 GPU 989 TFLOP/s，bf16，80.0 GiB，Megatron-Core 的 MoE 层") == []


@contextmanager
def chinese() -> Iterator[None]:
    old = get_language()
    set_language("zh")
    try:
        yield
    finally:
        set_language(old)


@cache
def plans() -> dict[str, PlanResult]:
    h100 = CLUSTERS["h100-8"]
    return {
        "dense": plan(MODELS["llama3-8b"], h100.with_nodes(2), WorkloadSpec(global_batch=64)),
        "moe": plan(MODELS["mixtral-8x7b"], h100.with_nodes(4), WorkloadSpec(global_batch=256, seq_len=4096)),
        "dense-serving": plan(MODELS["llama3-8b"], h100, WorkloadSpec(global_batch=64, mode="serving")),
        "moe-serving": plan(MODELS["mixtral-8x7b"], h100, WorkloadSpec(global_batch=64, mode="serving")),
    }


def planner_outputs() -> Iterator[tuple[str, str]]:
    """The reports, every rejected candidate's explanation (one per gate that rejects any) and the notes."""
    for name, result in plans().items():
        yield f"plan {name}", result.report(top=3)
        for gate in PLAN_GATES:
            for cand in result.rejected(gate.code, limit=1):
                yield f"plan {name}, rejected by {gate.code}", cand.explain()
        yield f"plan {name}, notes", "\n".join(str(note) for note in result.assumptions.notes)
    yield "estimate notes", "\n".join(str(note) for note in ESTIMATE_NOTES)


def gate_outputs() -> Iterator[tuple[str, str]]:
    """Q3: a candidate failing each gate; Q4: compositions failing each check."""
    env = Environment(24, "training", "dense", "cross_node", context_len=4096, max_context_per_device=8192)
    failing = {
        "memory": Candidate("DP", 29, frozenset({"training"}), frozenset({"dense"}), "cross_node"),
        "interconnect": Candidate("TP", 16, frozenset({"training"}), frozenset({"dense"}), "intra_node"),
        "structure": Candidate("EP", 14, frozenset({"training"}), frozenset({"moe"}), "cross_node"),
        "context": Candidate(
            "CP", 12, frozenset({"training"}), frozenset({"dense"}), "cross_node", splits_context=True
        ),
        "mode": Candidate("Replica", 20, frozenset({"serving"}), frozenset({"dense"}), "none", role="serving-replica"),
    }
    for code, cand in failing.items():
        report = evaluate_candidate(cand, env)
        assert code in report.codes
        yield f"gate {code}", "\n".join(reason.message for reason in report.reasons)
    moe_env = Environment(24, "serving", "moe", "none")
    report = evaluate_candidate(
        Candidate("DP", 10, frozenset({"training"}), frozenset({"dense"}), "cross_node"), moe_env
    )
    yield "gates mode, structure (serving, moe)", "\n".join(reason.message for reason in report.reasons)
    naive = validate_parallel_composition({"TP": 4, "PP": 2, "EP": 2, "DP": 2, "Replica": 2}, 8, "dense")
    yield "composition (naive)", "\n".join(reason.message for reason in naive.issues)
    engine = validate_megatron_composition(2, 2, 3, ep=4, model_kind="dense", available_ranks=16)
    yield "composition (engine)", "\n".join(reason.message for reason in engine.issues)
    topo = topology_report({"TP": 16, "DP": 2}, 8)
    yield "topology", "\n".join(reason.message for reason in topo.reasons)


#: A dense and an MoE published run whose layout checks are quick to plan.
CHECKED_RUNS = ("NeMo Llama 3 8B, 8K, 8 H100 (FP8)", "Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100")


def published_run_outputs() -> Iterator[tuple[str, str]]:
    """Every published run's note, and the check of two runs' published layouts against the estimate."""
    runs = all_published_runs()
    for run in runs:
        if run.note is not None:
            yield f"note of {run.name}", run.note.render("zh")
    for run in (next(run for run in runs if run.name == name) for name in CHECKED_RUNS):
        result = plan(run.model_spec(), run.cluster_spec(), run.workload())
        yield f"layout check of {run.name}", result.check_layout(published_degrees(run)).report()


def _leftovers(outputs: Iterator[tuple[str, str]]) -> dict[str, list[str]]:
    with chinese():
        rendered = list(outputs)
    assert rendered
    found = {name: english_words(text) for name, text in rendered}
    return {name: words for name, words in found.items() if words}


def test_planner_reports_and_notes_are_chinese() -> None:
    assert _leftovers(planner_outputs()) == {}


def test_gate_and_composition_reasons_are_chinese() -> None:
    assert _leftovers(gate_outputs()) == {}


def test_published_run_notes_and_checks_are_chinese() -> None:
    assert _leftovers(published_run_outputs()) == {}


def test_model_kinds_and_modes_read_in_chinese() -> None:
    """A reason that names a model kind, mode or link scope by its API code says in Chinese what the code means;
    English keeps its wording."""
    ep = Candidate("EP", 14, frozenset({"training"}), frozenset({"moe"}), "intra_node")
    env = Environment(24, "serving", "dense", "cross_node")
    engine = validate_megatron_composition(1, 1, 4, ep=2, model_kind="dense")
    with chinese():  # a reason renders when it is read
        messages = [reason.message for reason in evaluate_candidate(ep, env).reasons]
        composed = [reason.message for reason in engine.issues]
    assert any("稠密模型" in m and "混合专家 (MoE) 模型" in m for m in messages), messages
    assert any("'serving' 服务" in m for m in messages) and any("'intra_node' 节点内" in m for m in messages)
    assert composed == ["EP = 2 > 1 需要混合专家 (MoE) 模型，而当前模型是稠密模型（model_kind = 'dense'）"]
    assert engine.issues[0].render("en") == "EP = 2 > 1 requires an MoE model, but the model is 'dense'"


ROOT = Path(__file__).resolve().parents[1]
#: The modules whose Chinese texts this test keeps free of English prose, read from the source.
CATALOG_MODULES = (
    "coursekit/published_runs.py",
    "coursekit/planner/result.py",
    "coursekit/planner/specs.py",
    "coursekit/planner/estimate.py",
    "coursekit/gates.py",
    "coursekit/composition.py",
)


def _literal(node: ast.AST) -> str | None:
    """A string literal or f-string (each expression as a placeholder), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(value.value) if isinstance(value, ast.Constant) else " {} " for value in node.values)
    return None


def chinese_texts(path: Path) -> Iterator[tuple[int, str]]:
    """Every Chinese half in ``path``: a catalog entry's ``"zh"`` and a ``Text(zh=...)``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "zh" and (text := _literal(value)) is not None:
                    yield value.lineno, text
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "zh" and (text := _literal(keyword.value)) is not None:
                    yield keyword.value.lineno, text


@pytest.mark.parametrize("module", CATALOG_MODULES)
def test_chinese_catalog_texts_hold_no_english_prose(module: str) -> None:
    """Also the texts no rendering above reaches (other gates, other notes), with their placeholders removed."""
    found = [
        (line, words)
        for line, text in chinese_texts(ROOT / module)
        if (words := english_words(re.sub(r"\{[^{}]*\}", " ", text)))
    ]
    assert found == []


def test_published_run_labels_are_chinese() -> None:
    with chinese():
        labels = {run.name: run.label for run in all_published_runs()}
    assert {name: english_words(label) for name, label in labels.items() if english_words(label)} == {}


#: ASCII parentheses around Chinese prose: a Chinese aside takes full-width （）; ASCII ones stay for formulas and
#: shapes (ASCII punctuation in numbers and shapes: "(峰值算力, 计算强度 × 显存带宽)", "(1 - 重叠比例)") and for
#: an English original after its Chinese term ("丢弃 (dropout)").
_ASCII_ASIDE = re.compile(r"\(([^()]*[\u4e00-\u9fff][^()]*)\)")
_FORMULA = re.compile(r"[,×·/+÷^=<>{}µ]| - |FLOP|^\s*\d")


def zh_prose_in_ascii_parentheses(text: str) -> list[str]:
    """The ASCII-parenthesised asides of ``text`` that hold Chinese prose, not a formula or a shape."""
    return [m.group(0) for m in _ASCII_ASIDE.finditer(text) if not _FORMULA.search(m.group(1))]


def test_the_aside_scan_finds_prose_and_passes_formulas() -> None:
    assert zh_prose_in_ascii_parentheses("到不了峰值 (第 9 课校准这个上限)。") == ["(第 9 课校准这个上限)"]
    aside = "(QKV、输出投影、MLP 上投影和下投影)"
    assert zh_prose_in_ascii_parentheses(f"矩阵乘 {aside}，") == [aside]
    aside = "(gather peak，预取时约两层参数)"
    assert zh_prose_in_ascii_parentheses(f"gather 峰值 {aside}") == [aside]
    assert zh_prose_in_ascii_parentheses("(峰值算力, 计算强度 × 显存带宽)、(1 - 重叠比例)、(名称, 并行度)") == []
    assert zh_prose_in_ascii_parentheses("(2^30 字节)、(FLOP/字节)、(高, 宽, 4)、(µs/次)") == []
    assert zh_prose_in_ascii_parentheses("丢弃 (dropout)、矩阵乘（QKV、输出投影）") == []


@pytest.mark.parametrize("path", sorted(str(p.relative_to(ROOT)) for p in (ROOT / "coursekit").rglob("*.py")))
def test_chinese_asides_take_full_width_parentheses(path: str) -> None:
    texts = chinese_texts(ROOT / path)
    found = [(line, aside) for line, text in texts for aside in zh_prose_in_ascii_parentheses(text)]
    assert found == []
