"""A valid call of every public coursekit function, for the fuzz suite to break one argument at a time.

Each entry maps a public function name to a function returning fresh keyword
arguments of one valid call. The fuzz tests replace one argument (or one item
of a mapping / sequence argument) with an adversarial value and check the
course's contract: a finite result, or a ``TypeError`` / ``ValueError`` naming
that argument, short, in the current language, in bounded time.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import coursekit

#: Top-level functions that are not in a submodule's export list.
TOP_LEVEL_FUNCTIONS: tuple[str, ...] = ("get_language", "set_language", "tr")


def public_functions() -> dict[str, Callable[..., Any]]:
    """Every function coursekit exports (classes and constants left out)."""
    names = [*TOP_LEVEL_FUNCTIONS, *coursekit.__all__]  # the submodules exported whole (serving) included
    found = {name: getattr(coursekit, name) for name in names}
    return {name: obj for name, obj in found.items() if inspect.isfunction(obj)}


def _schedule() -> Any:
    return coursekit.simulate_schedule(4, 8)


def _timeline() -> Any:
    return coursekit.step_timeline(1.0, 0.5, overlap_fraction=0.2, bubble_s=0.1)


def _plan_inputs() -> dict[str, Any]:
    from coursekit.planner import WorkloadSpec

    return {
        "model": coursekit.MODELS["gpt2-small"],
        "cluster": coursekit.CLUSTERS["a100-8"],
        "workload": WorkloadSpec(global_batch=16),
    }


_DEGREES = {"TP": 2, "PP": 2, "DP": 2}

#: name -> valid keyword arguments. A mapping argument's items are fuzzed one by one as well.
BASELINES: dict[str, Callable[[], dict[str, Any]]] = {
    "get_language": dict,
    "set_language": lambda: {"lang": "en"},
    "tr": lambda: {"key": "validate.ge", "name": "x", "value": 1, "low": 2},
    # capacity
    "build_resource_ledger": lambda: {
        "state_gib": 13.0,
        "activation_gib": 4.0,
        "runtime_reserve_gib": 2.0,
        "device_memory_gib": 24.0,
    },
    "training_state_memory": lambda: {"num_params": 7.5e9, "dp": 8, "zero_stage": 2, "tp": 1, "pp": 1},
    "fsdp_zero_stage": lambda: {"sharding_strategy": "FULL_SHARD"},
    "activation_memory": lambda: {"seq_len": 2048, "micro_batch": 1, "hidden": 1024, "heads": 16, "layers": 4, "tp": 2},
    "activation_memory_breakdown": lambda: {
        "seq_len": 2048,
        "micro_batch": 1,
        "hidden": 1024,
        "heads": 16,
        "layers": 4,
        "tp": 2,
        "cp": 2,
    },
    # communication
    "communication_ledger": lambda: {"payload_mib": 256, "calls_per_step": 4, "bandwidth_gib_s": 100, "latency_us": 5},
    "crossover_payload_mib": lambda: {"bandwidth_gib_s": 100, "latency_us": 5},
    "bus_bandwidth_factor": lambda: {"kind": "all_reduce", "ranks": 8},
    "collective_cost": lambda: {
        "kind": "all_gather",
        "payload_bytes": 8e6,
        "ranks": 4,
        "bandwidth_bytes_per_s": 1e9,
        "latency_s": 1e-5,
    },
    "collective_time_s": lambda: {
        "kind": "all_reduce",
        "payload_bytes": 8e6,
        "ranks": 4,
        "bandwidth_bytes_per_s": 1e9,
        "latency_s": 1e-5,
    },
    "dp_traffic": lambda: {"num_params": 1e9, "dp": 8, "grad_bytes": 2, "bucket_bytes": 25e6},
    "zero_traffic": lambda: {"num_params": 1e9, "dp": 8, "stage": 3, "param_bytes": 2, "grad_bytes": 2, "units": 4},
    "tp_traffic": lambda: {
        "seq_len": 2048,
        "micro_batch": 1,
        "hidden": 1024,
        "layers": 4,
        "tp": 2,
        "activation_bytes": 2,
        "micro_batches": 2,
    },
    "pp_traffic": lambda: {"seq_len": 2048, "micro_batch": 1, "hidden": 1024, "pp": 4, "micro_batches": 8},
    "cp_traffic": lambda: {"seq_len": 4096, "micro_batch": 1, "kv_hidden": 1024, "layers": 4, "cp": 2},
    "ep_traffic": lambda: {"seq_len": 2048, "micro_batch": 1, "hidden": 1024, "moe_layers": 4, "ep": 4, "top_k": 2},
    "replica_traffic": lambda: {"replicas": 2},
    "strategy_traffic": lambda: {"strategy": "dp", "num_params": 1e9, "dp": 8},
    "traffic_time": lambda: {
        "entries": coursekit.dp_traffic(num_params=1e9, dp=8),
        "bandwidth_bytes_per_s": 1e11,
        "latency_s": 1e-5,
    },
    # gates
    **{
        name: (lambda: {"candidate": coursekit.EXAMPLE_CANDIDATES[0], "environment": coursekit.EXAMPLE_ENVIRONMENT})
        for name in (
            "gate_memory",
            "gate_interconnect",
            "gate_structure",
            "gate_context",
            "gate_mode",
            "gate_serving",
            "evaluate_candidate",
        )
    },
    "evaluate_candidates": lambda: {
        "candidates": coursekit.EXAMPLE_CANDIDATES,
        "environment": coursekit.EXAMPLE_ENVIRONMENT,
    },
    "check_global_batch": lambda: {"dp": 8, "micro_batch": 2, "grad_accum": 4, "global_batch": 64},
    "dp_degrees_for_batch": lambda: {"global_batch": 64, "micro_batch": 2},
    "max_dp_degree": lambda: {"global_batch": 64, "micro_batch": 2},
    "check_tp_degree": lambda: {"tp": 8, "heads": 32, "gpus_per_node": 8},
    "check_pp_degree": lambda: {"pp": 4, "layers": 24},
    # composition
    "validate_parallel_composition": lambda: {
        "degrees": dict(_DEGREES),
        "available_ranks": 8,
        "model_kind": "dense",
    },
    "validate_megatron_composition": lambda: {"tp": 2, "pp": 2, "dp": 2, "cp": 1, "ep": 2, "etp": 1},
    "megatron_world_size": lambda: {"tp": 2, "pp": 2, "dp": 2, "cp": 1, "ep": 2, "etp": 1},
    "compare_ep_rules": lambda: {"degrees": {"TP": 2, "PP": 2, "DP": 2, "EP": 2}, "etp": 1},
    "rank_groups": lambda: {"degrees": dict(_DEGREES), "order": "TP-CP-EP-DP-PP"},
    "expert_rank_groups": lambda: {"degrees": {"TP": 2, "DP": 2, "EP": 2}, "order": "TP-CP-EP-DP-PP"},
    "map_groups_to_nodes": lambda: {"groups": {"TP": [[0, 1], [2, 3]]}, "gpus_per_node": 2},
    "topology_report": lambda: {"degrees": dict(_DEGREES), "gpus_per_node": 4},
    # matrix
    "matrix_table": lambda: {"lang": "en"},
    "evaluate_paper_case": lambda: {"case": coursekit.PAPER_CASES[1], "topology": "hierarchical"},
    "evaluate_paper_cases": lambda: {"cases": coursekit.PAPER_CASES, "topology": "unspecified"},
    "topology_changes": lambda: {"case": coursekit.PAPER_CASES[1], "before": "unspecified", "after": "hierarchical"},
    # pipeline
    "bubble_fraction": lambda: {"stages": 4, "microbatches": 8, "virtual_stages": 2},
    "bubble_overhead": lambda: {"stages": 4, "microbatches": 8, "virtual_stages": 2},
    "warmup_microbatches": lambda: {"stages": 4, "microbatches": 8, "stage": 1, "schedule": "1f1b"},
    "simulate_schedule": lambda: {
        "stages": 4,
        "microbatches": 8,
        "schedule": "1f1b",
        "forward_s": 1.0,
        "backward_s": 2.0,
        "stage_forward_s": [1.0, 1.0, 1.5, 1.0],
        "p2p_s": 0.1,
    },
    "gantt_rows": lambda: {"schedule": _schedule()},
    # scaling
    "scaling_efficiency": lambda: {"throughput": 700.0, "devices": 8, "single_device_throughput": 100.0},
    "step_timeline": lambda: {
        "compute_s": 1.0,
        "communication_s": 0.5,
        "overlap_fraction": 0.2,
        "bubble_s": 0.1,
        "input_wait_s": 0.05,
        "load_imbalance_s": 0.02,
    },
    "load_imbalance_s": lambda: {"device_compute_s": [1.0, 1.1, 0.9, 1.2]},
    "scaling_curve": lambda: {
        "devices_list": [1, 2, 4, 8],
        "single_device_step_s": 1.0,
        "gradient_bytes": 2e9,
        "bandwidth_bytes_per_s": 1e11,
        "latency_s": 1e-5,
        "overlap_fraction": 0.5,
    },
    "diagnose_efficiency": lambda: {"timeline": _timeline()},
    # planner
    "plan": _plan_inputs,
    "evaluate_composition": lambda: {**_plan_inputs(), "tp": 2, "pp": 1, "dp": 4, "zero": 1, "mb": 1},
    "parse_degrees": lambda: {"text": "tp=2,pp=2"},
    "megatron_paper_param_count": lambda: {"layers": 24, "hidden": 2048, "vocab": 51200, "seq_len": 2048},
    "megatron_paper_flops_per_step": lambda: {"layers": 24, "hidden": 2048, "global_batch": 512},
    "megatron_core_flops_per_step": lambda: {
        "layers": 24,
        "hidden": 2048,
        "global_batch": 192,
        "vocab": 131072,
        "seq_len": 4096,
    },
    "megatron_core_model_flops_per_step": lambda: {
        "model": coursekit.MODELS["mixtral-8x7b"],
        "global_batch": 256,
        "seq_len": 4096,
        "release": "2025",
        "tp": 2,
    },
    "megatron_padded_vocab": lambda: {"vocab": 151936, "tp": 2},
    # roofline
    "achieved_flops": lambda: {
        "intensity_flop_per_byte": 100.0,
        "peak_flops": 312e12,
        "memory_bandwidth_bytes_per_s": 2.0e12,
        "ceiling": 0.8,
        "smoothness": 2.0,
    },
    "attention_flops_per_token": lambda: {"layers": 24, "hidden": 2048, "seq_len": 2048},
    "hardware_flops_per_token": lambda: {
        "active_params": 1.3e9,
        "layers": 24,
        "hidden": 2048,
        "seq_len": 2048,
        "recompute": "full",
    },
    "matmul_intensity_flop_per_byte": lambda: {"m": 2048, "k": 4096, "n": 4096, "bytes_per_element": 2},
    "mfu": lambda: {"model_flops_per_token": 8e9, "tokens_per_s": 1e5, "devices": 8, "peak_flops": 312e12},
    "model_flops_per_token": lambda: {"active_params": 1.3e9, "layers": 24, "hidden": 2048, "seq_len": 2048},
    "ridge_point_flop_per_byte": lambda: {"peak_flops": 312e12, "memory_bandwidth_bytes_per_s": 2.0e12},
    "roofline_flops": lambda: {
        "intensity_flop_per_byte": 100.0,
        "peak_flops": 312e12,
        "memory_bandwidth_bytes_per_s": 2.0e12,
    },
    "roofline_time_s": lambda: {
        "flops": 1e12,
        "bytes_moved": 1e9,
        "peak_flops": 312e12,
        "memory_bandwidth_bytes_per_s": 2.0e12,
    },
    "transformer_layer_matmul_intensity": lambda: {
        "tokens": 2048,
        "hidden": 2048,
        "ffn_hidden": 8192,
        "kv_hidden": 512,
        "tp": 2,
    },
    # serving
    "kv_heads_per_rank": lambda: {"kv_heads": 8, "tp": 4},
    "kv_cache_bytes": lambda: {
        "model": coursekit.MODELS["llama3-8b"],
        "tokens": 2048,
        "tp": 2,
        "pp": 2,
        "kv_bytes": 2,
        "requests": 2,
    },
    "serving_memory_ledger": lambda: {
        "model": coursekit.MODELS["llama3-8b"],
        "cluster": coursekit.CLUSTERS["h100-8"],
        "tp": 2,
        "pp": 1,
        "concurrency": 16,
        "context_tokens": 2304,
        "weight_bytes": 2.0,
        "kv_bytes": 2,
        "prefill_chunk_tokens": 512,
        "runtime_reserve_gib": 2.0,
    },
    "tp_all_reduce": lambda: {
        "payload_bytes": 16 * 4096 * 2,
        "ranks": 4,
        "bandwidth_bytes_per_s": 450e9,
        "step_latency_s": 3.4e-6,
    },
    "serving_estimate": lambda: {
        "model": coursekit.MODELS["llama3-8b"],
        "cluster": coursekit.CLUSTERS["h100-8"],
        "tp": 2,
        "pp": 1,
        "batch": 16,
        "prompt_tokens": 1024,
        "output_tokens": 128,
        "weight_bytes": 1.0,
        "kv_bytes": 2,
        "precision": "fp8",
    },
    "littles_law_concurrency": lambda: {"request_rate_per_s": 10.0, "latency_s": 3.2},
    "plan_serving": lambda: {
        "model": coursekit.MODELS["llama3-8b"],
        "cluster": coursekit.CLUSTERS["h100-8"],
        "workload": coursekit.ServingWorkload(prompt_tokens=1024, output_tokens=128, concurrency=32),
    },
    # small look-ups
    "strategy_row": lambda: {"name": "TP"},
    "strategy_table": lambda: {"columns": ("name", "splits"), "lang": "en"},
    "link_preset": lambda: {"name": "intra_node"},
    "model_shape": lambda: {"name": "megatron-1.7b"},
    "transformer_params": lambda: {"layers": 24, "hidden": 2048, "vocab_size": 51200, "seq_len": 2048},
    "lookup": lambda: {"term": "DP"},
    "check": lambda: {"exercise_id": "q1.zero2_gib", "answer": 1.0},
    # units
    "bytes_to_gib": lambda: {"num_bytes": 3 * 2**30},
    "bytes_to_gb": lambda: {"num_bytes": 2.5e9},
    "bytes_to_mib": lambda: {"num_bytes": 2**21},
    "gib_to_bytes": lambda: {"gib": 0.5},
    "mib_to_bytes": lambda: {"mib": 1},
}

#: Arguments whose value is free text by design (a learner's answer is judged, never refused).
FREE_ARGUMENTS: dict[str, tuple[str, ...]] = {"check": ("answer",), "tr": ("name", "value", "low")}
