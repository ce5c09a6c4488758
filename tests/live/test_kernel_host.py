"""live.kernel_host (Linux's TCP as a live host) without a network: the kernel's counters and
TCP_INFO read and named as the engine names its statistics, a transfer over loopback in a
namespace of its own, the command line's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from live import kernel_host as kh

ROOT = Path(__file__).resolve().parents[2]


def test_counters_are_read_per_group_and_their_deltas_are_what_moved(tmp_path):
    snmp = tmp_path / "snmp"
    snmp.write_text("Ip: Forwarding DefaultTTL\nIp: 1 64\n"
                    "Tcp: RtoAlgorithm InSegs InCsumErrors\nTcp: 1 100 0\n")
    netstat = tmp_path / "netstat"
    netstat.write_text("TcpExt: TCPSackRecovery TCPTimeouts\nTcpExt: 2 5\n")
    files = ((str(snmp), "Tcp"), (str(netstat), "TcpExt"), (str(tmp_path / "none"), "X"))
    before = kh.read_counters(files)
    assert before == {"Tcp": {"RtoAlgorithm": 1, "InSegs": 100, "InCsumErrors": 0},
                      "TcpExt": {"TCPSackRecovery": 2, "TCPTimeouts": 5}}
    snmp.write_text("Tcp: RtoAlgorithm InSegs InCsumErrors\nTcp: 1 180 3\n")
    netstat.write_text("TcpExt: TCPSackRecovery TCPTimeouts\nTcpExt: 6 5\n")
    d = kh.counter_deltas(before, kh.read_counters(files))
    assert d == {"Tcp": {"InSegs": 80, "InCsumErrors": 3}, "TcpExt": {"TCPSackRecovery": 4}}


def test_the_kernels_figures_carry_the_engines_names():
    info = {"total_retrans": 9, "dsack_dups": 2, "reord_seen": 3, "reordering": 7,
            "segs_out": 500, "bytes_acked": 1001, "rcv_ooopack": 11, "segs_in": 400}
    deltas = {"TcpExt": {"TCPSackRecovery": 2, "TCPRenoRecovery": 1, "TCPFastRetrans": 8,
                         "TCPTimeouts": 1, "TCPDSACKUndo": 1, "TCPLossUndo": 1,
                         "TCPDSACKOldSent": 2, "TCPDSACKOfoSent": 1},
              "Tcp": {"InCsumErrors": 0, "InErrs": 0}}
    s = kh.sender_stats(info, deltas)
    assert (s["retransmits"], s["fast_retransmits"], s["timeouts"]) == (9, 3, 1)
    assert s["spurious_retransmits"] == 2 and s["undos"] == 2
    assert s["reord_seen"] == 3 and s["reordering"] == 7 and s["bytes_acked"] == 1000
    r = kh.receiver_stats(info, deltas)
    assert r == {"ooo_segments": 11, "segments_received": 400, "in_csum_errors": 0,
                 "in_errs": 0, "dsack_sent": 3}


def test_tcp_info_reads_a_live_socket():
    import socket
    with socket.create_server(("127.0.0.1", 0)) as srv:
        c = socket.create_connection(srv.getsockname())
        s, _ = srv.accept()
        c.sendall(b"x" * 100_000)
        assert len(s.recv(1 << 20)) > 0
        info = kh.tcp_info(c)
        c.close()
        s.close()
    assert info["state"] == 1                      # TCP_ESTABLISHED
    assert info["snd_mss"] > 0 and info["bytes_acked"] >= 1 and "reord_seen" in info


@pytest.mark.parametrize("argv, words", [
    (["--role", "sender", "--ip", "10.0.0.1", "--peer-ip", "10.0.0.2"], "--duration or --bytes"),
    (["--role", "sender", "--ip", "10.0.0.1", "--peer-ip", "10.0.0.2", "--bytes", "5",
      "--duration", "1"], "--duration or --bytes"),
    (["--role", "receiver", "--ip", "10.0.0.1", "--peer-ip", "10.0.0.2", "--bytes", "5"],
     "the sender's option"),
    (["--role", "receiver", "--ip", "10.0.0", "--peer-ip", "10.0.0.2"], "not an IPv4 address"),
    (["--role", "receiver", "--ip", "10.0.0.1", "--peer-ip", "10.0.0.2", "--mss", "20"],
     "--mss 20: out of range"),
    (["--role", "receiver", "--ip", "10.0.0.1", "--peer-ip", "10.0.0.2", "--out",
      "/nonexistent/x.json"], "does not exist"),
])
def test_bad_options_are_one_error_line_and_status_2(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        kh.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and words in err and "Traceback" not in err


def test_an_address_the_kernel_does_not_own_is_refused(capsys):
    assert kh.main(["--role", "receiver", "--ip", "192.0.2.77", "--peer-ip", "192.0.2.78"]) == 2
    assert "does not own 192.0.2.77" in capsys.readouterr().err


def test_a_transfer_between_two_kernel_hosts_is_checked_and_counted(netns_ok, tmp_path):
    """Both ends in one namespace of their own (its counters are theirs alone), on loopback."""
    ns = f"rlkh{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        base = ["ip", "netns", "exec", ns, sys.executable, "-m", "live.kernel_host",
                "--ip", "127.0.0.1", "--peer-ip", "127.0.0.1"]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        rx = subprocess.Popen([*base, "--role", "receiver", "--duration", "0.5",
                               "--out", str(tmp_path / "rx.json")], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, text=True)
        assert kh.READY_LINE in rx.stdout.readline()
        tx = subprocess.run([*base, "--role", "sender", "--bytes", "3000000",
                             "--out", str(tmp_path / "tx.json")], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
        assert tx.returncode == 0, tx.stdout + tx.stderr
        assert rx.wait(timeout=30) == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns])
    r = json.loads((tmp_path / "rx.json").read_text())
    s = json.loads((tmp_path / "tx.json").read_text())
    assert r["ok"] and r["pattern_ok"] and r["bytes"] == s["bytes"] == 3_000_000
    assert r["stats"]["in_csum_errors"] == 0 and r["counters"]["Tcp"]["InSegs"] > 0
    assert s["mss"] <= kh.DEFAULT_MSS and s["handshake_rtt_s"] < 0.1
    assert s["stats"]["segments_sent"] > 3_000_000 // kh.DEFAULT_MSS
    assert r["sysctl"]["net.ipv4.tcp_sack"] in ("0", "1")
