"""tools/build_notebooks.py: one source per lesson, two generated notebooks, learners' work kept."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import jupytext
import nbformat
import pytest

from coursekit.lessons import LESSONS, Lesson

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(__file__).resolve().parent / "data" / "notebook_sources"
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_notebooks"] = module
    spec.loader.exec_module(module)
    return module


bn = _load_tool()
LESSON_SOURCES = bn.sources(ROOT)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch project with the two sample sources."""
    src = tmp_path / "notebooks" / "src"
    src.mkdir(parents=True)
    for sample in sorted(SAMPLES.glob("*.py")):
        shutil.copy(sample, src / sample.name)
    return tmp_path


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)


def _learner_edit(path: Path) -> None:
    """What JupyterLab saves after a learner fills in a cell and runs it."""
    nb = _read(path)
    for cell in nb.cells:
        if "learner" in cell.metadata.get("tags", []) and cell.cell_type == "code":
            cell.source = "answer = 5.0"
            cell.execution_count = 1
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="5.0\n")]
            break
    else:
        raise AssertionError("sample has no learner code cell")
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def _edit_source(project: Path) -> None:
    path = project / "notebooks" / "src" / "01_sample.py"
    path.write_text(path.read_text(encoding="utf-8").replace("13.0 + 4.0", "14.0 + 4.0"), encoding="utf-8")


# -- the committed lessons -------------------------------------------------------------------


def test_there_are_lesson_sources() -> None:
    assert [p.name for p in LESSON_SOURCES][:1] == ["00_index.py"]


def test_committed_notebooks_and_glossary_are_current() -> None:
    for path, fresh in bn.plan(ROOT).items():
        assert path.exists(), f"{path} is missing: run python tools/build_notebooks.py"
        assert path.read_text(encoding="utf-8") == fresh, f"{path} is stale: run python tools/build_notebooks.py"
    assert bn.check(ROOT) == []


def test_every_lesson_has_both_languages() -> None:
    stems = {p.stem for p in LESSON_SOURCES}
    for lang in bn.LANGS:
        folder = ROOT / "notebooks" / lang
        generated = {p.stem for p in folder.glob("*.ipynb") if not bn.MINE_NAME.search(p.name)}
        assert generated == stems | {"glossary"}, f"notebooks/{lang} does not match notebooks/src"


def test_no_notebook_is_tracked_outside_the_lesson_folders() -> None:
    # A stray copy of the built notebooks (once committed under x/) goes stale silently: only notebooks/en and
    # notebooks/zh hold notebooks, and nothing but the build writes them.
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    stray = [name for name in tracked if not re.fullmatch(r"notebooks/(en|zh)/[^/]+\.ipynb", name)]
    assert stray == [], f"notebooks tracked outside notebooks/en and notebooks/zh: {stray[:5]}"


@pytest.mark.parametrize("source", LESSON_SOURCES, ids=lambda p: p.stem)
def test_code_parity_between_languages(source: Path) -> None:
    zh, en = (_read(bn.notebook_path(ROOT, source, lang)) for lang in ("zh", "en"))
    zh_code = [(c.id, c.source) for c in zh.cells if c.cell_type == "code"]
    en_code = [(c.id, c.source) for c in en.cells if c.cell_type == "code"]
    assert [i for i, _ in zh_code] == [i for i, _ in en_code]
    # a worked solution opens with a comment line in the notebook's language, and comments are written in both
    # languages (each notebook keeps its own); the code itself is shared
    solution_lines = (bn.SOLUTION_FIRST_LINE.zh, bn.SOLUTION_FIRST_LINE.en)
    differing = []
    for (_, a), (_, b) in zip(zh_code, en_code, strict=True):
        if a.split("\n", 1)[0] == solution_lines[0]:
            assert b.split("\n", 1)[0] == solution_lines[1]
            a, b = a.split("\n", 1)[1], b.split("\n", 1)[1]
        a, b = (_without_comment_lines(text) for text in (a, b))
        if a != b:
            differing.append((a, b))
    assert len(differing) == 1, "only the first code cell (the language line) may differ"
    zh_lines, en_lines = (s.splitlines() for s in differing[0])
    diff = [(a, b) for a, b in zip(zh_lines, en_lines, strict=True) if a != b]
    assert diff == [('coursekit.set_language("zh")', 'coursekit.set_language("en")')]
    assert zh.metadata["coursekit"]["lang"] == "zh" and en.metadata["coursekit"]["lang"] == "en"


def _without_comment_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))


#: A comment that reads as English prose: three words of three letters or more, and no Chinese character.
ENGLISH_PROSE = re.compile(r"(?:\b[A-Za-z]{3,}\b[^\n]*){3}")


@pytest.mark.parametrize("source", LESSON_SOURCES, ids=lambda p: p.stem)
def test_zh_code_comments_are_chinese(source: Path) -> None:
    zh = _read(bn.notebook_path(ROOT, source, "zh"))
    english = [
        line.strip()
        for cell in zh.cells
        if cell.cell_type == "code"
        for line in cell.source.split("\n")
        if line.lstrip().startswith("#") and ENGLISH_PROSE.search(line) and not CJK.search(line)
    ]
    assert english == [], "write code comments as '# zh: ...' and '# en: ...' lines"


def test_marked_comments_keep_their_own_language() -> None:
    text = "x = 1\n    # zh: 第一行\n    # en: first line\n    # zh: 第二行\n    # en: second line\ny = 2"
    assert bn.localized_comments(text, "zh") == "x = 1\n    # 第一行\n    # 第二行\ny = 2"
    assert bn.localized_comments(text, "en") == "x = 1\n    # first line\n    # second line\ny = 2"
    assert bn.localized_comments("# plain comment\nx = 1", "zh") == "# plain comment\nx = 1"


def _cjk_fraction(text: str) -> float:
    visible = [ch for ch in text if not ch.isspace()]
    return sum(bool(CJK.match(ch)) for ch in visible) / max(len(visible), 1)


@pytest.mark.parametrize("source", [*LESSON_SOURCES, *sorted(SAMPLES.glob("*.py"))], ids=lambda p: p.stem)
def test_markdown_pairing_and_languages(source: Path) -> None:
    cells = jupytext.reads(source.read_text(encoding="utf-8"), fmt="py:percent").cells
    for index, cell in enumerate(cells):
        lang = cell.metadata.get("lang")
        if lang == "zh":
            twin = cells[index + 1]
            assert twin.cell_type == "markdown" and twin.metadata.get("lang") == "en", f"cell {index}"
            assert CJK.search(cell.source), f"zh cell {index} has no Chinese: {cell.source[:60]!r}"
            assert _cjk_fraction(twin.source) < 0.05, f"en cell {index + 1} is mostly Chinese: {twin.source[:60]!r}"
        elif lang == "en":
            assert cells[index - 1].metadata.get("lang") == "zh", f"en cell {index} has no zh twin before it"
        elif cell.cell_type == "markdown":
            assert _cjk_fraction(cell.source) < 0.05, f"shared markdown cell {index} should be language-neutral"


# -- the Colab install cell ------------------------------------------------------------------------


def _configured_repository() -> str:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    url = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", url)
    assert match, url
    return match.group(1)


@pytest.mark.parametrize("source", LESSON_SOURCES, ids=lambda p: p.stem)
def test_every_lesson_installs_coursekit_on_colab_first(source: Path) -> None:
    repo = _configured_repository()
    for lang in bn.LANGS:
        code = [c for c in _read(bn.notebook_path(ROOT, source, lang)).cells if c.cell_type == "code"]
        first, second = code[0], code[1]
        assert first.id == bn.COLAB_CELL_ID and first.metadata["tags"] == [bn.COLAB_TAG]
        assert first.metadata["slideshow"] == {"slide_type": "skip"}
        assert 'if "google.colab" in sys.modules:' in first.source
        assert f'%pip install -q "coursekit @ git+https://github.com/{repo}"' in first.source
        assert bool(CJK.search(first.source.split("\n", 1)[0])) == (lang == "zh")  # its comment in the language
        assert f'coursekit.set_language("{lang}")' in second.source  # the lesson's own first code cell follows


class _Shell:
    """Stands in for IPython's shell: records the line magics a cell runs."""

    def __init__(self) -> None:
        self.magics: list[tuple[str, str]] = []

    def run_line_magic(self, name: str, line: str) -> None:
        self.magics.append((name, line))


def _run_like_ipython(source: str) -> list[tuple[str, str]]:
    """Transform ``source`` as IPython does (line magics inside blocks too) and run it; the magics it ran."""
    from IPython.core.inputtransformer2 import TransformerManager

    shell = _Shell()
    code = TransformerManager().transform_cell(source)
    exec(compile(code, "<colab cell>", "exec"), {"get_ipython": lambda: shell})
    return shell.magics


def test_colab_cell_is_a_no_op_outside_colab_and_pip_installs_on_colab(monkeypatch: pytest.MonkeyPatch) -> None:
    source = bn.colab_install_source("owner/name")
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert _run_like_ipython(source) == []  # locally, on Binder, under nbval and in the site build
    monkeypatch.setitem(sys.modules, "google.colab", ModuleType("google.colab"))
    assert _run_like_ipython(source) == [("pip", 'install -q "coursekit @ git+https://github.com/owner/name"')]


def test_colab_cell_refuses_a_repository_that_is_not_owner_name() -> None:
    for bad in ("", "owner", "owner/name/extra", "owner/name; rm -rf /"):
        with pytest.raises(ValueError, match="owner/name"):
            bn.colab_install_source(bad)


def test_the_repository_is_read_from_pyproject() -> None:
    assert bn.repository() == _configured_repository()


# -- the generator on the samples --------------------------------------------------------------


def test_lang_metadata_survives_jupytext() -> None:
    cells = jupytext.reads((SAMPLES / "01_sample.py").read_text(encoding="utf-8"), fmt="py:percent").cells
    assert [c.metadata.get("lang") for c in cells[:3]] == ["zh", "en", None]
    answer = next(c for c in cells if "answer" in c.metadata.get("tags", []))
    assert answer.metadata == {"lang": "zh", "tags": ["answer"]}


def test_build_writes_exactly_the_planned_files(project: Path) -> None:
    actions = bn.build(project)
    assert {a.kind for a in actions} == {"created"}
    written = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()}
    assert written == {
        "notebooks/src/01_sample.py",
        "notebooks/src/02_sample_short.py",
        "notebooks/zh/01_sample.ipynb",
        "notebooks/en/01_sample.ipynb",
        "notebooks/zh/02_sample_short.ipynb",
        "notebooks/en/02_sample_short.ipynb",
        "notebooks/zh/glossary.ipynb",
        "notebooks/en/glossary.ipynb",
        "docs/GLOSSARY.md",
    }
    assert bn.check(project) == []
    assert {a.kind for a in bn.build(project)} == {"unchanged"}


def test_generated_notebook_shape(project: Path) -> None:
    bn.build(project)
    zh = _read(project / "notebooks" / "zh" / "01_sample.ipynb")
    en = _read(project / "notebooks" / "en" / "01_sample.ipynb")
    nbformat.validate(zh)
    assert zh.nbformat == 4 and zh.metadata["kernelspec"]["name"] == "python3"
    source_bytes = (project / "notebooks" / "src" / "01_sample.py").read_bytes()
    meta = zh.metadata["coursekit"]
    assert meta["source"] == "notebooks/src/01_sample.py" and meta["lang"] == "zh"
    assert meta["source_sha256"] == __import__("hashlib").sha256(source_bytes).hexdigest()
    assert meta["content_sha256"] == bn.content_sha256(zh.cells)  # survives the write/read round trip
    for nb in (zh, en):
        assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")
        folded = [c for c in nb.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
        assert [c.metadata["tags"][0] for c in folded] == ["solution"]
        answers = [c for c in nb.cells if "answer" in c.metadata.get("tags", [])]
        assert len(answers) == 1 and answers[0].source.startswith('<details class="ck-answer">\n<summary>')
        assert answers[0].source.endswith("</details>")
        learner = [c for c in nb.cells if "learner" in c.metadata.get("tags", [])]
        assert len(learner) == 2 and not any(c.metadata.get("jupyter") for c in learner)
        assert not any("lang" in c.metadata for c in nb.cells)
    assert "示例课" in zh.cells[0].source and "Sample lesson" in en.cells[0].source
    assert zh.cells[1].id == en.cells[1].id == bn.COLAB_CELL_ID  # Colab's install cell, before the first code cell
    assert 'coursekit.set_language("zh")' in zh.cells[2].source
    assert 'coursekit.set_language("en")' in en.cells[2].source
    # 13 source cells: 4 zh-only + 4 en-only + 5 shared, and the Colab install cell
    assert len(zh.cells) == len(en.cells) == 10


def test_check_lists_missing_and_stale(project: Path) -> None:
    problems = bn.check(project)
    assert {(p.kind, p.path.as_posix()) for p in problems} >= {
        ("missing", "notebooks/zh/01_sample.ipynb"),
        ("missing", "notebooks/en/02_sample_short.ipynb"),
    }
    assert bn.main(["--check", "--root", str(project)]) == 1
    bn.build(project)
    assert bn.main(["--check", "--root", str(project)]) == 0
    _edit_source(project)
    assert sorted((p.kind, p.path.as_posix()) for p in bn.check(project)) == [
        ("stale", "notebooks/en/01_sample.ipynb"),
        ("stale", "notebooks/zh/01_sample.ipynb"),
    ]
    assert bn.main(["--check", "--root", str(project)]) == 1


def test_pristine_notebooks_are_updated_in_place(project: Path) -> None:
    bn.build(project)
    _edit_source(project)
    actions = {a.path.relative_to(project).as_posix(): a for a in bn.build(project)}
    assert actions["notebooks/zh/01_sample.ipynb"].kind == "updated"
    assert actions["notebooks/zh/01_sample.ipynb"].mine is None
    assert "14.0 + 4.0" in (project / "notebooks" / "zh" / "01_sample.ipynb").read_text(encoding="utf-8")
    assert not list(project.rglob("*.mine*.ipynb"))


def test_learner_edits_are_left_alone_while_the_source_is_unchanged(project: Path) -> None:
    bn.build(project)
    path = project / "notebooks" / "zh" / "01_sample.ipynb"
    _learner_edit(path)
    before = path.read_bytes()
    assert not bn.is_pristine(path)
    actions = {a.path: a.kind for a in bn.build(project)}
    assert actions[path] == "kept-learner-edits"
    assert path.read_bytes() == before
    assert [p.kind for p in bn.check(project)] == ["edited"]


def test_learner_copy_is_kept_when_the_source_changes(project: Path) -> None:
    bn.build(project)
    path = project / "notebooks" / "zh" / "01_sample.ipynb"
    _learner_edit(path)
    learner_bytes = path.read_bytes()
    _edit_source(project)
    actions = {a.path: a for a in bn.build(project)}
    mine = project / "notebooks" / "zh" / "01_sample.mine.ipynb"
    assert actions[path].kind == "moved-learner-copy" and actions[path].mine == mine
    assert mine.read_bytes() == learner_bytes
    assert "14.0 + 4.0" in path.read_text(encoding="utf-8") and bn.is_pristine(path)
    assert actions[project / "notebooks" / "en" / "01_sample.ipynb"].kind == "updated"  # not edited: no copy
    assert bn.check(project) == []  # learner copies are not orphans

    # A second round never overwrites the first copy.
    _learner_edit(path)
    second = path.read_bytes()
    (project / "notebooks" / "src" / "01_sample.py").write_text(
        (project / "notebooks" / "src" / "01_sample.py").read_text(encoding="utf-8").replace("2.0\n", "3.0\n"),
        encoding="utf-8",
    )
    bn.build(project)
    assert mine.read_bytes() == learner_bytes
    assert (project / "notebooks" / "zh" / "01_sample.mine-2.ipynb").read_bytes() == second


def test_unreadable_or_foreign_notebook_is_kept(project: Path) -> None:
    path = project / "notebooks" / "en" / "02_sample_short.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text("{ not json", encoding="utf-8")
    bn.build(project)
    assert (project / "notebooks" / "en" / "02_sample_short.mine.ipynb").read_text(encoding="utf-8") == "{ not json"
    assert bn.is_pristine(path)


def _break_json(path: Path) -> bytes:
    """What a merge conflict leaves in a notebook: markers inside a cell, metadata intact."""
    text = path.read_text(encoding="utf-8")
    broken = text.replace('"cells": [', '"cells": [\n<<<<<<< HEAD\n', 1)
    path.write_text(broken, encoding="utf-8")
    assert bn._read_notebook(path) is None
    return path.read_bytes()


def test_unreadable_notebook_is_left_alone_while_the_source_is_unchanged(project: Path) -> None:
    bn.build(project)
    path = project / "notebooks" / "zh" / "01_sample.ipynb"
    before = _break_json(path)
    actions = {a.path: a for a in bn.build(project)}
    assert actions[path].kind == "kept-learner-edits" and actions[path].mine is None
    assert path.read_bytes() == before
    assert not list(project.rglob("*.mine*.ipynb"))


def test_unreadable_notebook_without_metadata_is_judged_by_its_twin(project: Path) -> None:
    bn.build(project)
    path = project / "notebooks" / "zh" / "01_sample.ipynb"
    path.write_text(path.read_text(encoding="utf-8")[:200], encoding="utf-8")  # a save cut short
    truncated = path.read_bytes()
    assert bn.build(project) and path.read_bytes() == truncated  # source unchanged: kept
    _edit_source(project)
    actions = {a.path: a for a in bn.build(project)}
    assert actions[path].kind == "moved-learner-copy"
    assert (project / "notebooks" / "zh" / "01_sample.mine.ipynb").read_bytes() == truncated


def test_unreadable_notebook_is_moved_aside_when_the_source_changes(project: Path) -> None:
    bn.build(project)
    path = project / "notebooks" / "zh" / "01_sample.ipynb"
    before = _break_json(path)
    _edit_source(project)
    actions = {a.path: a for a in bn.build(project)}
    assert actions[path].kind == "moved-learner-copy"
    assert (project / "notebooks" / "zh" / "01_sample.mine.ipynb").read_bytes() == before
    assert bn.is_pristine(path)


def test_orphan_notebook_is_reported_not_deleted(project: Path) -> None:
    bn.build(project)
    orphan = project / "notebooks" / "en" / "09_gone.ipynb"
    shutil.copy(project / "notebooks" / "en" / "02_sample_short.ipynb", orphan)
    assert [(p.kind, p.path.as_posix()) for p in bn.check(project)] == [("orphan", "notebooks/en/09_gone.ipynb")]
    bn.build(project)
    assert orphan.exists()


def test_glossary_is_regenerated(project: Path) -> None:
    bn.build(project)
    glossary = project / "docs" / "GLOSSARY.md"
    glossary.write_text("old\n", encoding="utf-8")
    assert [(p.kind, p.path.as_posix()) for p in bn.check(project)] == [("stale", "docs/GLOSSARY.md")]
    bn.build(project)
    assert glossary.read_text(encoding="utf-8").startswith("# 术语表 / Glossary")


def test_glossary_notebook_in_each_language(project: Path) -> None:
    # Lessons link to glossary.ipynb next to them, so the link works when only notebooks/ is served.
    bn.build(project)
    zh, en = (_read(project / "notebooks" / lang / "glossary.ipynb") for lang in ("zh", "en"))
    assert [c.cell_type for c in zh.cells] == ["markdown"] and [c.cell_type for c in en.cells] == ["markdown"]
    assert zh.cells[0].source.startswith("# 术语表") and en.cells[0].source.startswith("# Glossary")
    assert "| 数据并行 | data parallelism | DP |" in zh.cells[0].source
    assert "| data parallelism | 数据并行 | DP |" in en.cells[0].source
    assert "(../en/glossary.ipynb)" in zh.cells[0].source and "(00_index.ipynb)" in en.cells[0].source
    assert bn.is_pristine(project / "notebooks" / "zh" / "glossary.ipynb")
    stale = project / "notebooks" / "en" / "glossary.ipynb"
    stale.write_text(stale.read_text(encoding="utf-8").replace("# Glossary", "# Old"), encoding="utf-8")
    assert ("edited", "notebooks/en/glossary.ipynb") in [(p.kind, p.path.as_posix()) for p in bn.check(project)]


def test_solution_cells_fold_source_and_outputs(project: Path) -> None:
    bn.build(project)
    nb = _read(project / "notebooks" / "en" / "01_sample.ipynb")
    for cell in nb.cells:
        tags = set(cell.metadata.get("tags", []))
        folded = cell.metadata.get("jupyter", {})
        if "solution" in tags:
            assert folded == {"source_hidden": True, "outputs_hidden": True}
            assert cell.source.split("\n", 1)[0] == bn.SOLUTION_FIRST_LINE.en  # what a folded cell shows
        else:  # a self-check answer is folded by its <details> block, which every Markdown renderer honours
            assert not folded


def test_every_lesson_link_resolves_from_the_notebooks_folder() -> None:
    # Links must work when only notebooks/ is served: no ../../ out of it, and every relative target exists.
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    for lang in bn.LANGS:
        for path in sorted((ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb")):
            if bn.MINE_NAME.search(path.name):
                continue
            for cell in _read(path).cells:
                if cell.cell_type != "markdown":
                    continue
                for target in link.findall(cell.source):
                    if target.startswith(("http://", "https://")):
                        continue
                    assert not target.startswith("../../"), f"{path.name} links outside notebooks/: {target}"
                    assert (path.parent / target).resolve().exists(), f"{path.name}: broken link {target}"


@pytest.mark.parametrize("entry", LESSONS, ids=lambda entry: entry.stem)
def test_every_lesson_links_previous_next_index_and_glossary(entry: Lesson) -> None:
    stems = [lesson.stem for lesson in LESSONS]
    index = stems.index(entry.stem)
    for lang in bn.LANGS:
        text = "\n".join(c.source for c in _read(ROOT / "notebooks" / lang / f"{entry.stem}.ipynb").cells)
        expected = {"glossary.ipynb"} | ({f"{stems[index + 1]}.ipynb"} if index + 1 < len(stems) else set())
        if index > 0:  # lesson 0 is the index itself
            expected |= {f"{stems[index - 1]}.ipynb", "00_index.ipynb"}
        for target in expected:
            assert f"]({target})" in text, f"{lang}/{entry.stem} lacks a link to {target}"


# -- source format errors ------------------------------------------------------------------------

GOOD_CODE = '# %%\nimport coursekit\ncoursekit.set_language("{{LANG}}")\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '# %% [markdown] lang="zh"\n# 中文\n\n' + GOOD_CODE,
            'a lang="zh" cell must be followed by its lang="en" twin',
        ),
        ('# %% [markdown] lang="en"\n# English\n\n' + GOOD_CODE, 'a lang="en" cell must follow its lang="zh" twin'),
        (
            '# %% [markdown] lang="zh"\n# 中文\n\n# %% [markdown]\n# x\n\n'
            '# %% [markdown] lang="en"\n# English\n\n' + GOOD_CODE,
            'must be followed by its lang="en" twin',
        ),
        ('# %% [markdown] lang="fr"\n# Français\n\n' + GOOD_CODE, "lang='fr' must be one of zh, en"),
        (GOOD_CODE + '\n# %% lang="zh"\nx = 1\n', "only markdown cells take lang=; code is shared"),
        ("# %%\nimport coursekit\n", 'the first code cell must contain coursekit.set_language("{{LANG}}")'),
        ("# %% [markdown]\n# only prose\n", "no code cell"),
        (GOOD_CODE + '\n# %%\nprint("{{LANG}}")\n', "{{LANG}} appears 2 times"),
        (GOOD_CODE + '\n# %% tags="solution"\nx = 1\n', "jupytext cannot parse it: 'solution' is not of type 'array'"),
        (GOOD_CODE + "\n# %%\n# zh: 只有中文\nx = 1\n", "marked comments '# zh: 只有中文'... have {'zh': 1, 'en': 0}"),
    ],
)
def test_source_format_errors(text: str, message: str) -> None:
    with pytest.raises(bn.SourceError, match=re.escape(message)):
        bn.build_notebook(text, "notebooks/src/99_bad.py", "en")


def test_bad_source_makes_check_fail(project: Path) -> None:
    (project / "notebooks" / "src" / "03_bad.py").write_text('# %% [markdown] lang="zh"\n# 中文\n', encoding="utf-8")
    problems = bn.check(project)
    assert [p.kind for p in problems] == ["invalid"]
    assert "03_bad.py" in problems[0].detail


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="lang = 'fr'"):
        bn.build_notebook(GOOD_CODE, "x.py", "fr")


def test_content_hash_sees_outputs_and_sources() -> None:
    nb = bn.build_notebook((SAMPLES / "02_sample_short.py").read_text(encoding="utf-8"), "s.py", "en")
    base = bn.content_sha256(nb.cells)
    ran = json.loads(json.dumps(nb.cells))
    ran[-1]["execution_count"] = 1
    assert bn.content_sha256(ran) != base
    edited = json.loads(json.dumps(nb.cells))
    edited[0]["source"] += " "
    assert bn.content_sha256(edited) != base
    assert bn.content_sha256(json.loads(json.dumps(nb.cells))) == base


def test_make_test_does_not_collect_learner_copies(tmp_path: Path) -> None:
    # `make test` runs pytest (nbval) over notebooks/zh and notebooks/en; a learner's kept copy
    # (NN_slug.mine.ipynb, .mine-2 ...) is unfinished work and must not be collected. The root conftest.py
    # excludes it; run pytest's collection on a scratch tree with that conftest to see it happen.
    import subprocess

    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    folder = tmp_path / "notebooks" / "zh"
    folder.mkdir(parents=True)
    lesson = folder / "01_sample.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), lesson)
    for copy in (bn.mine_path(lesson), folder / "01_sample.mine-2.ipynb"):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("answer = ")]), copy)
    assert sorted(p.name for p in folder.iterdir()) == [
        "01_sample.ipynb",
        "01_sample.mine-2.ipynb",
        "01_sample.mine.ipynb",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--nbval-lax", "-p", "no:cacheprovider", "notebooks"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "01_sample.ipynb" in run.stdout and ".mine" not in run.stdout


def test_every_lesson_has_the_generated_navigation_top_and_bottom() -> None:
    """Each lesson opens and closes with the navigation tools/lesson_nav.py writes from one title table."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("lesson_nav", ROOT / "tools" / "lesson_nav.py")
    assert spec is not None and spec.loader is not None
    nav = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nav)
    for source in sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")):
        text = source.read_text(encoding="utf-8")
        assert nav.rendered(source) == text, f"{source.name}: run python tools/lesson_nav.py --write"
        lesson = int(source.name[:2])
        for lang in ("zh", "en"):
            assert "# " + nav.top_line(lesson, lang) in text and "# " + nav.bottom_line(lesson, lang) in text
        if lesson + 1 in nav.TITLES:
            assert f"{lesson + 1:02d}_" in nav.bottom_line(lesson, "en"), "the next lesson is linked"
