"""Held-out check: GPT OSS 120B from its config.json on Megatron-Bridge's 2026 tables; nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_gpt_oss.py

``report_heldout_outside16.py`` checks the 25.11 container's four GPT OSS 120B rows (BF16). This report types the
same model's rows of the later containers, from github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md
(26.08) and docs/performance-summary-archive.md (26.02 to 26.06.01) @ 067f987df03b8355b03192d88d70f1709fedf51a: every
GPT OSS 120B pre-training row, at the table's system, GPUs, precision (BF16 or MXFP8), global batch, micro-batch,
sequence, TP, PP, CP and EP. The model is read as in the 25.11 check (``ModelSpec.from_config`` on openai/gpt-oss-120b's
config.json values), planned with bf16 gradients and the published micro-batch as the search's bound; the MXFP8 rows
with the ``mxfp8`` recipe. None of these rows is registered and no constant was fitted on them.

What the tables' configs set beyond that is not stated here. Two things in Megatron-Bridge's history bear on the
rows: the 26.06 container's MXFP8 rows run the whole iteration under CUDA graphs (commit 5f98743d5, "full-iter CG for
GPT-OSS 120B", 2026-06-09), which removes the host's launch time the workbench charges eager MoE layers; and the
26.06.01 rows carry the tables' own note of a cuDNN regression (NVIDIA/cudnn-frontend issue 256). The 26.02 B200 row ran
EP 64 across nodes, the later ones EP 8.

The pass rule is the registered runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput
within ±30 %). Takes a few seconds on 2 cores.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing
from report_heldout_outside16 import gpt_oss_run

from coursekit.planner.validation import compare_published
from coursekit.presets import PublishedRun

SOURCE = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, {release} NeMo container, DGX-{system}, {precision}, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/{page} @ 067f987df03b8355b03192d88d70f1709fedf51a, row GPT OSS 120B"
)
#: (release, system, precision, GPUs, GBS, MBS, sequence, TP, PP, CP, EP, tokens/s/GPU)
ROWS: tuple[tuple[str, str, str, int, int, int, int, int, int, int, int, float], ...] = (
    ("26.08", "GB300", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 16, 33024.0),
    ("26.08", "GB200", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 64, 28672.0),
    ("26.06.01", "GB300", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 16, 20288.0),
    ("26.06.01", "GB200", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 64, 18304.0),
    ("26.06", "GB300", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 16, 33166.0),
    ("26.06", "GB200", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 64, 28947.0),
    ("26.06", "B300", "MXFP8", 64, 1280, 4, 4096, 1, 1, 1, 8, 18534.0),
    ("26.04.01", "GB300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 19200.0),
    ("26.04.01", "GB200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 16640.0),
    ("26.04.01", "B300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 8, 15232.0),
    ("26.04.01", "B200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 8, 13568.0),
    ("26.04.01", "H100", "BF16", 64, 1280, 1, 4096, 1, 4, 1, 8, 5824.0),
    ("26.04", "GB300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 19275.0),
    ("26.04", "GB200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 15938.0),
    ("26.04", "B300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 8, 15114.0),
    ("26.04", "B200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 8, 13045.0),
    ("26.04", "H100", "BF16", 64, 1280, 1, 4096, 1, 4, 1, 8, 5810.0),
    ("26.02.01", "GB300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 19366.0),
    ("26.02.01", "GB200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 15754.0),
    ("26.02.01", "B300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 8, 15031.0),
    ("26.02.01", "B200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 8, 13722.0),
    ("26.02.01", "H100", "BF16", 64, 1280, 1, 4096, 1, 4, 1, 8, 5984.0),
    ("26.02", "GB300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 19412.0),
    ("26.02", "GB200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 15784.0),
    ("26.02", "B300", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 8359.0),
    ("26.02", "B200", "BF16", 64, 1280, 4, 4096, 1, 1, 1, 64, 8047.0),
    ("26.02", "H100", "BF16", 64, 1280, 1, 4096, 1, 4, 1, 8, 5993.0),
)


def held_out_run(row: tuple[object, ...]) -> PublishedRun:
    """One row, the model from its config.json (:func:`report_heldout_outside16.gpt_oss_run`), at its precision."""
    release, system, precision, gpus, batch, micro, seq, tp, pp, cp, ep, tokens = row
    run = gpt_oss_run((system, gpus, batch, micro, seq, tp, pp, cp, ep, tokens))
    options = tuple(o for o in run.workload_options if o[0] != "precision")
    if precision == "MXFP8":
        options += (("precision", "fp8"), ("fp8_recipe", "mxfp8"), ("recipe", "zero-fp16-adam"))
    else:
        options += (("precision", "bf16"),)
    page = "performance-summary.md" if release == "26.08" else "performance-summary-archive.md"
    return replace(
        run,
        name=f"Megatron-Bridge {release} GPT OSS 120B, {gpus} {system} ({precision})",
        source=SOURCE.format(release=release, system=system, precision=precision, page=page),
        workload_options=options,
    )


def main() -> int:
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in ROWS:
        c = compare_published(held_out_run(row))
        print(f"{row[0]:8} {row[1]:5} {row[2]:5} EP {row[10]:<2} {standing(c)}")
        count(passes, totals, ("all", f"precision {row[2]}", f"system {row[1]}", f"release {row[0]}"), c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
