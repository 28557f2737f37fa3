"""The layers of coursekit, bottom first: the one list ARCHITECTURE.md shows and the import test enforces.

A module may import (at module level or inside a function) only from its own layer or a lower one, and the
import graph has no cycle. A name starting with an underscore is imported from another module only when that
module is a kernel module (:data:`KERNEL_MODULES`): its private names are unvalidated, array-generic kernels
that the public, validating functions of the same module and the searches above call on whole columns. A
package's ``__init__`` may also import its own submodules' private names (it assembles the package).

This module imports nothing; ``tests/test_architecture.py`` reads it.
"""

from __future__ import annotations

#: (layer, module patterns, rule). A pattern is a module name, or ``name.*`` for every module of a package;
#: a module belongs to the layer of its most specific pattern.
LAYERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "foundation",
        (
            "coursekit._validate",
            "coursekit.i18n",
            "coursekit.units",
            "coursekit.glossary",
            "coursekit.lessons",
            "coursekit._cli",
            "coursekit._layers",
        ),
        "validators, the message catalog, units, terms, the lesson registry and command-line plumbing; they know "
        "nothing about parallelism",
    ),
    (
        "inputs",
        (
            "coursekit.specs",
            "coursekit.model_config",
            "coursekit.hardware",
            "coursekit.presets",
            "coursekit.published_runs",
        ),
        "the specs every formula takes (model, cluster, workload, precision recipe), datasheet constants and "
        "named presets; plain data with validation, no formula",
    ),
    (
        "formulas",
        (
            "coursekit.activations",
            "coursekit.capacity",
            "coursekit.communication",
            "coursekit.communication.*",
            "coursekit.pipeline",
            "coursekit.roofline",
            "coursekit.overlap",
            "coursekit.scaling",
            "coursekit.gates",
            "coursekit.composition",
            "coursekit.strategies",
            "coursekit.shapes",
            "coursekit.matrix",
        ),
        "one formula or rule each, public functions that validate over private array-generic kernels",
    ),
    (
        "searches",
        ("coursekit.serving", "coursekit.serving.*", "coursekit.planner", "coursekit.planner.*"),
        "enumerate candidates, gate them and estimate them with the formulas below; no formula of their own",
    ),
    (
        "presentation",
        ("coursekit.plotting", "coursekit.plotting.*", "coursekit.figure_alt"),
        "drawing and encoding figures; no course numbers",
    ),
    (
        "lab",
        ("coursekit.lab", "coursekit.lab.*"),
        "runs real PyTorch collectives and training steps and compares them with the formulas",
    ),
    (
        "interfaces",
        (
            "coursekit",
            "coursekit.__main__",
            "coursekit.lessons_cli",
            "coursekit.serving_cli",
            "coursekit.setup_cli",
            "coursekit.planner.cli",
            "coursekit.planner.__main__",
            "coursekit.widgets",
            "coursekit.widgets.*",
            "coursekit.exercises",
            "coursekit.exercises.*",
        ),
        "what learners touch: the package's lazy exports, command lines, widgets and exercises",
    ),
)

#: Modules whose private (underscore) names other modules may import: their array-generic kernels.
KERNEL_MODULES: tuple[str, ...] = (
    "coursekit.units",
    "coursekit.specs",
    "coursekit.activations",
    "coursekit.capacity",
    "coursekit.communication",
    "coursekit.communication.*",
    "coursekit.pipeline",
    "coursekit.roofline",
    "coursekit.overlap",
    "coursekit.gates",
    "coursekit.serving",
    "coursekit.serving.*",
)


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        return module.startswith(pattern[:-1])
    return module == pattern


def layer_of(module: str) -> int:
    """Index into :data:`LAYERS` of ``module`` (its most specific pattern); ValueError if none matches.

    >>> LAYERS[layer_of("coursekit.planner.cli")][0], LAYERS[layer_of("coursekit.planner.search")][0]
    ('interfaces', 'searches')
    """
    if not isinstance(module, str):
        raise TypeError(f"module = {module!r}: must be a dotted module name (str), not {type(module).__name__}")
    best: tuple[int, int] | None = None  # (specificity, layer)
    for index, (_name, patterns, _rule) in enumerate(LAYERS):
        for pattern in patterns:
            if _matches(module, pattern):
                specificity = len(pattern) + (0 if pattern.endswith(".*") else 1000)
                if best is None or specificity > best[0]:
                    best = (specificity, index)
    if best is None:
        raise ValueError(f"module {module!r} is in no layer of coursekit._layers.LAYERS")
    return best[1]


def is_kernel_module(module: str) -> bool:
    """True when other modules may import ``module``'s private kernels."""
    return any(_matches(module, pattern) for pattern in KERNEL_MODULES)
