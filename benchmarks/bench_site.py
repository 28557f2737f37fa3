#!/usr/bin/env python
"""`make bench`: time the course website build (`make site`: stage, execute every lesson, render HTML) and
weigh each page.

Builds into a temporary folder with an empty lesson cache (the build is a minute or more; never run this in a
loop), then once more on that cache (what a rebuild after a prose or layout change costs), and prints the wall
time, where it went (each phase's wall and CPU seconds: CPU above wall means both cores worked), the load
average it ran under (other work on the machine slows it), and each lesson page's first-load weight; all
of it goes with the machine's facts to ``bench-site.json``. A page's weight is its HTML without the inlined
figures plus every local stylesheet and script it links (fonts, which load only when used, and figures are
left out); the browser test
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "site"))

import build_site  # noqa: E402

DATA_IMAGE = re.compile(r'data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+|"png": "[A-Za-z0-9+/=]+"')  # figures, frames
ASSET = re.compile(r'<(?:script[^>]+src|link[^>]+rel="stylesheet"[^>]+href|link[^>]+href)="([^"]+)"')


def page_weight_bytes(site: Path, page: Path) -> int:
    """HTML without inlined figures (nor the live widgets' PNG frames) plus the local stylesheets and scripts
    the page links."""
    html = page.read_text(encoding="utf-8")
    total = len(DATA_IMAGE.sub("", html).encode("utf-8"))
    for link in set(ASSET.findall(html)):
        if "://" in link or link.startswith("data:"):
            continue
        target = (page.parent / link.split("?")[0].split("#")[0]).resolve()
        if target.suffix in (".css", ".js") and target.is_file():
            total += target.stat().st_size
    return total


def figure_bytes(page: Path) -> int:
    """Bytes of a page's figures: inlined images and the live widgets' precomputed states (base64, as served)."""
    return sum(len(match) for match in DATA_IMAGE.findall(page.read_text(encoding="utf-8")))


_STEP_TIMES = """async () => {
  // Input to the next frame painted with the new figure: the figure (a canvas drawn from decoded bitmaps,
  // coursekit-live.js) marks the state it shows; then one frame is rendered.
  const painted = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const showing = async (block, i) => {
    while (block.querySelector('.ck-static-figure').dataset.frame !== String(i)) {
      await new Promise((done) => requestAnimationFrame(done));
    }
  };
  const times = [];
  for (const block of document.querySelectorAll('.ck-static')) {
    const slider = block.querySelector('input.ck-live-slider, .ck-live-preset select');
    if (!slider) continue;
    const count = slider.tagName === 'SELECT' ? slider.options.length : Number(slider.max) + 1;
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      slider.value = String(i);
      slider.dispatchEvent(new Event(slider.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
      await showing(block, i);
      await painted();
      times.push(performance.now() - started);
    }
  }
  return times;
}"""

#: Image pixels per CSS pixel of every figure of a page (lesson figures and widget figures).
_FIGURE_RATIOS = """() => [...document.querySelectorAll('img.ck-figure, .ck-static-figure')]
  .filter((f) => f.clientWidth).map((f) => (f.tagName === 'CANVAS' ? f.width : f.naturalWidth) / f.clientWidth)"""


def slider_step_ms(site: Path, pages: list[str], ratios: list[float] | None = None) -> list[float]:
    """How long each step of every live widget slider (and case choice) takes in Chromium: input to the next
    frame painted. ``ratios``, when given, receives every figure's image pixels per CSS pixel on those pages."""
    import functools
    import http.server
    import threading

    sys.path.insert(0, str(ROOT / "tools"))
    import jupyter_browser
    from playwright.sync_api import sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    times: list[float] = []
    try:
        with sync_playwright() as playwright:
            browser = jupyter_browser.launch_chromium(playwright)
            page = browser.new_page()
            for path in pages:
                page.goto(f"http://127.0.0.1:{server.server_address[1]}/{path}", wait_until="load")
                times += page.evaluate(_STEP_TIMES)
                if ratios is not None:  # every cell laid out (the page skips those far from the screen)
                    page.add_style_tag(content=".bd-article .cell { content-visibility: visible !important; }")
                    ratios += page.evaluate(_FIGURE_RATIOS)
            browser.close()
    finally:
        server.shutdown()
    return times


def timed_build(site: Path) -> tuple[float, dict[str, Any], tuple[float, float, float]]:
    """Build the site into ``site``: wall seconds, the build summary, the 1-minute load average before/after
    and the build's own CPU seconds per wall second (both cores busy: near 2)."""
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    summary = build_site.build(site, jobs=2, execute=True)
    seconds = time.perf_counter() - started
    return seconds, summary, (load_before, os.getloadavg()[0], summary["phases"]["total"]["cpu_s"] / seconds)


def phase_lines(summary: dict[str, Any]) -> list[str]:
    return [
        f"    {name:13s} {p['wall_s']:6.1f} s wall {p['cpu_s']:6.1f} s CPU" for name, p in summary["phases"].items()
    ]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="coursekit-site-bench-") as folder:
        os.environ["COURSEKIT_SITE_CACHE"] = str(Path(folder) / "cache")  # cold: every lesson executed
        site = Path(folder) / "site"
        seconds, summary, (load_before, load_after, cores) = timed_build(site)
        warm_seconds, warm, _ = timed_build(Path(folder) / "again")
        cached = sum(1 for entry in warm["execution"].values() if entry["cached"])
        pages = sum(1 for _ in site.rglob("*.html"))
        weights = {
            f"{lang}/{stem}": page_weight_bytes(site, site / "notebooks" / lang / f"{stem}.html")
            for lang, stems in summary["lessons"].items()
            for stem in stems
        }
        figure_pages = [f"notebooks/{lang}/{stem}.html" for lang, stems in summary["lessons"].items() for stem in stems]
        ratios: list[float] = []
        steps = sorted(slider_step_ms(site, figure_pages, ratios))
        figures = {
            f"{lang}/{stem}": figure_bytes(site / "notebooks" / lang / f"{stem}.html")
            for lang, stems in summary["lessons"].items()
            for stem in stems
        }
    lessons = sum(len(names) for names in summary["lessons"].values())
    result = {
        "site_build_s": round(seconds, 1),
        "phases": summary["phases"],
        "load_average_1min": {"before": load_before, "after": load_after},
        "cpu_s_per_wall_s": round(cores, 2),
        "rebuild_with_cache_s": round(warm_seconds, 1),
        "rebuild_phases": warm["phases"],
        "rebuild_lessons_cached": cached,
        "lesson_pages": lessons,
        "html_pages": pages,
        "lesson_page_weight_bytes": weights,
        "slider_step_ms": {
            "count": len(steps),
            "p50": round(steps[len(steps) // 2], 1) if steps else None,
            "p95": round(steps[int(len(steps) * 0.95)], 1) if steps else None,
            "max": round(steps[-1], 1) if steps else None,
        },
        "figure_pixel_ratio_min": round(min(ratios), 2) if ratios else None,
        "lesson_page_figure_bytes": figures,
        "figure_bytes_total": sum(figures.values()),
        "jobs": 2,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    (ROOT / "bench-site.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"site build (make site): {seconds:.1f} s for {lessons} executed lesson pages, {pages} HTML pages")
    print(f"  load average (1 min) {load_before:.2f} before, {load_after:.2f} after; {cores:.2f} CPU s per wall s")
    print("\n".join(phase_lines(summary)))
    print(f"rebuild with every lesson cached ({cached} of {lessons}): {warm_seconds:.1f} s")
    print("\n".join(phase_lines(warm)))
    print(f"live widget slider steps in Chromium (input to next frame): {result['slider_step_ms']}")
    ratio = result["figure_pixel_ratio_min"]
    print(f"figures: {result['figure_bytes_total'] / 1e6:.2f} MB in all; image px per CSS px >= {ratio}")
    for name, weight in weights.items():
        shown = f"{weight / 1000:.0f} kB (HTML without figures + linked CSS/JS)"
        print(f"  {name}: {shown}, figures {figures[name] / 1000:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
