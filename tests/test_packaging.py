"""The distribution: `python -m build` makes a wheel and an sdist that `twine check` accepts, with an
SPDX licence expression, licence files, classifiers, project URLs, py.typed, one version and the lesson
notebooks as package data; the wheel installs into a fresh venv on Python 3.10 and 3.12 (when those
interpreters exist here), where `import coursekit` and `python -m coursekit lessons` work.
Also: every repository link in the project files names the repository pyproject.toml names.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import coursekit

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: Interpreters the course promises (ModelScope images run 3.12; CI's Debian python is 3.11).
PROMISED_PYTHONS = ("3.10", "3.12")


def _lesson_notebooks() -> list[str]:
    return sorted(
        f"{lang}/{p.name}"
        for lang in ("zh", "en")
        for p in [*(ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb"), ROOT / "notebooks" / lang / "glossary.ipynb"]
        if ".mine" not in p.name
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build", reason="pip install build")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], check=True, capture_output=True)
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("coursekit-*.whl")
    return wheel


def test_twine_check_passes(dist: Path) -> None:
    pytest.importorskip("twine", reason="pip install twine")
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_wheel_metadata(dist: Path) -> None:
    wheel = _wheel(dist)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_bytes(archive.read(meta_name))
    assert meta["Version"] == coursekit.__version__  # one version, read from the package
    assert wheel.name.startswith(f"coursekit-{coursekit.__version__}-")
    assert meta["License-Expression"] == "MIT AND CC-BY-4.0"
    assert sorted(meta.get_all("License-File")) == ["LICENSE", "LICENSE-TEXT.md"]
    assert meta.get("License") is None  # the deprecated TOML-table licence is gone
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.10" in classifiers and "Typing :: Typed" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # an SPDX expression replaces them
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls["Repository"] == PYPROJECT["project"]["urls"]["Repository"]
    assert "coursekit/py.typed" in names
    shipped = sorted(n.removeprefix("coursekit/_lessons/") for n in names if n.startswith("coursekit/_lessons/"))
    assert shipped == _lesson_notebooks()
    for notebook in _lesson_notebooks():
        with zipfile.ZipFile(wheel) as archive:
            assert archive.read(f"coursekit/_lessons/{notebook}") == (ROOT / "notebooks" / notebook).read_bytes()


def test_sdist_has_sources_notebooks_and_licences(dist: Path) -> None:
    (sdist,) = dist.glob("coursekit-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"LICENSE", "LICENSE-TEXT.md", "pyproject.toml", "setup.py", "coursekit/__init__.py"} <= names
    assert {f"notebooks/{n}" for n in _lesson_notebooks()} <= names


def _interpreters() -> dict[str, str]:
    """Python X.Y -> an interpreter of that version found on this machine (PATH, then pyenv)."""
    found: dict[str, str] = {}
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    for version in PROMISED_PYTHONS:
        candidates = [shutil.which(f"python{version}")]
        candidates += [str(p) for p in sorted(pyenv_root.glob(f"versions/{version}.*/bin/python{version}"))]
        for candidate in filter(None, candidates):
            probe = subprocess.run(
                [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True
            )
            if probe.returncode == 0 and probe.stdout.strip() == version:
                found[version] = candidate
                break
    return found


@pytest.mark.parametrize("version", PROMISED_PYTHONS)
def test_wheel_installs_into_a_fresh_venv(dist: Path, version: str, tmp_path: Path) -> None:
    interpreter = _interpreters().get(version)
    if interpreter is None:
        pytest.skip(f"no Python {version} interpreter on this machine (PATH or pyenv)")
    venv = tmp_path / "venv"
    subprocess.run([interpreter, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(_wheel(dist))],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COURSEKIT_LANG")}
    probe = subprocess.run(
        [python, "-c", "import coursekit, sys; print(coursekit.__version__, coursekit.__file__, sys.version_info[:2])"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout.split()
    assert probe[0] == coursekit.__version__
    assert str(venv) in probe[1]  # the installed copy, not this checkout
    copied = subprocess.run(
        [python, "-m", "coursekit", "lessons", str(tmp_path / "course"), "--lang", "en"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert copied.returncode == 0, copied.stderr
    english = sorted(n for n in _lesson_notebooks() if n.startswith("en/"))
    assert sorted(f"en/{p.name}" for p in (tmp_path / "course" / "notebooks" / "en").iterdir()) == english
    assert not (tmp_path / "course" / "notebooks" / "zh").exists()


# -- the repository is named once ---------------------------------------------------------------

#: Links that must name this repository: launchers, clone and install commands, the citation's code URL.
LINK = re.compile(
    r"(?:mybinder\.org/v2/gh/|colab\.research\.google\.com/github/|git clone https://github\.com/"
    r"|git\+https://github\.com/|repository-code: \"?https://github\.com/)([\w.-]+/[\w.-]+?)(?:\.git)?(?=[/?#)\s\"'>]|$)"
)


def _configured_repository() -> str:
    url = PYPROJECT["project"]["urls"]["Repository"]
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", url)
    assert match, url
    return match.group(1)


def repository_links(text: str) -> set[str]:
    """owner/name of every launcher, clone, install and citation link in ``text``."""
    return set(LINK.findall(text))


def test_every_project_link_names_the_configured_repository() -> None:
    repo = _configured_repository()
    assert all(repo in url for url in PYPROJECT["project"]["urls"].values())
    files = [
        "README.md",
        "CITATION.cff",
        "CONTRIBUTING.md",
        "binder/postBuild",
        *map(str, ROOT.glob(".github/**/*.md")),
    ]
    seen = 0
    for name in files:
        path = ROOT / name
        links = repository_links(path.read_text(encoding="utf-8"))
        assert links <= {repo}, f"{name}: {links - {repo}}"
        seen += len(links)
    assert seen >= 1
    sample = "git clone https://github.com/someone/fork.git x; https://mybinder.org/v2/gh/a/b/main?urlpath=lab"
    assert repository_links(sample + " https://github.com/NVIDIA/nccl-tests") == {"someone/fork", "a/b"}


# -- the PyPI name `coursekit` is someone else's ---------------------------------------------------

#: A pip command in backticks or on a line of its own, up to the end of the code span or line.
PIP_COMMAND = re.compile(r"%?pip install ([^`\n]+)")


def _coursekit_requirements(command: str) -> list[str]:
    """The requirements of a ``pip install`` command that name the coursekit distribution (quotes removed)."""
    args = re.findall(r'"[^"]*"|\'[^\']*\'|\S+', command)
    reqs = [a.strip("\"'") for a in args if not a.startswith("-")]
    return [r for r in reqs if re.match(r"coursekit(\[[^\]]*\])?(\s|$|@)", r)]


def test_no_install_command_sends_learners_to_the_pypi_name() -> None:
    # PyPI's `coursekit` (0.1.0, 2025-11) is another project, an instructors' tool; until the course publishes
    # under a free name, every install names this repository (or a local clone or wheel).
    repo = _configured_repository()
    checked = 0
    warnings = 0
    for name in ["README.md", "CONTRIBUTING.md", *map(str, (ROOT / "docs").rglob("*.md"))]:
        text = (ROOT / name).read_text(encoding="utf-8")
        for match in PIP_COMMAND.finditer(text):
            command = match.group(1)
            if re.search(r"(不要运行|[Dd]o not run) `$", text[: match.start()]):  # the warning itself
                warnings += 1
                continue
            for requirement in _coursekit_requirements(command):
                checked += 1
                assert requirement.endswith(f"@ git+https://github.com/{repo}"), f"{name}: pip install {command}"
    assert checked >= 4 and warnings >= 4  # ModelScope's step and "With pip", in both languages
    assert _coursekit_requirements('"coursekit[course]" -q') == ["coursekit[course]"]
    assert _coursekit_requirements("-e '.[lab]'") == []


def test_readme_says_in_both_languages_that_the_pypi_name_is_another_project() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "PyPI 上名为 `coursekit` 的包属于另一个项目" in readme
    assert "The package named `coursekit` on PyPI belongs to another project" in readme
    assert readme.count("pip install dist/coursekit-*.whl") == 2  # the local-wheel way, zh and en
