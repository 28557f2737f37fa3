#!/usr/bin/env python
"""`make bench`: time the course website build (`make site`: stage, execute every lesson, render HTML).

Builds into a temporary folder once (the build is a minute or more; never run this in a loop), prints the
wall time and writes it with the machine's facts to ``bench-site.json``. A timing, never a test.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "site"))

import build_site  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="coursekit-site-bench-") as folder:
        started = time.perf_counter()
        summary = build_site.build(Path(folder) / "site", jobs=2, execute=True)
        seconds = time.perf_counter() - started
        pages = sum(1 for _ in (Path(folder) / "site").rglob("*.html"))
    lessons = sum(len(names) for names in summary["lessons"].values())
    result = {
        "site_build_s": round(seconds, 1),
        "lesson_pages": lessons,
        "html_pages": pages,
        "jobs": 2,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    (ROOT / "bench-site.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"site build (make site): {seconds:.1f} s for {lessons} executed lesson pages, {pages} HTML pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
