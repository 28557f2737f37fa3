"""`make lab` serves JupyterLab on localhost, token on, opening the course index.

Runs the README's command for real on a free port (without opening a browser), asks the
server over HTTP for the index notebook, then stops it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(not (ROOT / ".venv" / ".stamp-course").exists(), reason="run through `make test` (needs .venv)")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_make_lab_serves_the_course_index(lang: str, tmp_path: Path) -> None:
    port = _free_port()
    args = "--no-browser"  # nothing else: as root (a container), `make lab` itself must add --allow-root
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = (tmp_path / "lab.log").open("w+")
    process = subprocess.Popen(
        ["make", "-s", "lab", f"PORT={port}", f"COURSE_LANG={lang}", f"LAB_ARGS={args}"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    try:
        url = None
        deadline = time.monotonic() + 90
        while url is None and time.monotonic() < deadline:
            assert process.poll() is None, (tmp_path / "lab.log").read_text()
            match = re.search(r"(http://127\.0\.0\.1:\d+/\S*\?token=([0-9a-f]+))", (tmp_path / "lab.log").read_text())
            url = match.group(1) if match else None
            time.sleep(0.5)
        assert url is not None, "no URL printed:\n" + (tmp_path / "lab.log").read_text()
        token = url.rsplit("token=", 1)[1]
        assert f"/lab/tree/notebooks/{lang}/00_index.ipynb" in url  # the printed link opens the index
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/api/contents/notebooks/{lang}/00_index.ipynb?token={token}"
        ) as r:
            notebook = json.load(r)
        assert notebook["type"] == "notebook" and notebook["content"]["metadata"]["coursekit"]["lang"] == lang
        with pytest.raises(urllib.error.HTTPError) as refused:  # token authentication stays on
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/notebooks")
        assert refused.value.code == 403
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("lab_args", ["", "--no-browser", "--allow-root", "--no-browser --allow-root"])
def test_make_lab_adds_allow_root_once_only_for_root(lab_args: str) -> None:
    """JupyterLab refuses to start as root without --allow-root (jupyter_server's ServerApp.allow_root); containers
    such as ModelScope's notebooks run as root, so the README's `make lab` adds it for root, and only once."""
    dry = subprocess.run(
        ["make", "-n", "lab", f"LAB_ARGS={lab_args}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    command = dry[dry.index("jupyter lab") :]
    expected = 1 if (_is_root() or "--allow-root" in lab_args) else 0
    assert command.split().count("--allow-root") == expected, command
