"""Q3 gates and the S18 degree checks (coursekit.gates)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit.gates import (
    COURSE_CANDIDATES,
    EXAMPLE_CANDIDATES,
    EXAMPLE_ENVIRONMENT,
    GATES,
    LINK_SCOPE_ORDER,
    LINK_SCOPES,
    MODEL_KINDS,
    MODES,
    REASON_TEXTS_EN,
    WARNING_CODES,
    Candidate,
    CandidateReport,
    Environment,
    check_global_batch,
    check_pp_degree,
    check_tp_degree,
    dp_degrees_for_batch,
    evaluate_candidate,
    evaluate_candidates,
    gate_context,
    gate_interconnect,
    gate_memory,
    gate_mode,
    gate_serving,
    gate_structure,
    max_dp_degree,
)
from coursekit.i18n import Text

# --------------------------------------------------------------------------- the seed, verbatim (seed 000, Q3 小验证)

SEED_LINK_SCOPE_ORDER = {"none": 0, "cross_node": 1, "intra_node": 2}


def seed_evaluate_candidate(candidate: dict[str, Any], environment: dict[str, Any]) -> dict[str, Any]:
    """The seed's function, copied as the oracle."""
    reasons = []
    if candidate["memory_per_rank_gib"] > environment["memory_per_device_gib"]:
        reasons.append("per-rank memory exceeds device memory")
    if environment["mode"] not in candidate["modes"]:
        reasons.append("workload mode is unsupported")
    if environment["model_kind"] not in candidate["model_kinds"]:
        reasons.append("model structure is unsupported")
    if SEED_LINK_SCOPE_ORDER[environment["link_scope"]] < SEED_LINK_SCOPE_ORDER[candidate["required_link_scope"]]:
        reasons.append("interconnect scope is insufficient")
    return {"name": candidate["name"], "accepted": not reasons, "reasons": reasons}


seed_environment = {
    "memory_per_device_gib": 24,
    "mode": "training",
    "model_kind": "dense",
    "link_scope": "intra_node",
}
seed_candidates = [
    {
        "name": "DP",
        "memory_per_rank_gib": 29,
        "modes": {"training"},
        "model_kinds": {"dense", "moe"},
        "required_link_scope": "cross_node",
    },
    {
        "name": "ZeRO-3",
        "memory_per_rank_gib": 18,
        "modes": {"training"},
        "model_kinds": {"dense", "moe"},
        "required_link_scope": "cross_node",
    },
    {
        "name": "TP",
        "memory_per_rank_gib": 16,
        "modes": {"training", "serving"},
        "model_kinds": {"dense", "moe"},
        "required_link_scope": "intra_node",
    },
    {
        "name": "EP",
        "memory_per_rank_gib": 14,
        "modes": {"training", "serving"},
        "model_kinds": {"moe"},
        "required_link_scope": "intra_node",
    },
]

SEED_TEXT_TO_CODE = {text: code for code, text in REASON_TEXTS_EN.items()}


def test_seed_q3_assertions_hold_through_coursekit() -> None:
    # seed 000 Q3: assert not DP accepted; assert TP accepted
    reports = [evaluate_candidate(candidate, seed_environment) for candidate in seed_candidates]
    assert not next(report for report in reports if report.name == "DP").accepted
    assert next(report for report in reports if report.name == "TP").accepted
    assert [(r.name, r.accepted, r.codes) for r in reports] == [
        ("DP", False, ("memory",)),
        ("ZeRO-3", True, ()),
        ("TP", True, ()),
        ("EP", False, ("structure",)),
    ]


def test_seed_constants_equal_the_seed_dicts() -> None:
    assert Environment.from_dict(seed_environment) == EXAMPLE_ENVIRONMENT
    assert [Candidate.from_dict(c) for c in seed_candidates] == [
        replace(c, description=None) for c in EXAMPLE_CANDIDATES
    ]
    assert dict(LINK_SCOPE_ORDER) == SEED_LINK_SCOPE_ORDER
    assert tuple(sorted(LINK_SCOPES, key=LINK_SCOPE_ORDER.__getitem__)) == LINK_SCOPES


@pytest.mark.parametrize("candidate", seed_candidates, ids=lambda c: c["name"])
def test_seed_codes_map_one_to_one_onto_the_seed_strings(candidate: dict[str, Any]) -> None:
    ours = evaluate_candidate(candidate, seed_environment)
    theirs = seed_evaluate_candidate(candidate, seed_environment)
    assert ours.accepted == theirs["accepted"]
    assert set(ours.codes) == {SEED_TEXT_TO_CODE[text] for text in theirs["reasons"]}


def test_former_names_stay_importable_and_are_not_advertised() -> None:
    # The example's constants were published as SEED_*; old code keeps working, new code sees only the new names.
    from coursekit.gates import SEED_CANDIDATES, SEED_ENVIRONMENT, SEED_REASON_TEXTS

    assert SEED_CANDIDATES is EXAMPLE_CANDIDATES and coursekit.SEED_CANDIDATES is EXAMPLE_CANDIDATES
    assert SEED_ENVIRONMENT is EXAMPLE_ENVIRONMENT and coursekit.SEED_ENVIRONMENT is EXAMPLE_ENVIRONMENT
    assert SEED_REASON_TEXTS is REASON_TEXTS_EN and coursekit.SEED_REASON_TEXTS is REASON_TEXTS_EN
    assert not [name for name in coursekit.__all__ if "SEED" in name.upper()]


def test_seed_dp_message_names_the_numbers() -> None:
    report = evaluate_candidate(EXAMPLE_CANDIDATES[0], EXAMPLE_ENVIRONMENT)
    assert [reason.message for reason in report.reasons] == ["per-rank memory 29.0 GiB exceeds device memory 24.0 GiB"]
    coursekit.set_language("zh")
    assert report.reasons[0].message == "每个 rank 需要 29.0 GiB，超过设备显存 24.0 GiB"


seed_like_candidates = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["A", "B", "TP"]),
        "memory_per_rank_gib": st.floats(min_value=0, max_value=100, allow_nan=False),
        "modes": st.sets(st.sampled_from(MODES), min_size=1),
        "model_kinds": st.sets(st.sampled_from(MODEL_KINDS), min_size=1),
        "required_link_scope": st.sampled_from(LINK_SCOPES),
    }
)
seed_like_environments = st.fixed_dictionaries(
    {
        "memory_per_device_gib": st.floats(min_value=0.5, max_value=100, allow_nan=False),
        "mode": st.sampled_from(MODES),
        "model_kind": st.sampled_from(MODEL_KINDS),
        "link_scope": st.sampled_from(LINK_SCOPES),
    }
)


@given(seed_like_candidates, seed_like_environments)
def test_agrees_with_the_seed_oracle_on_every_seed_shaped_input(
    candidate: dict[str, Any], environment: dict[str, Any]
) -> None:
    ours = evaluate_candidate(candidate, environment)
    theirs = seed_evaluate_candidate(candidate, environment)
    assert ours.accepted == theirs["accepted"]
    assert set(ours.codes) == {SEED_TEXT_TO_CODE[text] for text in theirs["reasons"]}


# --------------------------------------------------------------------------- gates one by one

ENV = Environment(24, "training", "dense", "intra_node")


def _cand(**changes: Any) -> Candidate:
    base = Candidate("X", 10, frozenset({"training", "serving"}), frozenset({"dense", "moe"}), "none")
    return replace(base, **changes)


@pytest.mark.parametrize(
    ("gate", "candidate", "environment", "code", "message"),
    [
        (
            gate_memory,
            _cand(memory_per_rank_gib=24.5),
            ENV,
            "memory",
            "per-rank memory 24.5 GiB exceeds device memory 24.0 GiB",
        ),
        (
            gate_interconnect,
            _cand(name="TP", required_link_scope="intra_node"),
            replace(ENV, link_scope="cross_node"),
            "interconnect",
            "link scope 'cross_node' is weaker than the 'intra_node' that TP requires "
            "(weakest to strongest: none < cross_node < intra_node)",
        ),
        (
            gate_structure,
            _cand(name="EP", model_kinds=frozenset({"moe"})),
            ENV,
            "structure",
            "model structure 'dense' is unsupported: EP applies to 'moe' only (structure codes: 'dense' a dense "
            "model, 'moe' a mixture-of-experts (MoE) model)",
        ),
        (
            gate_mode,
            _cand(name="DP", modes=frozenset({"training"})),
            replace(ENV, mode="serving"),
            "mode",
            "workload mode 'serving' is not among the modes DP declares (training)",
        ),
        (
            gate_context,
            _cand(name="CP", splits_context=True),
            ENV,
            "context",
            "CP splits the context, but the environment declares no context length and no per-device attention "
            "capacity (context_len, max_context_per_device): nothing shows that context parallelism (CP) is needed",
        ),
        (
            gate_context,
            _cand(name="CP", splits_context=True),
            replace(ENV, context_len=8192, max_context_per_device=8192),
            "context",
            "a context of 8,192 tokens fits one device's attention state (8,192 tokens): CP would add per-layer "
            "attention-state exchange with no capacity gap to close",
        ),
        (
            gate_serving,
            _cand(name="Replica", role="serving-replica"),
            ENV,
            "serving",
            "Replica is a serving replica, not training data parallelism (DP): replicas never synchronize "
            "gradients, so they cannot carry a training workload",
        ),
        (
            gate_serving,
            _cand(name="DP", role="training-sync"),
            replace(ENV, mode="serving"),
            "serving",
            "DP synchronizes training state every step; a serving workload distributes independent requests, "
            "so evaluate Replica routing instead",
        ),
    ],
)
def test_each_gate_rejects_with_its_code_and_a_specific_message(
    gate: Any, candidate: Candidate, environment: Environment, code: str, message: str
) -> None:
    reason = gate(candidate, environment)
    assert reason is not None
    assert reason.code == code
    assert reason.message == message


@pytest.mark.parametrize(
    ("gate", "candidate", "environment"),
    [
        (gate_memory, _cand(memory_per_rank_gib=24), ENV),  # equality passes, as the seed's ">" does
        (gate_interconnect, _cand(required_link_scope="cross_node"), ENV),  # stronger scope satisfies weaker
        (gate_structure, _cand(model_kinds=frozenset({"dense"})), ENV),
        (gate_mode, _cand(modes=frozenset({"training"})), ENV),
        (gate_context, _cand(), ENV),  # a candidate that does not split the context is not the context gate's
        (gate_context, _cand(splits_context=True), replace(ENV, context_len=8193, max_context_per_device=8192)),
        (gate_serving, _cand(role="serving-replica"), replace(ENV, mode="serving")),
        (gate_serving, _cand(role="training-sync"), ENV),
        (gate_serving, _cand(role=None), replace(ENV, mode="serving")),
    ],
)
def test_each_gate_passes_when_its_rule_holds(gate: Any, candidate: Candidate, environment: Environment) -> None:
    assert gate(candidate, environment) is None


def test_gates_are_listed_in_the_seed_order_with_bilingual_descriptions() -> None:
    assert [gate.code for gate in GATES] == ["memory", "interconnect", "structure", "context", "mode", "serving"]
    for gate in GATES:
        assert isinstance(gate.description, Text)
        assert gate.description.zh and gate.description.en
        code, check, description = gate  # a plain (code, function, Text) triple too
        assert check is gate.check and code == gate.code and description is gate.description


def test_replica_mistakenly_declared_for_training_is_caught_by_the_serving_gate() -> None:
    replica = COURSE_CANDIDATES[2]
    assert replica.name == "Replica"
    mistaken = replace(replica, modes=frozenset({"training", "serving"}))
    assert evaluate_candidate(mistaken, ENV).codes == ("serving",)
    assert evaluate_candidate(replica, ENV).codes == ("mode", "serving")
    assert evaluate_candidate(replica, replace(ENV, mode="serving")).accepted


def test_cp_enters_only_for_long_context() -> None:
    cp = COURSE_CANDIDATES[1]
    long = replace(ENV, context_len=131072, max_context_per_device=32768)
    short = replace(ENV, context_len=4096, max_context_per_device=32768)
    assert evaluate_candidate(cp, long).accepted
    assert evaluate_candidate(cp, short).codes == ("context",)
    assert evaluate_candidate(cp, ENV).codes == ("context",)


def test_every_failing_gate_is_reported_in_gate_order() -> None:
    hopeless = Candidate("Z", 99, {"serving"}, {"moe"}, "intra_node", splits_context=True, role="serving-replica")
    env = replace(ENV, link_scope="none")
    assert evaluate_candidate(hopeless, env).codes == (
        "memory",
        "interconnect",
        "structure",
        "context",
        "mode",
        "serving",
    )


def test_chinese_messages_for_the_serving_and_context_gates() -> None:
    coursekit.set_language("zh")
    reason = gate_serving(_cand(name="Replica", role="serving-replica"), ENV)
    assert reason is not None
    assert reason.message == (
        "Replica 是服务副本 (serving replica)，不是训练数据并行 (data parallelism, DP)："
        "副本之间不同步梯度，不能承担训练负载"
    )
    short = gate_context(_cand(name="CP", splits_context=True), replace(ENV, context_len=10, max_context_per_device=20))
    assert short is not None
    assert (
        short.message == "上下文 10 token 不超过单卡注意力状态上限 20 token："
        "CP 只会增加每层的注意力状态交换，却没有要解决的容量缺口"
    )


def test_evaluate_candidates_keeps_order_and_report_is_frozen() -> None:
    reports = evaluate_candidates(EXAMPLE_CANDIDATES + COURSE_CANDIDATES, EXAMPLE_ENVIRONMENT)
    assert [r.name for r in reports] == ["DP", "ZeRO-3", "TP", "EP", "PP", "CP", "Replica"]
    assert [r.accepted for r in reports] == [False, True, True, False, True, False, False]
    assert isinstance(reports[0], CandidateReport)
    with pytest.raises(AttributeError):
        reports[0].accepted = True  # type: ignore[misc]


# --------------------------------------------------------------------------- properties

candidates = st.builds(
    Candidate,
    name=st.sampled_from(["DP", "TP", "CP", "Replica"]),
    memory_per_rank_gib=st.floats(min_value=0, max_value=200, allow_nan=False),
    modes=st.frozensets(st.sampled_from(MODES), min_size=1),
    model_kinds=st.frozensets(st.sampled_from(MODEL_KINDS), min_size=1),
    required_link_scope=st.sampled_from(LINK_SCOPES),
    splits_context=st.booleans(),
    role=st.sampled_from([None, "training-sync", "serving-replica"]),
)
environments = st.builds(
    Environment,
    memory_per_device_gib=st.floats(min_value=1, max_value=200, allow_nan=False),
    mode=st.sampled_from(MODES),
    model_kind=st.sampled_from(MODEL_KINDS),
    link_scope=st.sampled_from(LINK_SCOPES),
    context_len=st.one_of(st.none(), st.integers(1, 10**6)),
    max_context_per_device=st.one_of(st.none(), st.integers(1, 10**6)),
)
GATE_ORDER = [gate.code for gate in GATES]


@given(candidates, environments)
def test_report_is_the_conjunction_of_the_gates_in_order(candidate: Candidate, environment: Environment) -> None:
    report = evaluate_candidate(candidate, environment)
    expected = [gate.code for gate in GATES if gate.check(candidate, environment) is not None]
    assert list(report.codes) == expected
    assert report.accepted == (not expected)
    assert list(report.codes) == sorted(report.codes, key=GATE_ORDER.index)


@given(candidates, environments, st.floats(min_value=0, max_value=100, allow_nan=False))
def test_more_device_memory_never_adds_a_rejection(
    candidate: Candidate, environment: Environment, extra_gib: float
) -> None:
    before = set(evaluate_candidate(candidate, environment).codes)
    bigger = replace(environment, memory_per_device_gib=environment.memory_per_device_gib + extra_gib)
    assert set(evaluate_candidate(candidate, bigger).codes) <= before


@given(candidates, environments)
def test_a_stronger_link_never_adds_a_rejection(candidate: Candidate, environment: Environment) -> None:
    before = set(evaluate_candidate(candidate, environment).codes)
    strongest = replace(environment, link_scope="intra_node")
    assert set(evaluate_candidate(candidate, strongest).codes) <= before


# --------------------------------------------------------------------------- input validation


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"name": ""}, ValueError, "name = '': must be a non-empty string."),
        ({"name": 3}, TypeError, "name = 3: must be a non-empty string."),
        (
            {"memory_per_rank_gib": True},
            TypeError,
            "memory_per_rank_gib = True: must be a real number (int or float), not bool.",
        ),
        (
            {"memory_per_rank_gib": float("nan")},
            ValueError,
            "memory_per_rank_gib = nan: must be a finite number (not NaN or infinity).",
        ),
        ({"memory_per_rank_gib": -0.5}, ValueError, "memory_per_rank_gib = -0.5: must be >= 0."),
        (
            {"modes": "training"},
            TypeError,
            "modes = 'training': must be a set of strings such as {'training'}, not str.",
        ),
        ({"modes": set()}, ValueError, "modes = set(): must contain at least one of 'training', 'serving'."),
        ({"modes": {"train"}}, ValueError, "modes item = 'train': must be one of 'training', 'serving'."),
        ({"model_kinds": {"sparse"}}, ValueError, "model_kinds item = 'sparse': must be one of 'dense', 'moe'."),
        (
            {"required_link_scope": "nvlink"},
            ValueError,
            "required_link_scope = 'nvlink': must be one of 'none', 'cross_node', 'intra_node'.",
        ),
        ({"splits_context": 1}, TypeError, "splits_context = 1: must be True or False, not int."),
        ({"role": "dp"}, ValueError, "role = 'dp': must be one of 'training-sync', 'serving-replica'."),
        ({"description": "hi"}, TypeError, "description = 'hi': must be a coursekit.Text or None, not str."),
    ],
)
def test_candidate_validation(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    base: dict[str, Any] = {
        "name": "X",
        "memory_per_rank_gib": 1,
        "modes": {"training"},
        "model_kinds": {"dense"},
        "required_link_scope": "none",
    }
    with pytest.raises(error) as info:
        Candidate(**{**base, **kwargs})
    assert str(info.value) == message


def test_candidate_accepts_lists_and_stores_frozensets() -> None:
    candidate = Candidate("TP", 16, ["training", "serving"], ("dense",), "intra_node")  # type: ignore[arg-type]
    assert candidate.modes == frozenset({"training", "serving"})
    assert isinstance(candidate.model_kinds, frozenset)
    assert hash(candidate) == hash(replace(candidate))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"memory_per_device_gib": 0}, ValueError, "memory_per_device_gib = 0: must be > 0."),
        ({"mode": "inference"}, ValueError, "mode = 'inference': must be one of 'training', 'serving'."),
        ({"model_kind": None}, TypeError, "model_kind = None: must be a string, not NoneType."),
        ({"link_scope": "rack"}, ValueError, "link_scope = 'rack': must be one of 'none', 'cross_node', 'intra_node'."),
        ({"context_len": 0}, ValueError, "context_len = 0: must be >= 1."),
        (
            {"max_context_per_device": 1.5},
            TypeError,
            "max_context_per_device = 1.5: must be an integer (int), not float.",
        ),
    ],
)
def test_environment_validation(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    base: dict[str, Any] = {
        "memory_per_device_gib": 24,
        "mode": "training",
        "model_kind": "dense",
        "link_scope": "none",
    }
    with pytest.raises(error) as info:
        Environment(**{**base, **kwargs})
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: Candidate.from_dict({"name": "X"}),
            ValueError,
            "candidate is missing the key(s) 'memory_per_rank_gib', 'modes', 'model_kinds', 'required_link_scope'.",
        ),
        (
            lambda: Candidate.from_dict({**seed_candidates[0], "speed": 1}),
            ValueError,
            "candidate has unknown key(s) 'speed'; the keys are 'name', 'memory_per_rank_gib', 'modes', "
            "'model_kinds', 'required_link_scope', 'splits_context', 'role', 'description'.",
        ),
        (
            lambda: evaluate_candidate(["DP"], seed_environment),
            TypeError,
            "candidate = ['DP']: must be a Candidate or a Mapping, not list.",
        ),
        (
            lambda: evaluate_candidate(seed_candidates[0], 24),
            TypeError,
            "environment = 24: must be a Environment or a Mapping, not int.",
        ),
        (
            lambda: Environment.from_dict({"mode": "training"}),
            ValueError,
            "environment is missing the key(s) 'memory_per_device_gib', 'model_kind', 'link_scope'.",
        ),
    ],
)
def test_plain_dict_errors(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_validation_message_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        Environment(24, "training", "dense", "intra_node", context_len=0)
    assert str(info.value) == "context_len = 0：必须 >= 1。"
    with pytest.raises(TypeError) as type_info:
        Candidate("X", 1, "training", {"dense"}, "none")  # type: ignore[arg-type]
    assert str(type_info.value) == "modes = 'training'：必须是字符串集合（如 {'training'}），而不是 str。"


# --------------------------------------------------------------------------- S18 degree checks


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ((8, 4, 2, 64), None, None),
        (
            (16, 4, 2, 64),
            "global_batch",
            "dp 16 × micro-batch 4 × gradient accumulation 2 = 128 sequences, but the global batch is 64",
        ),
        (
            (3, 1, 21, 64),
            "global_batch",
            "dp 3 × micro-batch 1 × gradient accumulation 21 = 63 sequences, but the global batch is 64",
        ),
    ],
)
def test_check_global_batch(args: tuple[int, int, int, int], code: str | None, message: str | None) -> None:
    reason = check_global_batch(*args)
    assert (reason.code if reason else None) == code
    assert (reason.message if reason else None) == message


def test_check_global_batch_in_chinese() -> None:
    coursekit.set_language("zh")
    reason = check_global_batch(16, 4, 2, 64)
    assert reason is not None
    assert reason.message == "dp 16 × 微批次 4 × 梯度累积 (gradient accumulation) 2 = 128 条序列，但全局批大小是 64"


def test_megatron_batch_rule_reference() -> None:
    # NVIDIA/Megatron-LM megatron/core/num_microbatches_calculator.py asserts
    # global_batch_size % (micro_batch_size * data_parallel_size) == 0 and uses the
    # quotient as the number of micro-batches (gradient accumulation steps).
    global_batch, micro = 1536, 2
    for dp in dp_degrees_for_batch(global_batch, micro):
        assert global_batch % (micro * dp) == 0
        assert check_global_batch(dp, micro, global_batch // (micro * dp), global_batch) is None
    assert 5 not in dp_degrees_for_batch(global_batch, micro)


@given(st.integers(1, 512), st.integers(1, 16))
def test_admissible_dp_degrees_are_exactly_those_with_an_integer_accumulation(global_batch: int, micro: int) -> None:
    if global_batch % micro:  # no DP degree at all, not even 1: both refuse, naming the rule
        for call in (dp_degrees_for_batch, max_dp_degree):
            with pytest.raises(ValueError, match=f"micro_batch = {micro}: must divide global_batch = {global_batch}"):
                call(global_batch, micro)
        for dp in range(1, global_batch + 1):
            assert all(check_global_batch(dp, micro, a, global_batch) for a in range(1, global_batch // micro + 1))
        return
    admissible = dp_degrees_for_batch(global_batch, micro)
    for dp in range(1, global_batch + 1):
        largest_accum = global_batch // (dp * micro)  # any larger accumulation overshoots the batch
        ok = any(check_global_batch(dp, micro, accum, global_batch) is None for accum in range(1, largest_accum + 1))
        assert (dp in admissible) == ok
    assert max(admissible) == max_dp_degree(global_batch, micro)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: max_dp_degree(64, 3), ValueError, "micro_batch = 3: must divide global_batch = 64."),
        (lambda: max_dp_degree(0), ValueError, "global_batch = 0: must be >= 1."),
        (lambda: check_global_batch(True, 1, 1, 1), TypeError, "dp = True: must be an integer (int), not bool."),
        (lambda: dp_degrees_for_batch(64, 0), ValueError, "micro_batch = 0: must be >= 1."),
        (lambda: check_tp_degree(2.0, 32, 8), TypeError, "tp = 2.0: must be an integer (int), not float."),
        (lambda: check_tp_degree(2, 32, 0), ValueError, "gpus_per_node = 0: must be >= 1."),
        (lambda: check_pp_degree(0, 32), ValueError, "pp = 0: must be >= 1."),
    ],
)
def test_degree_check_validation(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("tp", "heads", "gpus_per_node", "code", "message"),
    [
        (8, 32, 8, None, None),
        (1, 7, 8, None, None),
        (3, 32, 8, "tp_heads", "tp = 3 does not divide the 32 attention heads: every TP rank must hold whole heads"),
        (
            16,
            32,
            8,
            "interconnect",
            "tp = 16 exceeds the 8 GPUs per node: the TP group would leave the fast intra-node domain and run every "
            "layer's collectives over the inter-node link",
        ),
        (
            3,
            24,
            8,
            "interconnect",
            "tp = 3 does not divide the 8 GPUs per node: with contiguous ranks some TP groups straddle two nodes",
        ),
        (5, 32, 4, "tp_heads", "tp = 5 does not divide the 32 attention heads: every TP rank must hold whole heads"),
    ],
)
def test_check_tp_degree(tp: int, heads: int, gpus_per_node: int, code: str | None, message: str | None) -> None:
    reason = check_tp_degree(tp, heads, gpus_per_node)
    assert (reason.code if reason else None) == code
    assert (reason.message if reason else None) == message


@pytest.mark.parametrize(
    ("pp", "layers", "code", "message"),
    [
        (4, 32, None, None),
        (32, 32, None, None),
        (33, 32, "pp_layers", "pp = 33 exceeds the 32 layers: every pipeline stage needs at least one layer"),
        (
            5,
            32,
            "pp_balance",
            "32 layers do not split evenly over pp = 5 stages (6 to 7 layers per stage): "
            "the slowest stage sets the pace",
        ),
    ],
)
def test_check_pp_degree(pp: int, layers: int, code: str | None, message: str | None) -> None:
    reason = check_pp_degree(pp, layers)
    assert (reason.code if reason else None) == code
    assert (reason.message if reason else None) == message


def test_pp_balance_is_a_warning_not_an_exclusion() -> None:
    assert WARNING_CODES == frozenset({"pp_balance"})
    coursekit.set_language("zh")
    reason = check_pp_degree(33, 32)
    assert reason is not None
    assert reason.message == "pp = 33 超过 32 层：每个流水线阶段 (stage) 至少需要一层"


@given(st.integers(1, 64), st.integers(1, 128), st.integers(1, 16))
def test_tp_passes_iff_it_divides_heads_and_the_node(tp: int, heads: int, gpus_per_node: int) -> None:
    ok = heads % tp == 0 and gpus_per_node % tp == 0
    assert (check_tp_degree(tp, heads, gpus_per_node) is None) == ok


@given(st.integers(1, 64), st.integers(1, 128))
def test_pp_stage_sizes_in_the_balance_message_cover_all_layers(pp: int, layers: int) -> None:
    reason = check_pp_degree(pp, layers)
    if pp > layers:
        assert reason is not None and reason.code == "pp_layers"
    elif reason is not None:
        low, high = reason.params["low"], reason.params["high"]
        assert low * pp < layers < high * pp
