"""Q2 communication: what each parallel strategy sends per training step, and how long it takes.

Three layers, from lesson 2's one-line ledger to per-strategy traffic:

* :func:`communication_ledger` — the Q2 ledger of lesson 2: calls x (latency +
  payload / bandwidth), in MiB, GiB/s and microseconds.
* :func:`collective_time_s` / :func:`collective_cost` — the ring alpha-beta
  model of one collective over ``ranks`` ranks, with nccl-tests' bus-bandwidth
  factors (:func:`bus_bandwidth_factor`).
* ``*_traffic`` functions — the collectives one rank issues per training step
  under DP, ZeRO / FSDP, TP (with or without sequence parallelism), PP, CP, EP
  and serving replicas, each entry citing its source; :func:`traffic_time`
  turns them into seconds.

Bandwidth everywhere is *per GPU, per direction* (unidirectional): the bytes
per second one rank (GPU) can send, over all of its links together, while it
also receives at the same rate (nccl-tests' "bus bandwidth" is measured the
same way). A vendor's bidirectional figure is halved first.

>>> round(collective_time_s("all_reduce", payload_bytes=1e9, ranks=8, bandwidth_bytes_per_s=100e9, latency_s=0), 6)
0.0175

The package splits along the three: :mod:`.ledger`, :mod:`.collectives` and :mod:`.traffic`; every name
(the array-generic kernels the planner and serving call included) stays importable from
``coursekit.communication``.

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

from .._validate import learner_functions
from .collectives import BUS_BANDWIDTH_KINDS as BUS_BANDWIDTH_KINDS
from .collectives import COLLECTIVE_NAMES as COLLECTIVE_NAMES
from .collectives import COLLECTIVES as COLLECTIVES
from .collectives import NCCL_TESTS_SOURCE as NCCL_TESTS_SOURCE
from .collectives import CollectiveCost as CollectiveCost
from .collectives import _bus_factor as _bus_factor
from .collectives import _collective_cost as _collective_cost
from .collectives import _collective_time_s as _collective_time_s
from .collectives import _collective_transfer_s as _collective_transfer_s
from .collectives import _steps as _steps
from .collectives import bus_bandwidth_factor as bus_bandwidth_factor
from .collectives import collective_cost as collective_cost
from .collectives import collective_time_s as collective_time_s
from .ledger import DOMINANT_TERMS as DOMINANT_TERMS
from .ledger import LEDGER_DECIMALS as LEDGER_DECIMALS
from .ledger import CommunicationLedger as CommunicationLedger
from .ledger import _dominant as _dominant
from .ledger import communication_ledger as communication_ledger
from .ledger import crossover_payload_mib as crossover_payload_mib
from .traffic import _ENTRY_FIELDS as _ENTRY_FIELDS
from .traffic import _TRAFFIC_FUNCTIONS as _TRAFFIC_FUNCTIONS
from .traffic import DDP_BUCKET_SOURCE as DDP_BUCKET_SOURCE
from .traffic import MEGATRON_TP_SOURCE as MEGATRON_TP_SOURCE
from .traffic import MOE_SOURCE as MOE_SOURCE
from .traffic import PIPELINE_SOURCE as PIPELINE_SOURCE
from .traffic import RING_ATTENTION_SOURCE as RING_ATTENTION_SOURCE
from .traffic import SEQUENCE_PARALLEL_SOURCE as SEQUENCE_PARALLEL_SOURCE
from .traffic import STRATEGIES as STRATEGIES
from .traffic import TRAFFIC_GROUPS as TRAFFIC_GROUPS
from .traffic import ZERO_SOURCE as ZERO_SOURCE
from .traffic import TrafficCost as TrafficCost
from .traffic import TrafficEntry as TrafficEntry
from .traffic import TrafficTime as TrafficTime
from .traffic import _activation_bytes as _activation_bytes
from .traffic import _all_to_all_two_tier_s as _all_to_all_two_tier_s
from .traffic import _cp_entries as _cp_entries
from .traffic import _cp_kv_block_bytes as _cp_kv_block_bytes
from .traffic import _cp_step_times_s as _cp_step_times_s
from .traffic import _entry as _entry
from .traffic import _ep_calls as _ep_calls
from .traffic import _ep_entries as _ep_entries
from .traffic import _ep_payload_bytes as _ep_payload_bytes
from .traffic import _ep_recompute_entries as _ep_recompute_entries
from .traffic import _ep_remote_share as _ep_remote_share
from .traffic import _layer_collective_calls as _layer_collective_calls
from .traffic import _pp_entries as _pp_entries
from .traffic import _pp_time_s as _pp_time_s
from .traffic import _tp_entries as _tp_entries
from .traffic import _tp_time_s as _tp_time_s
from .traffic import _traffic_time as _traffic_time
from .traffic import _zero_calls as _zero_calls
from .traffic import _zero_entries as _zero_entries
from .traffic import _zero_payloads as _zero_payloads
from .traffic import cp_traffic as cp_traffic
from .traffic import dp_traffic as dp_traffic
from .traffic import ep_traffic as ep_traffic
from .traffic import pp_traffic as pp_traffic
from .traffic import replica_traffic as replica_traffic
from .traffic import strategy_traffic as strategy_traffic
from .traffic import tp_traffic as tp_traffic
from .traffic import traffic_time as traffic_time
from .traffic import zero_traffic as zero_traffic

__all__ = [
    "BUS_BANDWIDTH_KINDS",
    "COLLECTIVES",
    "STRATEGIES",
    "TRAFFIC_GROUPS",
    "CollectiveCost",
    "CommunicationLedger",
    "TrafficCost",
    "TrafficEntry",
    "TrafficTime",
    "bus_bandwidth_factor",
    "collective_cost",
    "collective_time_s",
    "communication_ledger",
    "cp_traffic",
    "crossover_payload_mib",
    "dp_traffic",
    "ep_traffic",
    "pp_traffic",
    "replica_traffic",
    "strategy_traffic",
    "tp_traffic",
    "traffic_time",
    "zero_traffic",
]

learner_functions(globals())
