"""Offline pcap replay through the embedded target."""

from pathlib import Path


from netbase.pcap import PcapWriter, read_pcap
from toolchain.switch.replay import main

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"
IN = bytes.fromhex("0000000000AA00000000000108004500002D00070000400665BF0A0000010A00010504D20050000003E8"
                   "00000000501020002DEE000068656C6C6F")


def test_replay_writes_one_pcap_per_egress_port_with_departure_times(tmp_path, capsys):
    with PcapWriter(tmp_path / "in.pcap") as w:
        w.write(1.0, IN)
        w.write(1.5, IN)
    cmds = tmp_path / "c.txt"
    cmds.write_text("table_add ipv4_lpm forward 10.0.1.0/24 => 1 0xb1\nset_queue_rate 1 1\n")
    assert main([str(KIT / "lpm_forward.json"), str(tmp_path / "in.pcap"), "-c", str(cmds),
                 "-o", str(tmp_path / "out")]) == 0
    recs = list(read_pcap(str(tmp_path / "out" / "port1.pcap")))
    assert [round(r.time, 6) for r in recs] == [1.0, 2.0]         # 1 packet/s on port 1
    assert recs[0].data[:6] == bytes.fromhex("0000000000b1")
    assert "port 1: 2 packets" in capsys.readouterr().out


def test_replay_reports_a_bad_program(tmp_path, capsys):
    assert main([str(tmp_path / "none.json"), str(tmp_path / "in.pcap")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_a_truncated_input_leaves_no_partial_output(tmp_path, capsys):
    with PcapWriter(tmp_path / "in.pcap") as w:
        for t in (1.0, 1.1, 1.2):
            w.write(t, IN)
    data = (tmp_path / "in.pcap").read_bytes()
    (tmp_path / "cut.pcap").write_bytes(data[:-10])          # the third record cut short
    out = tmp_path / "out"
    out.mkdir()
    (out / "port1.pcap").write_bytes(b"an earlier run's file")
    cmds = tmp_path / "c.txt"
    cmds.write_text("table_add ipv4_lpm forward 10.0.1.0/24 => 1 0xb1\n")
    assert main([str(KIT / "lpm_forward.json"), str(tmp_path / "cut.pcap"), "-c", str(cmds),
                 "-o", str(out)]) == 1
    assert "truncated" in capsys.readouterr().err
    # the two packets read before the cut were forwarded, but nothing was written for them
    assert sorted(p.name for p in out.iterdir()) == ["port1.pcap"]
    assert (out / "port1.pcap").read_bytes() == b"an earlier run's file"
    assert main([str(KIT / "lpm_forward.json"), str(tmp_path / "in.pcap"), "-c", str(cmds),
                 "-o", str(out)]) == 0
    assert len(list(read_pcap(str(out / "port1.pcap")))) == 3
    assert sorted(p.name for p in out.iterdir()) == ["port1.pcap"]
