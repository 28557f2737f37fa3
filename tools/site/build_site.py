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

    python tools/site/build_site.py [--out build/site] [--jobs 2] [--no-execute] [--no-cache] [--lessons 00,04]

The lessons are executed before Sphinx runs, ``--jobs`` kernels at a time, longest first; a lesson whose
executed copy is cached under the same notebook, ``coursekit`` sources and environment is not run again
(tools/site/execute_lessons.py). Each phase's wall and CPU seconds go into ``build-info.json``
(tools/site/phase_clock.py).
"""

from __future__ import annotations

import argparse
import functools
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
if str(ROOT) not in sys.path:  # run as a script from anywhere: the course's own package
    sys.path.insert(0, str(ROOT))

from coursekit.i18n import Text  # noqa: E402

LANGS = ("zh", "en")
NOTEBOOK_NAME = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")
#: The buttons of a folded worked solution: (show, hide).
SOLUTION_PROMPTS = (
    Text(zh="显示参考解答", en="Show the worked solution"),
    Text(zh="隐藏参考解答", en="Hide the worked solution"),
)
#: Each language's course, as the home page and the navigation name it (in that language).
COURSE_TITLE = Text(zh="中文课程", en="English course")
#: Sections of the home page and the navigation that hold both languages.
GUIDE_TITLE = "教师指南 / Instructor guide"
REFERENCE_TITLE = "参考 / Reference"
GUIDE_LINK = Text(zh="教师指南", en="Instructor guide")
LAUNCH_TITLE = Text(
    zh="运行课程：Binder、魔搭 (ModelScope)、Colab、本机与 PyTorch",
    en="Running the course: Binder, ModelScope, Colab, your own computer and PyTorch",
)
#: README sections the launch pages include, by language (marker name, also the section's anchor), in order: the
#: ModelScope section points to the pip section below it.
README_SECTIONS = ("binder", "modelscope", "colab", "local", "pip", "pytorch")
#: The heading of a README section that has none of its own inside its markers (the README's heading covers more).
README_SECTION_HEADINGS = {
    "local": Text(zh="在自己的电脑上运行（make lab）", en="On your own computer (make lab)"),
}
#: What comes before a section's README text on the launch page: the clone it runs in ({repository}: owner/name).
README_SECTION_LEADS = {
    "local": Text(
        zh="先克隆课程仓库并进入它：`git clone https://github.com/{repository}.git && cd {name}`，然后：",
        en="First clone the course's repository and enter it: `git clone https://github.com/{repository}.git && "
        "cd {name}`, then:",
    ),
}


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


def vendor_cache() -> Path:
    """Where the npm packages the site serves (KaTeX) and its tests inject (axe-core) are kept between builds."""
    return Path(os.environ.get("COURSEKIT_SITE_VENDOR", ROOT / "build" / "site-vendor"))


def _finish_module() -> Any:
    """tools/site/finish.py (loaded by path: tools/ is not a package)."""
    return _load_tool("finish")


def _load_tool(name: str) -> Any:
    """A module of tools/site by name (tools/ is not a package)."""
    import importlib

    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return importlib.import_module(name)


PDF_LINK = Text(zh="中文课程 (PDF)", en="English course (PDF)")


def link_pdfs(home: Path, pdfs: dict[str, str]) -> None:
    """Links to the printed courses under the home page's title (only those Chromium printed)."""
    links = [f'<a href="{name}">{PDF_LINK.render(lang)}</a>' for lang, name in pdfs.items() if name.endswith(".pdf")]
    if links and home.exists():
        text = home.read_text(encoding="utf-8")
        text = text.replace("</h1>", f'</h1>\n<p class="ck-pdf">{" · ".join(links)}</p>', 1)
        home.write_text(text, encoding="utf-8")


def lesson_notebooks(lang: str, only: Iterable[str] | None = None) -> list[Path]:
    """The lesson notebooks of one language, in lesson order (learners' ``.mine`` copies excluded).

    ``only``: lesson numbers (``"04"``) to keep, for a quick build of a few pages; None keeps every lesson.
    """
    keep = None if only is None else set(only)
    return sorted(
        p
        for p in (ROOT / "notebooks" / lang).glob("*.ipynb")
        if NOTEBOOK_NAME.match(p.name) and (keep is None or p.name[:2] in keep)
    )


def doc_pages() -> list[Path]:
    """Markdown pages under docs/, repository-relative."""
    return sorted(p.relative_to(ROOT) for p in (ROOT / "docs").rglob("*.md"))


# -- staging ----------------------------------------------------------------------------------


def stage_notebook(notebook: dict[str, Any], lang: str) -> dict[str, Any]:
    """Fold solutions the way the site engine understands; returns the changed notebook.

    Answers to self-checks are already ``<details>`` blocks in the notebooks (tools/build_notebooks.py). Cells that
    only print a table (:func:`table_only`) keep their output and lose their input on the page.
    """
    show, hide = (prompt.render(lang) for prompt in SOLUTION_PROMPTS)
    code = [(i, "".join(c["source"])) for i, c in enumerate(notebook["cells"]) if c["cell_type"] == "code"]
    for index, cell in enumerate(notebook["cells"]):
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
        elif cell["cell_type"] == "code" and not tags:
            later = "\n".join(text for i, text in code if i > index)
            if table_only("".join(cell["source"]), later):
                cell.setdefault("metadata", {})["tags"] = ["remove-input"]
    return notebook


#: A hidden first cell of every staged lesson: a figure shows as an ``<img>`` whose alt text says, in the
#: lesson's language, what the figure holds (coursekit.figure_alt reads it from the figure, or from the
#: description coursekit.plotting.figure_to_png wrote into the PNG the lesson displays).
FIGURE_ALT_CELL = """\
from IPython import get_ipython as _ck_ipython
from matplotlib.figure import Figure as _CkFigure
from IPython.display import Image as _CkImage
from coursekit.figure_alt import figure_html as _ck_figure_html, image_html as _ck_image_html
_ck_html = _ck_ipython().display_formatter.formatters["text/html"]
_ck_html.for_type(_CkFigure, _ck_figure_html)
_ck_html.for_type(_CkImage, _ck_image_html)
"""


def with_figure_alt(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` with :data:`FIGURE_ALT_CELL` first (removed from the page)."""
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "id": "ck-site-figure-alt",
        "metadata": {"tags": ["remove-cell"]},
        "outputs": [],
        "source": FIGURE_ALT_CELL,
    }
    notebook["cells"].insert(0, cell)
    return notebook


def table_only(source: str, later: str) -> bool:
    """True for a cell whose last statement is ``display(Markdown(...))`` and whose names no later cell reads.

    Such a cell only builds a table for the reader: the page shows the table, not the plumbing that
    formats it. A cell that also defines something the lesson uses later keeps its input.
    """
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    if not tree.body:
        return False
    last = tree.body[-1]
    call = last.value if isinstance(last, ast.Expr) else None
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "display"
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Call)
        and isinstance(call.args[0].func, ast.Name)
        and call.args[0].func.id == "Markdown"
    ):
        return False
    assigned = {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    } | {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    later_names = {node.id for node in ast.walk(ast.parse(later)) if isinstance(node, ast.Name)} if later else set()
    return not any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in tree.body) and not (
        assigned & later_names
    )


HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def markdown_headings(texts: Iterable[str]) -> list[str]:
    """The headings of Markdown texts in order (fenced code skipped): what becomes a section."""
    headings: list[str] = []
    for text in texts:
        fenced = False
        for line in text.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            elif not fenced and (match := HEADING.match(line)):
                headings.append(match.group(2))
    return headings


def _page_texts(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return [path.read_text(encoding="utf-8")]


def section_ids(zh_path: Path, en_path: Path) -> list[str] | None:
    """Anchors for a Chinese page's sections: the ids its English twin's sections get, in the same order.

    Both pages come from one source, section for section, so a Chinese section gets a meaningful, stable
    ASCII anchor (``#candidates-pass-one-by-one-...``) instead of docutils' ``#id3``; None when the two
    pages' heading counts differ (the Chinese page then keeps its default anchors).
    """
    from docutils.nodes import make_id

    zh, en = markdown_headings(_page_texts(zh_path)), markdown_headings(_page_texts(en_path))
    if len(zh) != len(en):
        return None
    return [make_id(re.sub(r"[`*_]", "", heading)) for heading in en]


def twin_pages(staging: Path) -> dict[str, tuple[Path, Path]]:
    """Chinese staged pages with an English twin: docname -> (zh path, en path)."""
    pairs: dict[str, tuple[Path, Path]] = {}
    for path in staging.rglob("*"):
        rel = path.relative_to(staging)
        if path.suffix not in (".ipynb", ".md"):
            continue
        parts = list(rel.parts)
        if "zh" in parts:
            parts[len(parts) - 1 - parts[::-1].index("zh")] = "en"
            twin = staging.joinpath(*parts)
        elif rel.stem.endswith("_zh"):
            twin = path.with_name(rel.stem[:-3] + "_en" + path.suffix)
        else:
            continue
        if twin.exists():
            pairs[str(rel.with_suffix(""))] = (path, twin)
    return pairs


#: A Markdown link whose text is its target's file name (the guide's contents: ``[00_index.md](00_index.md)``).
_FILE_NAME_LINK = re.compile(r"\[`?(?P<name>[\w.-]+\.md)`?\]\((?P<target>(?:[\w.-]+/)*(?P=name))\)")


def titled_links(text: str) -> str:
    """``text`` (a page's Markdown) with each link named by its target's file name left without a text, which the site
    fills with the target page's title (MyST); the repository's view of the page keeps the file name.

    >>> titled_links("[00_index.md](00_index.md) [sheet](../cheatsheet_zh.md) [cheatsheet_en.md](../cheatsheet_en.md)")
    '[](00_index.md) [sheet](../cheatsheet_zh.md) [](../cheatsheet_en.md)'
    """
    return _FILE_NAME_LINK.sub(r"[](\g<target>)", text)


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


def launch_page(lang: str, repo: str | None = None) -> str:
    """A how-to page that includes the README's launch sections of one language (``repo``: owner/name, by default
    :func:`repository`)."""
    repo = repo or repository()
    lines = [f"# {LAUNCH_TITLE.render(lang)}", ""]
    for name in README_SECTIONS:
        lines.append(f"({name})=")
        if name in README_SECTION_HEADINGS:
            lines += [f"### {README_SECTION_HEADINGS[name].render(lang)}", ""]
        if name in README_SECTION_LEADS:
            lead = README_SECTION_LEADS[name].render(lang)
            lines += [lead.format(repository=repo, name=repo.rsplit("/", 1)[-1]), ""]
        lines += [
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


#: Reference pages by language in the navigation: Chinese, then English.
_LANG_ORDER = {lang: i for i, lang in enumerate(LANGS)}


def page_language(docname: str) -> str | None:
    """A page's language from its name (tools/site/coursekit_site.py's rule: a ``zh``/``en`` folder or name suffix)."""
    return _coursekit_site().page_language(docname)  # type: ignore[no-any-return]


@functools.cache
def _coursekit_site() -> Any:
    return _load_tool("coursekit_site")


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
        lines += [f"## {COURSE_TITLE.render(lang)}", ""]
        lines += [f"- [{notebook_title(p)}](notebooks/{lang}/{p.name})" for p in lessons[lang]]
        lines.append("")
    pages = {str(p) for p in docs}
    guides = [
        f"[{GUIDE_LINK.render(lang)}](docs/instructor/{lang}/README.md)"
        for lang in LANGS
        if f"docs/instructor/{lang}/README.md" in pages
    ]
    lines += [f"## {REFERENCE_TITLE}", "", "- [术语表 / Glossary](docs/GLOSSARY.md)"]
    lines += [f"- {' / '.join(guides)}"] if guides else []
    lines += ["- [运行课程](launch/zh.md) / [Running the course](launch/en.md)", ""]
    for lang in LANGS:
        lines += _toctree(COURSE_TITLE.render(lang), [f"notebooks/{lang}/{p.stem}" for p in lessons[lang]])
    guide = [str(p.with_suffix("")) for p in docs if "instructor" in p.parts]
    guide.sort(key=lambda d: (LANGS.index(d.split("/")[-2]) if d.split("/")[-2] in LANGS else 2, "README" not in d, d))
    lines += _toctree(GUIDE_TITLE, guide)
    reference = [str(p.with_suffix("")) for p in docs if "instructor" not in p.parts]
    reference += [f"launch/{lang}" for lang in LANGS]
    # one language's pages together (the bilingual ones first): previous / next, which stay in one language, then lead
    # from each Chinese reference page to the next one (速查表 -> 运行课程), not to an English page's missing link
    reference.sort(key=lambda d: (_LANG_ORDER.get(page_language(d), -1), d))
    lines += _toctree(REFERENCE_TITLE, reference)
    return "\n".join(lines)


#: jsonschema (imported by nbformat, by myst-nb) imports rfc3987_syntax when it is installed, which compiles an
#: IRI grammar at import: 2 CPU seconds in each process that reads notebooks. Nothing in the build validates an
#: IRI, so those processes (Sphinx's, through the conf.py below; the command line's, in main) go without it.
SKIP_IRI_GRAMMAR = 'sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]\n\n'


def conf_py(repo: str) -> str:
    settings = {
        "project": "coursekit",
        "author": "coursekit authors",
        "copyright": "coursekit authors; course text CC BY 4.0, code MIT",
        "extensions": ["myst_nb", "coursekit_site", "phase_clock"],
        "exclude_patterns": [
            "README.md",
            "**/.ipynb_checkpoints",
            "jupyter_execute",
            "section-ids.json",
            "sphinx-phases.json",
        ],
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
        # the theme's own default ("") is no colour mode: a first visit logged "invalid theme mode" to the console
        "html_context": {"default_mode": "auto"},
        # the site's icon (a browser asks every site for one: without it, a 404 in the console of a first visit)
        "html_favicon": str(HERE / "static" / "coursekit-icon.svg"),
        "html_last_updated_fmt": None,
        "html_copy_source": True,  # the download button offers the lesson's .ipynb
        "myst_enable_extensions": ["dollarmath", "colon_fence"],
        "myst_heading_anchors": 3,
        "suppress_warnings": ["myst.header", "mystnb.unknown_mime_type"],
        # The lessons are executed before Sphinx runs (tools/site/execute_lessons.py: both cores, cached);
        # Sphinx renders the outputs they carry.
        "nb_execution_mode": "off",
        "nb_merge_streams": True,
        # Markdown outputs (the lessons' tables) need table syntax: CommonMark, myst-nb's default, has none.
        "nb_render_markdown_format": "myst",
        # A widget's live view needs a kernel; its static HTML (figure + control values) is what a page shows.
        "nb_mime_priority_overrides": [
            ["html", "application/vnd.jupyter.widget-view+json", None],
            ["html", "text/html", 0],
        ],
        # Chinese sections take their English twin's anchors (coursekit_site reads this file).
        "coursekit_section_ids": "section-ids.json",
        # Widgets show their build-time views (coursekit_site); no page loads the widget manager from a CDN.
        "nb_ipywidgets_js": {},
        "coursekit_repository": repo,
        "coursekit_branch": "main",
        # phase_clock marks the end of Sphinx's read (and execute) and write phases here (build-info.json).
        "coursekit_phase_file": "sphinx-phases.json",
    }
    body = "\n".join(f"{key} = {value!r}" for key, value in settings.items())
    header = "# Written by tools/site/build_site.py; edit that file instead.\nimport sys\n\n" + SKIP_IRI_GRAMMAR
    return f"{header}sys.path.insert(0, {str(HERE)!r})\n\n{body}\n"


def stage(staging: Path, only: Iterable[str] | None = None) -> dict[str, list[Path]]:
    """Write the Sphinx source tree into ``staging`` (emptied first)."""
    if staging.exists():
        shutil.rmtree(staging)
    lessons = {lang: lesson_notebooks(lang, only) for lang in LANGS}
    for lang, paths in lessons.items():
        out_dir = staging / "notebooks" / lang
        out_dir.mkdir(parents=True)
        for path in paths:
            notebook = with_figure_alt(stage_notebook(json.loads(path.read_text(encoding="utf-8")), lang))
            (out_dir / path.name).write_text(json.dumps(notebook, ensure_ascii=False, indent=1), encoding="utf-8")
    docs = doc_pages()
    for page in docs:
        (staging / page).parent.mkdir(parents=True, exist_ok=True)
        (staging / page).write_text(titled_links((ROOT / page).read_text(encoding="utf-8")), encoding="utf-8")
    (staging / "docs" / "GLOSSARY.md").write_text(glossary_page(), encoding="utf-8")
    if Path("docs/GLOSSARY.md") not in docs:
        docs.append(Path("docs/GLOSSARY.md"))
    (staging / "launch").mkdir()
    for lang in LANGS:
        (staging / "launch" / f"{lang}.md").write_text(launch_page(lang), encoding="utf-8")
    shutil.copyfile(ROOT / "README.md", staging / "README.md")
    (staging / "index.md").write_text(home_page(lessons, docs), encoding="utf-8")
    anchors = {doc: ids for doc, (zh, en) in twin_pages(staging).items() if (ids := section_ids(zh, en))}
    (staging / "section-ids.json").write_text(json.dumps(anchors, ensure_ascii=False, indent=1), encoding="utf-8")
    (staging / "conf.py").write_text(conf_py(repository()), encoding="utf-8")
    return lessons


def build(
    out: Path, *, jobs: int = 2, execute: bool = True, only: Iterable[str] | None = None, cache: bool = True
) -> dict[str, Any]:
    """Stage and build the site into ``out``; returns a summary (seconds per phase, page counts) also saved
    as ``build-info.json``.

    ``only``: lesson numbers to build (a quick partial site); None builds every lesson. ``jobs``: lessons
    executed at once and Sphinx's parallel processes. ``cache``: reuse a lesson's executed copy when neither
    it nor coursekit nor the environment changed (tools/site/execute_lessons.py); False executes every lesson.
    """
    started = time.perf_counter()
    clock = _load_tool("phase_clock").Clock()
    staging = out.parent / (out.name + "-src")
    with clock.phase("stage"):
        lessons = stage(staging, only)
    executed: dict[str, dict[str, Any]] = {}
    if execute:
        runner = _load_tool("execute_lessons")
        with clock.phase("execute"):
            staged = {
                staging / "notebooks" / lang / p.name: f"notebooks/{lang}/{p.stem}"
                for lang in LANGS
                for p in lessons[lang]
            }
            folder = runner.cache_folder() if cache else None
            executed = runner.execute(staged, jobs=jobs, cache=folder, names=staged)
    doctrees = out.parent / (out.name + "-doctrees")
    if out.exists():
        shutil.rmtree(out)
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-E", "-q", "-j", str(jobs), "-d", str(doctrees)]
    marks = staging / "sphinx-phases.json"
    before = _load_tool("phase_clock").stamp()
    subprocess.run([*command, str(staging), str(out)], check=True, env=env)
    clock.split_sphinx(before, marks, _load_tool("phase_clock").stamp())
    with clock.phase("finish"):
        finished = _finish_module().finish(out, vendor_cache(), ROOT / "notebooks", ROOT / "docs")
    usage: dict[str, float] = {}
    with clock.phase("pdf"):
        stems = {lang: [p.stem for p in paths] for lang, paths in lessons.items()}
        pdfs = _load_tool("print_pdf").print_pdfs(out, stems, usage)
        link_pdfs(out / "index.html", pdfs)
    clock.add_cpu("pdf", usage.get("browser_cpu_s", 0.0))  # Chromium's processes are not ours to reap
    (out / ".nojekyll").write_text("", encoding="utf-8")
    summary = {
        "seconds": round(time.perf_counter() - started, 1),
        "phases": clock.summary(),
        "execution": executed,
        "executed": execute,
        "finish": finished,
        "pdf": pdfs,
        "lessons": {lang: [p.stem for p in paths] for lang, paths in lessons.items()},
    }
    (out / "build-info.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site", help="output folder (default build/site)")
    parser.add_argument("--jobs", type=int, default=2, help="Sphinx parallel jobs (notebooks executed at once)")
    parser.add_argument("--no-execute", action="store_true", help="do not execute the notebooks (quick look only)")
    parser.add_argument(
        "--no-cache", action="store_true", help="execute every lesson, even one whose executed copy is cached"
    )
    parser.add_argument(
        "--lessons", help="comma-separated lesson numbers to build, e.g. 00,04 (a quick partial site; default all)"
    )
    args = parser.parse_args(argv)
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # see SKIP_IRI_GRAMMAR
    only = [n.strip().zfill(2) for n in args.lessons.split(",")] if args.lessons else None
    summary = build(args.out.resolve(), jobs=args.jobs, execute=not args.no_execute, only=only, cache=not args.no_cache)
    print(f"site built in {summary['seconds']} s: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
