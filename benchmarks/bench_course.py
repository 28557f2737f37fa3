"""Measure what a learner feels: import time, notebook run time, widget and browser update latency.

Run with `make bench`. Prints a table and writes bench-results.json (gitignored). Nothing here is
asserted: machines are noisy; the figures go into the README's performance section and closing notes.

Goals the course is designed for (issue: "Tested in a real browser, and measured"):
import <= 100 ms; all notebooks <= 60 s; widget update p95 <= 50 ms headless (figures drawn for
device-pixel-ratio 2); <= 150 ms in the browser, p95 of 30 presses per lesson on a HiDPI page, with
p50, the interquartile range and each half's p95 to show the spread.

Machines differ by about 2x, so each timing that has one is printed beside its floor, measured in the
same run, and the ratio of the two (which carries from machine to machine):

* a widget update's floor is the redraw and PNG encoding of that same figure, unchanged: each update
  sample is followed by one floor sample, so both see the same load. Goal: update p95 <= 1.25 x floor
  p95 (computation, validation and bookkeeping add at most a quarter to the pixels);
* the notebooks' floor is a kernel start plus ``import coursekit`` (a one-cell notebook run the same
  way), once per notebook.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

GOALS = {
    "import_ms": 100.0,
    "notebooks_total_s": 60.0,
    "widget_update_ms_p95": 50.0,
    "widget_update_cpu_ms_p95": 50.0,
    "browser_update_ms_p95": 150.0,
    "figure_pixel_ratio_min": 2.0,
    "widget_update_floor_ratio_max": 1.25,
}
#: Runs of the one-cell notebook whose median is the notebooks' floor.
NOTEBOOK_FLOOR_RUNS = 3


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    low, high = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def bench_import(repeats: int = 9) -> dict[str, Any]:
    code = "import time; t0 = time.perf_counter(); import coursekit; print((time.perf_counter() - t0) * 1000)"
    samples = [
        float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
        for _ in range(repeats)
    ]
    return {"import_ms": statistics.median(samples), "import_ms_samples": samples}


def _run_notebook(notebook: Any, folder: Path) -> float:
    """Seconds to start a kernel and run every cell of ``notebook`` in ``folder``."""
    from nbclient import NotebookClient

    client = NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def bench_notebook_floor(runs: int = NOTEBOOK_FLOOR_RUNS) -> float:
    """Median seconds of a one-cell notebook ``import coursekit``: the kernel start and the import."""
    import nbformat

    samples = []
    for _ in range(runs):
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import coursekit")])
        samples.append(_run_notebook(notebook, ROOT / "notebooks"))
    return statistics.median(samples)


def bench_notebooks() -> dict[str, Any]:
    import nbformat

    timings: dict[str, float] = {}
    for path in sorted((ROOT / "notebooks").glob("[a-z][a-z]/[0-9][0-9]_*.ipynb")):
        if ".mine" in path.name:
            continue
        timings[f"{path.parent.name}/{path.name}"] = _run_notebook(nbformat.read(path, as_version=4), path.parent)
    floor_s = bench_notebook_floor()
    slowest = max(timings, key=timings.__getitem__)
    return {
        "notebooks_total_s": sum(timings.values()),
        "notebooks_floor_s": floor_s * len(timings),
        "notebooks_floor_ratio": sum(timings.values()) / (floor_s * len(timings)),
        "notebook_floor_s": floor_s,
        "slowest_notebook_s": timings[slowest],
        "slowest_notebook": slowest,
        "notebook_s": timings,
    }


def _widget_classes() -> list[type]:
    import coursekit.widgets as widgets

    classes = []
    for info in pkgutil.iter_modules(widgets.__path__, prefix="coursekit.widgets."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, widgets.LessonWidget)
                and cls.__module__ == module.__name__
                and not inspect.isabstract(cls)
            ):
                classes.append(cls)
    return classes


def _next_values(control: Any, count: int) -> list[Any]:
    """Values a learner would step through on this control, away from the current one and back."""
    options = getattr(control, "options", None)
    if options:
        values = [option[1] if isinstance(option, tuple) else option for option in options]
        return [values[i % len(values)] for i in range(1, count + 1)]
    if hasattr(control, "min") and hasattr(control, "max"):
        low, high, step = control.min, control.max, control.step or 1
        span = max(1, round((high - low) / step))
        values = [low + step * (i % (span + 1)) for i in range(count)]
        return [type(control.value)(v) for v in values]
    if isinstance(control.value, bool):
        return [bool(i % 2) for i in range(1, count + 1)]
    return []


def _time_widget(widget: Any, updates_per_control: int, profile: Any = None) -> dict[str, float]:
    """Update and floor timings of one widget: after each update, the same figure redrawn and encoded unchanged.

    With ``profile`` (a ``cProfile.Profile``), the updates alone (not the floors) run under it: the profile of
    exactly the sequence timed here. Timings taken with a profile on are slower and only indicative.
    """
    from coursekit.plotting import figure_to_png

    samples: list[float] = []
    cpu_samples: list[float] = []  # this process's CPU time: what the update costs without other load
    floor_samples: list[float] = []
    floor_cpu_samples: list[float] = []
    for control in widget.controls.values():
        original = control.value
        for value in _next_values(control, updates_per_control):
            start, cpu_start = time.perf_counter(), time.process_time()
            if profile is not None:
                profile.enable()
            control.value = value  # observe -> update() -> compute, draw, PNG
            if profile is not None:
                profile.disable()
            samples.append((time.perf_counter() - start) * 1000)
            cpu_samples.append((time.process_time() - cpu_start) * 1000)
            start, cpu_start = time.perf_counter(), time.process_time()
            figure_to_png(widget.figure)  # the floor: the pixels of the same figure, nothing recomputed
            floor_samples.append((time.perf_counter() - start) * 1000)
            floor_cpu_samples.append((time.process_time() - cpu_start) * 1000)
        control.value = original
    if not samples:
        return {}
    p95, floor_p95 = percentile(samples, 0.95), percentile(floor_samples, 0.95)
    cpu_p95, floor_cpu_p95 = percentile(cpu_samples, 0.95), percentile(floor_cpu_samples, 0.95)
    return {
        "p50_ms": percentile(samples, 0.5),
        "p95_ms": p95,
        "cpu_p50_ms": percentile(cpu_samples, 0.5),
        "cpu_p95_ms": cpu_p95,
        "floor_p50_ms": percentile(floor_samples, 0.5),
        "floor_p95_ms": floor_p95,
        "floor_ratio": p95 / floor_p95,
        "floor_cpu_p95_ms": floor_cpu_p95,
        "floor_cpu_ratio": cpu_p95 / floor_cpu_p95,
        "updates": float(len(samples)),
    }


def bench_widgets(updates_per_control: int = 12, only: tuple[str, ...] = (), profile: str = "") -> dict[str, Any]:
    """Time every lesson widget (or those named in ``only``); with ``profile``, write the cProfile statistics of
    their updates to that file and print the 30 functions with the most cumulative time."""
    import cProfile
    import pstats

    profiler = cProfile.Profile() if profile else None
    per_widget: dict[str, dict[str, float]] = {}
    for cls in _widget_classes():
        if only and cls.__name__ not in only:
            continue
        try:
            widget = cls()
        except TypeError:
            continue  # needs arguments; not a lesson's default widget
        timings = _time_widget(widget, updates_per_control, profiler)
        if timings:
            per_widget[cls.__name__] = timings
    if profiler is not None:
        profiler.dump_stats(profile)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    worst = max(per_widget, key=lambda k: per_widget[k]["p95_ms"])
    worst_cpu = max(per_widget, key=lambda k: per_widget[k]["cpu_p95_ms"])
    worst_ratio = max(per_widget, key=lambda k: per_widget[k]["floor_ratio"])
    return {
        "widget_update_ms_p50": per_widget[worst]["p50_ms"],
        "widget_update_ms_p95": per_widget[worst]["p95_ms"],
        "widget_update_cpu_ms_p95": per_widget[worst_cpu]["cpu_p95_ms"],
        "widget_update_floor_ratio_max": per_widget[worst_ratio]["floor_ratio"],
        "widget_pixel_ratio": float(_widget_pixel_ratio()),
        "slowest_widget": worst,
        "widest_floor_ratio_widget": worst_ratio,
        "widgets": per_widget,
    }


def print_widget_floors(per_widget: dict[str, dict[str, float]]) -> None:
    """Per widget: update p95, the floor p95 measured beside it, and their ratio, in wall-clock and CPU time.

    On a loaded machine the CPU-time ratio is the steadier one: other processes do not count in it.
    """
    goal = GOALS["widget_update_floor_ratio_max"]
    print(
        f"\n{'widget':<22}{'update p95':>12}{'floor p95':>11}{'ratio':>7}   {'CPU: update':>12}{'floor':>9}{'ratio':>7}"
    )
    for name, row in sorted(per_widget.items(), key=lambda item: -item[1]["floor_ratio"]):
        wall = f"{row['p95_ms']:>9.1f} ms{row['floor_p95_ms']:>8.1f} ms{row['floor_ratio']:>7.2f}"
        cpu = f"{row['cpu_p95_ms']:>9.1f} ms{row['floor_cpu_p95_ms']:>6.1f} ms{row['floor_cpu_ratio']:>7.2f}"
        print(f"{name:<22}{wall}   {cpu}")
    print(f"goal: ratio <= {goal:g} for every widget")


def _widget_pixel_ratio() -> int:
    from coursekit.plotting import WIDGET_PIXEL_RATIO

    return WIDGET_PIXEL_RATIO


def _spread(samples: list[float]) -> dict[str, float]:
    """p5 / p50 / p95, the interquartile range, and the p95 of each half of the presses (run-to-run steadiness)."""
    half = len(samples) // 2
    return {
        "p5_ms": percentile(samples, 0.05),
        "p50_ms": percentile(samples, 0.5),
        "p95_ms": percentile(samples, 0.95),
        "max_ms": max(samples, default=float("nan")),
        "iqr_ms": percentile(samples, 0.75) - percentile(samples, 0.25),
        "p95_first_half_ms": percentile(samples[:half], 0.95),
        "p95_second_half_ms": percentile(samples[half:], 0.95),
    }


def bench_browser(
    presses: int = 30, langs: tuple[str, ...] = ("en",), device_scale_factor: float = 2.0
) -> dict[str, Any]:
    """Keypress-to-new-figure latency per lesson on a HiDPI page, from ``presses`` presses (>= 30).

    With 8 presses the p95 is the maximum, which swings by 100 ms between runs; with 30 it is an
    interpolated upper percentile, and the halves' p95s show how steady it is.
    """
    import jupyter_browser
    from playwright.sync_api import sync_playwright

    if jupyter_browser.chromium_path() is None:
        return {"browser_update_ms_p95": None, "browser_note": "Chromium not installed"}
    per_lesson: dict[str, dict[str, float]] = {}
    pooled: list[float] = []
    with jupyter_browser.LabServer() as server, sync_playwright() as playwright:
        browser = jupyter_browser.launch_chromium(playwright)
        for notebook in jupyter_browser.lesson_notebooks():
            if notebook.split("/")[0] not in langs or notebook.endswith("00_index.ipynb"):
                continue
            page = jupyter_browser.LessonPage(browser, server, notebook, device_scale_factor=device_scale_factor)
            try:
                page.run_all()
                if not page.page.locator(".ck-main").count():
                    continue
                page.wait_for_widget()
                samples, unchanged = [], 0
                for press in range(presses):
                    # right, left, right, ...: a slider never sticks at its end
                    try:
                        samples.append(
                            page.move_main_control(timeout_ms=5_000, step=1 if press % 2 == 0 else -1).elapsed_ms
                        )
                    except Exception:  # the figure did not change (e.g. the same picture): not a latency sample
                        unchanged += 1
                pooled.extend(samples)
                per_lesson[notebook] = {
                    **_spread(samples),
                    "presses": float(presses),
                    "unchanged": float(unchanged),
                    "figure_pixel_ratio": page.figure_pixel_ratio(),
                }
            finally:
                page.close()
        browser.close()
    worst = max(per_lesson, key=lambda k: per_lesson[k]["p95_ms"])
    pooled_spread = _spread(pooled)
    return {
        "browser_update_ms_p50": per_lesson[worst]["p50_ms"],
        "browser_update_ms_p95": per_lesson[worst]["p95_ms"],
        "browser_update_ms_iqr": per_lesson[worst]["iqr_ms"],
        "browser_all_lessons_ms_p95": pooled_spread["p95_ms"],
        "browser_device_scale_factor": device_scale_factor,
        "figure_pixel_ratio_min": min(v["figure_pixel_ratio"] for v in per_lesson.values()),
        "slowest_browser_lesson": worst,
        "browser": per_lesson,
    }


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", nargs="*", default=[], choices=["import", "notebooks", "widgets", "browser"])
    parser.add_argument("--output", default=str(ROOT / "bench-results.json"))
    parser.add_argument(
        "--widget", nargs="*", default=[], metavar="CLASS", help="time only these widgets (e.g. WorkbenchWidget)"
    )
    parser.add_argument(
        "--updates", type=int, default=12, metavar="N", help="updates per control of each widget (default 12)"
    )
    parser.add_argument(
        "--profile",
        default="",
        metavar="FILE",
        help="write cProfile statistics of the widget updates to FILE (timings then only indicative)",
    )
    args = parser.parse_args(argv)

    results: dict[str, Any] = {"machine": machine(), "goals": GOALS}
    steps: dict[str, Callable[[], dict[str, Any]]] = {
        "import": bench_import,
        "notebooks": bench_notebooks,
        "widgets": lambda: bench_widgets(args.updates, tuple(args.widget), args.profile),
        "browser": bench_browser,
    }
    for name, step in steps.items():
        if name in args.skip:
            continue
        print(f"measuring {name} ...", flush=True)
        results.update(step())

    print()
    print(f"{'figure':<30}{'measured':>12}{'goal':>10}")
    for key in (
        "import_ms",
        "notebooks_total_s",
        "notebooks_floor_s",
        "notebooks_floor_ratio",
        "slowest_notebook_s",
        "widget_update_ms_p50",
        "widget_update_ms_p95",
        "widget_update_cpu_ms_p95",
        "widget_update_floor_ratio_max",
        "widget_pixel_ratio",
        "browser_update_ms_p50",
        "browser_update_ms_p95",
        "browser_update_ms_iqr",
        "browser_all_lessons_ms_p95",
        "figure_pixel_ratio_min",
    ):
        value = results.get(key)
        goal = GOALS.get(key)
        shown = "—" if value is None else (f"{value:.2f}" if "ratio" in key else f"{value:.1f}")
        relation = ">=" if key == "figure_pixel_ratio_min" else "<="  # sharp: at least 2 image px per CSS px
        print(f"{key:<30}{shown:>12}{'' if goal is None else f'{relation} {goal:g}':>10}")
    for key in ("slowest_notebook", "slowest_widget", "widest_floor_ratio_widget", "slowest_browser_lesson"):
        if key in results:
            print(f"{key:<30}{results[key]:>22}")
    if "widgets" in results:
        print_widget_floors(results["widgets"])
    Path(args.output).write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
