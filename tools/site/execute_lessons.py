"""Execute the staged lesson notebooks for the website: both cores busy, each unchanged lesson run once.

Run by :func:`build_site.build` before Sphinx (which then renders the outputs as they are, myst-nb's execution
mode ``off``). Two things Sphinx's own execution does not do:

* **Scheduling.** ``jobs`` kernels run at once, the longest lessons first (their last run's seconds, kept in
  the cache folder; the notebook's size before there is one), so the two cores finish together. Sphinx's
  parallel reader cuts the pages into fixed chunks in name order and leaves one core idle at the end.
* **A cache keyed on everything an output depends on.** A lesson's executed copy is kept under a key made of
  the staged notebook (every cell's source and tags, its metadata), the ``coursekit`` package the kernel
  imports (every file's bytes: a changed formula, figure style or translation re-executes every lesson), the
  installed distributions and their versions, the Python version, and the kernel's environment settings
  (:data:`KERNEL_ENV`). Any change to one of them is a new key: the lesson runs again. Outputs depend on
  nothing else (no network, no random seed the lessons do not set), so a cached copy is the page a fresh run
  would give, except for what two fresh runs also differ in: widget model ids (not on the page), how stdout was
  split into messages (merged on the page) and the search time lesson 9's planner measures and prints.

The cache lives in ``build/site-cache`` (``COURSEKIT_SITE_CACHE`` elsewhere; ``--no-cache`` bypasses it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a cell may run (as the site's Sphinx execution allowed).
CELL_TIMEOUT_S = 300
#: Environment of every kernel, on top of the builder's own: the inline backend the pages' figures come from,
#: widgets recording their states for the page's slider (coursekit.widgets.FRAMES_ENV).
KERNEL_ENV = {
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    "COURSEKIT_WIDGET_FRAMES": "1",
}
#: Bump when the way notebooks are executed changes what they output (part of every key).
CACHE_FORMAT = 1
TIMINGS = "timings.json"


def cache_folder() -> Path:
    """Where executed lessons are kept between builds."""
    return Path(os.environ.get("COURSEKIT_SITE_CACHE", ROOT / "build" / "site-cache"))


def package_dir(name: str = "coursekit") -> Path:
    """The folder of the package a kernel started from this process imports (PYTHONPATH included)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"cannot find the package {name!r} the lessons import")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def tree_digest(folder: Path) -> str:
    """SHA-256 over every file under ``folder`` (relative path and bytes), caches of Python's own left out."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
            continue
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def environment_digest(package: Path, env: Mapping[str, str]) -> str:
    """What every lesson's outputs depend on besides the notebook itself (see the module docstring)."""
    # A set: the same distribution found twice on the path (a test runner adds the project's folder, which holds
    # coursekit's egg-info) is the same environment.
    distributions = sorted(
        {f"{dist.metadata['Name']}=={dist.version}" for dist in importlib.metadata.distributions() if dist.metadata}
    )
    facts = {
        "format": CACHE_FORMAT,
        "coursekit": tree_digest(package),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "distributions": distributions,
        "env": {key: env.get(key, "") for key in sorted(KERNEL_ENV)},
        "timeout_s": CELL_TIMEOUT_S,
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def notebook_digest(notebook: Mapping[str, Any]) -> str:
    """SHA-256 of what a notebook asks the kernel to do: its cells (type, source, metadata) and its metadata."""
    cells = [[cell["cell_type"], "".join(cell["source"]), cell.get("metadata", {})] for cell in notebook["cells"]]
    text = json.dumps([notebook.get("metadata", {}), cells], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ExecutionFailed(RuntimeError):
    """A lesson raised while the site was built (the message names the notebook and the cell's error)."""


async def _run_one(path: Path, env: Mapping[str, str]) -> Any:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    timeout = notebook.metadata.get("execution", {}).get("timeout", CELL_TIMEOUT_S)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        await client.async_execute(env=dict(env))
    except (CellExecutionError, CellTimeoutError) as error:
        raise ExecutionFailed(f"{path}: {error}") from error
    return notebook


async def _run_all(paths: list[Path], jobs: int, env: Mapping[str, str], done: Any) -> None:
    gate = asyncio.Semaphore(jobs)

    async def one(path: Path) -> None:
        async with gate:
            started = time.perf_counter()
            notebook = await _run_one(path, env)
            done(path, notebook, time.perf_counter() - started)

    results = await asyncio.gather(*(one(path) for path in paths), return_exceptions=True)
    errors = [result for result in results if isinstance(result, BaseException)]
    if errors:
        raise errors[0]


def execute(
    notebooks: Iterable[Path],
    *,
    jobs: int = 2,
    cache: Path | None = None,
    names: Mapping[Path, str] | None = None,
    package: Path | None = None,
) -> dict[str, dict[str, Any]]:
    """Execute ``notebooks`` in place (outputs written into each file), ``jobs`` kernels at a time.

    ``cache``: the folder of executed copies (None: run every notebook, keep nothing). ``names``: each
    notebook's stable name for the timings (default its path). ``package``: the library the notebooks import,
    whose files are part of the cache key (default: the ``coursekit`` a kernel would import). Returns, per
    name, ``seconds`` (this run's, or the cached run's) and ``cached``.
    """
    import nbformat

    paths = list(notebooks)
    names = {path: (names or {}).get(path, str(path)) for path in paths}
    env = {**os.environ, **KERNEL_ENV}
    report: dict[str, dict[str, Any]] = {}
    timings: dict[str, float] = {}
    keys: dict[Path, str] = {}
    todo: list[Path] = []
    shelf = None
    if cache is not None:
        shelf = cache / environment_digest(package or package_dir(), env)[:20]
        shelf.mkdir(parents=True, exist_ok=True)
        timings_file = cache / TIMINGS
        timings = json.loads(timings_file.read_text(encoding="utf-8")) if timings_file.exists() else {}
    for path in paths:
        if shelf is None:
            todo.append(path)
            continue
        keys[path] = notebook_digest(json.loads(path.read_text(encoding="utf-8")))
        kept = _entry(shelf, names[path], keys[path])
        if kept.exists():
            shutil.copyfile(kept, path)
            os.utime(kept)  # recently used: kept by prune()
            report[names[path]] = {"seconds": timings.get(names[path]), "cached": True}
        else:
            todo.append(path)
    # Longest first: with the last run's seconds, else the notebook's size (more cells, more to run).
    todo.sort(key=lambda p: (timings.get(names[p], 0.0), p.stat().st_size), reverse=True)

    def done(path: Path, notebook: Any, seconds: float) -> None:
        nbformat.write(notebook, path)  # type: ignore[no-untyped-call]
        report[names[path]] = {"seconds": round(seconds, 2), "cached": False}
        timings[names[path]] = round(seconds, 2)
        if shelf is not None:
            entry = _entry(shelf, names[path], keys[path])
            for stale in shelf.glob(entry.name.split(".")[0] + ".*.ipynb"):  # this lesson's earlier versions
                stale.unlink()
            partial = entry.with_suffix(".part")
            shutil.copyfile(path, partial)
            partial.replace(entry)

    if todo:
        # A caller may hold a running event loop in this thread (the JupyterLab browser tests): run ours apart.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, _run_all(todo, jobs, env, done)).result()
    if cache is not None and shelf is not None:
        (cache / TIMINGS).write_text(json.dumps(timings, indent=1, sort_keys=True), encoding="utf-8")
        prune(cache, keep=shelf)
    return {name: report[name] for name in names.values()}


def _entry(shelf: Path, name: str, key: str) -> Path:
    """The cached copy of the notebook called ``name`` whose cells hash to ``key``."""
    slug = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    return shelf / f"{slug}.{key}.ipynb"


def prune(cache: Path, keep: Path, shelves: int = 2) -> None:
    """Drop all but the ``shelves`` most recently used environments' folders (``keep`` always stays)."""
    folders = sorted((p for p in cache.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    os.utime(keep)
    for folder in [p for p in folders if p != keep][shelves - 1 :]:
        shutil.rmtree(folder, ignore_errors=True)
