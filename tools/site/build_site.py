#!/usr/bin/env python
"""Build the course website: ``python tools/site/build_site.py`` -> ``build/site/index.html``.

Offline, with Sphinx + myst-nb + sphinx-book-theme (the ``site`` extra). Every lesson notebook in
``notebooks/zh`` and ``notebooks/en`` and every Markdown page under ``docs/`` becomes a page; the lesson
notebooks are executed at build time, so figures, tables and text outputs are in place. Nothing is listed
by hand: a new lesson or a new guide page appears on the next build.

The builder works on a staged copy (``build/site-src``) laid out like the repository, so the links the
lessons already carry (``../en/03_gates.ipynb``, ``../../docs/GLOSSARY.md``) resolve as they are. In that
copy it

* folds worked solutions (code cells tagged ``solution``: myst-nb's ``hide-cell``), so a page shows the
  exercise, its ``check(...)`` call and a folded solution (answers to self-checks are already ``<details>``
  blocks in the notebooks, see tools/build_notebooks.py);
* replaces ``docs/GLOSSARY.md`` with a page that gives every term its own anchor (:func:`glossary_anchor`);
* adds a home page, and launch how-to pages taken from the README (between ``<!-- site:NAME -->`` markers).

Usage::

    python tools/site/build_site.py [--out build/site] [--jobs 2] [--no-execute]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LANGS = ("zh", "en")
NOTEBOOK_NAME = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")
SOLUTION_PROMPTS = {
    "zh": ("显示参考解答", "隐藏参考解答"),
    "en": ("Show the worked solution", "Hide the worked solution"),
}
TITLES = {
    "zh": "中文课程",
    "en": "English course",
    "guide": "教师指南 / Instructor guide",
    "reference": "参考 / Reference",
}
LAUNCH_TITLES = {
    "zh": "运行课程：Binder、魔搭 (ModelScope)、Colab 与 PyTorch",
    "en": "Running the course: Binder, ModelScope, Colab and PyTorch",
}
#: README sections the launch pages include, by language: (marker name, anchor).
README_SECTIONS = ("binder", "modelscope", "colab", "pytorch")


def repository() -> str:
    """``owner/name`` from pyproject.toml's ``[project.urls] Repository`` (the one place it is set)."""
    return str(_repository_name().repository(ROOT))


def _repository_name() -> Any:
    """tools/repository_name.py, shared with the notebook builder (loaded by path: tools/ is not a package)."""
    import importlib.util

    path = ROOT / "tools" / "repository_name.py"
    spec = importlib.util.spec_from_file_location("coursekit_tools_repository_name", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lesson_notebooks(lang: str) -> list[Path]:
    """The lesson notebooks of one language, in lesson order (learners' ``.mine`` copies excluded)."""
    return sorted(p for p in (ROOT / "notebooks" / lang).glob("*.ipynb") if NOTEBOOK_NAME.match(p.name))


def doc_pages() -> list[Path]:
    """Markdown pages under docs/, repository-relative."""
    return sorted(p.relative_to(ROOT) for p in (ROOT / "docs").rglob("*.md"))


# -- staging ----------------------------------------------------------------------------------


def stage_notebook(notebook: dict[str, Any], lang: str) -> dict[str, Any]:
    """Fold solutions the way the site engine understands; returns the changed notebook."""
    show, hide = SOLUTION_PROMPTS[lang]
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            # Lessons link the glossary notebook beside them; the site has the anchored glossary page instead.
            source = "".join(cell["source"])
            cell["source"] = source.replace("](glossary.ipynb", "](../../docs/GLOSSARY.md")
        tags = list(cell.get("metadata", {}).get("tags", []))
        if "colab-install" in tags:  # it does something only on Colab, which the page's Colab button opens
            cell["metadata"]["tags"] = [*tags, "remove-cell"]
        elif cell["cell_type"] == "code" and "solution" in tags:
            cell["metadata"]["tags"] = [*tags, "hide-cell"]
            cell["metadata"]["mystnb"] = {"code_prompt_show": show, "code_prompt_hide": hide}
    return notebook


def glossary_anchor(en: str, abbr: str) -> str:
    """The anchor of a glossary term: its abbreviation, else its English name, lower-case with hyphens."""
    text = abbr if abbr and abbr.lower() != "replica" else en
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def glossary_page() -> str:
    """The site's glossary: one anchored entry per term of coursekit.glossary, both languages."""
    from coursekit.glossary import GLOSSARY

    lines = [
        "# 术语表 / Glossary",
        "",
        "中文术语在前，英文原文在后；本课程中的带宽一律指每个 GPU、每个方向的单向带宽。",
        "",
        "Chinese term first, English original after; bandwidth in this course is per GPU, per direction "
        "(unidirectional).",
        "",
    ]
    seen: set[str] = set()
    for entry in GLOSSARY:
        anchor = glossary_anchor(entry.en, entry.abbr)
        if anchor in seen:
            anchor = glossary_anchor(entry.en, "")
        seen.add(anchor)
        abbr = f", {entry.abbr}" if entry.abbr else ""
        lines += [
            f'<dl class="ck-term" id="{anchor}">',
            f'<dt><a class="headerlink" href="#{anchor}">#</a> {entry.zh} ({entry.en}{abbr})</dt>',
            f'<dd lang="zh">{_escape(entry.definition.zh)}</dd>',
            f'<dd lang="en">{_escape(entry.definition.en)}</dd>',
            "</dl>",
            "",
        ]
    return "\n".join(lines)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def launch_page(lang: str) -> str:
    """A how-to page that includes the README's launch sections of one language."""
    lines = [f"# {LAUNCH_TITLES[lang]}", ""]
    for name in README_SECTIONS:
        lines += [
            f"({name})=",
            "```{include} ../README.md",
            f":start-after: <!-- site:{name}-{lang} -->",
            f":end-before: <!-- /site:{name}-{lang} -->",
            "```",
            "",
        ]
    return "\n".join(lines)


def notebook_title(path: Path) -> str:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return path.stem


def _toctree(caption: str, docs: Iterable[str]) -> list[str]:
    return ["```{toctree}", f":caption: {caption}", ":maxdepth: 1", ":hidden:", "", *docs, "```", ""]


def home_page(lessons: dict[str, list[Path]], docs: list[Path]) -> str:
    lines = [
        "# coursekit — 并行策略决策课程 / Choosing a parallel strategy",
        "",
        "一门交互式双语课程：如何为大模型训练与服务选择并行策略。每一页都是执行过的课程笔记本，图已经在页面里；"
        "页首的按钮可在 Binder、Colab 或魔搭 (ModelScope) 上运行它。",
        "",
        "An interactive bilingual course on choosing a parallel strategy for training and serving large models. "
        "Every page is an executed lesson notebook with its figures in place; the buttons at the top of a lesson "
        "run it live on Binder, Colab or ModelScope.",
        "",
    ]
    for lang in LANGS:
        lines += [f"## {TITLES[lang]}", ""]
        lines += [f"- [{notebook_title(p)}](notebooks/{lang}/{p.name})" for p in lessons[lang]]
        lines.append("")
    pages = {str(p) for p in docs}
    guides = [
        f"[{text}](docs/instructor/{lang}/README.md)"
        for lang, text in (("zh", "教师指南"), ("en", "Instructor guide"))
        if f"docs/instructor/{lang}/README.md" in pages
    ]
    lines += [f"## {TITLES['reference']}", "", "- [术语表 / Glossary](docs/GLOSSARY.md)"]
    lines += [f"- {' / '.join(guides)}"] if guides else []
    lines += ["- [运行课程](launch/zh.md) / [Running the course](launch/en.md)", ""]
    for lang in LANGS:
        lines += _toctree(TITLES[lang], [f"notebooks/{lang}/{p.stem}" for p in lessons[lang]])
    guide = [str(p.with_suffix("")) for p in docs if "instructor" in p.parts]
    guide.sort(key=lambda d: (LANGS.index(d.split("/")[-2]) if d.split("/")[-2] in LANGS else 2, "README" not in d, d))
    lines += _toctree(TITLES["guide"], guide)
    reference = [str(p.with_suffix("")) for p in docs if "instructor" not in p.parts]
    lines += _toctree(TITLES["reference"], [*reference, *(f"launch/{lang}" for lang in LANGS)])
    return "\n".join(lines)


def conf_py(repo: str, execute: bool) -> str:
    settings = {
        "project": "coursekit",
        "author": "coursekit authors",
        "copyright": "coursekit authors; course text CC BY 4.0, code MIT",
        "extensions": ["myst_nb", "coursekit_site"],
        "exclude_patterns": ["README.md", "**/.ipynb_checkpoints", "jupyter_execute"],
        "html_theme": "sphinx_book_theme",
        "html_title": "coursekit",
        "html_static_path": [str(HERE / "static")],
        "html_search_language": "zh",
        "html_theme_options": {
            "repository_url": f"https://github.com/{repo}",
            "use_repository_button": True,
            "show_toc_level": 2,
            "navigation_with_keys": False,
        },
        "html_last_updated_fmt": None,
        "html_copy_source": True,  # the download button offers the lesson's .ipynb
        "myst_enable_extensions": ["dollarmath", "colon_fence"],
        "myst_heading_anchors": 3,
        "suppress_warnings": ["myst.header", "mystnb.unknown_mime_type"],
        "nb_execution_mode": "force" if execute else "off",
        "nb_execution_timeout": 300,
        "nb_execution_raise_on_error": True,
        "nb_execution_show_tb": True,
        "nb_merge_streams": True,
        # Markdown outputs (the lessons' tables) need table syntax: CommonMark, myst-nb's default, has none.
        "nb_render_markdown_format": "myst",
        # A widget's live view needs a kernel; its static HTML (figure + control values) is what a page shows.
        "nb_mime_priority_overrides": [
            ["html", "application/vnd.jupyter.widget-view+json", None],
            ["html", "text/html", 0],
        ],
        "coursekit_repository": repo,
        "coursekit_branch": "main",
    }
    body = "\n".join(f"{key} = {value!r}" for key, value in settings.items())
    header = "# Written by tools/site/build_site.py; edit that file instead.\nimport sys\n\n"
    return f"{header}sys.path.insert(0, {str(HERE)!r})\n\n{body}\n"


def stage(staging: Path, execute: bool) -> dict[str, list[Path]]:
    """Write the Sphinx source tree into ``staging`` (emptied first)."""
    if staging.exists():
        shutil.rmtree(staging)
    lessons = {lang: lesson_notebooks(lang) for lang in LANGS}
    for lang, paths in lessons.items():
        out_dir = staging / "notebooks" / lang
        out_dir.mkdir(parents=True)
        for path in paths:
            notebook = stage_notebook(json.loads(path.read_text(encoding="utf-8")), lang)
            (out_dir / path.name).write_text(json.dumps(notebook, ensure_ascii=False, indent=1), encoding="utf-8")
    docs = doc_pages()
    for page in docs:
        (staging / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / page, staging / page)
    (staging / "docs" / "GLOSSARY.md").write_text(glossary_page(), encoding="utf-8")
    if Path("docs/GLOSSARY.md") not in docs:
        docs.append(Path("docs/GLOSSARY.md"))
    (staging / "launch").mkdir()
    for lang in LANGS:
        (staging / "launch" / f"{lang}.md").write_text(launch_page(lang), encoding="utf-8")
    shutil.copyfile(ROOT / "README.md", staging / "README.md")
    (staging / "index.md").write_text(home_page(lessons, docs), encoding="utf-8")
    (staging / "conf.py").write_text(conf_py(repository(), execute), encoding="utf-8")
    return lessons


def build(out: Path, *, jobs: int = 2, execute: bool = True) -> dict[str, Any]:
    """Stage and build the site into ``out``; returns a summary (seconds, page counts) also saved as JSON."""
    started = time.perf_counter()
    staging = out.parent / (out.name + "-src")
    lessons = stage(staging, execute)
    doctrees = out.parent / (out.name + "-doctrees")
    if out.exists():
        shutil.rmtree(out)
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1", MPLBACKEND="module://matplotlib_inline.backend_inline")
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-E", "-q", "-j", str(jobs), "-d", str(doctrees)]
    subprocess.run([*command, str(staging), str(out)], check=True, env=env)
    (out / ".nojekyll").write_text("", encoding="utf-8")
    summary = {
        "seconds": round(time.perf_counter() - started, 1),
        "executed": execute,
        "lessons": {lang: [p.stem for p in paths] for lang, paths in lessons.items()},
    }
    (out / "build-info.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site", help="output folder (default build/site)")
    parser.add_argument("--jobs", type=int, default=2, help="Sphinx parallel jobs (notebooks executed at once)")
    parser.add_argument("--no-execute", action="store_true", help="do not execute the notebooks (quick look only)")
    args = parser.parse_args(argv)
    summary = build(args.out.resolve(), jobs=args.jobs, execute=not args.no_execute)
    print(f"site built in {summary['seconds']} s: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
