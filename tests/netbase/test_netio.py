import random
import shutil
import subprocess

import pytest

from netbase.checksum import internet_checksum, ones_complement_sum
from netbase.pcap import PcapFormatError, PcapWriter, read_pcap


def _reference_sum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\x00"
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | data[i + 1]
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def test_checksum_rfc1071_example():
    # RFC 1071 §3 worked example: words 0001 f203 f4f5 f6f7 sum to ddf2
    assert ones_complement_sum(bytes.fromhex("0001f203f4f5f6f7")) == 0xDDF2
    assert internet_checksum(bytes.fromhex("0001f203f4f5f6f7")) == 0x220D


@pytest.mark.parametrize("n", [0, 1, 2, 3, 19, 20, 21, 40, 1499, 1500, 9001])
def test_checksum_matches_wordwise_sum(n):
    rng = random.Random(n)
    for _ in range(20):
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert ones_complement_sum(data) == _reference_sum(data)
    assert ones_complement_sum(b"\xff" * n) == _reference_sum(b"\xff" * n)


def test_checksum_of_buffer_with_its_checksum_is_zero():
    data = bytearray(bytes(range(40)))
    data[10:12] = b"\x00\x00"
    data[10:12] = internet_checksum(bytes(data)).to_bytes(2, "big")
    assert internet_checksum(bytes(data)) == 0


def test_pcap_roundtrip(tmp_path):
    path = tmp_path / "x.pcap"
    pkts = [(0.0, b"\x01" * 60), (1.000001, b"\x02" * 1514), (2.5, b"")]
    with PcapWriter(str(path)) as w:
        for t, d in pkts:
            w.write(t, d)
    got = list(read_pcap(str(path)))
    assert [(round(r.time, 6), r.data) for r in got] == pkts


def test_pcap_rejects_garbage(tmp_path):
    p = tmp_path / "bad.pcap"
    p.write_bytes(b"not a pcap file at all, no sir")
    with pytest.raises(PcapFormatError, match="not a libpcap file"):
        list(read_pcap(str(p)))


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_pcap_is_readable_by_tshark(tmp_path):
    path = tmp_path / "eth.pcap"
    frame = bytes.fromhex("ffffffffffff0000000000010806") + bytes(46)
    with PcapWriter(str(path)) as w:
        w.write(1.5, frame)
    out = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-e", "eth.type"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0x0806"
