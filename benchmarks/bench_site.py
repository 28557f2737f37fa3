#!/usr/bin/env python
"""`make bench`: time the course website build (`make site`: stage, execute every lesson, render HTML) and
weigh each page.

Builds into a temporary folder once (the build is a minute or more; never run this in a loop), prints the
wall time and each lesson page's first-load weight, and writes them with the machine's facts to
``bench-site.json``. A page's weight is its HTML without the inlined figures plus every local stylesheet and
script it links (fonts, which load only when used, and figures are left out); the browser test
(tests/test_site_browser.py) measures the real first load against the 1 MB budget.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "site"))

import build_site  # noqa: E402

DATA_IMAGE = re.compile(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+")
ASSET = re.compile(r'<(?:script[^>]+src|link[^>]+rel="stylesheet"[^>]+href|link[^>]+href)="([^"]+)"')


def page_weight_bytes(site: Path, page: Path) -> int:
    """HTML without inlined figures plus the local stylesheets and scripts the page links."""
    html = page.read_text(encoding="utf-8")
    total = len(DATA_IMAGE.sub("", html).encode("utf-8"))
    for link in set(ASSET.findall(html)):
        if "://" in link or link.startswith("data:"):
            continue
        target = (page.parent / link.split("?")[0].split("#")[0]).resolve()
        if target.suffix in (".css", ".js") and target.is_file():
            total += target.stat().st_size
    return total


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="coursekit-site-bench-") as folder:
        started = time.perf_counter()
        summary = build_site.build(Path(folder) / "site", jobs=2, execute=True)
        seconds = time.perf_counter() - started
        site = Path(folder) / "site"
        pages = sum(1 for _ in site.rglob("*.html"))
        weights = {
            f"{lang}/{stem}": page_weight_bytes(site, site / "notebooks" / lang / f"{stem}.html")
            for lang, stems in summary["lessons"].items()
            for stem in stems
        }
    lessons = sum(len(names) for names in summary["lessons"].values())
    result = {
        "site_build_s": round(seconds, 1),
        "lesson_pages": lessons,
        "html_pages": pages,
        "lesson_page_weight_bytes": weights,
        "jobs": 2,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    (ROOT / "bench-site.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"site build (make site): {seconds:.1f} s for {lessons} executed lesson pages, {pages} HTML pages")
    for name, weight in weights.items():
        print(f"  {name}: {weight / 1000:.0f} kB (HTML without figures + linked CSS/JS)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
