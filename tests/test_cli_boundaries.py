"""Every command line's boundary: each numeric option bounded, paths checked, a closed pipe ends quietly.

The numeric table walks the parsers themselves (planner ``plan``, serving, every lab subcommand), so
an option added later without a bound fails here. Subprocess rows for paths and languages live in
tests/fuzz/test_cli_fuzz.py.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coursekit import i18n
from coursekit.__main__ import _subparser
from coursekit.__main__ import build_parser as build_plan_parser
from coursekit._cli import (
    EXIT_BROKEN_PIPE,
    NumberArg,
    check_output_file,
    check_output_folder,
    number_arg,
    os_error_message,
)
from coursekit.lab.cli import build_parser as build_lab_parser
from coursekit.serving_cli import build_serving_parser

ROOT = Path(__file__).resolve().parents[1]
#: Values no numeric option may accept: beyond any ceiling, below every floor, not numbers at all.
ABSURD = ("1e308", "-1", "nan", "inf")


def _parsers() -> list[tuple[str, argparse.ArgumentParser, list[str]]]:
    """(label, parser, required arguments) for every parser with numeric options."""
    plan = _subparser(build_plan_parser(), "plan")
    rows = [
        ("plan", plan, ["--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16"]),
        ("serving", build_serving_parser(), ["--model", "llama3-70b", "--cluster", "h100-8"]),
    ]
    _, lab = build_lab_parser()
    rows += [(f"lab {name}", sub, []) for name, sub in lab.items()]
    return rows


def _typed_options() -> list[tuple[str, argparse.ArgumentParser, list[str], argparse.Action]]:
    found = []
    for label, parser, required in _parsers():
        for action in parser._actions:
            if action.type is not None and action.option_strings:
                found.append((label, parser, required, action))
    return found


TYPED = _typed_options()


def test_every_numeric_option_has_a_floor_and_a_ceiling() -> None:
    numeric = [action for _, _, _, action in TYPED if isinstance(action.type, NumberArg)]
    assert len(numeric) >= 25  # plan 14, serving 11, lab ~11: the walk found the options
    for action in numeric:
        bounds = action.type.bounds  # type: ignore[union-attr]
        assert {"ge", "gt"} & set(bounds) and {"le", "lt"} & set(bounds), (action.option_strings, bounds)


def test_number_arg_refuses_to_be_built_without_a_ceiling() -> None:
    with pytest.raises(TypeError, match="ceiling"):
        number_arg(float, "rate", gt=0)


@pytest.mark.parametrize("value", ABSURD)
@pytest.mark.parametrize(
    ("label", "parser", "required", "action"),
    TYPED,
    ids=[f"{label} {action.option_strings[0]}" for label, _, _, action in TYPED],
)
def test_absurd_values_exit_2_naming_the_option(
    label: str,
    parser: argparse.ArgumentParser,
    required: list[str],
    action: argparse.Action,
    value: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    option = action.option_strings[-1]
    argv = list(required)
    if label == "serving" and option != "--request-rate":
        argv += ["--concurrency", "8"] if option != "--concurrency" else []
    if label.startswith("lab"):
        argv = [label.split()[1], *argv]
        parser = build_lab_parser()[0]
    elif label == "plan":
        argv = ["plan", *argv]
        parser = build_plan_parser()
    with pytest.raises(SystemExit) as done:
        parser.parse_args([*argv, f"{option}={value}"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err, err


def test_serving_refusal_names_option_value_and_rule(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_serving_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["--model", "llama3-70b", "--cluster", "h100-8", "--request-rate", "1e308"])
    err = capsys.readouterr().err
    assert "--request-rate" in err and "1e+308" in err and "<= 1000000.0" in err, err


def test_paths_are_refused_with_the_rule(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^--json .*: is a folder; name a file inside it\.$"):
        check_output_file("--json", tmp_path)
    with pytest.raises(ValueError, match=r"notes\.txt is a file, not a folder\.$"):
        check_output_file("--json", a_file / "deeper" / "x.json")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        check_output_folder("DIR", a_file)
    with pytest.raises(ValueError, match="the path is empty"):
        check_output_folder("DIR", "")
    with pytest.raises(ValueError, match="is 300 bytes long, above the limit of 255"):
        check_output_folder("DIR", tmp_path / ("n" * 300))
    # accepted: folders that do not exist yet; with create=True they are made and tried
    target = tmp_path / "a" / "b" / "x.json"
    assert check_output_file("--json", target) == target and not target.parent.exists()
    check_output_file("--json", target, create=True)
    assert target.parent.is_dir() and not target.exists()


def test_trying_a_new_file_survives_another_process_trying_it_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two torchrun ranks tried one new ``--json`` file at once: both saw it missing, both created it, and the
    second removal failed (exit 2 on one rank). Here the other process removes the trial file right after this
    one opened it; trying it must still succeed and leave nothing behind."""
    import builtins

    import coursekit._cli as cli_module

    real_open = builtins.open

    class OpenThenLoseIt:
        def __init__(self, path: Path, mode: str) -> None:
            self.path, self.handle = path, real_open(path, mode)

        def __enter__(self) -> object:
            return self.handle

        def __exit__(self, *exc: object) -> None:
            self.handle.close()
            Path(self.path).unlink()  # the other rank's removal, first

    monkeypatch.setattr(cli_module, "open", OpenThenLoseIt, raising=False)
    target = tmp_path / "fits.json"
    assert check_output_file("--json", target, create=True) == target
    assert not target.exists()


def test_under_torchrun_only_rank_zero_tries_the_json_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only rank 0 writes ``--json``; another rank must not try (nor refuse) it: here the folder is a file, which
    rank 0 refuses with exit 2 and rank 1 passes over."""
    from coursekit.lab import cli as lab_cli

    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    args = argparse.Namespace(json=str(a_file / "fits.json"), trace=None)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "0")
    monkeypatch.setenv("RANK", "0")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        lab_cli._check_paths(args)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    lab_cli._check_paths(args)  # nothing to try: rank 1 writes no --json
    assert a_file.read_text(encoding="utf-8") == "x"


def test_os_errors_become_one_localized_line() -> None:
    error = PermissionError(13, "Permission denied", "/somewhere/x.json")
    assert os_error_message(error, "--json") == "--json /somewhere/x.json: permission denied"
    old = i18n.get_language()
    try:
        i18n.set_language("zh")
        assert os_error_message(error, "--json") == "--json /somewhere/x.json：没有权限"
    finally:
        i18n.set_language(old)


def test_lessons_refuses_an_empty_folder_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coursekit.lessons_cli import copy_lessons

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="the path is empty"):
        copy_lessons("")
    assert not any(tmp_path.iterdir())  # nothing was copied into the current folder


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--mode", "serving", "--model", "llama3-70b", "--cluster", "h100-8", "--concurrency", "8", "--json"),
        ("plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--json", "--all"),
    ],
    ids=["serving", "training"],
)
def test_a_closed_stdout_ends_quietly(args: tuple[str, ...]) -> None:
    """``... --json | head``: the reader is gone before the command writes; no BrokenPipeError, status 141."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COURSEKIT_LANG": "en"}
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left at once, as head does after its lines
    try:
        done = subprocess.run(
            [sys.executable, "-m", "coursekit", *args], stdout=write_end, stderr=subprocess.PIPE, env=env, check=False
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE, done.stderr
    assert done.stderr == b"", done.stderr.decode(errors="replace")
