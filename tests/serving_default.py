"""The serving estimate of lesson 10's widget default layout, from the library: shared by the unit test of the
widget's precision control, its browser test and the lesson-prose test (which must not import the widget: the browser
test fails on a widget without the control for that reason, not for an import)."""

from __future__ import annotations

from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingEstimate, serving_estimate

TP, BATCH, PROMPT, OUTPUT = 8, 64, 2048, 256  # the widget's default layout


def library_estimate(precision: str, model: str = "llama3-70b", gpu: str = "h100-8", **layout: int) -> ServingEstimate:
    """``serving_estimate`` of the widget's default layout (Llama 3 70B on an H100 node, TP 8, batch 64, 2048 + 256
    tokens) or of ``layout``'s changes to it, at ``precision`` with its weights (2 bytes, or 1 for FP8 W8A8): the
    library's numbers the widget must show."""
    shape = {"tp": TP, "batch": BATCH, "prompt_tokens": PROMPT, "output_tokens": OUTPUT, **layout}
    weight_bytes = 2 if precision == "bf16" else 1
    return serving_estimate(MODELS[model], CLUSTERS[gpu], weight_bytes=weight_bytes, precision=precision, **shape)
