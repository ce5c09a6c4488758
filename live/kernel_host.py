"""Linux's own TCP as a live host: a bulk sender or a checking receiver on kernel sockets.

    python -m live.kernel_host --role receiver --ip 10.0.2.1 --peer-ip 10.0.1.1 --out b.json
    python -m live.kernel_host --role sender --ip 10.0.1.1 --peer-ip 10.0.2.1 --duration 20 \\
        --out a.json

The same applications as the engine's live host (``live.host``), on the TCP the people who use
such a lab deploy: the sender writes the ``hosts.apps`` byte pattern for ``--duration`` seconds
after its handshake (or ``--bytes``), keeping at most ``AHEAD`` bytes written but unsent
(``TCP_NOTSENT_LOWAT``, as ``live.host.WindowedSender`` keeps its engine's buffer), then shuts
its side down; the receiver checks every byte (``hosts.apps.PatternSink``) and closes when the
sender's FIN arrives. Each writes a JSON summary whose figures carry the engine's names
(``throughput_Bps``, ``bytes``, ``stats.retransmits``, ...), from what the kernel reports:

* ``TCP_INFO`` (tcp(7), struct tcp_info of linux/tcp.h): retransmissions, DSACKed duplicates,
  reordering seen, out-of-order packets received, RTT, cwnd, MSS;
* the namespace's SNMP counters (``/proc/net/snmp`` ``Tcp:``, ``/proc/net/netstat``
  ``TcpExt:``), read before and after the transfer: recoveries entered, timeouts, undos, and
  the receiver's ``InCsumErrors``, segments the kernel refused for a bad checksum. The hosts of
  a live run are alone in their namespaces, so these counters are the connection's own.

Both ends clamp their MSS (``TCP_MAXSEG``, default 1448) so a full segment with its timestamp
option plus the gateway's 12-byte EPDN stamp still fits a 1500-byte MTU, as the engine's
RD-TCP hosts leave the room (docs/architecture.md §4); a larger segment would make the
gateway defer every stamp (EV_DEFER_MTU). The kernel owns this host's address: the interface is configured by the
network (``live.network``), this program only opens sockets. Time is read here, as in
``live.host``: the monotonic clock, seconds since the program started.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import json
import math
import os
import selectors
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Callable

from netbase.cli import CommandLineParser
from hosts.apps import PatternSink, pattern_bytes

__all__ = ["READY_LINE", "main", "build_parser", "tcp_info", "read_counters", "counter_deltas",
           "sender_stats", "receiver_stats", "AHEAD", "DEFAULT_MSS", "KernelHostError"]

READY_LINE = "live.kernel_host: ready"
DEFAULT_RECEIVER_PORT = 5001          # as live.host
DEFAULT_SENDER_PORT = 40000
DEFAULT_MSS = 1448                    # 1500 - 20 - 20 - 12 (EPDN), see the module docstring
AHEAD = 64 * 1024                     # unsent bytes kept written (live.host.WindowedSender's)
_CHUNK = 1 << 16
TCP_NOTSENT_LOWAT = getattr(socket, "TCP_NOTSENT_LOWAT", 25)     # linux/tcp.h
TCP_INFO = getattr(socket, "TCP_INFO", 11)
_TCP_INFO_LEN = 512                   # more than any kernel's struct tcp_info

# struct tcp_info (include/uapi/linux/tcp.h): (name, struct format, byte offset). A field past
# the end of what this kernel returns is absent (older kernels have a shorter struct).
TCP_INFO_FIELDS = (
    ("state", "B", 0), ("ca_state", "B", 1), ("options", "B", 5),
    ("rto_us", "I", 8), ("snd_mss", "I", 16), ("rcv_mss", "I", 20),
    ("unacked", "I", 24), ("sacked", "I", 28), ("lost", "I", 32), ("retrans", "I", 36),
    ("pmtu", "I", 60), ("rtt_us", "I", 68), ("rttvar_us", "I", 72),
    ("snd_ssthresh", "I", 76), ("snd_cwnd", "I", 80), ("advmss", "I", 84),
    ("reordering", "I", 88), ("rcv_rtt_us", "I", 92), ("total_retrans", "I", 100),
    ("bytes_acked", "Q", 120), ("bytes_received", "Q", 128),
    ("segs_out", "I", 136), ("segs_in", "I", 140), ("notsent_bytes", "I", 144),
    ("min_rtt_us", "I", 148), ("data_segs_in", "I", 152), ("data_segs_out", "I", 156),
    ("delivered", "I", 192), ("bytes_sent", "Q", 200), ("bytes_retrans", "Q", 208),
    ("dsack_dups", "I", 216), ("reord_seen", "I", 220), ("rcv_ooopack", "I", 224),
    ("snd_wnd", "I", 228),
)
SNMP_FILES = (("/proc/net/snmp", "Tcp"), ("/proc/net/netstat", "TcpExt"))


class KernelHostError(Exception):
    """The host cannot run (address, port, a path); printed as ``error: ...``, status 2."""


# -- what the kernel reports ----------------------------------------------------------------------
def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The socket's struct tcp_info, the fields of TCP_INFO_FIELDS this kernel fills."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, _TCP_INFO_LEN)
    out = {}
    for name, fmt, offset in TCP_INFO_FIELDS:
        size = struct.calcsize("=" + fmt)
        if offset + size <= len(raw):
            out[name] = struct.unpack_from("=" + fmt, raw, offset)[0]
    return out


def read_counters(files=SNMP_FILES) -> dict[str, dict[str, int]]:
    """{"Tcp": {...}, "TcpExt": {...}}: this network namespace's counters (each file has a line
    of names and a line of values per group)."""
    out: dict[str, dict[str, int]] = {}
    for path, group in files:
        try:
            lines = Path(path).read_text().splitlines()
        except OSError:
            continue
        rows = [line.split() for line in lines if line.startswith(group + ":")]
        for names, values in zip(rows[0::2], rows[1::2]):
            out[group] = {n: int(v) for n, v in zip(names[1:], values[1:])}
    return out


def counter_deltas(before: dict, after: dict) -> dict[str, dict[str, int]]:
    """What each counter counted between two ``read_counters`` (the ones that moved)."""
    return {group: {n: v - before.get(group, {}).get(n, 0) for n, v in values.items()
                    if v != before.get(group, {}).get(n, 0)}
            for group, values in after.items()}


def sender_stats(info: dict[str, int], deltas: dict[str, dict[str, int]]) -> dict[str, int]:
    """The engine's statistics names (``hosts.tcp`` ``conn.stats``) from a sender's TCP_INFO
    and counters: a fast retransmit is a recovery entered (the engine counts one per episode),
    a spurious retransmission one the receiver reported as a duplicate (DSACK, RFC 2883)."""
    ext = deltas.get("TcpExt", {})
    return {
        "retransmits": info.get("total_retrans", 0),
        "fast_retransmits": ext.get("TCPSackRecovery", 0) + ext.get("TCPRenoRecovery", 0),
        "fast_retransmitted_segments": ext.get("TCPFastRetrans", 0),
        "timeouts": ext.get("TCPTimeouts", 0),
        "spurious_retransmits": info.get("dsack_dups", 0),
        "spurious_timeouts": ext.get("TCPSpuriousRTOs", 0),
        "loss_probes": ext.get("TCPLossProbes", 0),
        "undos": sum(ext.get(k, 0) for k in ("TCPFullUndo", "TCPPartialUndo", "TCPDSACKUndo",
                                              "TCPLossUndo")),
        "reord_seen": info.get("reord_seen", 0),
        "reordering": info.get("reordering", 0),
        "segments_sent": info.get("segs_out", 0),
        "bytes_acked": max(0, info.get("bytes_acked", 0) - 1),     # the SYN is acked too
    }


def receiver_stats(info: dict[str, int], deltas: dict[str, dict[str, int]]) -> dict[str, int]:
    tcp = deltas.get("Tcp", {})
    return {"ooo_segments": info.get("rcv_ooopack", 0),
            "segments_received": info.get("segs_in", 0),
            "in_csum_errors": tcp.get("InCsumErrors", 0), "in_errs": tcp.get("InErrs", 0),
            "dsack_sent": sum(deltas.get("TcpExt", {}).get(k, 0)
                              for k in ("TCPDSACKOldSent", "TCPDSACKOfoSent"))}


def read_sysctls(names=("tcp_sack", "tcp_dsack", "tcp_recovery", "tcp_reordering",
                        "tcp_max_reordering", "tcp_congestion_control", "tcp_timestamps",
                        "tcp_early_retrans", "tcp_frto")) -> dict[str, str]:
    """This namespace's TCP settings the run depends on, as the kernel has them."""
    out = {}
    for name in names:
        try:
            out[f"net.ipv4.{name}"] = Path(f"/proc/sys/net/ipv4/{name}").read_text().strip()
        except OSError:
            pass
    return out


# -- the two ends ---------------------------------------------------------------------------------
class Clock:
    """Seconds since the host started, from the monotonic clock (read here only)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self.t0 = clock()

    def __call__(self) -> float:
        return self._clock() - self.t0


def _socket(args) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((args.ip, args.port))
    except OSError as e:
        s.close()
        if e.errno == errno.EADDRNOTAVAIL:
            raise KernelHostError(f"the kernel does not own {args.ip} in this network namespace "
                                  "(configure it on the interface first)") from None
        raise KernelHostError(f"cannot bind {args.ip}:{args.port}: {e.strerror or e}") from None
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, args.mss)
    return s


class _Stop:
    """Set by SIGINT/SIGTERM: the loops end at their next turn."""

    def __init__(self):
        self.flag = False
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on)

    def _on(self, *_):
        self.flag = True


def run_sender(args, now: Clock, stop: _Stop) -> dict:
    s = _socket(args)
    s.setsockopt(socket.IPPROTO_TCP, TCP_NOTSENT_LOWAT, AHEAD)
    print(f"{READY_LINE} as {args.ip} (sender)", flush=True)
    out = {"opened_at": now(), "established_at": None, "closed_at": None, "error": None}
    queued = 0
    try:
        s.settimeout(args.timeout)
        try:
            s.connect((args.peer_ip, args.peer_port))
        except OSError as e:
            out["error"] = f"connect: {e.strerror or e}"
            return out
        out["established_at"] = now()
        s.setblocking(False)
        deadline = out["established_at"] + args.timeout
        end = None if args.duration is None else out["established_at"] + args.duration
        queued = _write_pattern(s, args, now, stop, end, deadline)
        s.shutdown(socket.SHUT_WR)          # our FIN follows the data written
        out["finished"] = _wait_for_fin(s, now, stop, deadline)
        out["closed_at"] = now()
        out["tcp_info"] = tcp_info(s)
    finally:
        s.close()
        out["bytes_queued"] = queued
    return out


def _write_pattern(s: socket.socket, args, now: Clock, stop: _Stop, end: float | None,
                   deadline: float) -> int:
    """Write the pattern until the window ends (or ``--bytes`` are written); the bytes written.
    The socket is writable only while fewer than AHEAD bytes are unsent (TCP_NOTSENT_LOWAT)."""
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_WRITE)
    queued = 0
    try:
        while not stop.flag:
            t = now()
            limit = deadline if end is None else min(end, deadline)
            if t >= limit or (args.bytes is not None and queued >= args.bytes):
                break
            if not sel.select(limit - t):
                continue
            n = _CHUNK if args.bytes is None else min(_CHUNK, args.bytes - queued)
            try:
                queued += s.send(pattern_bytes(queued, n, args.seed))
            except BlockingIOError:
                continue
    finally:
        sel.close()
    return queued


def _wait_for_fin(s: socket.socket, now: Clock, stop: _Stop, deadline: float) -> bool:
    """True when the peer's FIN arrived: it reads to the end of our data before it closes."""
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ)
    try:
        while not stop.flag and now() < deadline:
            if sel.select(deadline - now()):
                try:
                    if s.recv(4096) == b"":
                        return True
                except BlockingIOError:
                    continue
                except OSError:
                    return False
        return False
    finally:
        sel.close()


def run_receiver(args, now: Clock, stop: _Stop) -> dict:
    ls = _socket(args)
    ls.listen(1)
    print(f"{READY_LINE} as {args.ip} (receiver)", flush=True)
    sink = PatternSink(seed=args.seed)
    out = {"opened_at": None, "established_at": None, "closed_at": None, "error": None,
           "bytes_in_window": None, "last_progress_at": None, "finished": False}
    try:
        conn = _accept(ls, args, now, stop)
    finally:
        ls.close()
    if conn is None:
        out["error"] = "no connection from the peer"
        out["sink"] = sink
        return out
    out["established_at"] = now()
    try:
        _read_to_the_end(conn, args, now, stop, sink, out)
        out["tcp_info"] = tcp_info(conn)
    finally:
        conn.close()
        out["closed_at"] = now()
    out["sink"] = sink
    return out


def _accept(ls: socket.socket, args, now: Clock, stop: _Stop) -> socket.socket | None:
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ)
    try:
        while not stop.flag and now() < args.timeout:
            if sel.select(min(0.5, args.timeout - now())):
                try:
                    conn, addr = ls.accept()
                except BlockingIOError:
                    continue
                if addr[:2] == (args.peer_ip, args.peer_port):
                    return conn
                conn.close()                 # not the peer this run is about
        return None
    finally:
        sel.close()


def _read_to_the_end(conn: socket.socket, args, now: Clock, stop: _Stop, sink: PatternSink,
                     out: dict) -> None:
    """Read and check until the sender's FIN; the bytes read when the window ended are taken
    before anything read at or after its end, as live.host takes them."""
    conn.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    end = None if args.duration is None else out["established_at"] + args.duration
    deadline = out["established_at"] + args.timeout
    try:
        while not stop.flag and now() < deadline:
            wait = deadline - now()
            if end is not None and out["bytes_in_window"] is None:
                wait = max(0.0, min(wait, end - now()))
            ready = sel.select(wait)
            t = now()
            if end is not None and out["bytes_in_window"] is None and t >= end:
                out["bytes_in_window"] = sink.bytes
            if not ready:
                continue
            try:
                data = conn.recv(1 << 18)
            except BlockingIOError:
                continue
            except OSError as e:
                out["error"] = f"receive: {e.strerror or e}"
                return
            if not data:
                out["finished"] = True
                return
            sink.check(data)
            out["last_progress_at"] = t
    finally:
        sel.close()


# -- summary --------------------------------------------------------------------------------------
def summarize(args, result: dict, before: dict, after: dict, wall: float) -> dict:
    """The summary ``live.host`` writes, in the engine's names, plus the kernel's own figures."""
    info = result.get("tcp_info", {})
    deltas = counter_deltas(before, after)
    est, opened = result.get("established_at"), result.get("opened_at")
    doc = {"role": args.role, "ip": args.ip, "peer": f"{args.peer_ip}:{args.peer_port}",
           "local_port": args.port, "variant": "linux", "implementation": "linux",
           "error": result.get("error"), "finished": bool(result.get("finished")),
           "wall_s": round(wall, 3), "opened_at": opened, "established_at": est,
           "closed_at": result.get("closed_at"), "window_s": args.duration,
           "mss": info.get("snd_mss"), "mss_clamp": args.mss,
           "srtt_s": None if "rtt_us" not in info else info["rtt_us"] / 1e6,
           "cwnd": info.get("snd_cwnd"), "ssthresh": info.get("snd_ssthresh"),
           "tcp_info": info, "counters": deltas, "sysctl": read_sysctls()}
    if args.role == "sender":
        stats = sender_stats(info, deltas)
        doc["handshake_rtt_s"] = (None if est is None or opened is None
                                  else round(est - opened, 6))
        doc["bytes_queued"] = result.get("bytes_queued", 0)
        doc["bytes"] = min(doc["bytes_queued"], stats["bytes_acked"])
        doc["ok"] = (doc["error"] is None and doc["finished"]
                     and doc["bytes"] == doc["bytes_queued"] > 0)
    else:
        sink = result["sink"]
        stats = receiver_stats(info, deltas)
        doc.update(handshake_rtt_s=None, bytes=sink.bytes, pattern_ok=sink.ok,
                   first_error=sink.first_error, bytes_in_window=result.get("bytes_in_window"),
                   last_progress_at=result.get("last_progress_at"))
        doc["throughput_Bps"] = round(_throughput(doc), 3)
        doc["ok"] = doc["error"] is None and doc["finished"] and sink.ok and sink.bytes > 0
    doc["stats"] = stats
    return doc


def _throughput(doc: dict) -> float:
    """Bytes/s over the window when it ended, else from the handshake to the last byte."""
    if doc["bytes_in_window"] is not None and doc["window_s"]:
        return doc["bytes_in_window"] / doc["window_s"]
    est, last = doc["established_at"], doc["last_progress_at"]
    if est is None or last is None or last <= est:
        return 0.0
    return doc["bytes"] / (last - est)


# -- command line ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    ap = CommandLineParser(
        prog="python -m live.kernel_host",
        description="Linux's TCP as a live host: a bulk sender or a checking receiver "
                    "on kernel sockets, with the kernel's figures (TCP_INFO, SNMP "
                    "counters) in the engine's names.",
        epilog=f"Prints '{READY_LINE}' once its socket is bound. Exit status 0 when "
               "the transfer completed (receiving: every byte right), 1 otherwise, 2 "
               "for bad options or an address the kernel does not own.")
    ap.add_argument("--role", choices=("sender", "receiver"), required=True)
    ap.add_argument("--ip", required=True, help="this host's IPv4 address (the kernel's)")
    ap.add_argument("--peer-ip", required=True, metavar="IP", help="the other host's address")
    ap.add_argument("--port", type=int, default=None,
                    help=f"local TCP port (default: {DEFAULT_SENDER_PORT} sending, "
                         f"{DEFAULT_RECEIVER_PORT} receiving)")
    ap.add_argument("--peer-port", type=int, default=None,
                    help="the other host's TCP port (default: the other role's default)")
    ap.add_argument("--mss", type=int, default=DEFAULT_MSS,
                    help=f"TCP_MAXSEG on the socket (default {DEFAULT_MSS}: room for EPDN)")
    ap.add_argument("--duration", type=float, default=None, metavar="S",
                    help="sender: write for S seconds after the handshake, then close; "
                         "receiver: measure throughput over S seconds after the handshake")
    ap.add_argument("--bytes", type=int, default=None, metavar="N",
                    help="sender: send N bytes, then close")
    ap.add_argument("--seed", type=int, default=1, help="seed of the byte pattern (both ends)")
    ap.add_argument("--timeout", type=float, default=120.0, metavar="S",
                    help="give up after S seconds (default 120)")
    ap.add_argument("--out", metavar="JSON", help="write the summary here")
    return ap


def _check_args(ap: argparse.ArgumentParser, args) -> None:
    for name in ("ip", "peer_ip"):
        try:
            ipaddress.IPv4Address(getattr(args, name))
        except ValueError:
            ap.error(f"--{name.replace('_', '-')} {getattr(args, name)!r} is not an IPv4 address")
    sender = args.role == "sender"
    args.port = args.port or (DEFAULT_SENDER_PORT if sender else DEFAULT_RECEIVER_PORT)
    args.peer_port = args.peer_port or (DEFAULT_RECEIVER_PORT if sender else DEFAULT_SENDER_PORT)
    checks = (("port", args.port, 1 <= args.port <= 65535),
              ("peer-port", args.peer_port, 1 <= args.peer_port <= 65535),
              ("duration", args.duration, args.duration is None or 0 < args.duration < math.inf),
              ("bytes", args.bytes, args.bytes is None or args.bytes > 0),
              ("timeout", args.timeout, 0 < args.timeout < math.inf),
              ("mss", args.mss, 88 <= args.mss <= 65495))        # TCP_MIN_MSS (net/tcp.h)
    for name, value, ok in checks:
        if not ok:
            ap.error(f"--{name} {value}: out of range")
    if sender and (args.duration is None) == (args.bytes is None):
        ap.error("give the sender --duration or --bytes (one of them)")
    if not sender and args.bytes is not None:
        ap.error("--bytes is the sender's option (the receiver reads until the FIN)")
    if args.out and not Path(args.out).resolve().parent.is_dir():
        ap.error(f"--out {args.out}: the directory does not exist")


def _write_json(path: str, doc: dict) -> None:
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, p)


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    _check_args(ap, args)
    now, stop = Clock(), _Stop()
    before = read_counters()
    try:
        result = (run_sender if args.role == "sender" else run_receiver)(args, now, stop)
    except KernelHostError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 2
    doc = summarize(args, result, before, read_counters(), now())
    doc["interrupted"] = stop.flag and not doc["finished"]
    if args.out:
        _write_json(args.out, doc)
    print(json.dumps({k: doc.get(k) for k in ("role", "ok", "bytes", "throughput_Bps",
                                               "handshake_rtt_s", "error")}), flush=True)
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
