"""Switch ports on Linux interfaces through AF_PACKET raw sockets (packet(7)).

Each port is one ``SOCK_RAW`` socket bound to one interface for every protocol (ETH_P_ALL), in
promiscuous mode, as behavioral-model's BMI port manager opens them through libpcap. A packet
socket opened for a protocol receives that protocol from every interface of its namespace until
it is bound (packet(7)): another switch's or a live run's frames would slip in. So it is opened
for no protocol (0: it receives nothing), bound to its interface with ETH_P_ALL, and every frame
it reads is checked to have come in on that interface (``foreign`` counts any that did not).
Frames
the switch itself transmits come back to a packet socket as ``PACKET_OUTGOING`` copies; they
are dropped (``PACKET_IGNORE_OUTGOING`` where the kernel has it, and by ``sll_pkttype``
always), otherwise every transmitted frame would re-enter the pipeline.

The kernel strips a VLAN tag the NIC (or veth) accelerated into the skb; libpcap puts it back
from ``PACKET_AUXDATA`` and so do we, so a P4 parser sees the frame as it was on the wire.

``DelayLine`` is a port's propagation delay (``--port-delay``), the live runs' substitute for
netem, which this project's kernels may lack (experiments/LIVE.md).
"""

from __future__ import annotations

import errno
import fcntl
import logging
import socket
import struct
from collections import deque

__all__ = ["PortError", "RawPort", "SocketPairPort", "parse_interface_spec", "DelayLine",
           "parse_port_delay", "interface_index"]

log = logging.getLogger(__name__)

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_AUXDATA = 8
PACKET_IGNORE_OUTGOING = 23          # Linux >= 4.20
PACKET_OUTGOING = 4                  # sll_pkttype of a frame this host sent
TP_STATUS_CSUMNOTREADY = 0x8         # checksum left to the (offloading) NIC: partial in the frame
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
_AUXDATA = struct.Struct("=IIIHHHH")  # struct tpacket_auxdata
_MAX_FRAME = 65536 + 4 + 14          # largest veth MTU plus a reinserted tag and the MAC header
_RCVBUF = 4 << 20
SO_RCVBUFFORCE = 33
MAX_PORT = 510                        # 9-bit v1model ports; 511 is simple_switch's drop port
SIOCGIFINDEX = 0x8933                 # linux/sockios.h: interface name -> index
_IFREQ = struct.Struct("16si20x")     # struct ifreq: ifr_name, then ifr_ifindex in a 24-byte union


class PortError(Exception):
    """A port cannot be opened or a ``-i`` spec is malformed; the message names the interface."""


def interface_index(ifname: str) -> int:
    """The kernel's index of interface ``ifname`` (OSError with ENODEV when there is none).

    ``socket.if_nametoindex`` where the interpreter has it; PyPy 3.9's ``socket`` does not, so
    then the SIOCGIFINDEX ioctl (netdevice(7)) it is built on. Not ``/sys/class/net/<if>/ifindex``:
    sysfs shows the namespace it was mounted in, which a process entering another namespace
    without remounting it (Mininet's hosts) does not share, and a same-named interface there
    would give another interface's index; the ioctl always answers for the caller's namespace.
    """
    lookup = getattr(socket, "if_nametoindex", None)
    return lookup(ifname) if lookup is not None else _ioctl_index(ifname)


def _ioctl_index(ifname: str) -> int:
    name = ifname.encode()
    if not name or len(name) >= 16:
        raise OSError(errno.ENODEV, f"no interface {ifname!r}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        reply = fcntl.ioctl(s.fileno(), SIOCGIFINDEX, _IFREQ.pack(name, 0))
    return _IFREQ.unpack(reply)[1]


def parse_interface_spec(spec: str) -> tuple[int, str]:
    """``<port-num>@<interface-name>`` (simple_switch's ``-i``) -> (port, name)."""
    num, sep, name = spec.partition("@")
    if not sep or not name:
        raise PortError(f"bad interface {spec!r}: expected <port-num>@<interface-name>, e.g. 1@veth1")
    try:
        port = int(num, 10)
    except ValueError:
        raise PortError(f"bad interface {spec!r}: port number {num!r} is not an integer") from None
    if not 0 <= port <= MAX_PORT:
        raise PortError(f"bad interface {spec!r}: port number must be 0..{MAX_PORT} "
                        "(9-bit v1model ports; 511 is the drop port)")
    if len(name) >= 16 or "/" in name or name.strip() != name:
        raise PortError(f"bad interface {spec!r}: {name!r} is not a valid Linux interface name")
    return port, name


class RawPort:
    """One switch port: ``recv_frames()`` drains what arrived, ``send(frame)`` transmits."""

    def __init__(self, port: int, ifname: str):
        self.port = port
        self.ifname = ifname
        self.rx_packets = self.tx_packets = self.tx_errors = 0
        self.foreign = 0                  # frames of another interface, dropped
        self.ifindex = 0
        self._warned_csum = False
        self._buf = bytearray(_MAX_FRAME)
        self.sock = self._open()

    def _open(self) -> socket.socket:
        try:
            # protocol 0: nothing is received until bind() names the interface (and ETH_P_ALL)
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        except PermissionError:
            raise PortError(f"cannot open a raw socket for interface {self.ifname!r}: "
                            "AF_PACKET needs root or CAP_NET_RAW") from None
        try:
            s.bind((self.ifname, ETH_P_ALL))
            self.ifindex = ifindex = interface_index(self.ifname)
            # struct packet_mreq { int ifindex; u16 type; u16 alen; u8 address[8]; }
            mreq = struct.pack("=iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
            s.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        except OSError as e:
            s.close()
            if e.errno in (errno.ENODEV, errno.ENXIO) or "no interface" in str(e).lower():
                raise PortError(f"interface {self.ifname!r} (port {self.port}) does not exist") from None
            raise PortError(f"cannot bind interface {self.ifname!r} (port {self.port}): {e.strerror or e}") from None
        try:
            s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
        except OSError:
            pass                      # older kernel: the sll_pkttype check below does it
        for opt in (SO_RCVBUFFORCE, socket.SO_RCVBUF):
            try:
                s.setsockopt(socket.SOL_SOCKET, opt, _RCVBUF)
                break
            except OSError:
                continue
        s.setblocking(False)
        return s

    def fileno(self) -> int:
        return self.sock.fileno()

    def recv_frames(self, limit: int = 256) -> list[bytes]:
        """Frames received since the last call (at most ``limit``, so no port starves others)."""
        out = []
        buf = self._buf
        anc = socket.CMSG_SPACE(_AUXDATA.size)
        for _ in range(limit):
            try:
                n, ancdata, flags, addr = self.sock.recvmsg_into([buf], anc)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:          # e.g. ENETDOWN when the interface went down
                log.warning("port %d (%s): receive failed: %s", self.port, self.ifname, e.strerror or e)
                break
            if addr[2] == PACKET_OUTGOING:
                continue
            if addr[0] != self.ifname and not self._renamed(addr[0]):
                self._foreign(addr[0])
                continue
            if flags & socket.MSG_TRUNC:     # larger than any MTU we accept: never cut a frame
                log.warning("port %d (%s): frame longer than %d bytes dropped", self.port,
                            self.ifname, len(buf))
                continue
            frame = bytes(buf[:n])
            for level, kind, data in ancdata:
                if level == SOL_PACKET and kind == PACKET_AUXDATA and len(data) >= _AUXDATA.size:
                    frame = self._apply_auxdata(frame, _AUXDATA.unpack_from(data))
            out.append(frame)
        self.rx_packets += len(out)
        return out

    def _renamed(self, name: str) -> bool:
        """Whether ``name`` is this port's interface under a new name (ip link set name)."""
        lookup = getattr(socket, "if_indextoname", None)
        try:
            current = lookup(self.ifindex) if lookup is not None and self.ifindex else None
        except OSError:
            return False
        if current == name:
            log.info("port %d: interface %s is now %s", self.port, self.ifname, name)
            self.ifname = name
            return True
        return False

    def _foreign(self, name: str) -> None:
        if not self.foreign:
            log.warning("port %d (%s): a frame of interface %s dropped (the socket is bound to "
                        "%s only; counted in foreign)", self.port, self.ifname, name, self.ifname)
        self.foreign += 1

    def _apply_auxdata(self, frame: bytes, aux: tuple) -> bytes:
        status, _len, _snap, _mac, _net, tci, tpid = aux
        if status & TP_STATUS_CSUMNOTREADY and not self._warned_csum:
            self._warned_csum = True
            log.warning("port %d (%s): frames arrive with checksums left to offloading; "
                        "disable it on the sending side (ethtool -K <peer> tx off)", self.port, self.ifname)
        if status & TP_STATUS_VLAN_VALID and len(frame) >= 12:
            if not status & TP_STATUS_VLAN_TPID_VALID:
                tpid = 0x8100
            frame = frame[:12] + struct.pack("!HH", tpid, tci) + frame[12:]
        return frame

    def send(self, frame: bytes) -> bool:
        try:
            self.sock.send(frame)
        except OSError as e:              # too short/long for the link, interface down, no buffers
            self.tx_errors += 1
            log.warning("port %d (%s): %d-byte frame not sent: %s", self.port, self.ifname,
                        len(frame), e.strerror or e)
            return False
        self.tx_packets += 1
        return True

    def close(self) -> None:
        self.sock.close()


class SocketPairPort:
    """RawPort's interface over one end of a datagram socket pair, for tests and in-process
    wiring: the switch loop (or a live host) uses ``sock``, the other end is ``peer`` (None when
    an existing socket is given). ``received()`` drains what arrived at ``peer``."""

    def __init__(self, port: int = 0, *, sock: socket.socket | None = None,
                 ifname: str | None = None):
        self.peer: socket.socket | None = None
        if sock is None:
            sock, self.peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            self.peer.setblocking(False)
        self.port, self.ifname = port, ifname or f"pair{port}"
        self.sock = sock
        sock.setblocking(False)
        self.rx_packets = self.tx_packets = self.tx_errors = 0

    def recv_frames(self, limit: int = 256) -> list[bytes]:
        out = []
        while len(out) < limit:
            try:
                out.append(self.sock.recv(65536))
            except BlockingIOError:
                break
        self.rx_packets += len(out)
        return out

    def send(self, frame: bytes) -> bool:
        self.sock.send(frame)
        self.tx_packets += 1
        return True

    def received(self) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(self.peer.recv(65536))
            except BlockingIOError:
                return out

    def close(self) -> None:
        self.sock.close()
        if self.peer is not None:
            self.peer.close()


class DelayLine:
    """A link's propagation delay (and optionally its serialisation) in front of a port.

    Ours, not simple_switch's (``rdtcp-switch --port-delay``; ``live.host`` uses it for a host's
    own link): a frame pushed at ``t`` leaves the line ``delay`` seconds after its last bit left
    the sender, i.e. after ``t`` or, with ``rate_bps``, after the frames ahead of it have been
    serialised at that rate (a host has no traffic manager to do it, as ``sim.links.Nic``).
    First in, first out: a frame is never released before one pushed ahead of it, as a wire
    delivers in order. Time is passed in; nothing here reads a clock.
    """

    __slots__ = ("delay", "rate_bps", "_free_at", "_q", "max_backlog")

    def __init__(self, delay: float, rate_bps: float | None = None):
        if not (isinstance(delay, (int, float)) and 0.0 <= delay < float("inf")):
            raise ValueError(f"delay must be a finite number of seconds >= 0, got {delay!r}")
        if rate_bps is not None and not (isinstance(rate_bps, (int, float)) and
                                         0.0 < rate_bps < float("inf")):
            raise ValueError(f"rate must be a positive number of bits/s, got {rate_bps!r}")
        self.delay = float(delay)
        self.rate_bps = rate_bps
        self._free_at = float("-inf")       # when the last pushed frame is serialised
        self._q: deque = deque()            # (due, frame), in push order
        self.max_backlog = 0                # most frames ever held at once

    def push(self, frame: bytes, t: float) -> float:
        """Take ``frame`` at time ``t``; returns its departure (last bit sent, before the delay)."""
        departure = t
        if self.rate_bps is not None:
            start = t if t > self._free_at else self._free_at
            departure = start + 8.0 * len(frame) / self.rate_bps
            self._free_at = departure
        self._q.append((departure + self.delay, frame))
        if len(self._q) > self.max_backlog:
            self.max_backlog = len(self._q)
        return departure

    def next_due(self) -> float | None:
        """When the first frame held is due, or None when the line is empty."""
        return self._q[0][0] if self._q else None

    def pop_due(self, now: float) -> list[bytes]:
        """The frames due by ``now``, in order (FIFO: a later frame waits behind an earlier one)."""
        q = self._q
        out = []
        while q and q[0][0] <= now:
            out.append(q.popleft()[1])
        return out

    def __len__(self) -> int:
        return len(self._q)


def parse_port_delay(spec: str) -> tuple[int, float]:
    """``<port-num>:<milliseconds>`` (``--port-delay``) -> (port, seconds)."""
    num, sep, ms = spec.partition(":")
    try:
        port = int(num, 10)
        value = float(ms) if sep else None
    except ValueError:
        value = port = None
    if port is None or value is None:
        raise PortError(f"bad --port-delay {spec!r}: expected <port-num>:<milliseconds>, e.g. 2:50")
    if not 0 <= port <= MAX_PORT:
        raise PortError(f"bad --port-delay {spec!r}: port number must be 0..{MAX_PORT}")
    if not 0.0 <= value <= 3_600_000.0:      # also refuses nan and inf
        raise PortError(f"bad --port-delay {spec!r}: the delay must be 0..3600000 ms")
    return port, value / 1000.0
