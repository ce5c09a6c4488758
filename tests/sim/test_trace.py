"""Flow sampler: one row per flow and step, goodput as delivered bytes per step."""

import csv
from types import SimpleNamespace

import pytest

from sim.events import EventQueue
from sim.trace import SERIES_COLUMNS, FlowSampler


def _flow():
    sender = SimpleNamespace(cwnd=14600, ssthresh=65535, dupthresh=3,
                             stats={"retransmits": 2, "spurious_retransmits": 1})
    return SimpleNamespace(name="a->b", sender=sender, delivered_bytes=0)


def test_sampler_records_state_and_goodput_each_step(tmp_path):
    q, flow = EventQueue(), _flow()
    sampler = FlowSampler(q, [flow], step=0.5)
    q.schedule(0.25, lambda _: setattr(flow, "delivered_bytes", 1000))
    q.schedule(0.75, lambda _: setattr(flow, "delivered_bytes", 1500))
    q.run(until=1.0)
    goodput = [row[SERIES_COLUMNS.index("goodput_Bps")] for row in sampler.rows]
    assert [row[0] for row in sampler.rows] == [0.0, 0.5, 1.0]
    assert goodput == [0.0, 2000.0, 1000.0]
    assert sampler.rows[0][2:6] == (14600, 65535, 3, 2)
    path = tmp_path / "series.csv"
    sampler.write_csv(str(path))
    rows = list(csv.reader(open(path)))
    assert rows[0] == list(SERIES_COLUMNS) and len(rows) == 4


def test_sampler_rejects_non_positive_step():
    with pytest.raises(ValueError, match="step must be > 0"):
        FlowSampler(EventQueue(), [], step=0)
