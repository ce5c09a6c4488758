"""experiments.one_run: one scenario run with its counters, time series, plot and pcap."""

import csv
import json

import pytest

from experiments.one_run import main
from netbase.pcap import read_pcap


def test_one_run_writes_counters_series_plot_and_a_readable_pcap(tmp_path, capsys):
    assert main(["--variant", "sack", "--swaps", "15", "--duration", "3", "--series", "0.1",
                 "--pcap", "--out", str(tmp_path)]) == 0
    row = json.loads((tmp_path / "run.json").read_text())
    assert row["variant"] == "sack" and row["throughput_Bps"] > 0 and row["swaps_done"] > 0
    with open(tmp_path / "series.csv") as f:
        series = list(csv.DictReader(f))
    assert len(series) >= 30 and float(series[-1]["time"]) >= 2.9
    assert 0 < int(series[-1]["delivered_bytes"]) <= row["delivered_bytes"]
    assert (tmp_path / "series.png").read_bytes()[:4] == b"\x89PNG"
    records = list(read_pcap(str(tmp_path / "bottleneck.pcap")))
    # both directions of R1-R2: data one way, ACKs the other; more than 3 s at 5 Mb/s can carry
    assert 1000 < len(records) and sum(len(r.data) for r in records) < 3 * 5e6 / 8 * 2.1
    assert "sack, 15 swaps every 1 s, seed 1" in capsys.readouterr().out


def test_a_pcap_at_the_sender_holds_every_retransmission_run_json_counts(tmp_path):
    # at R1's egress a segment R1 dropped never shows, so its retransmission looks new there;
    # at A's interface every transmission is in the file
    assert main(["--variant", "sack", "--swaps", "15", "--duration", "4", "--seed", "2",
                 "--pcap", "a", "--out", str(tmp_path)]) == 0
    row = json.loads((tmp_path / "run.json").read_text())
    assert not (tmp_path / "bottleneck.pcap").exists()
    from scapy.layers.inet import TCP
    from scapy.layers.l2 import Ether
    seen, again = set(), 0
    for r in read_pcap(str(tmp_path / "sender.pcap")):
        tcp = Ether(r.data)[TCP]
        if tcp.dport == 5001 and len(tcp.payload):
            again += tcp.seq in seen
            seen.add(tcp.seq)
    assert row["retransmits"] > 0 and again == row["retransmits"]
    # the time-sequence diagram drawn from that capture marks each of them
    from experiments.runner.timeseq import read_time_sequence
    assert len(read_time_sequence(tmp_path / "sender.pcap").resent) == row["retransmits"]
    assert (tmp_path / "timeseq.png").stat().st_size > 10_000


@pytest.mark.parametrize("argv,message", [
    (["--pcap", "r2"], "invalid choice: 'r2'"),
    (["--duration", "0"], "--duration must be > 0"),
    (["--variant", "vegas"], "invalid choice: 'vegas'"),
    (["--series", "-1"], "--series must be > 0"),
])
def test_one_run_rejects_bad_arguments_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err


def test_one_run_names_a_bad_spec_value(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--level", "2", "--injection", "recirc", "--out", str(tmp_path / "o")])
    assert exc.value.code == 2
    assert "--level must be a probability in [0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv,message", [
    (["--duration", "-1"], "--duration must be > 0 seconds"),
    (["--interval", "-2"], "--interval must be > 0 seconds"),
    (["--seed", "0"], "--seed must be >= 1"),
    (["--seed", "-3"], "--seed must be >= 1"),
    (["--swap-span", "-2"], "--swap-span must be >= 0"),
    (["--swaps", "-1"], "--swaps must be >= 0"),
    (["--k", "-1"], "--k must be >= 0"),
    (["--injection", "recirc", "--level", "1.5"], "--level must be a probability in [0, 1]"),
    (["--series", "5", "--duration", "2"],
     "--series 5: the step is longer than the 2 s run, so the series would hold only the "
     "sample at 0 s"),
])
def test_one_run_range_errors_are_usage_errors(argv, message, tmp_path, capsys):
    """Like a value argparse cannot read: the usage line, 'error:' naming the option, status 2,
    and nothing written."""
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.startswith("usage: python -m experiments.one_run")
    assert f"python -m experiments.one_run: error: {message}" in err
    assert not (tmp_path / "o").exists()


def test_one_run_takes_a_series_step_as_long_as_the_run(tmp_path):
    assert main(["--variant", "sack", "--duration", "1", "--series", "1",
                 "--out", str(tmp_path)]) == 0
    with open(tmp_path / "series.csv") as f:
        assert [float(r["time"]) for r in csv.DictReader(f)] == [0.0, 1.0]
    assert json.loads((tmp_path / "run.json").read_text())["code_version"]


def test_eifel_runs_with_timestamps_and_so_with_1448_byte_segments(tmp_path):
    # its policy needs the timestamp option (LossRecoveryPolicy.needs_timestamps): the scenario
    # negotiates it for eifel only, and 12 bytes of every segment then carry it (RFC 6691)
    for variant, mss in (("eifel", 1448), ("sack", 1460)):
        out = tmp_path / variant
        assert main(["--variant", variant, "--swaps", "15", "--duration", "2",
                     "--out", str(out)]) == 0
        assert json.loads((out / "run.json").read_text())["mss"] == mss


def test_reordering_by_delay_delays_data_on_the_bottleneck_and_costs_sack(tmp_path):
    # [RDTCP] §7's further work, [RRTCP]'s model: 5 % of data segments 25 ms late on the 5 Mb/s link
    # are overtaken by ~10 others each, far beyond SACK's 3 duplicate ACKs
    assert main(["--variant", "sack", "--injection", "delay", "--level", "0.05",
                 "--duration", "6", "--out", str(tmp_path)]) == 0
    row = json.loads((tmp_path / "run.json").read_text())
    assert row["injection"] == "delay" and row["swaps"] == 0
    assert row["delayed_segments"] > 20 and 15 < row["delay_extra_mean_ms"] < 35
    assert row["spurious_retransmits"] >= 5 and row["r1_drops_buffer"] == 0
    assert (tmp_path / "run.json").exists()


def test_one_run_with_a_legacy_router_says_which_router_dropped(tmp_path, capsys):
    # [RDTCP] §7: R1 a legacy router; drops at R1 (its queue) and at R2 (injected), and the stamps
    # B honoured are R2's alone
    assert main(["--variant", "rdtcp", "--legacy", "r1", "--r2-drop", "0.005", "--swaps", "0",
                 "--duration", "6", "--out", str(tmp_path)]) == 0
    row = json.loads((tmp_path / "run.json").read_text())
    assert (row["legacy"], row["r2_drop"]) == ("r1", 0.005)
    assert row["r1_drops_buffer"] > 0 and row["r1_epdn_events_record"] == 0
    assert 0 < row["rcv_epdn_stamps"] == row["r2_epdn_events_stamp"]
    out = capsys.readouterr().out
    assert "rdtcp k=3, 0 swaps every 1 s, legacy r1, R2 drops 0.005, seed 1:" in out
    assert (f"drops at R1 {row['r1_drops_buffer']} (legacy router), R2 "
            f"{row['r2_drops_random']}; B honoured {row['rcv_epdn_stamps']} EPDN stamps") in out


@pytest.mark.parametrize("argv,message", [
    (["--variant", "sack", "--legacy", "r1"],
     "--legacy changes only the EPDN stamps a receiver reads, and --variant sack reads none"),
    (["--legacy", "r3"], "argument --legacy: invalid choice: 'r3'"),
    (["--legacy", "none"], "argument --legacy: invalid choice: 'none'"),
    (["--r2-drop", "0"], "--r2-drop must be a probability in (0, 1]"),
    (["--r2-drop", "1.5"], "--r2-drop must be a probability in (0, 1]"),
])
def test_one_run_refuses_a_deployment_that_would_not_act(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--out", str(tmp_path / "o")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("error:") == 1
    assert not (tmp_path / "o").exists()


def test_a_profile_runs_both_ends_and_is_recorded(tmp_path):
    """--profile ns2: ns-2 2.35's agents' configuration over the scenario's (the row says so);
    without it the row's profile is empty and the run is the scenario's own."""
    assert main(["--variant", "sack", "--swaps", "0", "--duration", "3", "--profile", "ns2",
                 "--out", str(tmp_path / "ns2")]) == 0
    assert main(["--variant", "sack", "--swaps", "0", "--duration", "3",
                 "--out", str(tmp_path / "own")]) == 0
    ns2 = json.loads((tmp_path / "ns2" / "run.json").read_text())
    own = json.loads((tmp_path / "own" / "run.json").read_text())
    assert (ns2["profile"], own["profile"]) == ("ns2", "")
    # ns-2's two-packet initial window and its 10 ms timer: a different start, so other bytes
    assert ns2["delivered_bytes"] != own["delivered_bytes"]


def test_an_unknown_profile_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["--profile", "ns3"])
    assert "invalid choice: 'ns3'" in capsys.readouterr().err
