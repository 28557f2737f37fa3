"""``python -m coursekit setup [--ipython-dir DIR] [--lang zh|en]``: make every IPython kernel find the course.

A platform whose kernel the course does not install (ModelScope's notebooks run the image's own ``python3`` kernel,
and there is no ``binder/start``) starts each kernel, a restarted one too, with nothing of the course loaded: the
line of help under a ``NameError`` or a ``SyntaxError`` was missing from the first cell a learner ran after a
restart, and a kernel whose Python is not the one ``pip install -e .`` installed into could not ``import
coursekit`` at all. This command writes one IPython startup file (:data:`STARTUP_NAME`) into the default profile's
``startup`` folder, which IPython runs in every kernel it starts, before any cell. The file

* puts the course's source folder (a clone of the repository, when coursekit is installed from one) on ``sys.path``
  when the kernel's Python cannot import ``coursekit`` itself, so ``import coursekit`` works after a restart;
* loads the line of help (the IPython extension ``coursekit.exercises.input_help``) where ``coursekit`` is
  importable, and leaves another environment's kernel as it was.

It leaves no name in the learner's namespace and changes no kernel spec. Running the command again rewrites the
same file; deleting the file undoes it.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     written = install_startup(folder)
...     (written.parent.name, written.name, written.read_text(encoding="utf-8") == startup_text())
('startup', '50-coursekit-input-help.py', True)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import i18n
from ._cli import CourseParser, argparse_language, check_output_folder, fail_line, guard, pre_language
from ._validate import check_argv, check_instance, learner_functions
from .i18n import Text, register, tr

__all__ = ["EXTENSION", "STARTUP_NAME", "install_startup", "main", "source_folder", "startup_text"]

#: The module every kernel loads as an IPython extension (its ``load_ipython_extension``): the line of help.
EXTENSION = "coursekit.exercises.input_help"
#: The startup file :func:`install_startup` writes (IPython runs a profile's startup files in name order); the name
#: tools/install_kernel.py --startup wrote before, so running either again rewrites the same file.
STARTUP_NAME = "50-coursekit-input-help.py"
#: Folder names that hold installed packages: a wheel's coursekit sits in one, and another environment's
#: site-packages is never put on a kernel's path (its compiled packages may be for another Python).
_INSTALLED_FOLDERS: tuple[str, ...] = ("site-packages", "dist-packages")

register(
    {
        "setup.written": {
            "zh": "已写入 {path}。",
            "en": "wrote {path}.",
        },
        "setup.effect": {
            "zh": "从现在起，IPython 启动的每个内核（重启后的内核也一样）都能导入 coursekit，"
            "并在错误下方显示课程的提示行。请重启内核（菜单 “内核” → “重启内核”）后再从本课开头运行。",
            "en": "From now on every kernel IPython starts (a restarted one too) imports coursekit and shows the "
            "course's line of help under an error. Restart the kernel (Kernel → Restart Kernel) and run the lesson "
            "from the top.",
        },
        "setup.source": {
            "zh": "内核自己的 Python 导入不了 coursekit 时，从 {folder} 导入。",
            "en": "A kernel whose own Python cannot import coursekit imports it from {folder}.",
        },
        "setup.undo": {
            "zh": "要撤销，删除上面写入的文件即可。",
            "en": "To undo it, delete the file written above.",
        },
    }
)


def source_folder() -> Path | None:
    """The folder that holds this ``coursekit`` package when it is a source checkout (a clone of the repository,
    installed with ``pip install -e .``): the folder a kernel puts on ``sys.path`` to import it. None for a package
    installed into an environment's ``site-packages`` (a wheel)."""
    folder = Path(__file__).resolve().parent.parent
    if folder.name in _INSTALLED_FOLDERS:
        return None
    return folder


def startup_text(source: str | os.PathLike[str] | None = None) -> str:
    """The startup file's text: ``source`` (by default :func:`source_folder`) on ``sys.path`` when the kernel cannot
    import ``coursekit`` and that folder still holds it, then the extension loaded where ``coursekit`` imports."""
    if source is not None:
        check_instance("source", source, str) if not isinstance(source, os.PathLike) else None
    folder = source_folder() if source is None else Path(source)
    path_step = ""
    if folder is not None:
        path_step = f"""
    source = {str(folder)!r}
    if importlib.util.find_spec("coursekit") is None and os.path.isfile(
        os.path.join(source, "coursekit", "__init__.py")
    ):
        sys.path.append(source)  # the clone the course was installed from (python -m coursekit setup)
"""
    return f"""\
# The course in every IPython kernel, a restarted one too: `import coursekit` and the course's line of help under an
# error Python raised before check() saw the answer (written by `python -m coursekit setup`; delete this file to
# stop it).
def _coursekit_startup() -> None:
    import importlib.util
    import os
    import sys
{path_step}
    if importlib.util.find_spec("coursekit") is not None:
        get_ipython().extension_manager.load_extension("{EXTENSION}")  # noqa: F821 (IPython's startup namespace)


_coursekit_startup()
del _coursekit_startup
"""


def install_startup(ipython_dir: str | os.PathLike[str] | None = None) -> Path:
    """Write :func:`startup_text` into the default profile's startup folder under ``ipython_dir`` (IPython's own
    folder, ``IPYTHONDIR`` or ``~/.ipython``, by default); return the file. A folder that cannot be made is refused
    with ``ValueError`` naming ``ipython_dir`` and why."""
    if ipython_dir is None:
        from IPython.paths import get_ipython_dir

        ipython_dir = get_ipython_dir()
    root = check_output_folder("ipython_dir", ipython_dir, create=True)
    startup = root / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    path = startup / STARTUP_NAME
    path.write_text(startup_text(), encoding="utf-8")
    return path


def main(argv: Sequence[str], before: Sequence[str] = ()) -> int:
    """Entry point of the ``setup`` subcommand; returns the exit status (2 for bad arguments or paths).

    ``before``: a ``--lang`` given before ``setup`` (``python -m coursekit --lang zh setup``), the messages' language.
    """
    prog = "python -m coursekit setup"
    argv, before = check_argv("argv", argv), check_argv("before", before)
    pre_language([*before, *argv])
    with argparse_language():
        parser = CourseParser(
            prog=prog,
            description=Text(
                zh="让 IPython 启动的每个内核（包括平台自带的内核，重启后也一样）"
                "都能导入 coursekit 并显示课程的提示行。",
                en="Make every kernel IPython starts (a platform's own too, also after a restart) import coursekit "
                "and show the course's line of help.",
            ).render(),
        )
        parser.add_argument(
            "--ipython-dir",
            metavar="DIR",
            default=None,
            help=Text(
                zh="IPython 的文件夹（默认：IPYTHONDIR，或 ~/.ipython）",
                en="IPython's folder (default: IPYTHONDIR, or ~/.ipython)",
            ).render(),
        )
        parser.add_argument(
            "--lang",
            choices=i18n.LANGUAGES,
            default=None,
            help=Text(zh="消息的语言", en="the messages' language").render(),
        )
        # a --lang before ``setup`` counts as given: a different one after it is refused by name, as ``plan`` and
        # ``lessons`` refuse it (fuzz pass 26: ``--lang zh setup --lang en`` wrote in English without a word)
        lang = before[1] if len(before) == 2 and before[0] == "--lang" else None
        if len(before) == 1 and before[0].startswith("--lang="):
            lang = before[0].split("=", 1)[1]
        if lang is not None:
            parser.given_before = {("--lang",): (f"--lang {lang}", lang)}
        args = parser.parse_args(list(argv))
    if args.lang is None and lang is not None:
        args.lang = lang
    if args.lang is not None:
        i18n.set_language(args.lang)
    return guard(prog, lambda: _install_and_report(prog, args.ipython_dir))


def _install_and_report(prog: str, ipython_dir: str | None) -> int:
    try:
        if ipython_dir is not None:  # refused by the option's own name
            check_output_folder("--ipython-dir", ipython_dir, create=True)
        written = install_startup(ipython_dir)
    except ValueError as exc:
        return fail_line(prog, str(exc))
    print(tr("setup.written", path=written))
    source = source_folder()
    if source is not None:
        print(tr("setup.source", folder=source))
    print(tr("setup.effect"))
    print(tr("setup.undo"))
    return 0


learner_functions(globals())

if __name__ == "__main__":  # pragma: no cover - python -m coursekit setup is the way in
    sys.exit(main(sys.argv[1:]))
