#!/usr/bin/env python
"""Generate the zh and en lesson notebooks from one jupytext "percent" source per lesson.

Usage::

    python tools/build_notebooks.py            # regenerate notebooks/zh, notebooks/en (lessons and
                                               # glossary.ipynb) and docs/GLOSSARY.md, after the spots
                                               # tools/lesson_registry.py writes from coursekit/lessons.json
    python tools/build_notebooks.py --check    # exit 1, listing missing / stale / edited notebooks
                                               # and the registry's stale spots

Source format (``notebooks/src/NN_slug.py``, jupytext "percent")::

    # %% [markdown] lang="zh"            <- Chinese only; must be followed at once by its English twin
    # %% [markdown] lang="en"            <- English only
    # %% [markdown]                      <- both languages (no lang)
    # %%                                 <- code, shared by both notebooks
    # %% tags=["solution"]               <- worked solution: folded (source_hidden) in the output, with a neutral
                                         #    first line (SOLUTION_FIRST_LINE) in the notebook's language
    # %% [markdown] lang="zh" tags=["answer"]   <- answer of a self-check question, wrapped in a folded
                                                #    <details> block (ANSWER_SUMMARY)
    # %% tags=["learner"]                <- a cell that belongs to the learner (fill-in, notes)

The first code cell contains the line ``coursekit.set_language("{{LANG}}")``;
``{{LANG}}`` becomes ``zh`` / ``en`` and may appear nowhere else. A comment in
code is written in both languages, each line marked (``# zh: ...`` then
``# en: ...``, same indentation, as many of each in a run of such lines); each
notebook keeps its own as ``# ...``. So the two notebooks' code differs only in
that first line, in those comments and in the comment that opens each worked
solution.

Answers stay hidden in every front end (JupyterLab, Notebook 7, VS Code, Colab, the
website), not only where cell metadata is honoured: a worked solution prints nothing
(its ``verify(...)`` offers a "show" button instead), its folded source starts with a
neutral comment rather than the method, and a self-check answer is an HTML
``<details>`` block, folded by every Markdown renderer.

Every generated lesson gets one more code cell, just before that first code
cell: on Google Colab (and only there) it installs coursekit from the course's
repository, named once in ``pyproject.toml`` (``[project.urls] Repository``,
read by ``tools/repository_name.py``). Its ``%pip`` line magic sits inside an
``if`` block, which IPython's input transformer accepts; elsewhere the branch is
skipped and the cell does nothing.

Learner work is never overwritten. Each generated notebook records the
SHA-256 of its own cells (``metadata.coursekit.content_sha256``). If the cells
on disk no longer match it (the learner edited or ran the notebook and saved),
the notebook is left alone while its lesson source is unchanged (also when
the file is unreadable: its recorded ``source_sha256``, or else its twin's in
the other language, tells); when the source has changed, the learner's file is
first renamed to
``NN_slug.mine.ipynb`` (``.mine-2``, ``.mine-3`` ... if that exists) and the
fresh notebook is written in its place. No option deletes a learner's file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "tools"):  # tools/ is not a package: its shared module is imported by path
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from repository_name import repository  # noqa: E402

from coursekit.i18n import Text  # noqa: E402

SRC_DIR = Path("notebooks/src")
LANGS: tuple[str, ...] = ("zh", "en")
PLACEHOLDER = "{{LANG}}"
LANG_LINE = 'coursekit.set_language("{{LANG}}")'
FOLDED_TAGS = frozenset({"solution", "answer"})
#: The first line of every worked solution: what a folded cell shows says what it is, not how it is solved.
SOLUTION_FIRST_LINE = Text(
    zh="# 参考解答（先自己做；展开可看做法，运行后点按钮看结果）",
    en="# Worked solution (try first; expand for the method; run it, press the button)",
)
#: The summary line of a folded self-check answer.
ANSWER_SUMMARY = Text(zh="参考答案（点击展开）", en="Answer (click to open)")
GLOSSARY_PATH = Path("docs/GLOSSARY.md")
#: The generated glossary notebook in notebooks/<lang>/ (the lessons link to it).
GLOSSARY_NOTEBOOK = "glossary.ipynb"
SOURCE_NAME = re.compile(r"^(\d\d_[a-z0-9_]+)\.py$")
MINE_NAME = re.compile(r"\.mine(-\d+)?\.ipynb$")
KERNELSPEC = {"display_name": "Python 3 (coursekit)", "language": "python", "name": "python3"}


#: Tag and id of the generated cell that installs coursekit on Colab.
COLAB_TAG = "colab-install"
COLAB_CELL_ID = "colab-install"


def colab_install_source(repo: str, lang: str = "en") -> str:
    """The Colab-only install cell for the GitHub repository ``repo`` (``owner/name``), its comment in ``lang``.

    >>> print(colab_install_source("owner/name"))
    # Runs only on Google Colab: installs coursekit from the course's repository;
    # does nothing anywhere else.
    import sys
    <BLANKLINE>
    if "google.colab" in sys.modules:
        %pip install -q "coursekit @ git+https://github.com/owner/name"
    """
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        raise ValueError(f"repo = {repo!r}: must be a GitHub owner/name")
    marked = (
        "# zh: 仅在 Google Colab 中运行：从课程的代码仓库安装 coursekit；\n"
        "# zh: 在其他环境中什么也不做。\n"
        "# en: Runs only on Google Colab: installs coursekit from the course's repository;\n"
        "# en: does nothing anywhere else.\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        f'    %pip install -q "coursekit @ git+https://github.com/{repo}"'
    )
    return localized_comments(marked, lang, "the Colab install cell")


def colab_install_cell(repo: str, lang: str = "en") -> Any:
    """The Colab-only install cell (tagged :data:`COLAB_TAG`, skipped in the slides)."""
    metadata = {"tags": [COLAB_TAG], "slideshow": {"slide_type": "skip"}}
    return new_code_cell(colab_install_source(repo, lang), id=COLAB_CELL_ID, metadata=metadata)


class SourceError(ValueError):
    """A lesson source breaks the format rules (the message names the file and the cell)."""


@dataclass(frozen=True)
class Problem:
    """One thing ``--check`` found wrong."""

    path: Path
    kind: str  # "missing", "stale", "edited", "orphan", "invalid"
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.path} ({self.detail})"


# -- parsing and generation ----------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_sha256(cells: Iterable[Any]) -> str:
    """SHA-256 of a notebook's cells in canonical JSON (what a learner's edit or run changes)."""
    canonical = json.dumps([_plain(cell) for cell in cells], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return _sha256(canonical.encode("utf-8"))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def parse_source(text: str, name: str) -> list[Any]:
    """Parse a percent-format source with jupytext and check the format rules; return its cells."""
    try:
        notebook = jupytext.reads(text, fmt="py:percent")
    except Exception as exc:  # jupytext validates cell metadata as it reads
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SourceError(f"{name}: jupytext cannot parse it: {first_line}") from exc
    cells = list(notebook.cells)
    _validate(cells, name)
    return cells


def _where(name: str, index: int, cell: Any) -> str:
    first = cell.source.strip().splitlines()[0][:60] if cell.source.strip() else "<empty>"
    return f"{name}, cell {index} ({cell.cell_type}: {first!r})"


def _validate(cells: Sequence[Any], name: str) -> None:
    if not cells:
        raise SourceError(f"{name}: no cells")
    code_indices = [i for i, cell in enumerate(cells) if cell.cell_type == "code"]
    if not code_indices:
        raise SourceError(f"{name}: no code cell (the first one must contain {LANG_LINE})")
    first_code = cells[code_indices[0]]
    if LANG_LINE not in [line.strip() for line in first_code.source.splitlines()]:
        raise SourceError(f"{_where(name, code_indices[0], first_code)}: the first code cell must contain {LANG_LINE}")
    placeholder_count = sum(cell.source.count(PLACEHOLDER) for cell in cells)
    if placeholder_count != 1:
        raise SourceError(
            f"{name}: {PLACEHOLDER} appears {placeholder_count} times; it belongs only in {LANG_LINE} "
            "(the zh and en notebooks' code may differ only there)"
        )
    for index, cell in enumerate(cells):
        lang = cell.metadata.get("lang")
        tags = cell.metadata.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            raise SourceError(f'{_where(name, index, cell)}: tags must be a list of strings, e.g. tags=["solution"]')
        if lang is None:
            continue
        if cell.cell_type != "markdown":
            raise SourceError(f"{_where(name, index, cell)}: only markdown cells take lang=; code is shared")
        if lang not in LANGS:
            raise SourceError(f"{_where(name, index, cell)}: lang={lang!r} must be one of {', '.join(LANGS)}")
        following = cells[index + 1] if index + 1 < len(cells) else None
        previous = cells[index - 1] if index > 0 else None
        if lang == "zh" and not (
            following is not None and following.cell_type == "markdown" and following.metadata.get("lang") == "en"
        ):
            raise SourceError(f'{_where(name, index, cell)}: a lang="zh" cell must be followed by its lang="en" twin')
        if lang == "en" and not (
            previous is not None and previous.cell_type == "markdown" and previous.metadata.get("lang") == "zh"
        ):
            raise SourceError(f'{_where(name, index, cell)}: a lang="en" cell must follow its lang="zh" twin')


def _folded(jupyter: dict[str, Any]) -> dict[str, Any]:
    """JupyterLab metadata that folds a worked solution: its source and its outputs.

    A solution cell still runs under Run All (and in the tests). JupyterLab unfolds the outputs of a cell it
    runs, and other front ends ignore this metadata, so a solution must not print its result anyway: it shows
    only the button of ``verify(...)``.
    """
    return {**jupyter, "source_hidden": True, "outputs_hidden": True}


#: A code comment of one language: ``# zh: text`` / ``# en: text`` (any indentation).
COMMENT_LANG = re.compile(r"^(?P<indent>[ \t]*)# (?P<lang>zh|en): (?P<text>.*)$")


def localized_comments(source: str, lang: str, where: str = "code") -> str:
    r"""``source`` with its language-marked comment lines resolved for ``lang``.

    Each run of consecutive marked lines must hold as many ``zh`` as ``en`` lines (equal substance, no
    untranslated comment); ``lang``'s lines stay as plain comments, the others go.

    >>> print(localized_comments("# zh: 求和\n# en: the sum\nx = 1 + 1", "zh"))
    # 求和
    x = 1 + 1
    """
    lines, run, out = source.split("\n"), [], []

    def flush() -> None:
        counts = {code: sum(m["lang"] == code for m in run) for code in LANGS}
        if len(set(counts.values())) > 1:
            raise SourceError(f"{where}: marked comments {run[0].group(0)!r}... have {counts}: give each language")
        out.extend(f"{m['indent']}# {m['text']}" for m in run if m["lang"] == lang)
        run.clear()

    for line in lines:
        match = COMMENT_LANG.match(line)
        if match:
            run.append(match)
            continue
        if run:
            flush()
        out.append(line)
    if run:
        flush()
    return "\n".join(out)


def solution_source(source: str, lang: str) -> str:
    """A worked solution's code under the neutral first line of ``lang``.

    >>> print(solution_source("answer = 2 + 2", "en"))
    # Worked solution (try first; expand for the method; run it, press the button)
    answer = 2 + 2
    """
    return f"{SOLUTION_FIRST_LINE.render(lang)}\n{source}"


def answer_source(source: str, lang: str) -> str:
    """A self-check answer wrapped in a ``<details>`` block, folded in JupyterLab, VS Code, Colab and the website.

    >>> print(answer_source("**Answers**", "en"))
    <details class="ck-answer">
    <summary>Answer (click to open)</summary>
    <BLANKLINE>
    **Answers**
    <BLANKLINE>
    </details>
    """
    summary = ANSWER_SUMMARY.render(lang)
    return f'<details class="ck-answer">\n<summary>{summary}</summary>\n\n{source.strip()}\n\n</details>'


#: Notebook-level settings of the RISE slideshow (jupyterlab-rise): long cells scroll instead of overflowing.
RISE_SETTINGS: dict[str, Any] = {"scroll": True, "autolaunch": False}


def slide_type(cell_type: str, source: str, tags: Sequence[str]) -> str:
    """The RISE ``slide_type`` of a generated cell, so each lesson presents as slides in JupyterLab.

    A ``#`` or ``##`` heading starts a slide, a ``###`` heading a sub-slide; worked solutions and the learner's notes
    are skipped (the instructor shows a solution by running ``show_solution`` or unfolding it, not on a slide);
    self-check answers appear as a fragment after their questions; every other cell continues the current slide.

    >>> slide_type("markdown", "## Key points", []), slide_type("markdown", "### Exercise 5.1", [])
    ('slide', 'subslide')
    >>> slide_type("code", "answer = ...", ["solution"]), slide_type("markdown", "**Answers**", ["answer"])
    ('skip', 'fragment')
    >>> slide_type("code", "print(1)", [])
    '-'
    """
    if "solution" in tags or ("learner" in tags and cell_type == "markdown"):
        return "skip"
    if "answer" in tags:
        return "fragment"
    if cell_type == "markdown":
        first = source.lstrip().splitlines()[0] if source.strip() else ""
        if first.startswith(("# ", "## ")):
            return "slide"
        if first.startswith("### "):
            return "subslide"
    return "-"


def build_notebook(source_text: str, source_rel: str, lang: str, repo: str | None = None) -> Any:
    """The notebook of one language for a lesson source (in memory, no outputs).

    ``repo`` (``owner/name``) is the repository the Colab install cell installs from; default
    :func:`repository_name.repository` (pyproject.toml).
    """
    if lang not in LANGS:
        raise ValueError(f"lang = {lang!r}: must be one of {', '.join(LANGS)}")
    cells_in = parse_source(source_text, source_rel)
    cells_out = []
    colab = colab_install_cell(repository() if repo is None else repo, lang)
    for index, cell in enumerate(cells_in):
        cell_lang = cell.metadata.get("lang")
        if cell_lang is not None and cell_lang != lang:
            continue
        metadata = {key: value for key, value in cell.metadata.items() if key != "lang"}
        tags = set(metadata.get("tags", []))
        cell_id = f"cell-{index:03d}"
        source = cell.source.replace(PLACEHOLDER, lang)
        if cell.cell_type == "code":
            source = localized_comments(source, lang, _where(source_rel, index, cell))
        if "solution" in tags and cell.cell_type == "code":
            metadata["jupyter"] = _folded(metadata.get("jupyter", {}))
            source = solution_source(source, lang)
        elif "answer" in tags and cell.cell_type == "markdown":
            source = answer_source(source, lang)
        metadata["slideshow"] = {"slide_type": slide_type(cell.cell_type, source, metadata.get("tags", []))}
        if cell.cell_type == "code":
            if colab is not None:  # the first code cell: Colab's install cell goes just before it
                cells_out.append(colab)
                colab = None
            cells_out.append(new_code_cell(source, id=cell_id, metadata=metadata))
        elif cell.cell_type == "markdown":
            cells_out.append(new_markdown_cell(source, id=cell_id, metadata=metadata))
        else:
            cells_out.append(new_raw_cell(source, id=cell_id, metadata=metadata))
    notebook = new_notebook(cells=cells_out)
    notebook.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        "rise": dict(RISE_SETTINGS),
        "coursekit": {
            "source": source_rel,
            "lang": lang,
            "source_sha256": _sha256(source_text.encode("utf-8")),
            "content_sha256": content_sha256(cells_out),
        },
    }
    nbformat.validate(notebook)
    return notebook


def render(notebook: Any) -> str:
    """The notebook file text (nbformat's JSON layout, UTF-8, trailing newline)."""
    return nbformat.writes(notebook) + "\n"


# -- the plan: which files the sources produce ------------------------------------------------


def sources(root: Path) -> list[Path]:
    """The lesson sources ``notebooks/src/NN_slug.py``, sorted."""
    src = root / SRC_DIR
    return sorted(path for path in src.glob("*.py") if SOURCE_NAME.match(path.name)) if src.is_dir() else []


def notebook_path(root: Path, source: Path, lang: str) -> Path:
    """``notebooks/<lang>/NN_slug.ipynb`` for ``source``."""
    return root / "notebooks" / lang / (source.stem + ".ipynb")


def plan(root: Path) -> dict[Path, str]:
    """Every generated file (notebooks and the glossary) with its fresh text, in memory."""
    files: dict[Path, str] = {}
    for source in sources(root):
        text = source.read_text(encoding="utf-8")
        rel = source.relative_to(root).as_posix()
        for lang in LANGS:
            files[notebook_path(root, source, lang)] = render(build_notebook(text, rel, lang))
    files[root / GLOSSARY_PATH] = _glossary_markdown()
    for lang in LANGS:
        files[root / "notebooks" / lang / GLOSSARY_NOTEBOOK] = render(glossary_notebook(lang))
    return files


def _glossary_module() -> Any:
    import coursekit.glossary

    return coursekit.glossary


def _glossary_markdown() -> str:
    return str(_glossary_module().render_markdown())


def glossary_notebook(lang: str) -> Any:
    """The glossary as a one-cell notebook in ``lang``, so lessons link to it from whichever folder is served."""
    text = str(_glossary_module().render_notebook_markdown(lang))
    cells = [new_markdown_cell(text, id="glossary")]
    notebook = new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        "coursekit": {
            "source": "coursekit/glossary.py",
            "lang": lang,
            "source_sha256": _sha256(text.encode("utf-8")),
            "content_sha256": content_sha256(cells),
        },
    }
    nbformat.validate(notebook)
    return notebook


# -- learner protection ------------------------------------------------------------------------


def _read_notebook(path: Path) -> Any | None:
    try:
        return nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    except Exception:  # unreadable or not a notebook: treat it as the learner's, never overwrite it
        return None


def recorded_content_sha256(notebook: Any) -> str | None:
    """The ``content_sha256`` a generated notebook recorded about itself, if any."""
    meta = notebook.metadata.get("coursekit") if notebook is not None else None
    value = meta.get("content_sha256") if isinstance(meta, dict) else None
    return value if isinstance(value, str) else None


def is_pristine(path: Path) -> bool:
    """True if ``path`` is a generated notebook whose cells still match its recorded hash."""
    notebook = _read_notebook(path)
    recorded = recorded_content_sha256(notebook)
    return notebook is not None and recorded is not None and recorded == content_sha256(notebook.cells)


_NOTEBOOK_START = re.compile(r'\s*\{\s*"cells"\s*:')
_RECORDED_SOURCE_SHA = re.compile(r'"source_sha256"\s*:\s*"([0-9a-f]{64})"')


def _recorded_source_sha256(path: Path) -> str | None:
    """The ``source_sha256`` a notebook recorded, read from its raw text (the JSON may be broken)."""
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _RECORDED_SOURCE_SHA.findall(raw)
    return found[0] if len(set(found)) == 1 else None


def _source_unchanged(path: Path, fresh_text: str) -> bool:
    """True if the lesson source is the one ``path`` was generated from, even when ``path`` is unreadable.

    A notebook that JSON cannot read (a merge conflict, a half-written save) usually
    still holds its metadata: its recorded ``source_sha256`` decides. When that is
    gone too, the other language's notebook, generated in the same build, stands in.
    Only when neither tells is the source taken as changed (and the file moved aside).
    """
    current = json.loads(fresh_text)["metadata"]["coursekit"]["source_sha256"]
    recorded = _recorded_source_sha256(path)
    if recorded is not None:
        return recorded == current
    if not _NOTEBOOK_START.match(path.read_text(encoding="utf-8", errors="replace")[:200]):
        return False  # not a notebook at all: nothing says which source it belongs to
    for lang in LANGS:
        twin = path.parent.parent / lang / path.name
        if twin != path and twin.exists():
            notebook = _read_notebook(twin)
            meta = notebook.metadata.get("coursekit") if notebook is not None else None
            if isinstance(meta, dict) and isinstance(meta.get("source_sha256"), str):
                return bool(meta["source_sha256"] == current)
    return False


def mine_path(path: Path) -> Path:
    """A free name for a learner's copy: ``NN_slug.mine.ipynb``, else ``.mine-2``, ``.mine-3`` ..."""
    candidate = path.with_name(f"{path.stem}.mine.ipynb")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.mine-{number}.ipynb")
        number += 1
    return candidate


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclass(frozen=True)
class Action:
    """What :func:`build` did to one file."""

    path: Path
    kind: str  # "created", "updated", "unchanged", "kept-learner-edits", "moved-learner-copy"
    mine: Path | None = None

    def __str__(self) -> str:
        suffix = f" -> learner copy kept as {self.mine}" if self.mine is not None else ""
        return f"{self.kind}: {self.path}{suffix}"


def _registry_tool() -> Any:
    import lesson_registry

    return lesson_registry


def _has_registry(root: Path) -> bool:
    return (root / "coursekit" / "lessons.json").is_file()


def build(root: Path = ROOT) -> list[Action]:
    """Write every generated file that is missing or out of date, keeping learners' edits.

    First the lesson registry's spots (navigation, lesson maps, stated times: ``tools/lesson_registry.py``), when the
    project has a registry, so the notebooks are built from the sources as they will be committed.
    """
    actions: list[Action] = []
    if _has_registry(root):
        actions += [Action(root / path, "updated") for path in _registry_tool().write(root)]
    for path, text in plan(root).items():
        if not path.exists():
            _write_atomic(path, text)
            actions.append(Action(path, "created"))
            continue
        current = path.read_text(encoding="utf-8", errors="replace")
        if current == text:
            actions.append(Action(path, "unchanged"))
            continue
        if path.suffix != ".ipynb" or is_pristine(path):
            _write_atomic(path, text)
            actions.append(Action(path, "updated"))
            continue
        fresh_sha = json.loads(text)["metadata"]["coursekit"]["content_sha256"]
        if recorded_content_sha256(_read_notebook(path)) == fresh_sha or _source_unchanged(path, text):
            # The learner's notebook was generated from the current source: nothing to bring in.
            actions.append(Action(path, "kept-learner-edits"))
            continue
        mine = mine_path(path)
        os.replace(path, mine)  # a rename: the learner's bytes are kept exactly
        _write_atomic(path, text)
        actions.append(Action(path, "moved-learner-copy", mine))
    return actions


def check(root: Path = ROOT) -> list[Problem]:
    """What is missing, stale, edited or orphaned, without writing anything."""
    problems: list[Problem] = []
    try:
        files = plan(root)
    except SourceError as exc:
        return [Problem(root / SRC_DIR, "invalid", str(exc))]
    if _has_registry(root):
        registry = _registry_tool()
        try:
            problems += [Problem(path, "stale", "run python tools/lesson_registry.py") for path in registry.stale(root)]
        except registry.RegistryError as exc:
            problems.append(Problem(registry.REGISTRY, "invalid", str(exc)))
    for path, text in files.items():
        rel = path.relative_to(root)
        if not path.exists():
            problems.append(Problem(rel, "missing", "run python tools/build_notebooks.py"))
        elif path.read_text(encoding="utf-8", errors="replace") != text:
            if path.suffix == ".ipynb" and not is_pristine(path):
                problems.append(Problem(rel, "edited", "cells differ from the recorded content_sha256"))
            else:
                problems.append(
                    Problem(rel, "stale", "out of date with its source; run python tools/build_notebooks.py")
                )
    for lang in LANGS:
        folder = root / "notebooks" / lang
        for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
            if path not in files and not MINE_NAME.search(path.name):
                problems.append(Problem(path.relative_to(root), "orphan", f"no source {SRC_DIR / (path.stem + '.py')}"))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="list missing or stale files and exit 1 if any")
    parser.add_argument("--root", type=Path, default=ROOT, help="project root (default: this repository)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if args.check:
        problems = check(root)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} problem(s); regenerate with: python tools/build_notebooks.py")
            return 1
        print("notebooks and glossary are current")
        return 0
    try:
        actions = build(root)
    except ValueError as exc:  # a SourceError, or the lesson registry's RegistryError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for action in actions:
        if action.kind != "unchanged":
            mine = f" -> learner copy kept as {action.mine.relative_to(root)}" if action.mine is not None else ""
            print(f"{action.kind}: {action.path.relative_to(root)}{mine}")
    print(f"{len(actions)} file(s) checked, {sum(a.kind != 'unchanged' for a in actions)} changed or kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
