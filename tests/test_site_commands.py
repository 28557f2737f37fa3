"""The commands around the website: `make site` installs only what the site needs; `python -m coursekit
--help` names every command the entry point accepts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_site_installs_the_site_extra_only() -> None:
    plan = subprocess.run(
        ["make", "-n", "-B", "site", "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    installs = re.findall(r"pip[^\n]* install -e \"\.\[([^\]]+)\]\"", plan)
    assert installs, plan
    extras = {extra for group in installs for extra in group.split(",")}
    assert extras == {"course", "site"}, installs
    assert "tools/site/build_site.py" in plan


def test_help_lists_every_command() -> None:
    text = subprocess.run(
        [sys.executable, "-m", "coursekit", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    listed = set(re.findall(r"^    ([a-z]+)\s", text, flags=re.M))
    source = (ROOT / "coursekit" / "__main__.py").read_text(encoding="utf-8")
    accepted = set(re.findall(r'args_list\[:1\] == \["([a-z]+)"\]', source)) | {"plan"}
    assert accepted <= listed, (accepted, text)
