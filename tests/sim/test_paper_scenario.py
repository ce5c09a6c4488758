"""End to end: the real TCP engines over the real P4 gateway on the paper's dumbbell."""

import pytest

from experiments.runner.spec import RunSpec
from experiments.studies.rdtcp.scenario import BOTTLENECK_BPS, run_paper
from sim.program import gateway_json
from toolchain.switch import load_program


@pytest.fixture(scope="module")
def program():
    return load_program(gateway_json())


def test_single_flow_without_loss_reaches_95pct_of_bottleneck(program):
    # A window of 80 segments exceeds the path's bandwidth-delay product (~43 packets) but
    # fits it plus R1's 65-packet buffer: the bottleneck stays busy and nothing is dropped.
    spec = RunSpec(variant="sack", duration=60.0, max_cwnd_segments=80)
    result = run_paper(spec, program)
    assert result.stats["r1_drops_buffer"] == 0 and result.stats["retransmits"] == 0
    assert result.throughput_Bps >= 0.95 * BOTTLENECK_BPS / 8


def test_paper_window_fills_buffer_and_gateway_records_drops(program):
    # With the paper's 500-segment window, slow start overflows the 65-packet buffer: the P4
    # program drops, records the ranges and stamps them (EPDN) for RD-TCP's receiver.
    result = run_paper(RunSpec(variant="rdtcp", duration=20.0), program)
    assert result.stats["r1_drops_buffer"] > 0
    assert result.stats["r1_epdn_events_record"] == result.stats["r1_drops_buffer"]
    assert result.stats["r1_epdn_events_stamp"] > 0


def test_same_seed_gives_identical_runs_and_another_seed_differs(program):
    def row(seed):
        r = run_paper(RunSpec(variant="sack", swaps=15, interval=1.0, seed=seed,
                              duration=8.0, sample_step=0.5), program)
        return {k: v for k, v in r.row().items() if k != "wall_s"}, r.series

    first, second, other = row(7), row(7), row(8)
    assert first == second
    assert first[0]["throughput_Bps"] > 0 and first[0]["swaps_done"] > 0
    assert other[0] != first[0]


def test_time_series_has_every_column_per_step(program, tmp_path):
    from sim.trace import SERIES_COLUMNS
    r = run_paper(RunSpec(variant="rdtcp", duration=3.0, sample_step=0.5), program)
    assert len(r.series) == 7 and all(len(row) == len(SERIES_COLUMNS) for row in r.series)
    times = [row[0] for row in r.series]
    assert times == pytest.approx([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    assert r.series[-1][SERIES_COLUMNS.index("delivered_bytes")] == r.delivered_bytes
