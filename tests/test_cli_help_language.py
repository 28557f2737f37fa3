"""Every command line's ``--help`` is in the learner's language, and both languages list the same options.

Each command and subcommand (``python -m coursekit``, ``plan``, ``plan --mode serving``, ``lessons``,
``python -m coursekit.lab`` and each lab subcommand) prints its help in a subprocess, as a learner runs it:

* in Chinese (``--lang zh`` after the command, ``--lang zh`` before it, or ``COURSEKIT_LANG=zh``; the three give
  the same text) the help holds no run of three or more English prose words (:func:`english_runs` says exactly
  what counts), every listed option and command has a help with Chinese in it, section titles end with "：";
* in English (no language set, or ``--lang en`` over ``COURSEKIT_LANG=zh``; the same text) the help holds no
  Chinese character;
* both languages list exactly the same entries (option names, metavars, choices, commands), in the same order.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from coursekit.__main__ import build_parser as build_main_parser
from coursekit.lab.cli import build_parser as build_lab_parser
from coursekit.serving_cli import build_serving_parser

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Terminal width the help is laid out for (argparse reads COLUMNS).
COLUMNS = 80

#: (label, module, command words): every command and subcommand with a --help.
COMMANDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("coursekit", "coursekit", ()),
    ("plan", "coursekit", ("plan",)),
    ("serving", "coursekit", ("plan", "--mode", "serving")),
    ("planner", "coursekit.planner", ()),
    ("lessons", "coursekit", ("lessons",)),
    ("setup", "coursekit", ("setup",)),  # leftovers 28: the kernels' startup file
    ("lab", "coursekit.lab", ()),
    ("lab collectives", "coursekit.lab", ("collectives",)),
    ("lab memory", "coursekit.lab", ("memory",)),
    ("lab timeline", "coursekit.lab", ("timeline",)),
    ("lab record", "coursekit.lab", ("record",)),
)
LABELS = [label for label, _, _ in COMMANDS]

#: A word of English prose: letters only, at most a leading capital, parts joined by a hyphen or an apostrophe
#: ("usable", "Decision", "flash-attention", "rank's"). An abbreviation or unit (GPU, GiB, TFLOP/s, TP), a name
#: with digits, dots or underscores (bf16, config.json, hidden_size), an option (--json) or a metavar (MODEL) is
#: not prose.
PROSE_WORD = re.compile(r"[A-Z]?[a-z]+(?:['-][a-z]+)*")
#: ASCII punctuation around a word that does not change what it is ("(usable", "GiB,", "exit.").
AROUND = "()[]{}<>,;:.!?\"'"
#: A token: a run of ASCII characters other than whitespace, or one non-ASCII character.
TOKEN = re.compile(r"[!-~]+|[^\x00-\x7f]")
#: Shortest run of prose words that counts as an English sentence left untranslated.
RUN = 3


def english_runs(text: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Every run of at least :data:`RUN` English prose words in ``text``.

    ``text`` is cut into tokens at whitespace and around every non-ASCII character (each is a token of its own,
    so ``集群：usable`` is three tokens). A token is a prose word when, without the ASCII punctuation around it, it
    matches :data:`PROSE_WORD` and is not in ``allowed`` (option choices, preset names, command names, the words
    of a program's name). A run is a sequence of prose words with nothing else between them but whitespace and
    that punctuation; any other token (a Chinese character, a number, a unit, an option) ends it.
    """
    runs, current = [], []
    for token in [*TOKEN.findall(text), ""]:
        word = token.strip(AROUND)
        if PROSE_WORD.fullmatch(word) and word not in allowed:
            current.append(word)
            continue
        if len(current) >= RUN:
            runs.append(" ".join(current))
        current = []
    return runs


def test_english_runs_finds_english_and_nothing_else() -> None:
    assert english_runs("自定义集群：usable memory per GPU, GiB") == ["usable memory per"]
    assert english_runs("Decision workbench: enumerate compositions, exclude by gates.") == [
        "Decision workbench enumerate compositions exclude by gates"
    ]
    assert english_runs("show this help message and exit") == ["show this help message and exit"]
    # two English words in Chinese text, units, options, metavars, names with digits: no run
    assert english_runs("融合注意力 (flash attention) 内核；每块 GPU 的稠密 bf16 峰值算力，TFLOP/s") == []
    assert english_runs("  --gpu-memory-gib GPU_MEMORY_GIB  --model MODEL  (hidden_size, num_hidden_layers)") == []
    assert english_runs("a100-8, cpu-box, pcie-24g-8") == []  # cpu-box alone is one word
    assert english_runs("python -m coursekit plan", frozenset({"python", "coursekit", "plan"})) == []
    assert english_runs("cpu box ddp fsdp", frozenset({"cpu", "box", "ddp", "fsdp"})) == []


def _actions(parser: argparse.ArgumentParser) -> Iterator[tuple[argparse.ArgumentParser, argparse.Action]]:
    for action in parser._actions:
        yield parser, action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


@cache
def allowed_words() -> frozenset[str]:
    """Words that stay English in any language: every choice (presets, modes, devices), every command's name and
    the words of every program name, read from the parsers themselves."""
    words: set[str] = set()
    lab, _ = build_lab_parser()
    for parser, action in [
        *_actions(build_main_parser()),
        *_actions(build_serving_parser()),
        *_actions(lab),
    ]:
        words |= set(parser.prog.split())
        words |= {str(choice) for choice in action.choices or ()}
    for _, module, command in COMMANDS:
        words |= {*module.split("."), *command}
    return frozenset(words)


def _help(module: str, args: tuple[str, ...], env_lang: str | None) -> str:
    """The help ``python -m module args --help`` prints, or a line starting with ``FAILED`` saying how it failed."""
    env = {key: value for key, value in os.environ.items() if key != "COURSEKIT_LANG"}
    env["COLUMNS"] = str(COLUMNS)
    if env_lang is not None:
        env["COURSEKIT_LANG"] = env_lang
    done = subprocess.run(
        [sys.executable, "-m", module, *args, "--help"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0 or done.stderr:
        return f"FAILED python -m {module} {' '.join(args)} --help: exit {done.returncode}\n{done.stderr}"
    return done.stdout


#: The ways a learner picks a language, each (variant, language): --lang after the command, --lang before it
#: (the module's own --lang), COURSEKIT_LANG, and --lang en over COURSEKIT_LANG=zh.
VARIANTS = (("after", "zh"), ("before", "zh"), ("environment", "zh"), ("default", "en"), ("over environment", "en"))


def _variant(module: str, command: tuple[str, ...], variant: str) -> tuple[tuple[str, ...], str | None]:
    if variant == "after":
        return (*command, "--lang", "zh"), None
    if variant == "before":
        return ("--lang", "zh", *command), None
    if variant == "environment":
        return command, "zh"
    if variant == "default":
        return command, None
    return (*command, "--lang", "en"), "zh"


@cache
def helps() -> dict[tuple[str, str], str]:
    """Every command's help in every variant, run two at a time."""
    jobs = [
        ((label, variant), (module, *_variant(module, command, variant)))
        for label, module, command in COMMANDS
        for variant, _ in VARIANTS
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = list(pool.map(lambda job: _help(*job[1]), jobs))
    return {key: text for (key, _), text in zip(jobs, texts, strict=True)}


def help_text(label: str, lang: str) -> str:
    """The help of ``label`` with ``--lang zh`` after the command (zh), or with no language set (en)."""
    text = helps()[(label, "after" if lang == "zh" else "default")]
    assert not text.startswith("FAILED"), text
    return text


def entries(text: str) -> list[tuple[str, str]]:
    """(invocation, help) of every listed option, positional and command: lines indented two or four spaces
    start one, deeper-indented lines continue its help; the usage block (up to the first blank line) is skipped."""
    found: list[list[str]] = []
    body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    for line in body.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if indent in (2, 4):
            invocation, _, help_part = line.strip().partition("  ")
            found.append([invocation, help_part.strip()])
        elif indent > 4 and found:
            found[-1][1] = (found[-1][1] + " " + line.strip()).strip()
    return [(invocation, help_part) for invocation, help_part in found]


def test_every_entry_point_is_covered() -> None:
    """The table above names every ``__main__`` module and every subcommand, and [project.scripts] adds none."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("scripts", {})
    assert not scripts, f"add these entry points to COMMANDS: {scripts}"
    mains = {".".join(path.relative_to(ROOT).parent.parts) for path in (ROOT / "coursekit").rglob("__main__.py")}
    assert mains == {module for _, module, _ in COMMANDS}
    subcommands = {
        (module, name)
        for module, parser in (("coursekit", build_main_parser()), ("coursekit.lab", build_lab_parser()[0]))
        for _, action in _actions(parser)
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }
    assert subcommands <= {(module, command[0]) for _, module, command in COMMANDS if command}


@pytest.mark.parametrize("label", LABELS)
def test_chinese_help_has_no_english_prose(label: str) -> None:
    text = help_text(label, "zh")
    runs = english_runs(text, allowed_words())
    assert not runs, f"{label} --help in zh has English prose: {runs}\n{text}"
    untranslated = [entry for entry in entries(text) if not CJK.search(entry[1])]
    assert not untranslated, f"{label} --help in zh: entries without a Chinese help: {untranslated}"
    assert entries(text), text  # the parsing above saw the entries
    headings = re.findall(r"^\S.*:$", text, flags=re.M)  # section titles end with the Chinese colon
    assert not headings, headings


@pytest.mark.parametrize("label", LABELS)
def test_english_help_has_no_chinese(label: str) -> None:
    text = help_text(label, "en")
    assert not CJK.search(text), f"{label} --help in en has Chinese:\n{text}"
    assert all(help_part for _, help_part in entries(text)), entries(text)


@pytest.mark.parametrize("label", LABELS)
def test_both_languages_list_the_same_options(label: str) -> None:
    zh = [invocation for invocation, _ in entries(help_text(label, "zh"))]
    en = [invocation for invocation, _ in entries(help_text(label, "en"))]
    assert zh == en and en


@pytest.mark.parametrize("label", LABELS)
def test_every_way_of_choosing_the_language_gives_the_same_help(label: str) -> None:
    for lang in ("zh", "en"):
        texts = {variant: helps()[(label, variant)] for variant, of in VARIANTS if of == lang}
        failed = [text for text in texts.values() if text.startswith("FAILED")]
        assert not failed, "\n".join(failed)
        assert len(set(texts.values())) == 1, f"{label}: {lang} help differs between {sorted(texts)}"


def _width(line: str) -> int:
    """Terminal columns of ``line``: two for an East Asian Wide or Fullwidth character (Unicode UAX #11)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line)


@pytest.mark.parametrize("label", LABELS)
def test_chinese_help_fits_the_terminal(label: str) -> None:
    """Wrapped by terminal columns (a Chinese character takes two), as the English help is by characters;
    a single unbreakable word (a comma-separated list of names) may stand longer on its own line."""
    text = help_text(label, "zh")
    body = text.split("\n\n", 1)[1]
    too_wide = [line for line in body.splitlines() if _width(line) > COLUMNS and len(line.split()) > 1]
    assert not too_wide, too_wide
