"""Instructor review 22: lesson 9's counts, the guides' repeatability arithmetic, and zh = en numbers.

Lesson 9's section 8 opens with how many published runs of each kind it checks, and its guides say how many of the
vendor-table rows pass; the attention-kernel note quotes MosaicML's held-out rows; the lesson 9 guides answer "how
many runs of each layout separate 2 %?". Each figure is built here from coursekit (the registered runs, the pass rule,
``MEASUREMENT_REPEATABILITY``) or from the held-out report, never typed from the prose. Last, every number of a zh
Markdown cell (lessons) or guide section must also be in its en twin and the other way round, except the differences
listed, each with the reason it is only a matter of writing.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import re
import sys
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from coursekit.planner.calibration import MEASUREMENT_REPEATABILITY
from coursekit.presets import PUBLISHED_RUNS
from coursekit.published_runs import (
    DGXC_2505_RUNS,
    DGXC_DEEPSEEK_V3_RUN,
    DGXC_RUNS,
    MEGATRON_BRIDGE_B200_RUNS,
    MEGATRON_BRIDGE_GB200_RUNS,
    MOE_ZOO_QWEN3_LONG_RUNS,
    MOE_ZOO_QWEN3_RUNS,
    NEMO_2407_LORA_RUNS,
    NEMO_2407_SFT_RUNS,
    NEMO_2407_SOURCE,
    NEMO_2502_B200_RUNS,
    NEMO_2502_H100_RUNS,
    NEMO_LONG_CONTEXT_RUNS,
    all_published_runs,
)
from tests.test_instructor_published_runs import (
    DSV3_BRIDGE,
    _c,
    _degrees,
    _dsv3_bridge_best,
    _dsv3_bridge_symmetric_quote,
    _explained,
    _x,
)
from tests.test_instructor_review19 import MEGATRON_70B
from tests.test_lesson9_published_runs import mosaicml_h100_tally

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "instructor"
SRC = ROOT / "notebooks" / "src"
LANGS = ("zh", "en")


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@cache
def _builder() -> ModuleType:
    return _tool("build_notebooks")


_GUIDE_PINS = sys.modules.get("guide_pins") or _tool("guide_pins")
#: A number as the guides and lessons write it (tools/guide_pins.py's pattern).
NUMBER: re.Pattern[str] = _GUIDE_PINS.NUMBER


@cache
def _markdown_pairs(stem: str) -> list[tuple[str, str]]:
    """(zh, en) sources of each Markdown cell pair of a lesson, in order."""
    cells = _builder().parse_source((SRC / f"{stem}.py").read_text(encoding="utf-8"), f"{stem}.py")
    return [
        (zh.source, en.source)
        for zh, en in itertools.pairwise(cells)
        if zh.cell_type == "markdown" and zh.metadata.get("lang") == "zh" and en.metadata.get("lang") == "en"
    ]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _lesson(lang: str, stem: str = "09_workbench") -> str:
    """The lesson's Markdown cells in ``lang``, whitespace runs as one space (tools/guide_pins.py --lessons records
    the phrases looked up in it)."""
    source = (SRC / f"{stem}.py").read_text(encoding="utf-8")
    return _GUIDE_PINS.recorded_like(source, " ".join(_flat(pair[LANGS.index(lang)]) for pair in _markdown_pairs(stem)))


def _guide(lang: str, stem: str = "09_workbench") -> str:
    return _flat((GUIDES / lang / f"{stem}.md").read_text(encoding="utf-8"))


_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split()
_ONES += "seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _words(n: int) -> str:
    """An English count as the lesson spells it: 24 -> "twenty-four"."""
    if n < 20:
        return _ONES[n]
    tens, ones = divmod(n, 10)
    return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")


def test_number_words_by_hand() -> None:
    assert [_words(n) for n in (4, 9, 12, 14, 20, 24, 77)] == [
        "four", "nine", "twelve", "fourteen", "twenty", "twenty-four", "seventy-seven"
    ]  # fmt: skip


# ---- lesson 9, section 8: which published runs it checks -------------------------------------------------------


def _vendor_rows() -> list[str]:
    """NVIDIA's H100 FP8 vendor-table rows: NeMo 24.07's pre-training table and Megatron-Bridge's DGX-H100 tables."""
    return [
        run.name
        for run in all_published_runs()
        if run.source.startswith(NEMO_2407_SOURCE)
        or (run.source.startswith("NVIDIA NeMo Megatron-Bridge, “Performance”") and "DGX-H100" in run.source)
    ]


def _mcore_gpt() -> list[str]:
    return [run.name for run in all_published_runs() if run.name.startswith("Megatron-Core GPT ")]


def _names(runs: object) -> list[str]:
    return [run.name for run in runs]  # type: ignore[attr-defined]


#: The groups of lesson 9's opening paragraph of section 8, each as coursekit registers it.
GROUPS: dict[str, Callable[[], list[str]]] = {
    "papers": lambda: _names(PUBLISHED_RUNS),
    "vendor": _vendor_rows,
    "dgxc": lambda: _names(DGXC_RUNS),
    "dgxc2025": lambda: [*_names(DGXC_2505_RUNS), DGXC_DEEPSEEK_V3_RUN.name],
    "long": lambda: _names(NEMO_LONG_CONTEXT_RUNS),
    "mcore": _mcore_gpt,
    "mixtral": lambda: ["Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100"],
    "zoo": lambda: [*_names(MOE_ZOO_QWEN3_RUNS), *_names(MOE_ZOO_QWEN3_LONG_RUNS)],
    "bridge_b200": lambda: _names(MEGATRON_BRIDGE_B200_RUNS),
    "nemo_b200": lambda: _names(NEMO_2502_B200_RUNS),
    "nemo_h100_2502": lambda: _names(NEMO_2502_H100_RUNS),
    "finetune": lambda: [*_names(NEMO_2407_LORA_RUNS), *_names(NEMO_2407_SFT_RUNS)],
    "gb200": lambda: _names(MEGATRON_BRIDGE_GB200_RUNS),
}


def _n(group: str) -> int:
    return len(GROUPS[group]())


def test_the_paragraphs_groups_are_every_registered_run_once() -> None:
    # the opening paragraph of section 8 lists every published run the workbench checks: its groups partition them
    listed = [name for group in GROUPS.values() for name in group()]
    assert sorted(listed) == sorted(run.name for run in all_published_runs())


def _zoo_4k_layouts() -> int:
    """The ModelZoo's 4K layouts: its 4K rows but the CUDA-graph configuration (the same layout as another row)."""
    return sum("CUDA graphs" not in name for name in _names(MOE_ZOO_QWEN3_RUNS))


def _dgxc_recipes() -> int:
    """DGX Cloud v24.11.1's recipes: each ran in BF16 and in FP8."""
    models = Counter(run.model for run in DGXC_RUNS)
    assert set(models.values()) == {2}
    return len(models)


#: (lang, phrase template, the counts it quotes): section 8's opening paragraph in each language.
SECTION8: list[tuple[str, str, Callable[[], list[int]]]] = [
    ("en", "published runs test the estimate: {} from papers", lambda: [_n("papers")]),
    ("zh", "用已发表的训练检验估算：{} 次论文里的训练", lambda: [_n("papers")]),
    ("en", "H800), {} H100 configurations (FP8; NVIDIA's whole NeMo 24.07 table", lambda: [_n("vendor")]),
    ("zh", "NVIDIA 性能表里 {} 个 H100 配置（FP8；NeMo 24.07 的整张表格", lambda: [_n("vendor")]),
    (
        "en",
        "{} rows of NVIDIA's DGX Cloud benchmarking recipes (v24.11.1: each of {} recipes",
        lambda: [_n("dgxc"), _dgxc_recipes()],
    ),
    ("zh", "基准配方 (v24.11.1) 的 {} 行（{} 个配方各取", lambda: [_n("dgxc"), _dgxc_recipes()]),
    ("en", "{} rows of its 2025 releases (on NeMo 2.0", lambda: [_n("dgxc2025")]),
    ("zh", "换到 NeMo 2.0 后的 {} 行", lambda: [_n("dgxc2025")]),
    ("en", "{} rows of NeMo's long-sequence table", lambda: [_n("long")]),
    ("zh", "NeMo 长序列表的 {} 行", lambda: [_n("long")]),
    ("en", "{} rows of Megatron-Core's 2024 H100 scaling table", lambda: [_n("mcore")]),
    ("zh", "Megatron-Core 2024 年在 H100 上的扩展表里的 {} 行", lambda: [_n("mcore")]),
    (
        "en",
        "{} rows of Qwen3 235B-A22B on 256 H100s from the Megatron-MoE-ModelZoo (a public repository of Megatron-Core "
        "MoE benchmark configurations; bf16: {} layouts at 4K, one configuration its H100 script marks as 320 TFLOP/s, "
        "and {} long-context rows",
        lambda: [_n("zoo"), _zoo_4k_layouts(), len(MOE_ZOO_QWEN3_LONG_RUNS)],
    ),
    (
        "zh",
        "Qwen3 235B-A22B 在 256 张 H100 上的 {} 行（bf16：4K 序列的 {} 种布局、"
        "同一仓库脚本里注明 320 TFLOP/s 的一种配置，与 16K 到 128K 的 {} 行长上下文",
        lambda: [_n("zoo"), _zoo_4k_layouts(), len(MOE_ZOO_QWEN3_LONG_RUNS)],
    ),
    (
        "en",
        "{} B200 configurations: {} from Megatron-Bridge's DGX-B200 tables",
        lambda: [_n("bridge_b200") + _n("nemo_b200"), _n("bridge_b200")],
    ),
    (
        "zh",
        "B200 上的 {} 个配置：Megatron-Bridge 25.09 与 25.11 两版 DGX-B200 表里的 {} 个",
        lambda: [_n("bridge_b200") + _n("nemo_b200"), _n("bridge_b200")],
    ),
    ("en", "the {} rows of NeMo 25.02's DGX-B200 table", lambda: [_n("nemo_b200")]),
    ("zh", "NeMo 25.02 的 DGX-B200 表的 {} 行", lambda: [_n("nemo_b200")]),
    ("en", "the {} rows of NeMo 24.07's fine-tuning table", lambda: [_n("finetune")]),
    ("zh", "NeMo 24.07 微调表的 {} 行", lambda: [_n("finetune")]),
    ("en", "and {} GB200 NVL72 configurations", lambda: [_n("gb200")]),
    ("zh", "以及 GB200 NVL72 上的 {} 个配置", lambda: [_n("gb200")]),
]


@pytest.mark.parametrize(("lang", "template", "counts"), SECTION8, ids=[f"{r[0]}:{r[1][:40]}" for r in SECTION8])
def test_section8_counts_the_registered_runs(lang: str, template: str, counts: Callable[[], list[int]]) -> None:
    # the English prose spells its counts ("twenty-four H100 configurations"), the Chinese writes digits
    shown = [_words(n) if lang == "en" else str(n) for n in counts()]
    phrase = template.format(*shown)
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- the lesson 9 guides: the vendor-table rows ------------------------------------------------------------------


@cache
def _vendor_tally() -> dict[str, str]:
    """Of the vendor-table rows: how many, the dense ones and how many pass, the one dense miss (its model, rank and
    step over the best estimate), the MoE ones and how many miss."""
    rows = [_c(name) for name in _vendor_rows()]
    dense = [c for c in rows if "(MoE)" not in c.name]
    moe = [c for c in rows if "(MoE)" in c.name]
    misses = [c for c in dense if not c.passes]
    assert len(misses) == 1, [c.name for c in misses]
    miss = misses[0]
    model = re.match(r"NeMo (.+?), ", miss.name)
    assert model is not None and miss.step_over_best is not None
    return {
        "rows": str(len(rows)),
        "dense": str(len(dense)),
        "dense_pass": str(sum(c.passes for c in dense)),
        "miss": model.group(1),
        "rank": str(miss.rank),
        "over": _x(miss.step_over_best),
        "moe": str(len(moe)),
        "moe_miss": str(sum(not c.passes for c in moe)),
    }


VENDOR: list[tuple[str, str]] = [
    ("en", "{rows} H100 configurations at FP8 from NVIDIA's whole NeMo 24.07 table"),
    ("zh", "Megatron-Bridge 25.09 到 26.04 各版表格里的 {rows} 个 H100 配置（FP8）"),
    ("en", "{dense_pass} of the {dense} dense rows pass; {miss} misses (rank {rank}, {over}x the best)"),
    ("zh", "{dense} 个稠密配置通过 {dense_pass} 个；{miss} 没通过（第 {rank} 名，最优的 {over} 倍）"),
    ("en", "{moe_miss_word} of the {moe_word} MoE rows miss"),
    ("zh", "{moe} 个 MoE 配置有 {moe_miss} 个没通过"),
]


@pytest.mark.parametrize(("lang", "template"), VENDOR, ids=[f"{r[0]}:{r[1][:40]}" for r in VENDOR])
def test_vendor_table_rows_in_the_guides_are_coursekits(lang: str, template: str) -> None:
    tally = dict(_vendor_tally())
    tally["moe_word"] = _words(int(tally["moe"]))
    tally["moe_miss_word"] = _words(int(tally["moe_miss"])).capitalize()
    phrase = template.format(**tally)
    assert phrase in _guide(lang), f"{lang}/09_workbench.md does not say: {phrase!r}"


# ---- the lesson 9 guides: how many runs order two layouts 2 % apart ---------------------------------------------

#: The question's gap between two layouts, in percent (an input of the question).
GAP_PERCENT = 2.0


def _runs_needed(spreads: int) -> int:
    """The fewest runs n of each layout for which ``spreads`` standard deviations of the difference of the two n-run
    means fit in the gap: two runs of one configuration differ by MEASUREMENT_REPEATABILITY / 2 root-mean-square, so
    the difference of two n-run means has that over √n."""
    rms = 100 * MEASUREMENT_REPEATABILITY / 2
    return math.ceil((spreads * rms / GAP_PERCENT) ** 2 - 1e-9)


def test_runs_needed_by_hand() -> None:
    # at 2.23 % (NeMo 24.07's two publications): 2 x 2.23 / √5 = 1.99 % fits in 2 %, √4 does not; 3 x 2.23 / √12 =
    # 1.93 % fits, √11 gives 2.02 % and does not
    assert f"{100 * MEASUREMENT_REPEATABILITY / 2:.2f}" == "2.23"
    assert (_runs_needed(2), _runs_needed(3)) == (5, 12)


@pytest.mark.parametrize(
    ("lang", "template"),
    [
        ("en", "about {} runs of each separate 2 % at two spreads, about {} at three."),
        ("zh", "各跑约 {} 次能在两倍离散上分出 2%，三倍离散要各跑约 {} 次。"),
    ],
)
def test_repeatability_answer_is_the_arithmetic(lang: str, template: str) -> None:
    # the guides said "about 11" at three spreads: 11 runs leave 3 spreads at 2.02 %, over the 2 % gap
    phrase = template.format(_runs_needed(2), _runs_needed(3))
    assert phrase in _guide(lang), f"{lang}/09_workbench.md does not say: {phrase!r}"


# ---- MosaicML's held-out H100 rows (lesson 9's attention-kernel note and its guides) ----------------------------


def _mosaic() -> dict[str, str]:
    tally = mosaicml_h100_tally()
    largest = max(tally.miss_sizes, key=lambda size: float(size[:-1]) * (1e3 if size.endswith("b") else 1))
    assert largest.endswith("b")
    return {
        "rows": str(tally.rows),
        "pass": str(tally.passes_default),
        "charged": str(tally.passes_charged),
        "misses": str(tally.misses),
        "long": str(tally.misses_8k_or_more),
        "largest": largest[:-1].upper(),
        "worst": f"{tally.worst_over_published:.1f}",
    }


MOSAIC: list[tuple[str, str, str]] = [
    (
        "lesson",
        "en",
        "{rows} H100 rows, {pass} pass at the default kernel; the {misses} others are all models of {largest}B "
        "parameters or fewer, {long} of them at 8K tokens or more, estimated up to {worst} times too fast. Charged at "
        "FlashAttention-2, all {charged} pass.",
    ),
    (
        "lesson",
        "zh",
        "{rows} 行 H100 里，按默认内核通过 {pass} 行；没通过的 {misses} 行都是 {largest}B 及以下的模型，"
        "其中 {long} 行的序列在 8K 及以上，估算快了最多 {worst} 倍； 按 FlashAttention-2 计，{charged} 行都通过。",
    ),
    (
        "guide",
        "en",
        "{pass} of {rows} rows pass at the default, all {charged} at FlashAttention-2; the {misses} misses were small "
        "models, {long} of them at 8K tokens or more.",
    ),
    (
        "guide",
        "zh",
        "{rows} 行里通过 {pass} 行，按 FlashAttention-2 计 {charged} 行都通过；没通过的 {misses} 行都是小模型，"
        "其中 {long} 行的序列在 8K 及以上。",
    ),
]


@pytest.mark.parametrize(("where", "lang", "template"), MOSAIC, ids=[f"{r[0]}:{r[1]}" for r in MOSAIC])
def test_mosaicml_figures_are_the_held_out_reports(where: str, lang: str, template: str) -> None:
    phrase = template.format(**_mosaic())
    text = _lesson(lang) if where == "lesson" else _guide(lang)
    assert phrase in text, f"{where} 9 ({lang}) does not say: {phrase!r}"


# ---- timing tables ----------------------------------------------------------------------------------------------

_LESSON_TIME = {
    "zh": re.compile(r"> \*\*时间：\*\* 约 (\d+) 分钟"),
    "en": re.compile(r"> \*\*Time:\*\* about (\d+) min"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_every_lesson_has_a_guide_whose_timing_table_adds_up_to_the_lessons_time(lang: str) -> None:
    # tests/test_instructor_guides.py adds up the tables of the guides it finds; this also requires one guide per
    # lesson source in each language and ties its table to the time the lesson itself states
    for source in sorted(SRC.glob("[0-9][0-9]_*.py")):
        guide = GUIDES / lang / f"{source.stem}.md"
        assert guide.exists(), f"no {lang} guide for {source.name}"
        stated = _LESSON_TIME[lang].search(source.read_text(encoding="utf-8"))
        assert stated, f"{source.name}: no {lang} time line"
        lines = guide.read_text(encoding="utf-8").splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("| ") and re.search("Minutes|分钟", line))
        minutes = []
        for line in lines[header + 2 :]:
            if not line.startswith("| "):
                break
            minutes.append(int(line.split(" | ")[1]))
        assert sum(minutes) == int(stated.group(1)), (lang, source.stem, minutes, stated.group(1))


# ---- zh and en state the same numbers ----------------------------------------------------------------------------

_WORD_NUMBERS = {_words(n): n for n in range(11, 100)}
_WORD = re.compile(r"\b(" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True)) + r")\b", re.I)


def _numbers(text: str) -> Counter[str]:
    """The numbers a text states, as the comparison reads them: "1,024" as 1024; an English count spelled out above
    ten ("twenty-four", "Twelve") as its digits; integers up to 10 left out, since each language spells small counts
    out in its own places ("two runs" / "跑两次", "one layer" / "1 层", "twice" / "2 倍") and numbers its lists."""
    text = _WORD.sub(lambda found: str(_WORD_NUMBERS[found.group(1).lower()]), text)
    found = (re.sub(r"(?<=\d),(?=\d{3}\b)", "", number) for number in NUMBER.findall(text))
    return Counter(number for number in found if not (number.isdigit() and int(number) <= 10))


def test_number_reader_by_hand() -> None:
    text = "Twelve rows, 1,024 GPUs, 2 runs, 17.6 s and twenty-four H100s; 1.2e-3 and 10 and 11"
    assert _numbers(text) == Counter(["12", "1024", "17.6", "24", "1.2e-3", "11"])


#: Numbers one language states and the other does not, where the difference is only in the writing: (lesson source
#: stem or guide file, the language that has the number, the number). Each entry excuses one occurrence.
WRITTEN_DIFFERENTLY: list[tuple[str, str, str]] = [
    # Chinese counts large quantities in 万 (10^4) and 亿 (10^8), English in million, billion and k:
    ("05_selection_matrix", "zh", "70"),  # 70 亿参数 = a 7-billion-parameter model
    ("05_selection_matrix", "zh", "4000"),  # 4000 万个可训练参数 = 40 million trainable parameters
    ("05_selection_matrix", "en", "40"),
    ("06_pipeline_scaling", "zh", "7.6"),  # 7.6 亿参数 = a 760-million-parameter model
    ("06_pipeline_scaling", "en", "760"),
    ("06_pipeline_scaling", "zh", "70"),  # 70 亿参数 = a 7-billion-parameter model
    ("09_workbench", "zh", "4000"),  # max(4000 万, 100 万 × dp·cp) = max(40M, 1M × dp·cp)
    ("09_workbench", "zh", "100"),
    ("09_workbench", "en", "40"),
    ("09_workbench", "zh", "284"),  # 284 亿专家参数 = 28.4 billion expert parameters
    ("09_workbench", "en", "28.4"),
    ("09_workbench", "zh", "12.8"),  # 12.8 万词表 = the 128K vocabulary
    ("09_workbench", "en", "128"),
    ("09_workbench", "zh", "25"),  # 25 万词表 = a 250k vocabulary
    ("09_workbench", "en", "250"),
    ("10_serving", "zh", "129"),  # 129 亿，而不是全部 467 亿 = 12.9 billion, not all 46.7 billion
    ("10_serving", "zh", "467"),
    ("10_serving", "en", "12.9"),
    ("10_serving", "en", "46.7"),
    # Chinese writes a rough share in 成 (tenths): 七成左右 = about 70 %, 八成 = about 0.8
    ("10_serving", "en", "70"),
    ("10_serving", "en", "0.8"),
    # one language repeats a figure the other says once ("±20 % ... less than 20 %" against "±20 % ... by less than
    # that"; the Chinese repeats the tied 17.6 s where the English says "tied it"; "June 2025" against "2025 年 6 月"
    # once more in the English; Chinese says 16 again for the best layout's EP where the English says "runs EP 16" once)
    ("09_workbench", "zh", "20"),  # section 2, tie groups
    ("09_workbench", "zh", "20"),  # section 8, "Can the estimate order two measured layouts?"
    ("09_workbench", "zh", "17.6"),
    ("09_workbench", "en", "2025"),
    ("09_workbench", "zh", "16"),
    ("09_workbench.md", "zh", "20"),  # talking points: the Grok-1 rows "在 20% 以内 ... 超出 20%"
    ("09_workbench.md", "zh", "4.5"),  # talking points: "4.5% 是它的两倍" after "相差不到 4.5%"
    ("10_serving.md", "en", "70"),  # talking points: "Llama-3 70B" named once more in the English
]


def _differences() -> Counter[tuple[str, str, str]]:
    """Every number of a zh cell or guide section that its en twin lacks, and the other way round, counted."""
    found: Counter[tuple[str, str, str]] = Counter()

    def compare(where: str, zh: str, en: str) -> None:
        zh_numbers, en_numbers = _numbers(zh), _numbers(en)
        for lang, extra in (("zh", zh_numbers - en_numbers), ("en", en_numbers - zh_numbers)):
            for number, count in extra.items():
                found[(where, lang, number)] += count

    for source in sorted(SRC.glob("[0-9][0-9]_*.py")):
        for zh, en in _markdown_pairs(source.stem):
            compare(source.stem, zh, en)
    for en_guide in sorted((GUIDES / "en").glob("[0-9][0-9]_*.md")):
        zh_sections = re.split(r"(?m)^## ", (GUIDES / "zh" / en_guide.name).read_text(encoding="utf-8"))
        en_sections = re.split(r"(?m)^## ", en_guide.read_text(encoding="utf-8"))
        assert len(zh_sections) == len(en_sections), f"{en_guide.name}: the zh and en guides differ in sections"
        for zh, en in zip(zh_sections, en_sections, strict=True):
            compare(en_guide.name, zh, en)
    return found


def test_zh_and_en_state_the_same_numbers() -> None:
    # a figure updated in one language only shows up here as a number the other lacks; the list above names every
    # difference that is only in the writing, and an entry no longer needed fails too
    found = _differences()
    allowed = Counter(WRITTEN_DIFFERENTLY)
    assert dict(found - allowed) == {}, "numbers in one language only"
    assert dict(allowed - found) == {}, "allow-list entries that no longer apply"


# ---- lesson 9, section 8: the paragraphs on single published runs ----------------------------------------------


def _best(name: str) -> tuple[dict[str, int], object]:
    """The best estimate's degrees and its explained candidate, for published run ``name``."""
    result, _ = _explained(name)
    best = _c(name).best_layout
    return _degrees(best), result.explain(best)


def _comm_s(candidate: object, dimension: str) -> float:
    return float({row.dimension: row.time_s for row in candidate.communication}[dimension])  # type: ignore[attr-defined]


def _pct_behind(name: str) -> str:
    c = _c(name)
    assert c.step_over_best is not None
    return str(round(100 * (c.step_over_best - 1)))


def _fraction(value: float) -> str:
    found = Fraction(value).limit_denominator(1000)
    return f"{found.numerator}/{found.denominator}"


def _mcore70() -> dict[str, str]:
    c = _c(MEGATRON_70B)
    degrees, best = _best(MEGATRON_70B)
    assert degrees["pp"] == 1
    return {
        "tp": str(degrees["tp"]),
        "dp": str(degrees["dp"]),
        "mb": str(degrees["mb"]),
        "gib": f"{best.memory.total_gib:.1f}",  # type: ignore[attr-defined]
        "behind": _pct_behind(MEGATRON_70B),
        "rank": str(c.rank),
        "over": _x(c.estimated_over_published),
    }


GPT119 = "Megatron-Core GPT 119B, 4K, 1536 H100"


def _gpt119() -> dict[str, str]:
    """The 119B row: its bubble at 1F1B and at the published v = 23 (lesson 6's formula, the run's micro-batches), its
    rank, step over the best and estimated over measured throughput."""
    from coursekit import bubble_fraction

    c = _c(GPT119)
    explained = _explained(GPT119)[1]
    degrees = _degrees(c.layout)
    pp, v, m = degrees["pp"], degrees["v"], explained.grad_accum
    return {
        "v": str(v),
        "one_f_one_b": _fraction(bubble_fraction(pp, m)),
        "interleaved": _fraction(bubble_fraction(pp, m, v)),
        "rank": str(c.rank),
        "within": f"{math.ceil(100 * c.step_over_best) / 100:.2f}",  # type: ignore[operator]  # a bound: rounded up
        "over": _x(c.estimated_over_published),
    }


MIXTRAL = "Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100"


def _mixtral() -> dict[str, str]:
    c = _c(MIXTRAL)
    return {
        "rank": str(c.rank),
        "group": str(c.tie_group),
        "behind": _pct_behind(MIXTRAL),
        "over": _x(c.estimated_over_published),
        "measured": f"{c.published:g}",
    }


NEMOTRON22 = "NeMo Nemotron-3 22B, 4K, 64 H100 (FP8)"
GROK = "DGX Cloud Grok-1 314B (MoE), 8K, 512 H100 ({})"
DGXC_DSV3 = "DGX Cloud DeepSeek-V3 (MoE), 4K, 1024 H100 (BF16)"
LLAMA70_BF16 = "DGX Cloud Llama 3.1 70B, 8K, 64 H100 (BF16)"
GPT3_20B = "NeMo GPT-3 20B, 2K, 64 H100 (FP8)"
QWEN30_EP16 = "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, EP 16)"


@cache
def _runs() -> dict[str, str]:
    """The rank, tie group, step over the best (x and % longer) and estimated ÷ measured throughput of single rows."""
    out: dict[str, str] = {}
    for key, name in (
        ("n22", NEMOTRON22),
        ("grok8", GROK.format("FP8")),
        ("grok16", GROK.format("BF16")),
        ("dsv3", DGXC_DSV3),
        ("l70", LLAMA70_BF16),
        ("g20", GPT3_20B),
        ("q30", QWEN30_EP16),
    ):
        c = _c(name)
        out |= {
            f"{key}_rank": str(c.rank),
            f"{key}_group": str(c.tie_group),
            f"{key}_x": _x(c.step_over_best),
            f"{key}_x3": _x(c.step_over_best, 3),
            f"{key}_pct": _pct_behind(name),
            f"{key}_over": _x(c.estimated_over_published),
        }
    n22, _ = _best(NEMOTRON22)
    out |= {"n22_tp": str(n22["tp"]), "n22_dp": str(n22["dp"]), "n22_zero": str(n22["zero"])}
    dsv3, dsv3_best = _best(DGXC_DSV3)
    out |= {f"dsv3_{k}": str(dsv3[k]) for k in ("tp", "pp", "ep")}
    out["dsv3_gib"] = f"{dsv3_best.memory.total_gib:.1f}"  # type: ignore[attr-defined]
    out["dsv3_best_a2a"] = f"{_comm_s(dsv3_best, 'EP'):.1f}"
    out["dsv3_a2a"] = f"{_comm_s(_explained(DGXC_DSV3)[1], 'EP'):.1f}"
    # the row's config runs ZeRO-1 (the distributed optimizer) at micro-batch 2, as tests/test_lesson9_published_runs.py
    gpt20 = _explained(GPT3_20B)[0].explain("tp=2,pp=1,dp=32,zero=1,mb=2,recompute=none")
    out["g20_dp"] = f"{_comm_s(gpt20, 'DP'):.2f}"
    out["q30_a2a"] = f"{_comm_s(_explained(QWEN30_EP16)[1], 'EP'):.1f}"
    l70, _ = _best(LLAMA70_BF16)
    assert l70["pp"] == 1
    out |= {f"l70_{k}": str(l70[k]) for k in ("tp", "cp", "dp")}
    return out


#: (lang, phrase template of lesson 9, its values): the named fields of the dict the function returns.
SINGLE_RUNS: list[tuple[str, str, Callable[[], dict[str, str]]]] = [
    (
        "en",
        "the best estimate drops the pipeline (TP {tp}, DP {dp}, micro-batch {mb}, which the ledger lets fit at {gib} "
        "GiB) and with it the bubble; the published layout's step is {behind} % longer, rank {rank}, at {over}x the "
        "measured throughput",
        _mcore70,
    ),
    (
        "zh",
        "估算最优不切流水线（TP {tp}、 DP {dp}、微批次 {mb}，账本说放得下，{gib} GiB），省掉了气泡；"
        "发表的布局步时比它长 "
        "{behind}%，排第 {rank} 名，吞吐是实测的 {over} 倍",
        _mcore70,
    ),
    (
        "en",
        "with a bubble of {one_f_one_b} of the step, so when no v within the bound splits the stages it tries the "
        "smallest v that does, and at v = {v} the bubble falls to {interleaved} and the published layout "
        "ranks {rank}nd, its "
        "step within {within}x of the best estimate ({over}x the measured throughput)",
        _gpt119,
    ),
    (
        "zh",
        "气泡占步时的 {one_f_one_b}；所以上限以内没有能整除的 v 时，搜索会试能整除的最小 v，v = {v} "
        "的气泡降到 {interleaved}， "
        "发表的布局排第 {rank}，步时在估算最优的 {within} 倍以内（吞吐是实测的 {over} 倍）",
        _gpt119,
    ),
    (
        "en",
        "passes too: rank {rank} (tie group {group}), its step within {behind}% of the best estimate, its estimated "
        "throughput {over}x the measured {measured} TFLOP/s",
        _mixtral,
    ),
    (
        "zh",
        "也通过：名次第 {rank} （第 {group} 并列组），步时比估算最优只慢 {behind}%，估算吞吐是实测 "
        "{measured} TFLOP/s 的 "
        "{over} 倍",
        _mixtral,
    ),
    (
        "en",
        "the best estimate is TP {n22_tp}, DP {n22_dp}, ZeRO-{n22_zero}, and the published layout is {n22_x}x slower, "
        "rank {n22_rank}.",
        _runs,
    ),
    (
        "zh",
        "估算最优是 TP {n22_tp}、DP {n22_dp}、ZeRO-{n22_zero}，发表的布局慢 {n22_x} 倍，排第 {n22_rank} 名。",
        _runs,
    ),
    (
        "en",
        "the same layout is {grok8_pct} % longer in FP8, beyond 20 %, so in tie group {grok8_group} (rank "
        "{grok8_rank}), "
        "at {grok8_over}x the measured throughput",
        _runs,
    ),
    (
        "zh",
        "FP8 时估算步时长 {grok8_pct}%，超出了 20%，在第 {grok8_group} 并列组（第 {grok8_rank} 名）， 吞吐是实测的 "
        "{grok8_over} 倍",
        _runs,
    ),
    (
        "en",
        "the published layout's estimated step is {grok16_pct} % longer, rank {grok16_rank}, at {grok16_over}x",
        _runs,
    ),
    ("zh", "发表布局的估算步时 长 {grok16_pct}%，排第 {grok16_rank} 名，吞吐是实测的 {grok16_over} 倍", _runs),
    (
        "en",
        "The estimated throughput is {dsv3_over}x the measured, so the layout itself is estimated well; what misses is "
        "the rank. EP 64 spans 8 nodes, and {dsv3_a2a} s of",
        _runs,
    ),
    (
        "zh",
        "估算吞吐是实测的 {dsv3_over} 倍，这个布局 本身估得准；没通过的是名次：EP 64 跨 8 个节点，每步 {dsv3_a2a} s",
        _runs,
    ),
    (
        "en",
        "The best estimate (TP {dsv3_tp}, PP {dsv3_pp}, EP {dsv3_ep}, {dsv3_gib} GiB) keeps the all-to-all "
        "inside a node "
        "({dsv3_best_a2a} s); the published layout is {dsv3_x}x of it, rank {dsv3_rank}, tie group {dsv3_group}.",
        _runs,
    ),
    (
        "zh",
        "估算最优（TP {dsv3_tp}、PP {dsv3_pp}、EP {dsv3_ep}，{dsv3_gib} GiB）让全对全留在节点内（{dsv3_best_a2a} s），"
        "发表的布局是它的 {dsv3_x} 倍， 第 {dsv3_rank} 名，在第 {dsv3_group} 并列组。",
        _runs,
    ),
    (
        "en",
        "{l70_x3}x the best estimate (TP {l70_tp}, CP {l70_cp}, DP {l70_dp}, no pipeline), rank {l70_rank}.",
        _runs,
    ),
    (
        "zh",
        "步时是估算最优 （TP {l70_tp}、CP {l70_cp}、DP {l70_dp}，不切流水线）的 {l70_x3} 倍，排第 {l70_rank} 名。",
        _runs,
    ),
    ("en", "its DP traffic drops to {g20_dp} s and hides entirely under one", _runs),
    ("zh", "DP 通信降到 {g20_dp} s，全藏在一个", _runs),
    ("en", "micro-batch, {g20_over}x the measured throughput.", _runs),
    ("zh", "微批次之下，估算吞吐是实测的 {g20_over} 倍。", _runs),
    (
        "en",
        "passes too: its estimated throughput is {q30_over}x the measured; EP 16 spans 2 nodes and its "
        "all-to-all takes "
        "{q30_a2a} s",
        _runs,
    ),
    ("zh", "也通过：估算吞吐是实测的 {q30_over} 倍；EP 16 跨 2 个节点， 全对全通信占了 {q30_a2a} s", _runs),
    ("en", "and the published layout is {q30_x}x of them.", _runs),
    ("zh", "发表的布局是它们的 {q30_x} 倍。", _runs),
]


@pytest.mark.parametrize(("lang", "template", "values"), SINGLE_RUNS, ids=[f"{r[0]}:{r[1][:40]}" for r in SINGLE_RUNS])
def test_lesson9_single_run_figures_are_coursekits(
    lang: str, template: str, values: Callable[[], dict[str, str]]
) -> None:
    phrase = template.format(**values())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


def test_lesson9_deepseek_v3_bridge_best_and_counterfactual() -> None:
    # the guide's phrases for Megatron-Bridge's DeepSeek-V3 (tests/test_instructor_published_runs.py), in the lesson
    en, zh = _lesson("en"), _lesson("zh")
    assert _dsv3_bridge_best("cuts EP from {0} to {1} ({5} GiB)") in en
    assert _dsv3_bridge_best("只把 EP 从 {0} 降到 {1}（{5} GiB）") in zh
    c = _c(DSV3_BRIDGE)
    assert f"is {_x(c.step_over_best)}x of it, rank {c.rank}, tie group {c.tie_group}" in en
    assert _dsv3_bridge_symmetric_quote("the slowest: {}x the best, rank {}") in en


@cache
def _dsv3_bridge_figures() -> dict[str, str]:
    """Megatron-Bridge's DeepSeek-V3 at its published layout: memory, and with the combine keeping its outputs (GiB);
    the estimated and the measured step, estimated over measured throughput, and the step without the MTP module."""
    import dataclasses

    from coursekit.planner import plan

    run = next(run for run in all_published_runs() if run.name == DSV3_BRIDGE)
    result, published = _explained(DSV3_BRIDGE)
    kept = plan(run.model_spec(), run.cluster_spec(), dataclasses.replace(result.workload, moe_probs_in_experts=False))
    no_mtp = plan(dataclasses.replace(run.model_spec(), mtp_layers=0), run.cluster_spec(), result.workload)
    measured_s = run.global_batch * run.seq_len / (run.measured_tokens_per_gpu_s * run.gpus)
    return {
        "gib": f"{published.memory.total_gib:.1f}",
        "kept": f"{kept.explain(published.label()).memory.total_gib:.1f}",
        "step": f"{published.step_s:.1f}",
        "measured": f"{measured_s:.1f}",
        "over": _x(_c(DSV3_BRIDGE).estimated_over_published),
        "no_mtp": f"{no_mtp.explain(published.label()).step_s:.1f}",
    }


@pytest.mark.parametrize(
    ("lang", "template"),
    [
        ("en", "the published v = 4 fits ({gib} GiB; {kept} GiB if the outputs were kept)"),
        ("zh", "发表的 v = 4 放得下 （{gib} GiB；若保存专家输出是 {kept} GiB）"),
        (
            "en",
            "the estimated step is {step} s against the measured {measured} s ({over}x the measured throughput); "
            "without "
            "the MTP module it would be {no_mtp} s",
        ),
        ("zh", "估算步时 {step} s，实测 {measured} s（估算吞吐是实测的 {over} 倍）；不算 MTP 模块是 {no_mtp} s"),
    ],
)
def test_lesson9_deepseek_v3_bridge_figures(lang: str, template: str) -> None:
    phrase = template.format(**_dsv3_bridge_figures())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- lesson 9, sections 2 and 6: tie groups, TP's exposed share, TP across nodes ---------------------------------


@cache
def _tie_figures() -> dict[str, str]:
    """The tie rule (MODEL_UNCERTAINTY), the one pair measured even (estimated apart), the bandwidth scenario's cut,
    the unseparated threshold, the repeatability (its re-measured rows, their root-mean-square and twice that)."""
    from coursekit.planner import MODEL_UNCERTAINTY
    from coursekit.planner.calibration import ASSUMPTION_UNCERTAINTY, REMEASURED_RUNS
    from coursekit.planner.ties import SAME_ESTIMATE
    from tests.test_instructor_published_runs import _even_pair_apart

    return {
        "u": f"{100 * MODEL_UNCERTAINTY:g}",
        "group": f"{1 + MODEL_UNCERTAINTY:g}",
        "even": str(round(100 * (float(_even_pair_apart()) - 1))),
        "bw": f"{100 * ASSUMPTION_UNCERTAINTY['bandwidth']:g}",
        "same": f"{100 * SAME_ESTIMATE:g}",
        "rows": str(len(REMEASURED_RUNS)),
        "rms": f"{100 * MEASUREMENT_REPEATABILITY / 2:.2f}",
        "rep": f"{100 * MEASUREMENT_REPEATABILITY:.1f}",
    }


def _tp_figures() -> dict[str, str]:
    """TP's exposed share with the communication-GEMM overlap, and an H100 node's NVLink over its network per GPU."""
    from coursekit.presets import CLUSTERS
    from coursekit.specs import TP_COMM_OVERLAP_ON

    h100 = CLUSTERS["h100-8"]
    intra, inter = h100.intra_node_bandwidth_bytes_per_s, h100.inter_node_bandwidth_bytes_per_s
    return {
        "exposed": _fraction(1 - TP_COMM_OVERLAP_ON),
        "intra": f"{intra / 1e9:g}",
        "inter": f"{inter / 1e9:g}",
        "slower": f"{intra / inter:g}",
    }


TIES: list[tuple[str, str, Callable[[], dict[str, str]]]] = [
    (
        "en",
        "off from the measurement by up to about ±{u} % (`MODEL_UNCERTAINTY`). Candidates whose estimates differ "
        "by less than {u} % are not ordered",
        _tie_figures,
    ),
    ("zh", "它和实测最多差约 ±{u}%（`MODEL_UNCERTAINTY`）。估算相差不到 {u}% 的候选", _tie_figures),
    ("en", "every candidate estimated within {group} times its step is in group 1", _tie_figures),
    ("zh", "凡估算在它 {group} 倍以内的都归入第 1 组", _tie_figures),
    ("en", "(one pair measured equally fast, estimated {even} % apart)", _tie_figures),
    ("zh", "（有一对实测一样快，估算却差 {even}%）", _tie_figures),
    ("en", "intra- or inter-node bandwidth {bw} % lower", _tie_figures),
    ("zh", "节点内或跨节点带宽低 {bw}%", _tie_figures),
    ("en", "members whose estimates stay within {same} % under all of these", _tie_figures),
    ("zh", "在所有这些假设下估算都相差不到 {same}% 的", _tie_figures),
    (
        "en",
        "within {rep} % of the fastest, that is the measurement repeatability (`MEASUREMENT_REPEATABILITY`) — NVIDIA "
        "published its NeMo 24.07 performance table twice, each of its {rows} rows measured anew, and two measurements "
        "of one configuration differ by {rms} % root-mean-square, twice that being {rep} %",
        _tie_figures,
    ),
    (
        "zh",
        "NVIDIA 把 NeMo 24.07 的性能表发表过两次，{rows} 行每行都重测了一遍，同一配置的两次实测相差的均方根 "
        "(root-mean-square) 是 {rms}%， 两倍是 {rep}%",
        _tie_figures,
    ),
    ("en", "a quarter of 2 of the 8, {exposed}.", _tp_figures),
    ("zh", "8 次中的 2 次、各 1/4，即 {exposed}。", _tp_figures),
    (
        "en",
        "NVLink gives {intra} GB/s each way inside a node, the network {inter} GB/s per GPU each way: a TP group that "
        "leaves the node makes these about {slower}x slower",
        _tp_figures,
    ),
    (
        "zh",
        "节点内 NVLink 单向 {intra} GB/s，跨节点每 GPU 单向 {inter} GB/s：TP 组一旦跨节点，这些通信慢约 {slower} 倍",
        _tp_figures,
    ),
]


@pytest.mark.parametrize(("lang", "template", "values"), TIES, ids=[f"{r[0]}:{r[1][:40]}" for r in TIES])
def test_lesson9_tie_and_tp_figures_are_coursekits(
    lang: str, template: str, values: Callable[[], dict[str, str]]
) -> None:
    phrase = template.format(**values())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- lesson 9, section 8: efficiency across GPU generations, B200, GB200 and a newer release --------------------


@cache
def _generations() -> dict[str, str]:
    from coursekit.hardware import A100_BF16_DENSE_FLOPS, B200_BF16_DENSE_FLOPS, H100_BF16_DENSE_FLOPS
    from coursekit.planner.calibration import FP8_MAMF_RATIO, FP8_MATMUL_SHARE, fp8_share_for, matmul_fraction
    from coursekit.published_runs import MEGATRON_BRIDGE_GB200_RUNS as GB200
    from tests.test_instructor_published_runs import _b200, _b200_split, _gpt3_h100

    b200_rows, b200_low, b200_high = _b200()
    bridge_high, nemo_low = _b200_split()
    gained, estimated_gain, old, new = _gpt3_h100()
    gb200 = [_c(run.name) for run in GB200]
    assert all(c.passes for c in gb200)
    gb200_over = [c.estimated_over_published for c in gb200]
    new_row, old_row = _c("NeMo 25.02 GPT-3 175B, 2K, 512 H100 (FP8)"), _c("NeMo GPT-3 175B, 2K, 512 H100 (FP8)")
    return {
        "a100": f"{100 * matmul_fraction(A100_BF16_DENSE_FLOPS):.1f}",
        "h100": f"{100 * matmul_fraction(H100_BF16_DENSE_FLOPS):.1f}",
        "b200": f"{100 * matmul_fraction(B200_BF16_DENSE_FLOPS):.1f}",
        "fp8": f"{FP8_MATMUL_SHARE:.3f}",
        "h100_ratio": f"{FP8_MAMF_RATIO[H100_BF16_DENSE_FLOPS]:.3f}",
        "b200_ratio": f"{FP8_MAMF_RATIO[B200_BF16_DENSE_FLOPS]:.3f}",
        "b200_fp8": f"{fp8_share_for(B200_BF16_DENSE_FLOPS):.3f}",
        "b200_n": str(b200_rows),
        "b200_n_word": _words(b200_rows),
        "b200_low": b200_low,
        "b200_high": b200_high,
        "bridge_high": bridge_high,
        "nemo_low": nemo_low,
        "new": f"{new_row.published:g}",
        "old": f"{old_row.published:g}",
        "gained": str(gained),
        "est_gain": str(estimated_gain),
        "old_over": old,
        "new_over": new,
        "gb200_n": str(len(gb200)),
        "gb200_n_word": _words(len(gb200)),
        "gb200_low": _x(min(gb200_over)),  # type: ignore[type-var]
        "gb200_high": _x(max(gb200_over)),  # type: ignore[type-var]
    }


GENERATIONS: list[tuple[str, str]] = [
    ("en", "(A100 {a100} %, H100 {h100} %, B200 {b200} %,"),
    ("zh", "（A100 {a100}%，H100 {h100}%，B200 {b200}%，"),
    ("en", "the FP8 matmul share fitted on H100 ({fp8}, below)"),
    ("zh", "在 H100 上标定的 FP8 矩阵乘份额（{fp8}，见后文）"),
    ("en", "(H100 {h100_ratio}, B200 {b200_ratio}: Hopper's FP8 matmuls stay further from their peak)"),
    ("en", "which gives {b200_fp8} on a B200."),
    ("zh", "（H100 是 {h100_ratio}，B200 是 {b200_ratio}：Hopper 的 FP8 矩阵乘离峰值更远）， B200 上是 {b200_fp8}。"),
    (
        "en",
        "The {b200_n_word} B200 rows were registered without changing any constant for them: all {b200_n_word} pass, "
        "with estimated throughput {b200_low} to {b200_high} of the measured. Megatron-Bridge's four rows reach at "
        "most {bridge_high}, NeMo's eight between {nemo_low} and {b200_high}",
    ),
    (
        "zh",
        "B200 的 {b200_n} 行 登记时没有为它们调任何常数：{b200_n} 行全部通过，估算吞吐是实测的 {b200_low} 到 "
        "{b200_high} 倍。其中 Megatron-Bridge 的 4 行最高 {bridge_high} 倍，NeMo 的 8 行在 {nemo_low} 到 "
        "{b200_high} 倍之间",
    ),
    (
        "en",
        "at {new} tokens per GPU-second, {gained} % faster than NeMo 24.07's {old} at the same scale; the estimate is "
        "{est_gain} % faster",
    ),
    ("en", "so the two rows sit at {old_over} and {new_over} of their measurements"),
    (
        "zh",
        "实测每 GPU 每秒 {new} 个 token，比 NeMo 24.07 同样规模的 {old} 个快 {gained}%；"
        "估算只因配置写明的 TP 通信重叠与 bf16 梯度快了 {est_gain}%，两行分别是实测的 {old_over} 与 {new_over} 倍",
    ),
    ("en", "all {gb200_n_word} pass, at {gb200_low} to {gb200_high} of the measured."),
    ("zh", "{gb200_n} 行都通过，是实测的 {gb200_low} 到 {gb200_high} 倍。"),
]


@pytest.mark.parametrize(("lang", "template"), GENERATIONS, ids=[f"{r[0]}:{r[1][:40]}" for r in GENERATIONS])
def test_lesson9_generation_figures_are_coursekits(lang: str, template: str) -> None:
    phrase = template.format(**_generations())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- lesson 9, section 8: DGX Cloud, Megatron-Core, Nemotron-4 340B and Qwen3 30B-A3B ------------------------------

QWEN30_RELEASE = "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, GBS 1024, {})"


@cache
def _section8_rows() -> dict[str, str]:
    """Figures the guides' tests compute (tests/test_instructor_review21.py), for the lesson's own sentences."""
    from tests.test_instructor_published_runs import QWEN30, _ordinal
    from tests.test_instructor_review21 import (
        _dgx_cloud,
        _gpt119_stages,
        _megatron_core_gpt,
        _nemotron340_gib,
        _qwen30_releases,
    )

    _, dense, r405a, r405b, behind1, behind2, rank1, rank2 = _dgx_cloud()
    fp8_gib, bf16_gib = _nemotron340_gib()
    old_over, apart = _qwen30_releases()
    old, new = _c(QWEN30_RELEASE.format("26.02")), _c(QWEN30_RELEASE.format("26.02.01"))
    qwen30 = _c(QWEN30)
    layers, pp, per_stage = _gpt119_stages()
    return {
        "dense": dense,
        "r405a": r405a,
        "r405b": r405b,
        "r405a_th": _ordinal(int(r405a)),
        "r405b_th": _ordinal(int(r405b)),
        "behind1": behind1,
        "behind2": behind2,
        "rank1": rank1,
        "rank2": rank2,
        "rank1_th": _ordinal(int(rank1)),
        "rank2_th": _ordinal(int(rank2)),
        "rep": f"{100 * MEASUREMENT_REPEATABILITY:.1f}",
        "mcore": _megatron_core_gpt()[0],
        "layers": layers,
        "pp": pp,
        "per_stage": per_stage,
        "bf16_gib": bf16_gib,
        "fp8_gib": fp8_gib,
        "old": f"{old.published:g}",
        "new": f"{new.published:g}",
        "apart": apart,
        "new_over": _x(new.estimated_over_published),
        "old_over": old_over,
        "q30_rank": str(qwen30.rank),
        "q30_group": str(qwen30.tie_group),
        "q30_best": _x(qwen30.step_over_best),
        "q30_over": _x(qwen30.estimated_over_published, 1),
    }


SECTION8_ROWS: list[tuple[str, str]] = [
    (
        "en",
        "All {dense} of the DGX Cloud recipes' dense rows pass (the two Llama 3.1 8B rows among them fit a constant; "
        "Llama 3.1 405B's two rows on 576 GPUs, TP 8, PP 9, CP 2, VP 7, rank {r405a_th} and {r405b_th}): Nemotron-4 "
        "15B's two rows (TP 4, DP 4, micro-batch 4) are only {behind1} % and {behind2} % slower than the best estimate "
        "(TP 1, DP 16, ZeRO-2) and rank {rank1_th} and {rank2_th}, in tie group 1 and within {rep} %",
    ),
    (
        "zh",
        "{dense} 行稠密配置全部通过（其中 Llama 3.1 8B 两行用来标定；Llama 3.1 405B 在 576 张卡上的两行，"
        "TP 8、PP 9、CP 2、VP 7，排第 {r405a} 和第 {r405b} 名）："
        "Nemotron-4 15B 的两行 （TP 4、DP 4、微批次 4）步时只比估算最优（TP 1、"
        "DP 16、ZeRO-2）慢 {behind1}% 和 {behind2}%，排第 {rank1} 和第 {rank2} 名，在第 1 并列组， 而且相差不到 {rep}%",
    ),
    ("en", "All {mcore} rows of Megatron-Core's scaling table pass."),
    ("zh", "{mcore} 行全部通过。"),
    ("en", "puts {layers} layers over PP {pp}, {per_stage} a stage, a prime"),
    ("zh", "的 {layers} 层分成 PP {pp}，每段 {per_stage} 层，是质数"),
    (
        "en",
        "counting every saved activation at 16 bits puts the interleaved schedule (v = 12) without recomputation at "
        "{bf16_gib} GiB, over 80 GiB; counted in FP8 it is {fp8_gib} GiB",
    ),
    (
        "zh",
        "若把保存的激活都按 16 位记，交错调度 (v = 12) 不重计算要 {bf16_gib} GiB，"
        "放不进 80 GiB；按 FP8 记是 {fp8_gib} GiB",
    ),
    (
        "en",
        "measured {old} tokens per GPU-second, and the same config in the 26.02.01 patch release {new}, {apart}x more; "
        "the estimate lands on the latter ({new_over}x, that row passes) and is {old_over}x the former",
    ),
    (
        "zh",
        "实测每 GPU 每秒 {old} 个 token， 同一配置在 26.02.01 补丁版是 {new} 个，快 {apart} 倍；估算正好落在后者上"
        "（{new_over} 倍，这一行通过），是前者的 {old_over} 倍",
    ),
    (
        "en",
        "rank {q30_rank} (tie group {q30_group}) and {q30_best}x the best (TP 1, DP 16, EP 4 without a pipeline, its "
        "gradient rings crossing the 2 nodes on 8 NICs each), but the estimated throughput is about {q30_over} times "
        "the measured one",
    ),
    (
        "zh",
        "名次第 {q30_rank}（第 {q30_group} 并列组）、是最优的 {q30_best} 倍（最优是 TP 1、DP 16、EP 4、不切流水线， "
        "梯度环跨 2 个节点、每节点用 8 块网卡），但估算的吞吐约是实测的 {q30_over} 倍",
    ),
]


@pytest.mark.parametrize(("lang", "template"), SECTION8_ROWS, ids=[f"{r[0]}:{r[1][:40]}" for r in SECTION8_ROWS])
def test_lesson9_section8_rows_are_coursekits(lang: str, template: str) -> None:
    phrase = template.format(**_section8_rows())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- lesson 9, "Can the estimate order two measured layouts?" ----------------------------------------------------

_ZH_DIGITS = "零一二三四五六七八九十"


@cache
def _pair_figures() -> dict[str, str]:
    """``layout_pairs()``: how many close pairs it orders right; the ModelZoo's two overlap rows against PP 32
    (measured and estimated % faster); Llama 3 8B's two pairs (estimated ratios, and the bound on their gap in %)."""
    from coursekit.planner import layout_pairs
    from tests.test_instructor_published_runs import _pair_counts

    pairs = layout_pairs()
    pp32 = [p for p in pairs if "(DeepEP, EP 32, 1F1B overlap" in p.first_name and "PP 32" in p.second_name]
    llama8 = [p for p in pairs if "Llama 3 8B" in p.first_name]
    measured = sorted(round(100 * (p.measured - 1)) for p in pp32)
    estimated = {round(100 * (p.estimated - 1)) for p in pp32}
    assert len(pp32) == len(llama8) == 2 and len(estimated) == 1
    gap = max(abs(p.estimated - 1) for p in llama8)
    right = _pair_counts()[2]
    return {
        "right_en": _words(right),
        "right_zh": _ZH_DIGITS[right],
        "m1": str(measured[0]),
        "m2": str(measured[1]),
        "est": str(estimated.pop()),
        "l1": f"{llama8[0].estimated:.3f}",
        "l2": f"{llama8[1].estimated:.3f}",
        "gap": f"{math.ceil(1000 * gap) / 10:.1f}",  # a bound, in %: rounded up to a tenth
    }


PAIRS: list[tuple[str, str]] = [
    ("en", "It orders {right_en} right:"),
    ("zh", "排对的有{right_zh}对："),
    ("en", "measured {m1} % and {m2} % faster, estimated faster too, but by only {est} %"),
    ("zh", "实测快 {m1}% 和 {m2}%，估算也判它们更快，却只差 {est}%"),
    ("en", "Llama 3 8B's two are estimated at {l1} and {l2}, less than {gap} % apart"),
    ("zh", "Llama 3 8B 的两对估算之比是 {l1} 和 {l2}，相差不到 {gap}%"),
]


@pytest.mark.parametrize(("lang", "template"), PAIRS, ids=[f"{r[0]}:{r[1][:40]}" for r in PAIRS])
def test_lesson9_layout_pair_figures_are_coursekits(lang: str, template: str) -> None:
    phrase = template.format(**_pair_figures())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- guides of lessons 6, 7, 8 and 10: result figures tools/guide_pins.py listed as unpinned ----------------------


def _other_guides() -> list[tuple[str, str, str]]:
    """(guide, lang, phrase built from coursekit) for figures of the exercise notes and talking points."""
    from coursekit.exercises import get_exercise, lesson7, lesson10
    from coursekit.exercises.lesson6 import timeline_exercise
    from coursekit.hardware import H100_HBM_BYTES_PER_S, H200_HBM_BYTES_PER_S
    from coursekit.presets import CLUSTERS, MODELS
    from coursekit.roofline import layout_matmul_intensity

    changes = lesson7.change_intensities()
    base = layout_matmul_intensity(MODELS[lesson7.LLAMA_MODEL], **lesson7.BASE_LAYOUT)
    intensities = "tp16 {tp16:.0f}, cp2 {cp2:.0f}, mb2 {mb2:.0f}".format(**changes)
    intensities_zh = "tp16 {tp16:.0f}，cp2 {cp2:.0f}，mb2 {mb2:.0f}".format(**changes)
    ridges = f"{lesson7.h100_ridge_point():.0f} → {lesson7.h200_ridge():.0f}"
    more_bandwidth = round(100 * (H200_HBM_BYTES_PER_S / H100_HBM_BYTES_PER_S - 1))
    timeline = timeline_exercise()
    bubble = _fraction(timeline.bubble_s / (timeline.compute_s + timeline.bubble_s))
    crossover_kib = f"{get_exercise('lab.crossover_bytes').expected_value() / 1024:.0f}"
    gpt2 = MODELS["gpt2-small"]
    gpt2_read_us = gpt2.num_params * 2 / CLUSTERS[lesson10.CLUSTER].memory_bandwidth_bytes_per_s * 1e6
    section3 = lesson10._max_requests_section3()
    small = MODELS[lesson10.SMALL_MODEL]
    return [
        ("07_compute_efficiency", "en", f"Intensities after each change: {intensities} (from {base:.0f})."),
        ("07_compute_efficiency", "zh", f"各改动后的计算强度：{intensities_zh}（原来 {base:.0f}）。"),
        ("07_compute_efficiency", "en", f"with {more_bandwidth} % more bandwidth moves the ridge left ({ridges})"),
        ("07_compute_efficiency", "zh", f"带宽多 {more_bandwidth} %，脊点左移（{ridges}）"),
        ("06_pipeline_scaling", "en", f"The bubble is {bubble} of compute +"),
        ("06_pipeline_scaling", "zh", f"气泡占计算加气泡的 {bubble}"),
        ("08_lab", "en", f"bytes ≈ {crossover_kib} KiB"),
        ("08_lab", "zh", f"字节 ≈ {crossover_kib} KiB"),
        ("10_serving", "en", f"it holds at most **{section3}** such requests"),
        ("10_serving", "zh", f"最多容纳 **{section3}** 个这样的请求"),
        ("10_serving", "en", f"(the worked example's {section3} is for 2048 + 256)"),
        ("10_serving", "zh", f"（例子里的 {section3} 对应 2048 + 256）"),
        (
            "10_serving",
            "en",
            f"TP = 2 could save {gpt2_read_us / 2:.0f} µs but adds {2 * gpt2.layers} all-reduces",
        ),
        ("10_serving", "zh", f"TP = 2 最多省 {gpt2_read_us / 2:.0f} µs，却要加 {2 * gpt2.layers} 次全归约"),
        ("10_serving", "en", f"at TP = 8 the {2 * small.layers} all-reduces per token slow down"),
        ("10_serving", "zh", f"TP = 8 时每 token {2 * small.layers} 次全归约慢下来"),
    ]


def test_other_guides_result_figures_are_coursekits() -> None:
    missing = [
        (stem, lang, phrase) for stem, lang, phrase in _other_guides() if phrase not in _guide(lang, stem)
    ]  # fmt: skip
    assert missing == []


# ---- lesson 9, section 8: how attention is timed (the ModelZoo's long-context rows, FlashAttention-2) ----------


@cache
def _attention_figures() -> dict[str, str]:
    """The FlashAttention-3 and -2 bars on H100 (means over 4K to 16K), their share of the best matmul, the cost of a
    counted FLOP of attention's core at each, the shorter sequences' rates, and the ModelZoo's long-context rows."""
    from coursekit.hardware import H100_BF16_DENSE_FLOPS
    from coursekit.planner import EFFICIENCY_CEILING
    from coursekit.planner.calibration import (
        ATTENTION_KERNEL_RATES,
        ATTENTION_RELATIVE_RATE,
        CAUSAL_EXECUTED_SHARE,
        FLASH_ATTENTION_2_H100_BY_LENGTH,
        FLASH_ATTENTION_H100_TFLOPS,
        attention_rate_at,
        matmul_fraction,
    )

    def mean(rows: object, column: int) -> str:
        values = [row[column] for row in rows]  # type: ignore[attr-defined]
        return f"{sum(values) / len(values):.0f}"

    fa2_long = [row for row in FLASH_ATTENTION_2_H100_BY_LENGTH if row[0] >= 4096]
    rates = {tokens: attention_rate_at(tokens) for tokens in (1024, 2048, 4096)}
    fa2, fa3 = ATTENTION_KERNEL_RATES["flash-attention-2"], ATTENTION_KERNEL_RATES["flash-attention-3"]
    long_rows = [_c(run.name) for run in MOE_ZOO_QWEN3_LONG_RUNS]
    assert all(c.passes and c.tie_group == 1 for c in long_rows)
    within = max(c.step_over_best for c in long_rows)  # type: ignore[type-var]
    return {
        "fwd": mean(FLASH_ATTENTION_H100_TFLOPS, 1),
        "bwd": mean(FLASH_ATTENTION_H100_TFLOPS, 2),
        "rel": f"{ATTENTION_RELATIVE_RATE:.3f}",
        "best": f"{matmul_fraction(H100_BF16_DENSE_FLOPS) * H100_BF16_DENSE_FLOPS / 1e12:.1f}",
        "half": f"{CAUSAL_EXECUTED_SHARE:g}",
        "cost": f"{CAUSAL_EXECUTED_SHARE / ATTENTION_RELATIVE_RATE:.2f}",
        "ceiling": f"{EFFICIENCY_CEILING:.3f}",
        "r1k": f"{rates[1024]:.2f}",
        "r2k": f"{rates[2048]:.2f}",
        "r4k": f"{rates[4096]:.2f}",
        "cp2": f"{CAUSAL_EXECUTED_SHARE / rates[2048]:.2f}",
        "cp1": f"{CAUSAL_EXECUTED_SHARE / rates[4096]:.2f}",
        # a bound: rounded up, to three places (two give 1.03, which is exercise plan.slow_link's answer on screen)
        "within": f"{math.ceil(1000 * within) / 1000:.3f}",
        "over": ", ".join(_x(c.estimated_over_published) for c in long_rows[:-1]),
        "over_last": _x(long_rows[-1].estimated_over_published),
        "over_zh": "、".join(_x(c.estimated_over_published) for c in long_rows),
        "fa2_fwd": mean(fa2_long, 1),
        "fa2_bwd": mean(fa2_long, 2),
        "fa2": f"{fa2:.3f}",
        "fa2_of_fa3": f"{fa2 / fa3:.2f}",
        "fa2_cost": f"{CAUSAL_EXECUTED_SHARE / fa2:.2f}",
        "cudnn": f"{ATTENTION_KERNEL_RATES['cudnn']:.3f}",
    }


ATTENTION: list[tuple[str, str]] = [
    (
        "en",
        "measured about {fwd} TFLOP/s forward and {bwd} backward on H100 (head dim 128, sequences 4K to 16K; backward "
        "counted as 2.5 forwards), {rel} of the best matmul's {best} TFLOP/s in the training count. So on such "
        "sequences the estimate charges each counted FLOP of attention's core about {half} / {rel} = {cost} of a "
        "linear layer's FLOP",
    ),
    (
        "zh",
        "前向约 {fwd}、反向约 {bwd} TFLOP/s（反向按 2.5 倍前向计），折成训练计数是最佳矩阵乘 {best} TFLOP/s 的 {rel}。"
        "估算于是在这样长的序列上把注意力 核心每计一个 FLOP 记成约 {half} / {rel} = {cost} 个线性层 FLOP",
    ),
    ("en", "(the ceiling fitted on Table 1 is {ceiling})"),
    ("zh", "（表 1 上标定出的天花板是 {ceiling}）"),
    (
        "en",
        "(the same figures: {r1k} of the best matmul at 1K tokens, {r2k} at 2K, {r4k} at 4K), and with context "
        "parallelism each call runs over one rank's s/cp tokens: at 4K tokens CP 2 charges {half} / {r2k} = {cp2} of a "
        "linear-layer FLOP per counted FLOP, against {half} / {r4k} = {cp1} without CP",
    ),
    (
        "zh",
        "1K 个 token 时是最佳矩阵乘的 {r1k}，2K 时 {r2k}，4K 时 {r4k}）；"
        "有上下文并行时，每次调用只跑一个 rank 的 s/cp 个 token："
        "4K 的序列用 CP 2，每计一个 FLOP 要花 {half} / {r2k} = {cp2} 个线性层 FLOP，"
        "不用 CP 是 {half} / {r4k} = {cp1}",
    ),
    (
        "en",
        "All four rows pass (tie group 1, within {within}x of the best). Their throughput is {over} and {over_last} of "
        "the measured",
    ),
    ("zh", "这样四行都通过（第 1 并列组，步时在最优的 {within} 倍以内）。吞吐是实测的 {over_zh} 倍"),
    (
        "en",
        "it reaches about {fa2_fwd} TFLOP/s forward and {fa2_bwd} backward on H100 at 4K to 16K tokens, {fa2} of the "
        "best matmul in the training count, only {fa2_of_fa3} of FlashAttention-3's speed: each counted FLOP of "
        "attention's core costs {half} / {fa2} = {fa2_cost} of a linear layer's FLOP instead of {cost}.",
    ),
    (
        "zh",
        "它在 H100 上 4K 到 16K 的前向约 {fa2_fwd}、反向约 {fa2_bwd} TFLOP/s，折成训练计数是最佳矩阵乘的 {fa2}，只有 "
        "FlashAttention-3 的 {fa2_of_fa3}；每计一个注意力核心 FLOP 要花 {half} / {fa2} = {fa2_cost} 个线性层 FLOP，"
        "而不是 {cost}。",
    ),
    ("en", '`"cudnn"` charges the same figures\' cuDNN bars ({cudnn};'),
    ("zh", '`"cudnn"` 按同一组图里 cuDNN 的数计（{cudnn}，'),
]


@pytest.mark.parametrize(("lang", "template"), ATTENTION, ids=[f"{r[0]}:{r[1][:40]}" for r in ATTENTION])
def test_lesson9_attention_figures_are_coursekits(lang: str, template: str) -> None:
    phrase = template.format(**_attention_figures())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


# ---- lesson 9, section 8: Qwen3 235B-A22B (Megatron-Bridge) and the ModelZoo's 4K rows ---------------------------


def _zoo_row(label: str) -> dict[str, str]:
    """One ModelZoo 4K row at its published layout: its EP all-to-all, compute, exposed communication and step (s),
    estimated ÷ measured throughput (x and % above), rank, tie group and step over the best."""
    from tests.test_instructor_published_runs import ZOO

    name = ZOO.format("4K", label)
    c, explained = _c(name), _explained(name)[1]
    timeline = explained.timeline
    assert timeline is not None and c.estimated_over_published is not None
    return {
        "a2a": f"{_comm_s(explained, 'EP'):.1f}",
        "edp": f"{_comm_s(explained, 'EDP'):.1f}"
        if "EDP" in {row.dimension for row in explained.communication}
        else "",
        "compute": f"{timeline.compute_s:.1f}",
        "exposed": f"{timeline.exposed_communication_s:.1f}",
        "step": f"{explained.step_s:.1f}",
        "over": _x(c.estimated_over_published),
        "above": str(round(100 * (c.estimated_over_published - 1))),
        "rank": str(c.rank),
        "group": str(c.tie_group),
        "best": _x(c.step_over_best),
    }


@cache
def _qwen235_figures() -> dict[str, str]:
    import dataclasses

    from tests.test_instructor_published_runs import EP32, FSDP, OVERLAP, QWEN235, TP4, ZOO
    from tests.test_instructor_review21 import _run, _zoo_measured_s

    out: dict[str, str] = {}
    for key, label in (("ep32", EP32), ("ovl", OVERLAP), ("fsdp", FSDP), ("tp4", TP4)):
        out |= {f"{key}_{field}": value for field, value in _zoo_row(label).items()}
    complete = _explained(ZOO.format("4K", OVERLAP), overlap_ep=1.0)[1].step_s
    without = _explained(ZOO.format("4K", EP32))[1].step_s
    assert complete is not None and without is not None
    out |= {
        "m_ep32": f"{_zoo_measured_s(EP32):.1f}",
        "m_ovl": f"{_zoo_measured_s(OVERLAP):.1f}",
        # the measured gain from the table's TFLOP/s (its step times are rounded to 0.1 s)
        "m_gain": "{:.3f}".format(
            _run(ZOO.format("4K", OVERLAP)).measured_tflops_per_gpu
            / _run(ZOO.format("4K", EP32)).measured_tflops_per_gpu
        ),
        "complete": f"{complete:.1f}",
        "complete_gain": _x(without / complete),
    }
    run = next(run for run in all_published_runs() if run.name == QWEN235)
    # the published layout at v = 4 without recomputation (tests/test_lesson9_published_runs.py), in FP8 and counted
    # at 16 bits
    label = "tp=2,pp=8,dp=16,ep=32,etp=1,v=4,zero=1,mb=1,recompute=none"
    fp8 = _explained(QWEN235)[0].explain(label)
    bf16 = dataclasses.replace(run.workload(), precision="bf16", fp8_recipe="delayed")  # the FP8 scaling: unused
    from coursekit.planner import plan

    sixteen = plan(run.model_spec(), run.cluster_spec(), bf16).explain(label)
    out |= {"q_gib": f"{fp8.memory.total_gib:.1f}", "q_gib16": f"{sixteen.memory.total_gib:.1f}"}
    return out


QWEN235_LESSON: list[tuple[str, str, Callable[[], object]]] = [
    (
        "en",
        "v = 4 without recomputation needs {q_gib} GiB and fits ({q_gib16} GiB with every activation",
        _qwen235_figures,
    ),
    ("zh", "v = 4 不重计算要 {q_gib} GiB，放得下（激活全按 16 位记是 {q_gib16} GiB", _qwen235_figures),
    (
        "en",
        "the all-to-all is {ep32_a2a} s a step, all exposed; {ep32_step} s ({ep32_above} % above the measured "
        "throughput), {ep32_best}x the best estimate (rank {ep32_rank}, tie group {ep32_group})",
        _qwen235_figures,
    ),
    (
        "zh",
        "全对全每步 {ep32_a2a} s，全部露在外面，估算 {ep32_step} s（吞吐比实测高 {ep32_above}%），是最优估算的 "
        "{ep32_best} 倍 （第 {ep32_rank} 名，第 {ep32_group} 并列组）",
        _qwen235_figures,
    ),
    (
        "en",
        "measured, the step falls from {m_ep32} s to {m_ovl} s, {m_gain}x faster. Taking the overlap as complete, the "
        "estimate would give {complete} s, {complete_gain}x faster",
        _qwen235_figures,
    ),
    (
        "zh",
        "实测从 {m_ep32} s 降到 {m_ovl} s，快 {m_gain} 倍。若把重叠当作完全藏住， 估算会是 {complete} s、快 "
        "{complete_gain} 倍",
        _qwen235_figures,
    ),
    (
        "en",
        "By it the step is {ovl_step} s. The estimated throughput is {ovl_over}x the measured; rank {ovl_rank} (tie "
        "group {ovl_group}), {ovl_best}x the best",
        _qwen235_figures,
    ),
    (
        "zh",
        "按它估算 {ovl_step} s， 估算吞吐是实测的 {ovl_over} 倍，第 {ovl_rank} 名（第 {ovl_group} 并列组），最优的 "
        "{ovl_best} 倍",
        _qwen235_figures,
    ),
    (
        "en",
        "over 32 nodes: {fsdp_edp} s of traffic against {fsdp_compute} s of compute, {fsdp_exposed} s exposed: "
        "{fsdp_step} s ({fsdp_over}x), {fsdp_best}x the best, tie group {fsdp_group}",
        _qwen235_figures,
    ),
    (
        "zh",
        "往返，通信 {fsdp_edp} s，比 {fsdp_compute} s 的计算还多，露出 {fsdp_exposed} s：估算 {fsdp_step} s"
        "（{fsdp_over} 倍），最优的 {fsdp_best} 倍，第 {fsdp_group} 并列组",
        _qwen235_figures,
    ),
    (
        "en",
        "and estimated the slowest too: {tp4_step} s ({tp4_over}x the throughput), {tp4_best}x the best",
        _qwen235_figures,
    ),
    ("zh", "估算也最慢：{tp4_step} s（吞吐 {tp4_over} 倍），是最优的 {tp4_best} 倍", _qwen235_figures),
]


@pytest.mark.parametrize(
    ("lang", "template", "values"), QWEN235_LESSON, ids=[f"{r[0]}:{r[1][:40]}" for r in QWEN235_LESSON]
)
def test_lesson9_qwen235_figures_are_coursekits(lang: str, template: str, values: Callable[[], object]) -> None:
    phrase = template.format(**values())  # type: ignore[arg-type]
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


def test_lesson9_bridge_qwen235_paragraph() -> None:
    # Megatron-Bridge's Qwen3 235B-A22B: the guide's computations (tests/test_instructor_published_runs.py) against
    # the lesson's sentences
    from tests.test_instructor_published_runs import _qwen235_all_to_all, _qwen235_best, _qwen235_rank

    en, zh = _lesson("en"), _lesson("zh")
    assert _qwen235_all_to_all("Its {1} EP ranks span {2} nodes") in en
    assert _qwen235_all_to_all("dispatcher, which does not send a token once per node) takes {0} s a step") in en
    assert _qwen235_all_to_all("leaving {4} s exposed") in en
    assert _qwen235_all_to_all("它的 {1} 个 EP rank 跨 {2} 个节点") in zh
    assert _qwen235_all_to_all("每步 {0} s；配方打开了 EP 全对全重叠") in zh
    assert _qwen235_all_to_all("露出 {4} s") in zh
    assert _qwen235_rank("a {1} s step against the measured {2} s ({0}x the measured throughput)") in en
    assert _qwen235_rank("步时 {1} s， 实测 {2} s（吞吐是实测的 {0} 倍）") in zh
    assert _qwen235_rank("the published layout is {5}x of it, rank {3}, tie group {4}") in en
    assert _qwen235_rank("发表的布局是它的 {5} 倍，第 {3} 名，在第 {4} 并列组") in zh
    assert _qwen235_best("the best estimate runs TP {0}, PP {1} and EP {2}, keeping EP inside a node, with ZeRO-{3} "
                         "at {4} GiB (an {5} GiB card nearly full), a {6} s step") in en  # fmt: skip
    assert _qwen235_best("估算最优是 TP {0}、PP {1}、EP {2}，EP 留在节点内，用 ZeRO-{3}， "
                         "要 {4} GiB（{5} GiB 的卡几乎装满），步时 {6} s") in zh  # fmt: skip


@cache
def _pp32_and_dsv3() -> dict[str, str]:
    """The ModelZoo's PP 32 row (memory with and without its recomputed modules, compute against the other 4K rows,
    step, ratios, rank) and DeepSeek-V3's paper row (memory without full recomputation, ratios, rank)."""
    import dataclasses

    from coursekit.planner import plan
    from tests.test_instructor_published_runs import (
        DSV3,
        EP32,
        FSDP,
        OVERLAP,
        TP4,
        ZOO,
        _dsv3_without_full_recompute_gib,
    )

    name = ZOO.format("4K", "all-to-all, EP 8, PP 32")
    run = next(run for run in all_published_runs() if run.name == name)
    c, (result, explained) = _c(name), _explained(name)
    without = plan(run.model_spec(), run.cluster_spec(), dataclasses.replace(result.workload, recompute_modules=()))
    others = [_explained(ZOO.format("4K", label))[1].timeline.compute_s for label in (EP32, OVERLAP, FSDP, TP4)]
    timeline = explained.timeline
    assert timeline is not None and all(value is not None for value in others)
    dsv3 = _c(DSV3)
    return {
        "gib": f"{explained.memory.total_gib:.1f}",
        "gib_without": f"{without.explain(c.layout).memory.total_gib:.1f}",
        "compute": f"{timeline.compute_s:.1f}",
        "low": f"{min(others):.1f}",  # type: ignore[type-var]
        "high": f"{max(others):.1f}",  # type: ignore[type-var]
        "step": f"{explained.step_s:.1f}",
        "over": _x(c.estimated_over_published),
        "best": _x(c.step_over_best),
        "rank": str(c.rank),
        "group": str(c.tie_group),
        "d_gib": f"{_dsv3_without_full_recompute_gib():.1f}",
        "d_kept": f"{_dsv3_without_full_recompute_gib(True):.1f}",
        "d_group": str(dsv3.tie_group),
        "d_over": _x(dsv3.estimated_over_published),
        "d_rank": str(dsv3.rank),
        "d_best": _x(dsv3.step_over_best),
    }


PP32_DSV3: list[tuple[str, str]] = [
    (
        "en",
        "the published v = 3 fits ({gib} GiB; {gib_without} GiB without)",
    ),
    ("zh", "发表的 v = 3 才放得下（{gib} GiB，不写是 {gib_without} GiB）"),
    (
        "en",
        "{compute} s of compute against {low} to {high} s on the other layouts, a {step} s step ({over}x the "
        "throughput), {best}x the best, rank {rank}, yet in tie group {group}",
    ),
    (
        "zh",
        "计算 {compute} s，别的布局是 {low} 到 {high} s：估算 {step} s（吞吐 {over} 倍），"
        "最优的 {best} 倍，排第 {rank} 名，但在第 {group} 并列组",
    ),
    (
        "en",
        "The published layout then fits without full recomputation ({d_gib} GiB), as the paper says it trains without "
        "tensor parallelism; keeping the experts' outputs it would need {d_kept} GiB and full recomputation.",
    ),
    (
        "en",
        "The estimated throughput is {d_over}x the measured; the fastest estimate is a TP 4 layout without a pipeline "
        "at EP 256, which hides almost all of EP's all-to-all under compute, and the published layout is {d_best}x of "
        "it, rank {d_rank}, tie group {d_group}.",
    ),
    (
        "zh",
        "不做完全重计算就放得下（{d_gib} GiB），与论文说它不用张量并行就能训练相符； 若保存专家输出，要 {d_kept} GiB",
    ),
    ("zh", "估算吞吐是实测的 {d_over} 倍；"),
    ("zh", "发表的布局是它的 {d_best} 倍，排第 {d_rank} 名，在第 {d_group} 并列组"),
]


@pytest.mark.parametrize(("lang", "template"), PP32_DSV3, ids=[f"{r[0]}:{r[1][:40]}" for r in PP32_DSV3])
def test_lesson9_pp32_and_deepseek_v3_figures_are_coursekits(lang: str, template: str) -> None:
    phrase = template.format(**_pp32_and_dsv3())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"


def test_lesson9_model_counts_are_coursekits() -> None:
    # Mixtral 8x7B in Megatron-Core's count (GFLOP per token at 4K) and the dense GPT-layer formula's share of it;
    # the expert parameters a rank of the ModelZoo's FSDP row holds: its experts over its EP, every layer
    from coursekit.planner import megatron_core_model_flops_per_step
    from coursekit.presets import MODELS
    from tests.test_instructor_review21 import _mixtral_dense_share

    mixtral = megatron_core_model_flops_per_step(MODELS["mixtral-8x7b"], 1, 4096) / 4096 / 1e9
    qwen = MODELS["qwen3-235b-a22b"]
    from tests.test_instructor_published_runs import FSDP, ZOO

    ep = _degrees(_c(ZOO.format("4K", FSDP)).layout)["ep"]
    per_rank = qwen.layers * qwen.num_experts // ep * qwen.expert_params / 1e9
    en, zh = _lesson("en"), _lesson("zh")
    assert f"the 2 experts each token goes to: {mixtral:.1f} GFLOP per token" in en
    share = _mixtral_dense_share()
    assert f"the dense GPT-layer formula (a 4h MLP, ungrouped attention) counts only {share}x of it" in en
    assert f"每个 token 去的 2 个专家都算进去，每 token {mixtral:.1f} GFLOP" in zh
    assert f"去数只有它的 {_mixtral_dense_share()} 倍" in zh
    assert f"each rank's {per_rank:.1f} billion expert parameters" in en
    assert f"每卡 {per_rank * 10:.0f} 亿专家参数" in zh


@cache
def _graphs_figures() -> dict[str, str]:
    """The ModelZoo's CUDA-graph row (its step by Megatron-Core's count at the marked TFLOP/s, what it saves against
    the overlap row's table step, per layer pass) and its estimate; the host's time per MoE layer; TP 4's layer passes
    a step and host wait."""
    from coursekit.planner.calibration import MOE_LAYER_HOST_S
    from tests.test_instructor_published_runs import OVERLAP, TP4, ZOO
    from tests.test_instructor_review21 import GRAPHS as GRAPHS_LABEL
    from tests.test_instructor_review21 import _tp4, _zoo_measured_s

    graphs_name = ZOO.format("4K", GRAPHS_LABEL)
    graphs, graphs_explained = _c(graphs_name), _explained(graphs_name)[1]
    passes = graphs_explained.grad_accum * max(graphs_explained.stage_layers)
    saved = _zoo_measured_s(OVERLAP) - _zoo_measured_s(GRAPHS_LABEL)
    tp4 = _explained(ZOO.format("4K", TP4))[1]
    return {
        "graphs_step": f"{_zoo_measured_s(GRAPHS_LABEL):.1f}",
        "saved": f"{saved:.1f}",
        "table": f"{_zoo_measured_s(OVERLAP):.1f}",
        "per_pass": f"{saved / passes * 1e3:.1f}",
        "passes": str(passes),
        "host": f"{MOE_LAYER_HOST_S * 1e3:.1f}",
        "est": f"{graphs_explained.step_s:.1f}",
        "over": _x(graphs.estimated_over_published),
        "tp4_passes": str(tp4.grad_accum * max(tp4.stage_layers)),
        "tp4_wait": _tp4()[1],
    }


CUDA_GRAPH_ROWS: list[tuple[str, str]] = [
    (
        "en",
        "marked 320 TFLOP/s, a {graphs_step} s step by the count, {saved} s less than the table's {table} s, about "
        "{per_pass} ms per layer pass ({passes} a step). This row's layers are longer on the GPU than {host} ms, so "
        "the estimate has it wait for nothing and still gives it {est} s ({over}x the measured throughput)",
    ),
    (
        "zh",
        "注明 320 TFLOP/s，按计数是每步 {graphs_step} s，比表里的 {table} s 少 {saved} s，每次层计算约 {per_pass} ms"
        "（每步 {passes} 次）。这一行的 层在 GPU 上比 {host} ms 长，估算不让它等主机，给的仍是 {est} s"
        "（吞吐是实测的 {over} 倍）",
    ),
    ("en", "By it, {tp4_wait} s of TP 4's step ({tp4_passes} layer passes) waits for the host"),
    ("zh", "TP 4 每步 {tp4_passes} 次层计算共有 {tp4_wait} s 在等主机"),
]


@pytest.mark.parametrize(("lang", "template"), CUDA_GRAPH_ROWS, ids=[f"{r[0]}:{r[1][:40]}" for r in CUDA_GRAPH_ROWS])
def test_lesson9_cuda_graph_row_figures_are_coursekits(lang: str, template: str) -> None:
    phrase = template.format(**_graphs_figures())
    assert phrase in _lesson(lang), f"lesson 9 ({lang}) does not say: {phrase!r}"
