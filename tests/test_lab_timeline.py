

# ---------------------------------------------------------------------------
# The recording shipped with the course
# ---------------------------------------------------------------------------


def test_the_recording_round_trips_and_is_complete() -> None:
    from coursekit.lab.recorded import load_recorded

    recording = load_recorded()
    again = load_recorded(json.loads(json.dumps(recording.to_json_dict())))
    assert again.to_json_dict() == recording.to_json_dict()
    assert sorted(recording.scaling) == [1, 2, 4]
    assert recording.memory.matches  # every recorded byte is still explained by today's ledger
    for strategy in ("ddp", "fsdp", "tp"):
        for scenario in ("baseline", "slow_rank", "input_delay"):
            result = recording.timeline.result(strategy, scenario)
            assert result.ranks == 2 and len(result.sample) == 2
            for steps in result.steps:
                for b in steps:
                    assert b.parts_s == pytest.approx(b.step_s, abs=SUM_TOLERANCE_S)
    assert recording.timeline.result("ddp", "no_overlap").skipped is None


def test_the_lanes_figure_draws_one_panel_per_result() -> None:
    from coursekit.lab.plot import plot_step_lanes
    from coursekit.lab.recorded import load_recorded

    timeline = load_recorded().timeline
    fig = plot_step_lanes([timeline.result(s) for s in ("ddp", "fsdp", "tp")])
    assert len(fig.axes) == 3
    assert [label.get_text() for label in fig.axes[0].get_yticklabels()] == ["rank 0", "rank 1"]
    assert all(ax.collections for ax in fig.axes)  # bars were drawn
