"""Q4 composition: the seed's rank count, Megatron-Core's EP folding, rank groups and node mapping."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import coursekit
from coursekit.composition import (
    DEFAULT_ORDER,
    DIMENSIONS,
    ENGINE_DIMENSIONS,
    compare_ep_rules,
    expert_rank_groups,
    map_groups_to_nodes,
    megatron_world_size,
    rank_groups,
    topology_report,
    validate_megatron_composition,
    validate_parallel_composition,
)

# --------------------------------------------------------------------------- the seed, verbatim (seed 000, Q4 小验证)


def seed_validate_parallel_composition(
    degrees: dict[str, int], available_ranks: int, model_kind: str
) -> dict[str, Any]:
    """The seed's function, copied as the oracle."""
    supported = {"DP", "TP", "PP", "CP", "EP", "Replica"}
    unknown = set(degrees) - supported
    if unknown:
        raise ValueError(f"未知并行维度：{sorted(unknown)}")
    if any(not isinstance(degree, int) or degree < 1 for degree in degrees.values()):
        raise ValueError("每个并行度必须是大于等于 1 的整数")
    required_ranks = 1
    for degree in degrees.values():
        required_ranks *= degree
    issues = []
    if required_ranks > available_ranks:
        issues.append(f"requires {required_ranks} ranks but only {available_ranks} are available")
    if degrees.get("EP", 1) > 1 and model_kind != "moe":
        issues.append("EP degree greater than 1 requires an MoE model")
    if degrees.get("Replica", 1) > 1 and degrees.get("DP", 1) > 1:
        issues.append("Replica and training DP must use distinct execution roles")
    return {"required_ranks": required_ranks, "valid": not issues, "issues": issues}


SEED_ISSUE_CODES = (("requires", "ranks"), ("EP degree", "structure"), ("Replica and", "roles"))


def _seed_codes(issues: list[str]) -> tuple[str, ...]:
    return tuple(code for issue in issues for prefix, code in SEED_ISSUE_CODES if issue.startswith(prefix))


def test_seed_q4_assertions_hold_through_coursekit() -> None:
    valid_plan = validate_parallel_composition({"TP": 4, "PP": 2, "DP": 2}, 16, "dense")
    invalid_plan = validate_parallel_composition({"TP": 4, "PP": 2, "EP": 2}, 8, "dense")
    assert valid_plan.valid
    assert not invalid_plan.valid
    assert (valid_plan.required_ranks, valid_plan.codes) == (16, ())
    assert (invalid_plan.required_ranks, invalid_plan.codes) == (16, ("ranks", "structure"))
    assert [issue.message for issue in invalid_plan.issues] == [
        "requires 16 ranks but only 8 are available",
        "EP = 2 > 1 requires an MoE model, but the model is 'dense'",
    ]


degree_maps = st.dictionaries(st.sampled_from(DIMENSIONS), st.integers(1, 8), max_size=6)


@given(degree_maps, st.integers(1, 4096), st.sampled_from(["dense", "moe"]))
def test_agrees_with_the_seed_oracle(degrees: dict[str, int], available: int, kind: str) -> None:
    ours = validate_parallel_composition(degrees, available, kind)
    theirs = seed_validate_parallel_composition(degrees, available, kind)
    assert ours.required_ranks == theirs["required_ranks"]
    assert ours.valid == theirs["valid"]
    assert ours.codes == _seed_codes(theirs["issues"])


def test_roles_issue_and_its_chinese_message() -> None:
    report = validate_parallel_composition({"Replica": 2, "DP": 4}, 8, "moe")
    assert report.codes == ("roles",)
    assert report.issues[0].message == (
        "Replica = 2 together with DP = 4: serving replicas and training data parallelism (DP) both copy the "
        "model, but DP synchronizes gradients every step and replicas never do; they are distinct execution roles"
    )
    coursekit.set_language("zh")
    over = validate_parallel_composition({"TP": 8, "EP": 2}, 4, "dense")
    assert [issue.message for issue in over.issues] == [
        "需要 16 个 rank，但只有 4 个可用",
        "EP = 2 > 1 需要混合专家 (MoE) 模型，而当前模型是稠密模型（model_kind = 'dense'）",
    ]


def test_spare_ranks_are_not_an_issue() -> None:
    assert validate_parallel_composition({"TP": 2}, 64, "dense").valid
    assert validate_parallel_composition({}, 1, "dense").required_ranks == 1


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (
            ({"XP": 2, "TP": 2}, 8, "dense"),
            ValueError,
            "unknown parallel dimension(s) ['XP']: the supported ones are DP, TP, PP, CP, EP, Replica.",
        ),
        (
            ({"tpp": 2}, 8, "dense"),
            ValueError,
            "unknown parallel dimension(s) ['tpp']: the supported ones are DP, TP, PP, CP, EP, Replica.",
        ),
        # The seed raises ValueError for a non-int degree; coursekit follows the TypeError/ValueError split.
        (({"TP": True}, 8, "dense"), TypeError, "degrees['TP'] = True: must be an integer (int), not bool."),
        (({"TP": 4.0}, 8, "dense"), TypeError, "degrees['TP'] = 4.0: must be an integer (int), not float."),
        (({"PP": 0}, 8, "dense"), ValueError, "degrees['PP'] = 0: must be >= 1."),
        (
            ([("TP", 2)], 8, "dense"),
            TypeError,
            "degrees = [('TP', 2)]: must be a mapping of dimension to degree such as {'TP': 4, 'DP': 2}, not list.",
        ),
        (({"TP": 2}, 0, "dense"), ValueError, "available_ranks = 0: must be >= 1."),
        (({"TP": 2}, 8, "sparse"), ValueError, "model_kind = 'sparse': must be one of 'dense', 'moe'."),
    ],
)
def test_composition_input_errors(args: tuple[Any, ...], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        validate_parallel_composition(*args)
    assert str(info.value) == message


def test_input_error_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        validate_parallel_composition({"XP": 2}, 8, "dense")
    assert str(info.value) == "未知的并行维度 ['XP']：可用的维度是 DP, TP, PP, CP, EP, Replica。"


# --------------------------------------------------------------------------- Megatron-Core's rule


def test_megatron_world_excludes_ep_and_ep_must_fold_into_dp() -> None:
    # NVIDIA/Megatron-LM megatron/core/parallel_state.py, initialize_model_parallel:
    # data_parallel_size = world_size // (tp * pp * cp); the expert generator needs
    # world_size % (etp * ep * pp) == 0 and uses expert_dp = world_size // (etp * ep * pp).
    assert megatron_world_size(tp=4, pp=2, dp=2, ep=2) == 16
    assert megatron_world_size(tp=1, pp=1, dp=8, ep=8) == 8
    assert megatron_world_size(tp=2, pp=1, dp=2, cp=2, ep=4) == 8  # EP folds into DP·CP
    layout = validate_megatron_composition(tp=2, pp=1, dp=2, cp=2, ep=4)
    assert (layout.world_size, layout.expert_tensor_parallel, layout.expert_data_parallel) == (8, 2, 1)
    etp1 = validate_megatron_composition(tp=4, pp=1, dp=2, ep=8, etp=1)  # ETP = 1 frees TP ranks for EP
    assert (etp1.valid, etp1.expert_data_parallel) == (True, 1)


@pytest.mark.parametrize(
    ("kwargs", "codes"),
    [
        ({"tp": 4, "pp": 2, "dp": 1, "ep": 2}, ("ep_fold",)),
        ({"tp": 2, "pp": 1, "dp": 3, "ep": 2}, ("ep_fold",)),
        ({"tp": 1, "pp": 1, "dp": 4, "ep": 2, "model_kind": "dense"}, ("structure",)),
        ({"tp": 4, "pp": 2, "dp": 2, "available_ranks": 16}, ()),
        ({"tp": 4, "pp": 2, "dp": 2, "available_ranks": 8}, ("ranks",)),
    ],
)
def test_validate_megatron_composition_codes(kwargs: dict[str, Any], codes: tuple[str, ...]) -> None:
    layout = validate_megatron_composition(**kwargs)
    assert layout.codes == codes
    assert layout.valid == (not codes)


def test_megatron_world_size_raises_the_fold_message() -> None:
    with pytest.raises(ValueError) as info:
        megatron_world_size(tp=4, pp=2, dp=1, ep=2)
    assert str(info.value) == (
        "in Megatron-Core expert parallelism (EP) reuses data-parallel ranks: the expert layers re-fold the same "
        "8 ranks as ETP·EP·EDP·PP, and ETP·EP·PP = 4·2·2 = 16 does not divide 8: lower EP, or raise DP or CP "
        "(with ETP = TP, EP must divide DP·CP)"
    )
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as zh_info:
        megatron_world_size(tp=4, pp=2, dp=1, ep=2)
    assert str(zh_info.value).startswith("在 Megatron-Core 中专家并行 (EP) 复用数据并行的 rank")


@pytest.mark.parametrize(
    ("degrees", "seed", "engine", "edp", "valid"),
    [
        ({"TP": 4, "PP": 2, "EP": 2}, 16, 8, None, False),
        ({"TP": 4, "PP": 2, "DP": 2, "EP": 2}, 32, 16, 1, True),
        ({"TP": 2, "DP": 8, "EP": 4}, 64, 16, 2, True),
        ({"TP": 4, "PP": 2, "DP": 2}, 16, 16, 2, True),
    ],
)
def test_compare_ep_rules(degrees: dict[str, int], seed: int, engine: int, edp: int | None, valid: bool) -> None:
    comparison = compare_ep_rules(degrees)
    assert (comparison.naive_required_ranks, comparison.engine_world_size) == (seed, engine)
    assert comparison.expert_data_parallel == edp
    assert comparison.engine_valid == valid
    assert comparison.difference_ranks == seed - engine
    assert comparison.seed_required_ranks == comparison.naive_required_ranks  # the former name still works


@given(st.integers(1, 8), st.integers(1, 4), st.integers(1, 8), st.integers(1, 4), st.integers(1, 8))
def test_engine_world_is_the_seed_count_divided_by_ep(tp: int, pp: int, dp: int, cp: int, ep: int) -> None:
    comparison = compare_ep_rules({"TP": tp, "PP": pp, "DP": dp, "CP": cp, "EP": ep})
    assert comparison.naive_required_ranks == comparison.engine_world_size * ep
    assert comparison.engine_valid == ((dp * cp) % ep == 0)  # with ETP = TP, EP must divide DP·CP


# --------------------------------------------------------------------------- rank groups


def test_reference_groups_from_the_megatron_docstring() -> None:
    # NVIDIA/Megatron-LM megatron/core/parallel_state.py, initialize_model_parallel docstring:
    # 16 GPUs, TP = 2, PP = 4 (so DP = 2).
    groups = rank_groups({"TP": 2, "PP": 4, "DP": 2})
    assert groups["TP"] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15]]
    assert groups["DP"] == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9, 11], [12, 14], [13, 15]]
    assert groups["PP"] == [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]


def test_reference_context_parallel_groups() -> None:
    # Same docstring, context_parallel_size: 8 GPUs, TP = 4, CP = 2 ->
    # CP groups [GPU0, GPU4], [GPU1, GPU5], [GPU2, GPU6], [GPU3, GPU7].
    assert rank_groups({"TP": 4, "CP": 2})["CP"] == [[0, 4], [1, 5], [2, 6], [3, 7]]


def test_reference_masked_orthogonal_groups() -> None:
    # generate_masked_orthogonal_rank_groups docstring: order tp-pp-dp, sizes 2-2-2
    # -> dp groups [[0, 4], [1, 5], [2, 6], [3, 7]]; and sizes [tp, dp, pp] = [2, 3, 4]
    # -> dp_group[0] = [0, 2, 4], dp_group[1] = [1, 3, 5], dp_group[7] = [19, 21, 23].
    assert rank_groups({"TP": 2, "PP": 2, "DP": 2}, order="tp-pp-dp")["DP"] == [[0, 4], [1, 5], [2, 6], [3, 7]]
    dp = rank_groups({"TP": 2, "DP": 3, "PP": 4}, order="tp-dp-pp")["DP"]
    assert (dp[0], dp[1], dp[7], len(dp)) == ([0, 2, 4], [1, 3, 5], [19, 21, 23], 8)


def test_ep_groups_reuse_data_parallel_ranks() -> None:
    groups = rank_groups({"TP": 2, "DP": 4, "EP": 2})
    assert sorted(r for g in groups["TP"] for r in g) == list(range(8))  # world = TP·DP = 8, not 16
    assert groups["EP"] == [[0, 2], [1, 3], [4, 6], [5, 7]]
    expert = expert_rank_groups({"TP": 2, "DP": 4, "EP": 2})
    assert expert["EDP"] == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert expert["ETP"] == groups["TP"]
    assert expert["PP"] == groups["PP"]


def test_expert_tensor_parallel_can_differ_from_tp() -> None:
    expert = expert_rank_groups({"TP": 2, "DP": 2, "EP": 4, "ETP": 1})
    assert expert["ETP"] == [[r] for r in range(4)]
    assert expert["EP"] == [[0, 1, 2, 3]]


@pytest.mark.parametrize(
    ("degrees", "order", "error", "message"),
    [
        ({"TP": 2}, "TP-TP-DP", ValueError, "order = 'TP-TP-DP': dimension TP appears more than once."),
        (
            {"TP": 2},
            "TP-XP",
            ValueError,
            "order = 'TP-XP': 'XP' is not a dimension; the dimensions are TP, CP, EP, DP, PP.",
        ),
        ({"TP": 2, "DP": 2}, "TP-PP", ValueError, "order = 'TP-PP': DP = 2 > 1 but DP is not in the order."),
        (
            {"TP": 2},
            5,
            TypeError,
            "order = 5: must be a string of dimension names joined by '-', such as 'TP-CP-EP-DP-PP', not int.",
        ),
        (
            {"TP": 2, "Replica": 2},
            DEFAULT_ORDER,
            ValueError,
            "Replica = 2: a serving replica is a serving-side role, not a rank-group dimension of a training engine; "
            "plan the parallelism inside one replica instead.",
        ),
        (
            {"TP": 2, "DP": 2, "PP": 2, "CP": 2},
            "tp-cp-pp-dp",
            ValueError,
            "order = 'tp-cp-pp-dp': with PP > 1 and PP not last, Megatron-Core requires the expert layers' "
            "data-parallel size EDP = 4 to equal the dense layers' DP = 2.",
        ),
        (
            {"TP": 4, "PP": 2, "EP": 2},
            DEFAULT_ORDER,
            ValueError,
            "in Megatron-Core expert parallelism (EP) reuses data-parallel ranks: the expert layers re-fold the same "
            "8 ranks as ETP·EP·EDP·PP, and ETP·EP·PP = 4·2·2 = 16 does not divide 8: lower EP, or raise DP or CP "
            "(with ETP = TP, EP must divide DP·CP)",
        ),
        (
            {"TP": 2, "EP": 2, "ETP": 1, "DP": 2, "PP": 2},
            "tp-pp-ep-dp",
            ValueError,
            "order = 'tp-pp-ep-dp': the expert layers' pipeline (PP) groups differ from the dense layers', "
            "which Megatron-Core refuses; put PP last.",
        ),
        ({"TP": 0}, DEFAULT_ORDER, ValueError, "degrees['TP'] = 0: must be >= 1."),
        ({"ETP": 2.5, "TP": 2}, DEFAULT_ORDER, TypeError, "degrees['ETP'] = 2.5: must be an integer (int), not float."),
    ],
)
def test_rank_groups_input_errors(degrees: dict[str, Any], order: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        rank_groups(degrees, order)
    assert str(info.value) == message


def test_order_is_case_insensitive_and_replica_one_is_harmless() -> None:
    assert rank_groups({"TP": 2, "DP": 2, "Replica": 1}, "tp-dp") == rank_groups({"TP": 2, "DP": 2}, "TP-DP-PP")


def _ordered_dims(draw: Any) -> list[str]:
    return list(draw(st.permutations(["TP", "CP", "DP", "PP"])))


@st.composite
def layouts(draw: Any) -> tuple[dict[str, int], str]:
    degrees = {dim: draw(st.sampled_from([1, 2, 3, 4])) for dim in ("TP", "CP", "DP", "PP")}
    dims = _ordered_dims(draw)
    if degrees["PP"] > 1 and degrees["CP"] > 1:
        dims = [d for d in dims if d != "PP"] + ["PP"]  # Megatron-Core: PP last when EDP would differ from DP
    return degrees, "-".join(dims)


@given(layouts())
def test_groups_partition_the_ranks_with_groups_of_the_degree(layout: tuple[dict[str, int], str]) -> None:
    degrees, order = layout
    groups = rank_groups(degrees, order)
    world = math.prod(degrees.values())
    for dim in ENGINE_DIMENSIONS:
        size = degrees.get(dim, 1)
        assert all(len(group) == size for group in groups[dim])
        assert sorted(rank for group in groups[dim] for rank in group) == list(range(world))
    # Two ranks share a TP group and a DP group only if they are the same rank (orthogonality).
    tp_of = {rank: i for i, group in enumerate(groups["TP"]) for rank in group}
    dp_of = {rank: i for i, group in enumerate(groups["DP"]) for rank in group}
    assert len({(tp_of[r], dp_of[r]) for r in range(world)}) == world


@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.sampled_from([1, 2, 3]), st.sampled_from([1, 2]))
def test_ep_groups_stay_inside_the_dp_cp_ranks_of_one_tp_and_pp_coordinate(tp: int, ep: int, dp: int, cp: int) -> None:
    assume((dp * cp) % ep == 0)
    pp = 2
    groups = rank_groups({"TP": tp, "EP": ep, "DP": dp, "CP": cp, "PP": pp})
    block = tp * cp * dp  # ranks per pipeline stage, PP being last
    assert sorted(rank for group in groups["EP"] for rank in group) == list(range(block * pp))
    for group in groups["EP"]:
        assert len(group) == ep
        assert len({rank % tp for rank in group}) == 1  # same tensor-parallel slot
        assert len({rank // block for rank in group}) == 1  # same pipeline stage


@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([8, 16]), st.integers(1, 4), st.integers(1, 3), st.integers(1, 2))
def test_tp_first_and_dividing_the_node_never_crosses_nodes(
    tp: int, gpus_per_node: int, dp: int, pp: int, cp: int
) -> None:
    assume(gpus_per_node % tp == 0)
    mapping = map_groups_to_nodes(rank_groups({"TP": tp, "DP": dp, "PP": pp, "CP": cp}), gpus_per_node)
    assert not mapping.crosses["TP"]
    assert mapping.crossing["TP"] == []


# --------------------------------------------------------------------------- mapping to nodes


def test_node_mapping_of_the_reference_layout() -> None:
    mapping = map_groups_to_nodes(rank_groups({"TP": 2, "PP": 4, "DP": 2}), gpus_per_node=8)
    assert mapping.node_of_rank == (0,) * 8 + (1,) * 8
    assert mapping.num_nodes == 2
    assert mapping.crosses == {"TP": False, "CP": False, "EP": False, "DP": False, "PP": True}
    assert mapping.crossing["PP"] == [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]


def test_map_groups_accepts_hand_written_groups() -> None:
    mapping = map_groups_to_nodes({"TP": [[0, 1], [2, 3]], "X": [[0, 3], [1, 2]]}, gpus_per_node=3)
    assert mapping.node_of_rank == (0, 0, 0, 1)
    assert mapping.crossing == {"TP": [[2, 3]], "X": [[0, 3]]}


@pytest.mark.parametrize(
    ("groups", "gpus_per_node", "error", "message"),
    [
        ({"TP": [[0, 1]]}, 0, ValueError, "gpus_per_node = 0: must be >= 1."),
        ({"TP": [[0, -1]]}, 8, ValueError, "rank in groups['TP'] = -1: must be >= 0."),
        ({"TP": [["0"]]}, 8, TypeError, "rank in groups['TP'] = '0': must be an integer (int), not str."),
        (
            {"TP": "0,1"},
            8,
            TypeError,
            "groups = {'TP': '0,1'}: must map each dimension to a list of rank lists, as rank_groups() returns.",
        ),
        (
            [[0, 1]],
            8,
            TypeError,
            "groups = [[0, 1]]: must map each dimension to a list of rank lists, as rank_groups() returns.",
        ),
    ],
)
def test_map_groups_input_errors(groups: Any, gpus_per_node: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        map_groups_to_nodes(groups, gpus_per_node)
    assert str(info.value) == message


def test_topology_report_flags_tp_across_nodes() -> None:
    good = topology_report({"TP": 8, "DP": 4}, gpus_per_node=8)
    assert good.ok and good.reasons == ()
    bad = topology_report({"TP": 4, "DP": 4}, gpus_per_node=8, order="DP-TP")
    assert not bad.ok
    assert [r.code for r in bad.reasons] == ["interconnect"]
    assert bad.reasons[0].message == (
        "4 of 4 TP groups span more than one node (e.g. [0, 4, 8, 12] on nodes 0, 1): TP's per-layer collectives "
        "would cross the slow inter-node link"
    )
    coursekit.set_language("zh")
    assert bad.reasons[0].message == (
        "TP 的 4 个组中有 4 个跨节点（例如 [0, 4, 8, 12] 位于节点 0、1）：TP 每层的集合通信会走慢速的跨节点链路"
    )


def test_tp_larger_than_a_node_crosses_even_when_first() -> None:
    report = topology_report({"TP": 16, "DP": 2}, gpus_per_node=8)
    assert report.mapping.crossing["TP"] == [list(range(16)), list(range(16, 32))]
    assert report.reasons[0].params["count"] == 2


def test_dimension_names_are_case_insensitive() -> None:
    # the planner spells degrees tp, pp, ep (parse_degrees); lesson 4 spells them TP, PP, EP: the same plan
    lower = validate_parallel_composition({"tp": 4, "pp": 2, "ep": 2}, 8, "dense")
    upper = validate_parallel_composition({"TP": 4, "PP": 2, "EP": 2}, 8, "dense")
    assert lower == upper and lower.codes == ("ranks", "structure") and lower.required_ranks == 16
    with pytest.raises(ValueError, match="TP is given more than once"):
        validate_parallel_composition({"TP": 2, "tp": 2}, 8, "dense")
