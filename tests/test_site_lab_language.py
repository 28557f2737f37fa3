"""`make lab COURSE_LANG=zh` opens JupyterLab in its Chinese UI; `COURSE_LANG=en` keeps it English.

Runs the README's command for real on a free port (no browser), then asks the server which locale the
translation setting holds and whether the Chinese language pack is there to serve it.
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
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: JupyterLab's locale for each course language (the zh UI is the jupyterlab-language-pack-zh-CN package).
EXPECTED_LOCALE = {"zh": "zh_CN", "en": "en"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url) as response:
        data: dict[str, object] = json.load(response)
    return data


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(not (ROOT / ".venv" / ".stamp-course").exists(), reason="run through `make test` (needs .venv)")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_make_lab_sets_the_ui_language(lang: str, tmp_path: Path) -> None:
    port = _free_port()
    args = "--no-browser" + (" --allow-root" if hasattr(os, "geteuid") and os.geteuid() == 0 else "")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log_path = tmp_path / "lab.log"
    with log_path.open("w+") as log:
        process = subprocess.Popen(
            ["make", "-s", "lab", f"PORT={port}", f"COURSE_LANG={lang}", f"LAB_ARGS={args}"],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        try:
            token = None
            deadline = time.monotonic() + 90
            while token is None and time.monotonic() < deadline:
                assert process.poll() is None, log_path.read_text()
                match = re.search(r"http://127\.0\.0\.1:\d+/\S*\?token=([0-9a-f]+)", log_path.read_text())
                token = match.group(1) if match else None
                time.sleep(0.5)
            assert token is not None, "no URL printed:\n" + log_path.read_text()
            base = f"http://127.0.0.1:{port}/lab/api"
            setting = _get(f"{base}/settings/@jupyterlab/translation-extension:plugin?token={token}")
            assert setting["settings"] == {"locale": EXPECTED_LOCALE[lang]}  # type: ignore[comparison-overlap]
            packs = _get(f"{base}/translations/?token={token}")["data"]
            assert "zh_CN" in packs  # type: ignore[operator]  # the Chinese UI is installed, in both cases
            if lang == "zh":
                catalog = _get(f"{base}/translations/zh_CN?token={token}")
                assert catalog["data"], "the zh_CN language pack served no translations"
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
