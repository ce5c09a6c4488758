"""The switch process end to end: rdtcp-switch on veth pairs in a network namespace, configured
with the real simple_switch_CLI over Thrift, frames sent and caught on the other ends, pcap
files checked.

Expected frames are those of the kit's lpm_forward.stf, i.e. what real simple_switch emitted.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time

import pytest

from netbase.pcap import read_pcap
from toolchain.switch import SimpleSwitch

from .conftest import KIT, LPM_JSON, assert_paced, wait_for_records

COMMANDS = """\
# the entries of lpm_forward.stf, in simple_switch_CLI syntax
table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1 00:00:00:00:00:b1
table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.0.0/16 => 2 00:00:00:00:00:b2
table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.2.9/32 => 3 00:00:00:00:00:b3
"""


def stf_vectors() -> list[tuple[int, bytes, int | None, bytes | None]]:
    """(ingress port, frame, egress port or None, expected frame or None) from the kit's STF."""
    out = []
    for line in (KIT / "lpm_forward.stf").read_text().splitlines():
        words = line.split()
        if words[:1] == ["packet"]:
            out.append((int(words[1]), bytes.fromhex(words[2]), None, None))
        elif words[:1] == ["expect"]:
            port, frame, _, _ = out[-1]
            out[-1] = (port, frame, int(words[1]), bytes.fromhex(words[2].rstrip("$")))
    return out


def configure(bed, sw, tmp_path):
    r = bed.cli(sw.port, COMMANDS)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("Entry has been added with handle") == 3


def pcap_frames(path):
    return [rec.data for rec in read_pcap(str(path))]


def test_forwarding_matches_simple_switch_and_pcaps_record_every_port(bed, tmp_path):
    pcaps = tmp_path / "pcaps"
    pcaps.mkdir()
    sw = bed.start_switch("--pcap", str(pcaps))
    assert [ln for ln in sw.stdout_lines if ln.startswith("Adding interface")] == \
        [f"Adding interface sw{i} as port {i}\n" for i in range(4)]
    configure(bed, sw, tmp_path)
    hosts = bed.open_host_ports()
    vectors = stf_vectors()
    assert [v[2] for v in vectors] == [1, 3, None, 0]
    sent = []
    for in_port, frame, out_port, expected in vectors:
        hosts[in_port].send(frame)
        sent.append((in_port, frame))
        if out_port is not None:
            assert hosts[out_port].recv() == expected
    # the miss (third vector) left nothing behind: the first vector again is the next frame
    # on port 1, and after shutdown the pcaps hold exactly the frames of each direction
    first_in, first_frame, _, first_expected = vectors[0]
    hosts[first_in].send(first_frame)
    sent.append((first_in, first_frame))
    assert hosts[1].recv() == first_expected
    t_stop = time.time()
    rc, out, err = sw.stop(signal.SIGTERM)
    assert rc == 0, err
    assert "Traceback" not in err
    for port in range(4):
        assert pcap_frames(pcaps / f"sw{port}_in.pcap") == [f for p, f in sent if p == port]
    assert pcap_frames(pcaps / "sw1_out.pcap") == [vectors[0][3], vectors[0][3]]
    assert pcap_frames(pcaps / "sw3_out.pcap") == [vectors[1][3]]
    assert pcap_frames(pcaps / "sw0_out.pcap") == [vectors[3][3]]
    assert pcap_frames(pcaps / "sw2_out.pcap") == []
    ins = list(read_pcap(str(pcaps / "sw0_in.pcap")))
    outs = list(read_pcap(str(pcaps / "sw1_out.pcap")))
    assert 0 <= outs[0].time - ins[0].time < 5       # wall clock, out after in
    assert abs(ins[0].time - t_stop) < 60


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_pcap_files_are_read_by_tshark(bed, tmp_path):
    sw = bed.start_switch("--pcap", str(tmp_path))
    configure(bed, sw, tmp_path)
    hosts = bed.open_host_ports()
    in_port, frame, out_port, expected = stf_vectors()[0]
    hosts[in_port].send(frame)
    assert hosts[out_port].recv() == expected
    assert sw.stop()[0] == 0
    r = subprocess.run(["tshark", "-r", str(tmp_path / "sw1_out.pcap"), "-T", "fields",
                        "-e", "ip.dst", "-e", "ip.ttl"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["10.0.1.5", "63"]


def test_simple_switch_cli_session_answers_as_the_library_cli(bed):
    sw = bed.start_switch()
    lines = ["table_add nope x 1 => 2",
             "table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1",
             "table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1 00:00:00:00:00:b1",
             "table_dump KitIngress.ipv4_lpm", "show_tables"]
    r = bed.cli(sw.port, stdin="\n".join(lines) + "\n")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    lib = SimpleSwitch.from_json(LPM_JSON)   # the same commands in library mode: same text
    expected = []
    for line in lines:
        try:
            expected.append(lib.cli(line))
        except Exception as e:               # CliError: its message is what the CLI prints
            expected.append(e.message)
    chunks = r.stdout.split("RuntimeCmd: ")
    assert chunks[0].endswith("Control utility for runtime P4 table manipulation\n")
    assert [c.strip("\n") for c in chunks[1:len(lines) + 1]] == expected
    assert "Error: Invalid table name (nope)" in r.stdout


def test_queue_rate_set_through_cli_spaces_departures(bed, tmp_path):
    sw = bed.start_switch("--pcap", str(tmp_path))
    configure(bed, sw, tmp_path)
    r = bed.cli(sw.port, "set_queue_rate 20 1\n")
    assert r.returncode == 0, r.stdout
    hosts = bed.open_host_ports()
    in_port, frame, out_port, expected = stf_vectors()[0]
    for _ in range(3):
        hosts[in_port].send(frame)
    got = [hosts[out_port].recv() for _ in range(3)]
    assert got == [expected] * 3
    assert sw.stop(signal.SIGINT)[0] == 0
    # 20 packets/s: 50 ms apart, measured on the switch's own arrival and departure records
    # (load on the machine moves arrivals, not the spacing)
    assert_paced(tmp_path / f"sw{in_port}_in.pcap", tmp_path / f"sw{out_port}_out.pcap", 20)


def test_vlan_tag_reinserted_frame_forwarded_unchanged(bed, tmp_path):
    """A non-IPv4 frame goes out of port 0 unchanged. The kernel hands a received 802.1Q tag
    over as metadata (PACKET_AUXDATA): the switch must put it back before its parser runs. The
    test's own receiving socket loses the tag the same way, so the tagged bytes are checked in
    the switch's pcaps (written from the frames the switch saw and sent)."""
    sw = bed.start_switch("--pcap", str(tmp_path))
    hosts = bed.open_host_ports()
    frame = bytes.fromhex("0000000000aa000000000001" "8100" "2064" "86dd") + bytes(48)
    hosts[2].send(frame)
    untagged = frame[:12] + frame[16:]
    assert hosts[0].recv() in (frame, untagged)
    assert sw.stop()[0] == 0
    assert pcap_frames(tmp_path / "sw2_in.pcap") == [frame]
    assert pcap_frames(tmp_path / "sw0_out.pcap") == [frame]


def test_thrift_port_serves_several_clients_and_survives_garbage(bed):
    sw = bed.start_switch()
    # a client in the namespace that sends bytes that are not Thrift, and one that stops
    # half-way through a call: each loses its own connection only
    script = ("import socket\n"
              f"a=socket.create_connection(('127.0.0.1',{sw.port}))\n"
              "a.sendall(b'\\xff\\xfe garbage\\nshow_tables\\n')\n"
              "assert a.recv(4096)==b''\n"
              f"b=socket.create_connection(('127.0.0.1',{sw.port}))\n"
              "b.sendall(b'\\x80\\x01\\x00\\x01\\x00\\x00')\n"
              "b.close()\n")
    r = subprocess.run(bed.exec_argv(sys.executable, "-c", script), capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    r = bed.cli(sw.port, "show_tables\n")
    assert "KitIngress.ipv4_lpm" in r.stdout, r.stdout + r.stderr
    assert sw.proc.poll() is None
    code, _, err = sw.stop()
    assert code == 0 and "not a Thrift call" in err


def test_out_of_file_descriptors_the_switch_keeps_forwarding(bed, tmp_path):
    """Under RLIMIT_NOFILE 24, idle Thrift clients take every descriptor: the switch stops
    watching its listener for a while instead of spinning on it, logs that once, and forwards
    every frame meanwhile."""
    if shutil.which("prlimit") is None:
        pytest.skip("prlimit (util-linux) is not installed")
    sw = bed.start_switch("--pcap", str(tmp_path), wrap=("prlimit", "--nofile=24:24", "--"))
    configure(bed, sw, tmp_path)
    hold = ("import socket, sys, time\n"
            "cs = [socket.socket() for _ in range(40)]\n"
            "for c in cs:\n"
            "    c.setblocking(False)\n"
            f"    c.connect_ex(('127.0.0.1', {sw.port}))\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n")
    holder = subprocess.Popen(bed.exec_argv(sys.executable, "-c", hold), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        time.sleep(1.0)
        before = _cpu_seconds(sw.proc.pid)
        hosts = bed.open_host_ports()
        in_port, frame, out_port, expected = stf_vectors()[0]
        for _ in range(50):
            hosts[in_port].send(frame)
            assert hosts[out_port].recv() == expected
            time.sleep(0.04)
        assert _cpu_seconds(sw.proc.pid) - before < 1.5
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    code, _, err = sw.stop()
    assert code == 0
    assert err.count("cannot accept connections: Too many open files") == 1, err[:2000]
    assert len(err) < 2000, err[:2000]


def _cpu_seconds(pid: int) -> float:
    """User and system time of process ``pid`` (the switch under ``ip netns exec``, which
    execs it: the same process)."""
    import os
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_two_switches_on_separate_links_never_see_each_others_frames(bed, tmp_path):
    """Switch A on sw0/sw1 and switch B on sw2/sw3 in one namespace, frames sent into both
    all along (A's link flooded by a process of its own), B started again and again meanwhile:
    each switch's input pcaps hold its own link's frames only. A socket opened for ETH_P_ALL
    reads every interface until it is bound: a switch's test once received a live run's ACK
    that way."""
    mark_a, mark_b = b"SWITCH-A-LINK", b"SWITCH-B-LINK"
    (tmp_path / "a").mkdir()
    a = bed.start_switch("--pcap", str(tmp_path / "a"), ports=[0, 1])
    hosts = bed.open_host_ports()
    head = bytes.fromhex("020000000001020000000002" "88b5")
    flood = subprocess.Popen(
        [sys.executable, "-c",
         "import socket, sys\n"
         "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)\n"
         f"s.bind(({bed.host_if(0)!r}, 0))\n"
         f"f = {head + mark_a + bytes(40)!r}\n"
         "n = 0\n"
         "while True:\n"
         "    try:\n"
         "        s.send(f)\n"
         "    except OSError:\n"
         "        pass\n"], stdin=subprocess.DEVNULL)
    starts = 4
    try:
        time.sleep(0.5)
        for i in range(starts):
            (tmp_path / f"b{i}").mkdir()
            b = bed.start_switch("--pcap", str(tmp_path / f"b{i}"), ports=[2, 3])
            for _ in range(20):
                hosts[2].send(head + mark_b + bytes(40))
            time.sleep(0.2)
            assert b.stop()[0] == 0
    finally:
        flood.kill()
        flood.wait(timeout=10)
    assert a.stop()[0] == 0
    a_in = pcap_frames(tmp_path / "a" / "sw0_in.pcap") + pcap_frames(tmp_path / "a" / "sw1_in.pcap")
    assert len(a_in) > 1000 and all(mark_a in f for f in a_in)
    seen_b = 0
    for i in range(starts):
        b_in = (pcap_frames(tmp_path / f"b{i}" / "sw2_in.pcap")
                + pcap_frames(tmp_path / f"b{i}" / "sw3_in.pcap"))
        assert all(mark_b in f for f in b_in), (i, sum(mark_a in f for f in b_in))
        seen_b += len(b_in)
    assert seen_b >= starts * 10          # B's own frames it did read


def test_burst_faster_than_the_loop_is_not_dropped_by_the_default_queue_depth(bed, tmp_path):
    """200 back-to-back frames with unlimited queue rate: every one is forwarded (the loop
    dequeues between arrivals, as simple_switch's egress threads do) and recorded."""
    sw = bed.start_switch("--pcap", str(tmp_path))
    configure(bed, sw, tmp_path)
    hosts = bed.open_host_ports()
    in_port, frame, out_port, expected = stf_vectors()[0]
    for _ in range(200):
        hosts[in_port].send(frame)
    got = 0
    while got < 200 and hosts[out_port].recv(timeout=3.0) == expected:
        got += 1
    assert got == 200
    assert sw.stop()[0] == 0
    assert len(pcap_frames(tmp_path / "sw0_in.pcap")) == 200
    assert len(pcap_frames(tmp_path / "sw1_out.pcap")) == 200


def test_log_console_dumps_packet_data(bed, tmp_path):
    sw = bed.start_switch("--log-console", "-L", "info", "--dump-packet-data", "16")
    configure(bed, sw, tmp_path)
    hosts = bed.open_host_ports()
    in_port, frame, out_port, expected = stf_vectors()[0]
    hosts[in_port].send(frame)
    assert hosts[out_port].recv() == expected
    rc, out, err = sw.stop()
    assert rc == 0, err
    assert f"packet received on port 0, {len(frame)} bytes: {frame[:16].hex()}" in out
    assert f"packet sent on port 1, {len(expected)} bytes: {expected[:16].hex()}" in out


def test_ports_added_and_removed_at_run_time_through_the_device_manager(bed, tmp_path):
    """simple_switch_CLI's port_add / port_remove / show_ports (bm_dev_mgr_*): a port added at
    run time is bound and forwarded to at once; a removed one is gone. Before each change
    the test waits for the switch's record of the frame sent before it (its _in pcap), so a
    frame the switch reads late cannot meet the port change the test made next."""
    sw = bed.start_switch("--pcap", str(tmp_path), ports=[0])
    assert bed.cli(sw.port, COMMANDS).stdout.count("Entry has been added") == 3
    hosts = bed.open_host_ports()
    in_port, frame, out_port, expected = stf_vectors()[0]        # port 0 -> port 1
    received = tmp_path / f"sw{in_port}_in.pcap"
    hosts[in_port].send(frame)
    wait_for_records(received, 1)
    assert hosts[out_port].recv(timeout=0.5) is None             # port 1 has no interface yet
    out = bed.cli(sw.port, "port_add sw1 1\nshow_ports\nport_add rdtcp-nosuch 2\n").stdout
    chunks = out.split("RuntimeCmd: ")
    assert [line.split() for line in chunks[2].splitlines()[2:]] == [["0", "sw0", "UP"],
                                                                      ["1", "sw1", "UP"]]
    assert chunks[3].strip() == "Invalid device manager operation (ERROR)"
    hosts[in_port].send(frame)
    assert hosts[out_port].recv() == expected
    out = bed.cli(sw.port, "port_remove 1\nshow_ports\nport_remove 1\n").stdout.split("RuntimeCmd: ")
    assert len(out[2].strip().splitlines()) == 3 and "sw1" not in out[2]
    assert out[3].strip() == "Invalid device manager operation (ERROR)"
    hosts[in_port].send(frame)
    wait_for_records(received, 3)
    assert hosts[out_port].recv(timeout=0.5) is None
    assert sw.stop()[0] == 0
