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
    args = "--no-browser" + (" --allow-root" if hasattr(os, "geteuid") and os.geteuid() == 0 else "")
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
