"""The course's GitHub repository, ``owner/name``, read from the one place it is set.

``pyproject.toml``'s ``[project.urls] Repository`` names it; the notebook builder (the Colab install cell)
and the site builder (launch buttons) both read it here. Standard library only: the tools that import it
run in environments with different extras.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_GITHUB = re.compile(r"https://github\.com/([^/\s]+/[^/\s]+?)/?")


def _repository_url(text: str) -> str:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:  # neither: read the one line of the [project.urls] table
            table = re.search(r"^\[project\.urls\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
            line = re.search(r'^Repository\s*=\s*"([^"]*)"', table.group(1) if table else "", re.MULTILINE)
            if line is None:
                raise ValueError("pyproject.toml has no [project.urls] Repository") from None
            return line.group(1)
    return str(tomllib.loads(text)["project"]["urls"]["Repository"])


def repository(root: Path = ROOT) -> str:
    """``owner/name`` from ``root``'s pyproject.toml ``[project.urls] Repository`` (a github.com URL)."""
    url = _repository_url((root / "pyproject.toml").read_text(encoding="utf-8"))
    match = _GITHUB.fullmatch(url)
    if match is None:
        raise ValueError(f"pyproject.toml [project.urls] Repository must be https://github.com/OWNER/NAME: {url!r}")
    return match.group(1)
