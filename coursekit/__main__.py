"""Command line: ``python -m coursekit plan --model llama3-70b --cluster h100-8 --nodes 16 --global-batch 1024``.

Subcommands:

* ``plan`` — run the decision workbench (:func:`coursekit.planner.plan`): print the funnel
  (how many candidates each gate removed, in gate order), the assumptions and the top
  accepted candidates with their breakdowns; ``--explain tp=8,pp=4,dp=4,zero=1,mb=1`` says
  why one composition was rejected (or shows its breakdown); ``--json`` prints the full
  result as JSON; ``--lang zh|en`` picks the language.

* ``lessons DIR [--lang zh|en]`` — copy the lesson notebooks out of the installed package
  (:mod:`coursekit.lessons_cli`).

* ``setup [--ipython-dir DIR] [--lang zh|en]`` — write the IPython startup file that lets every kernel, a
  platform's own too (ModelScope's), import coursekit and show the course's line of help after a restart
  (:mod:`coursekit.setup_cli`).

The help (``--help``) is in the language of ``--lang``, given before the command or after it, else of
``COURSEKIT_LANG``: every parser is built once that language is applied.

Bad arguments, and paths the operating system refuses, exit with status 2 and one message naming
the argument, in the language of ``--lang``; when stdout's reader goes away (``... --json | head``)
the command stops quietly with status 141 (:mod:`coursekit._cli`).

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import i18n
from ._cli import EXIT_USAGE, LANG_HELP, CourseParser, argparse_language, guard, language_args, pre_language
from .i18n import Text
from .planner.cli import add_plan_command, run_plan

__all__ = ["EXIT_USAGE", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m coursekit`` argument parser (subcommand ``plan``), its help in the current language."""
    with argparse_language():  # argparse words its titles and -h help as it builds a parser
        parser = CourseParser(
            prog="python -m coursekit",
            description=Text(
                zh="coursekit 命令行：决策工作台 (plan)、课程笔记本的复制 (lessons) 和内核的启动文件 (setup)。",
                en="coursekit command line: the decision workbench (plan), copying the lessons out (lessons) and "
                "the kernels' startup file (setup).",
            ).render(),
        )
        # Its own name: a subcommand's --lang (default None) would overwrite the value under the same name.
        parser.add_argument("--lang", dest="lang_before_command", choices=i18n.LANGUAGES, help=LANG_HELP.render())
        commands = parser.add_subparsers(
            dest="command",
            metavar="COMMAND",
            help=Text(
                zh="子命令；COMMAND --help 显示它的选项", en="the subcommand; COMMAND --help shows its options"
            ).render(),
        )
        commands.required = True
        add_plan_command(commands)
        # `lessons` has its own parser (coursekit.lessons_cli, run before this one): listed here so --help shows it.
        commands.add_parser(
            "lessons",
            help=Text(
                zh="把课程笔记本从已安装的包中复制出来：lessons DIR [--lang zh|en]",
                en="copy the lesson notebooks out of the installed package: lessons DIR [--lang zh|en]",
            ).render(),
            add_help=False,
        )
        commands.add_parser(
            "setup",
            help=Text(
                zh="让每个 IPython 内核（包括魔搭等平台自带的内核）在重启后也能导入 coursekit 并显示提示行："
                "setup [--ipython-dir DIR]",
                en="make every IPython kernel (a platform's own too, e.g. ModelScope's) import coursekit and show the "
                "line of help, also after a restart: setup [--ipython-dir DIR]",
            ).render(),
            add_help=False,
        )
    return parser


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # argparse keeps them here
    sub: argparse.ArgumentParser = action.choices[name]
    return sub


def _run_plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    return run_plan(args, parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m coursekit``; returns the exit status (2 for bad arguments, 141 for a closed pipe)."""
    args_list = language_args(sys.argv[1:] if argv is None else argv)  # --lang zh_CN, ZH ... as --lang zh
    return guard("python -m coursekit", lambda: _main(args_list), args_list)


def _after_language(argv: list[str]) -> list[str]:
    """``argv`` from the command on: a leading ``--lang zh`` / ``--lang=zh`` (already applied) taken off."""
    if argv[:1] == ["--lang"] and argv[1:2] and argv[1] in i18n.LANGUAGES:
        return argv[2:]
    if argv[:1] and argv[0].startswith("--lang=") and argv[0].split("=", 1)[1] in i18n.LANGUAGES:
        return argv[1:]
    return argv


def _main(argv: list[str]) -> int:
    pre_language(argv)  # before any parser is built: its help is in this language
    args_list = _after_language(argv)
    if args_list[:1] == ["lessons"]:  # copying the notebooks out: its own module and parser
        from .lessons_cli import main as lessons_main

        # a leading --lang (the messages' language) goes along, so a different --lang after DIR is refused by name
        return lessons_main(args_list[1:], before=argv[: len(argv) - len(args_list)])
    if args_list[:1] == ["setup"]:  # the IPython startup file: its own module and parser
        from .setup_cli import main as setup_main

        return setup_main(args_list[1:], before=argv[: len(argv) - len(args_list)])
    from .serving_cli import run_serving, wants_serving

    if wants_serving(args_list):  # serving has its own arguments (lesson 10)
        # a leading --lang goes along (it means the same there), so a different --lang after the command is refused
        return run_serving([*argv[: len(argv) - len(args_list)], *args_list[1:]])
    parser = build_parser()
    with argparse_language():
        args = parser.parse_args(argv)
        lang = args.lang if getattr(args, "lang", None) is not None else args.lang_before_command
        if lang is not None:  # subcommands without --lang leave it unset
            i18n.set_language(lang)
        if args.command == "plan":
            return _run_plan(args, _subparser(parser, "plan"))
        parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse refuses it first


if __name__ == "__main__":
    sys.exit(main())
