"""pyproject.toml, environment.yml and binder/ must agree on the packages of the course.

The pip extras are the reference; conda-forge names that differ from PyPI names are
listed in CONDA_TO_PIP. A requirement in a conda file's ``pip:`` list counts like a conda one
(``-e .`` installs coursekit itself). environment.yml is the developer's environment (runtime +
course + test + site); binder/environment.yml is the learner's (runtime + course only).
Each test also runs once on a tampered copy to show it can fail.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

#: conda-forge package name -> PyPI name, where they differ.
CONDA_TO_PIP = {"matplotlib-base": "matplotlib"}
#: Present in conda files only to build the environment itself.
CONDA_ONLY = {"python", "pip"}
#: pyproject extras that each conda environment mirrors (the optional "lab" extra has its own file).
MIRRORED_EXTRAS: dict[str, tuple[str, ...]] = {
    "environment.yml": ("course", "test", "site"),
    "binder/environment.yml": ("course",),
}
#: What a learner's Binder image must not carry: the test tools (about 220 MB of the image).
TEST_TOOLS = ("playwright", "mypy", "ruff", "hypothesis")

_REQ = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*(?:>=\s*([0-9][^,;\s]*))?")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _parse_requirement(text: str) -> tuple[str, str | None]:
    match = _REQ.match(text)
    assert match, f"cannot parse requirement {text!r}"
    return _normalise(match.group(1)), match.group(2)


def pip_packages(
    pyproject_text: str, extras: tuple[str, ...] = MIRRORED_EXTRAS["environment.yml"]
) -> dict[str, str | None]:
    """Package -> minimum version from dependencies + ``extras`` (markers for old Pythons dropped)."""
    project = tomllib.loads(pyproject_text)["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    packages = {}
    for requirement in requirements:
        if "python_version <" in requirement:
            continue  # back-ports such as tomli are not needed on the Pythons conda installs
        name, minimum = _parse_requirement(requirement)
        packages[name] = minimum
    return packages


def conda_packages(environment_text: str) -> dict[str, str | None]:
    """Package -> minimum version from a conda environment file, names mapped to PyPI."""
    packages = {}
    items: list[str] = []
    for item in yaml.safe_load(environment_text)["dependencies"]:
        if isinstance(item, dict):  # the pip: sub-list, from PyPI
            items += [entry for entry in item.get("pip", []) if not entry.startswith("-e")]
        else:
            items.append(item)
    for item in items:
        name, minimum = _parse_requirement(item.replace("=", ">=", 1) if "=" in item and ">=" not in item else item)
        if name in CONDA_ONLY:
            continue
        packages[CONDA_TO_PIP.get(name, name)] = minimum
    return packages


def _read(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


@pytest.mark.parametrize("conda_file", sorted(MIRRORED_EXTRAS))
def test_conda_file_matches_pyproject(conda_file: str) -> None:
    assert conda_packages(_read(conda_file)) == pip_packages(_read("pyproject.toml"), MIRRORED_EXTRAS[conda_file])


def test_binder_is_learner_sized() -> None:
    packages = conda_packages(_read("binder/environment.yml"))
    assert not [tool for tool in TEST_TOOLS if tool in packages]
    assert "jupyterlab-language-pack-zh-cn" in packages  # the Chinese UI Binder opens in
    # the developer's environment still has every tool
    assert all(tool in conda_packages(_read("environment.yml")) for tool in TEST_TOOLS)


def test_drift_is_detected_in_a_tampered_copy(tmp_path: Path) -> None:
    tampered = tmp_path / "environment.yml"
    tampered.write_text(_read("environment.yml").replace("  - nbval>=0.11\n", ""), encoding="utf-8")
    assert conda_packages(tampered.read_text(encoding="utf-8")) != pip_packages(_read("pyproject.toml"))
    bumped = _read("binder/environment.yml").replace("numpy>=1.24", "numpy>=2.0")
    assert conda_packages(bumped) != pip_packages(_read("pyproject.toml"), MIRRORED_EXTRAS["binder/environment.yml"])
    no_pack = _read("binder/environment.yml").replace(
        "jupyterlab-language-pack-zh-CN", "jupyterlab-language-pack-fr-FR"
    )
    assert conda_packages(no_pack) != pip_packages(_read("pyproject.toml"), MIRRORED_EXTRAS["binder/environment.yml"])
    extra = _read("pyproject.toml").replace('"pytest>=8.0",', '"pytest>=8.0",\n    "scipy>=1.10",')
    assert conda_packages(_read("environment.yml")) != pip_packages(extra)


def test_binder_files() -> None:
    post_build = _read("binder/postBuild").splitlines()
    assert post_build[0].startswith("#!"), "postBuild needs a shebang"
    assert "set -e" in [line.strip() for line in post_build[:4]], "postBuild must start with set -e"
    assert any("pip install" in line and "-e ." in line for line in post_build), "postBuild installs coursekit"
    assert (ROOT / "binder/postBuild").stat().st_mode & 0o111, "postBuild must be executable"
    # the smallest CJK font that renders the course (tests/test_site_fonts.py checks its glyphs)
    assert _read("binder/apt.txt").split() == ["fonts-wqy-microhei"]
    assert "zh_CN" in _read("binder/postBuild")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = _read(".ci/run")
    assert re.search(r"^make test$", ci, re.MULTILINE), ".ci/run must run `make test`"
    readme = _read("README.md")
    assert re.search(r"^\s*make test\s*$", readme, re.MULTILINE)
    assert re.search(r"^\s*make lab\s*$", readme, re.MULTILINE)
