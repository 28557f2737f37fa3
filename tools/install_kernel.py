"""Install the course's Jupyter kernel ("Python 3 (coursekit)") into this Python environment.

The kernel loads :mod:`coursekit.exercises.input_help` as an IPython extension when it starts, so the line of help
under a ``NameError`` or a ``SyntaxError`` is there from the first cell a learner runs, also right after a kernel
restart in the middle of a lesson (review 26). Before, the lessons installed it when they imported
``coursekit.exercises``: a learner who restarted the kernel and ran a cell halfway down got Python's bare
``NameError: name 'ServingWidget' is not defined`` and nothing in their language.

``make`` (the course stamp) and ``binder/postBuild`` run this; ``python tools/install_kernel.py --print`` shows the
kernel spec's command line without installing anything.

A platform whose kernel the course does not install (ModelScope's notebooks run the image's own ``python3`` kernel)
loads the extension through IPython's profile instead: a startup file (:data:`STARTUP_NAME`) in the profile's
``startup`` folder, which IPython runs in every kernel it starts, the platform's too, before any cell (leftovers 27).
Learners write it with the packaged command ``python -m coursekit setup`` (:mod:`coursekit.setup_cli`, leftovers
28); ``python tools/install_kernel.py --startup`` runs the same code.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from coursekit.setup_cli import STARTUP_NAME, install_startup, startup_text

#: The module the kernel loads as an IPython extension (its ``load_ipython_extension``).
EXTENSION = "coursekit.exercises.input_help"
#: The kernel's name (the notebooks' kernelspec names it; tools/build_notebooks.py) and the name JupyterLab shows.
KERNEL_NAME = "python3"
DISPLAY_NAME = "Python 3 (coursekit)"


def with_extension(argv: list[str]) -> list[str]:
    """``argv`` (a kernel spec's command line) with ``--ext=EXTENSION`` once at its end.

    >>> with_extension(["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"])[-1]
    '--ext=coursekit.exercises.input_help'
    >>> with_extension(with_extension(["python"])) == with_extension(["python"])
    True
    """
    flag = f"--ext={EXTENSION}"
    return [*[arg for arg in argv if arg != flag], flag]


def install(prefix: str = sys.prefix) -> Path:
    """Install the kernel spec under ``prefix`` (this environment) with the extension; return its kernel.json."""
    from ipykernel.kernelspec import install as install_kernelspec

    spec = Path(install_kernelspec(kernel_name=KERNEL_NAME, display_name=DISPLAY_NAME, prefix=prefix)) / "kernel.json"
    data = json.loads(spec.read_text(encoding="utf-8"))
    data["argv"] = with_extension(list(data["argv"]))
    spec.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return spec


# The startup file is the learners' command now, packaged (``python -m coursekit setup``, leftovers 28): its name,
# text and writer live there, in one place (imported above); --startup below runs it.
#: The startup file's text for this installation (:func:`coursekit.setup_cli.startup_text`).
STARTUP_TEXT = startup_text()
__all__ = ["DISPLAY_NAME", "EXTENSION", "KERNEL_NAME", "STARTUP_NAME", "STARTUP_TEXT", "install", "install_startup",
           "main", "with_extension"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default=sys.prefix, help="the environment to install into (default: this one)")
    parser.add_argument("--print", action="store_true", help="print the command line and install nothing")
    parser.add_argument(
        "--startup",
        action="store_true",
        help="load the extension from IPython's profile in every kernel (a platform's own kernel, e.g. ModelScope's)",
    )
    args = parser.parse_args(argv)
    if args.startup:
        print(f"installed {install_startup()}")
        return 0
    if args.print:
        print(" ".join(with_extension([sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"])))
        return 0
    spec = install(args.prefix)
    print(f"installed {spec}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
