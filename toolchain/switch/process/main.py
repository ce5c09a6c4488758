"""``rdtcp-switch``: the embedded target as a switch process on Linux interfaces.

    rdtcp-switch [options] prog.json          (also: python -m toolchain.switch.process.main)
    rdtcp-switch -i 1@veth1 -i 2@veth2 --thrift-port 9090 --pcap pcaps/ prog.json

The command line is simple_switch's (behavioral-model ``src/bm_sim/options_parse.cpp``), with
the same option names. ``--thrift-port`` is where BMv2's Thrift runtime API is served on
127.0.0.1 (toolchain.switch.thrift_server): simple_switch_CLI and any Thrift client attach.

Start-up prints, like simple_switch, one ``Adding interface <name> as port <n>`` line per port
and then, once every port is bound and the Thrift port listens, the readiness line

    Control server was started on 127.0.0.1:<port>

(``READY_LINE_PREFIX``; with ``--thrift-port 0`` the system picks the port and this line tells
it). simple_switch prints no such line (tools wait for its Thrift port to accept a
connection, which works here too); live runs read the port from it. With logging on,
simple_switch's own log lines "Starting Thrift server on port N" and "Thrift server was
started" follow. Failures before that (missing interface, JSON the target refuses, port in
use, the Thrift packages missing) print
``error: ...`` on stderr and exit with status 1. SIGINT/SIGTERM stop the switch cleanly
(pcap files flushed and closed, exit status 0).

The wall clock is read here only: a frame received at monotonic time m enters the library as
``sw.receive(port, frame, now=m - t0)``; pcap records carry wall-clock times as libpcap's do.

The interpreter: ``rdtcp-switch`` runs the switch under PyPy (``pypy3`` on PATH) by default,
as the sweeps' workers run the simulator: the same code, several times the packet rate
(bench/bench_switch_process.py). ``--python auto`` (the command's default) re-executes the
process under ``pypy3`` with the repository and the Thrift modules on its path, and stays on
this interpreter when there is no ``pypy3``, when this is PyPy already, or with
``--grpc-server-addr`` (P4Runtime needs grpcio, a CPython extension); ``--python self`` stays
here, ``--python EXE`` runs under EXE; ``$RDTCP_SWITCH_PYTHON`` gives the default.
``python -m toolchain.switch.process.main`` runs under the interpreter named (default
``self``). After the readiness line one line names the interpreter and why it was chosen.

``--port-delay P:MS`` (ours; simple_switch has no such option) holds every frame leaving port
P for MS milliseconds after the traffic manager's departure, first in first out: a link's
propagation delay for live runs on kernels without netem (experiments/LIVE.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import selectors
import shutil
import signal
import sys
import time
from pathlib import Path

from netbase.cli import CommandLineParser
from netbase.packet_socket import DelayLine, PortError, RawPort, parse_interface_spec, parse_port_delay
from netbase.pcap import PcapWriter
from netbase.wakeup import Wakeup

from ..bm_sim.json_loader import DEFAULT_MAX_STATE, load_program, parse_state_size
from ..errors import CliError, LoadError
from ..simple_switch.switch import SimpleSwitch
from ..thrift_server import ThriftUnavailable, make_processor, module_dirs, thrift_modules
from ..thrift_server.server import DEFAULT_IDLE_TIMEOUT, ThriftServer, ThriftServerError
from ..p4runtime_server import process as p4rt_process
from .host import ProcessHost

__all__ = ["main", "SwitchProcess", "READY_LINE_PREFIX", "build_parser"]

log = logging.getLogger("rdtcp-switch")

READY_LINE_PREFIX = "Control server was started on "
INTERPRETER_LINE_PREFIX = "Running on "
PYTHON_ENV = "RDTCP_SWITCH_PYTHON"     # --python's default: auto, self, or an interpreter
_CHOSEN_ENV = "RDTCP_SWITCH_PYTHON_CHOSEN"   # why the parent chose this interpreter
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_THRIFT_PORT = 9090            # simple_switch's default
DEFAULT_MAX_PORT_COUNT = 512          # bm::OptionsParser::default_max_port_count
LOG_LEVELS = {"trace": 5, "debug": logging.DEBUG, "info": logging.INFO,
              "warn": logging.WARNING, "error": logging.ERROR, "off": logging.CRITICAL + 10}
# simple_switch options this process does not implement: refused by name rather than ignored
UNSUPPORTED = {"--use-files": 1, "--packet-in": 1, "--nanolog": 1, "--notifications-addr": 1,
               "--debugger": 0, "--debugger-addr": 1, "--restore-state": 1, "--trace-dir": 1}


class StartupError(Exception):
    """Anything that stops the switch from starting; the message is printed as ``error: ...``."""


class PcapSet:
    """``<dir>/<interface>_in.pcap`` and ``_out.pcap`` per port, named as simple_switch names them."""

    def __init__(self, directory: Path, ports: dict[int, RawPort]):
        self.writers: dict[tuple[int, str], PcapWriter] = {}
        self.dirty: set[PcapWriter] = set()
        try:
            for num, p in ports.items():
                for direction in ("in", "out"):
                    self.writers[num, direction] = PcapWriter(directory / f"{p.ifname}_{direction}.pcap")
        except OSError as e:
            self.close()
            raise StartupError(f"cannot write pcap files in {str(directory)!r}: {e.strerror or e}") from None

    def write(self, port: int, direction: str, wall: float, frame: bytes) -> None:
        w = self.writers.get((port, direction))
        if w is not None:
            w.write(wall, frame)
            self.dirty.add(w)

    def flush(self) -> None:
        """Once per loop turn: the files are complete whenever the switch is idle."""
        for w in self.dirty:
            w.flush()
        self.dirty.clear()

    def close(self) -> None:
        for w in self.writers.values():
            w.close()


class SwitchProcess:
    """The event loop: ports, the Thrift server and the library switch in one thread.
    ``control``: the ThriftServer (or None: no control port, for tests of the data path)."""

    def __init__(self, sw: SimpleSwitch, ports: dict[int, RawPort], control: ThriftServer | None,
                 pcap: PcapSet | None = None, dump_packet_data: int = 0,
                 port_delays: dict[int, float] | None = None, clock=time.monotonic,
                 wall_clock=time.time):
        self.sw = sw
        self.dump_packet_data = dump_packet_data   # bytes of each frame logged at info level
        self.ports = ports
        self.control = control
        self.pcap = pcap
        self.unbound_tx = 0                # frames for egress ports with no interface
        self.faults = 0                    # frames the target raised on (logged with a traceback)
        self._stop = False
        self._registered = False
        self._listener_watched = False
        # --port-delay: a FIFO per delayed port between the traffic manager and the interface
        self.delays = {p: DelayLine(d) for p, d in sorted((port_delays or {}).items())}
        self._clock = clock                # injectable, for tests of the delay lines
        self.t0 = clock()
        self.wall0 = wall_clock()
        self.sel = selectors.DefaultSelector()
        self._wakeup = Wakeup()

    # -- clock: read here, never in the library ---------------------------------------------------
    def now(self) -> float:
        return self._clock() - self.t0

    def wall(self, now: float) -> float:
        return self.wall0 + now

    # -- signals ----------------------------------------------------------------------------------
    def install_signal_handlers(self) -> None:
        """SIGINT/SIGTERM set a flag; the wakeup fd makes select() return at once."""
        signal.set_wakeup_fd(self._wakeup.writer_fd, warn_on_full_buffer=False)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, frame) -> None:
        log.info("signal %d: stopping", signum)
        self._stop = True

    def stop(self) -> None:
        self._stop = True
        self._wakeup.wake()

    # -- loop -------------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            while not self._stop:
                self.turn()
        finally:
            self.sel.close()

    def _register(self) -> None:
        sel = self.sel
        for num, p in self.ports.items():
            sel.register(p.sock, selectors.EVENT_READ, ("port", num))
        sel.register(self._wakeup.reader, selectors.EVENT_READ, ("wake", None))
        self._registered = True
        self._watch_listener()

    def _watch_listener(self) -> None:
        """Watch the Thrift listener unless the server backs off from accepting (out of
        file descriptors: a pending connection would keep it readable, the loop would spin)."""
        ctl = self.control
        if ctl is None or ctl.listening == self._listener_watched:
            return
        if ctl.listening:
            self.sel.register(ctl.listener, selectors.EVENT_READ, ("accept", None))
        else:
            self.sel.unregister(ctl.listener)
        self._listener_watched = ctl.listening

    def _poll_control(self) -> None:
        """The Thrift server's timers: the end of an accept back-off, and while it lasts the
        clients closed for being idle (unwatched before they are closed)."""
        ctl = self.control
        if ctl is None:
            return
        for fd in ctl.poll():
            key = self.sel.get_map().get(fd)
            if key is not None:
                self.sel.unregister(key.fileobj)
            ctl.drop(fd)
        self._watch_listener()

    def turn(self, max_wait: float | None = None) -> None:
        """One turn of the loop: wait for input (at most until the next departure, the next
        delayed frame due, or ``max_wait``), serve it, then transmit what is due."""
        if not self._registered:
            self._register()
        timeout = self._timeout()
        if max_wait is not None:
            timeout = max_wait if timeout is None else min(timeout, max_wait)
        for key, events in self.sel.select(timeout):
            self._dispatch(key, events)
        self._poll_control()
        self._advance(self.now())
        if self.pcap is not None:
            self.pcap.flush()

    def next_deadline(self) -> float | None:
        """The earliest queued departure or delayed frame due (``now()`` time), or None."""
        t = self.sw.next_event_time()
        for line in self.delays.values():
            due = line.next_due()
            if due is not None and (t is None or due < t):
                t = due
        return t

    def _timeout(self) -> float | None:
        """Sleep until the next deadline at most (None: until something arrives), or until
        the Thrift server's next timer (its own clock)."""
        t = self.next_deadline()
        wait = None if t is None else max(0.0, t - self.now())
        if self.control is not None:
            c = self.control.next_deadline()
            if c is not None:
                c = max(0.0, c - self.control.now())
                wait = c if wait is None else min(wait, c)
        return wait

    def _dispatch(self, key, events) -> None:
        kind, arg = key.data
        if kind == "port":
            self._receive(arg)
        elif kind == "accept":
            sock = self.control.accept()
            if sock is not None:
                self.sel.register(sock, selectors.EVENT_READ, ("client", sock.fileno()))
            self._watch_listener()
        elif kind == "client":
            self._serve_client(arg, events)
        elif kind == "call":               # calls the P4Runtime server hands to this loop
            arg()
        else:
            self._wakeup.drain()

    def _receive(self, num: int) -> None:
        frames = self.ports[num].recv_frames()
        if not frames:
            return
        sw, pcap = self.sw, self.pcap
        receive, advance = sw.receive, self._advance
        next_departure = sw.next_event_time
        clock, t0 = self._clock, self.t0
        delays = self.delays
        # once a batch: every frame's path, its departure's included, pays nothing else
        logged = self._frames_logged()
        for frame in frames:
            now = clock() - t0
            # departures due before this arrival first: simple_switch's egress threads drain
            # the queues while frames keep arriving, so a burst read in one go must not fill
            # a queue (default depth 64) that would have been emptied meanwhile
            if delays:
                advance(now, logged)
            else:
                due = next_departure()
                if due is not None and due <= now:
                    advance(now, logged)
            if pcap is not None:
                pcap.write(num, "in", self.wall0 + now, frame)
            if logged:
                self._log_frame("received on", num, frame)
            try:
                receive(num, frame, now=now)
            except Exception:  # noqa: BLE001 -- a target bug loses this frame, not the switch
                self.faults += 1
                log.exception("port %d: the target failed on a %d-byte frame (dropped): %s",
                              num, len(frame), frame[:64].hex())

    def _advance(self, now: float, logged: bool | None = None) -> None:
        """Run egress for every departure due by ``now`` and put the frames on the wire;
        ``logged``: ``_frames_logged()`` when the caller has it (once a batch of arrivals)."""
        try:
            out = self.sw.advance(now=now)
        except Exception:  # noqa: BLE001 -- as in _receive: log the target's bug, keep switching
            self.faults += 1
            log.exception("the target failed in its egress pipeline (packet lost)")
            out = ()
        if out:
            self._transmit(out, self._frames_logged() if logged is None else logged)
        if self.delays:
            self._release(now)

    def _transmit(self, out, logged: bool) -> None:
        delays, ports, pcap = self.delays, self.ports, self.pcap
        for num, frame, departure in out:
            port = ports.get(num)
            if port is None:
                self.unbound_tx += 1
                log.debug("port %d: no interface bound, %d-byte frame dropped", num, len(frame))
                continue
            if delays:
                line = delays.get(num)
                if line is not None:
                    # the _out record is stamped at the departure, where the delayed link
                    # begins, as a capture at the sending end of a link with that delay
                    line.push(frame, departure)
                    if pcap is not None:
                        pcap.write(num, "out", self.wall(departure), frame)
                    continue
            if port.send(frame) and pcap is not None:
                pcap.write(num, "out", self.wall(departure), frame)
            if logged:
                self._log_frame("sent on", num, frame)

    def _release(self, now: float) -> None:
        """Put on the wire the delayed frames due by ``now`` (FIFO per port)."""
        for num, line in self.delays.items():
            if line.next_due() is not None and line.next_due() <= now:
                port = self.ports[num]
                for frame in line.pop_due(now):
                    port.send(frame)
                    self._log_frame("sent on", num, frame)

    def _frames_logged(self) -> bool:
        """Whether frames are logged at all (``_log_frame`` then decides how)."""
        return bool(self.dump_packet_data and log.isEnabledFor(logging.INFO)) \
            or log.isEnabledFor(logging.DEBUG)

    def _log_frame(self, what: str, num: int, frame: bytes) -> None:
        if self.dump_packet_data and log.isEnabledFor(logging.INFO):
            log.info("packet %s port %d, %d bytes: %s", what, num, len(frame),
                     frame[:self.dump_packet_data].hex())
        elif log.isEnabledFor(logging.DEBUG):
            log.debug("packet %s port %d, %d bytes", what, num, len(frame))

    def _serve_client(self, fd: int, events) -> None:
        ctl = self.control
        alive = True
        if events & selectors.EVENT_READ:
            alive = ctl.on_readable(fd)
        elif events & selectors.EVENT_WRITE:
            alive = ctl.flush(fd)
        sock_key = self.sel.get_map().get(fd)
        if not alive:
            if sock_key is not None:
                self.sel.unregister(sock_key.fileobj)
            return
        # a slow reader: wait until its socket can take the rest of the answer
        # and a client whose answers pile up unread is not read until they leave
        want = ((selectors.EVENT_READ if ctl.wants_read(fd) else 0)
                | (selectors.EVENT_WRITE if ctl.wants_write(fd) else 0))
        if sock_key is not None and sock_key.events != want:
            self.sel.modify(sock_key.fileobj, want, sock_key.data)

    def close(self) -> None:
        if self.control is not None:
            self.control.close()
        for p in self.ports.values():
            p.close()
        if self.pcap is not None:
            self.pcap.close()
        self._wakeup.close()


# -- command line ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    ap = CommandLineParser(
        error_status=1,                    # simple_switch exits 1 on a bad command line
        prog="rdtcp-switch",
        usage="rdtcp-switch [options] <path to JSON config file>",
        description="The embedded target (toolchain.switch) as a switch process bound to Linux "
                    "interfaces, with simple_switch's command line.",
        epilog=f"Ready when it prints '{READY_LINE_PREFIX}127.0.0.1:<port>'. BMv2's Thrift "
               "runtime API is served there: simple_switch_CLI --thrift-port <port>. Target "
               "options after '--': --enable-swap, and simple_switch_grpc's "
               "--grpc-server-addr, --cpu-port. Needs root (AF_PACKET).")
    ap.add_argument("config", nargs="?", metavar="JSON", help="BMv2 JSON (p4c-bm2-ss or rdtcp-p4c)")
    ap.add_argument("-i", "--interface", action="append", default=[], metavar="<port-num>@<interface-name>",
                    help="attach network interface <interface-name> as port <port-num>; repeatable")
    ap.add_argument("--pcap", nargs="?", const=".", default=None, metavar="DIR",
                    help="write <interface>_in.pcap and <interface>_out.pcap per port into DIR "
                         "(default: the current directory)")
    ap.add_argument("--thrift-port", type=int, default=DEFAULT_THRIFT_PORT, metavar="PORT",
                    help="TCP port of the Thrift runtime API on 127.0.0.1 (0 = any free port; "
                         "default 9090)")
    ap.add_argument("--device-id", type=int, default=0, help="device id (default 0)")
    ap.add_argument("--log-console", action="store_true", help="log on stdout")
    ap.add_argument("--log-file", metavar="PATH", help="log to this file")
    ap.add_argument("-L", "--log-level", choices=list(LOG_LEVELS), default=None,
                    help="trace, debug, info, warn, error, off (default: trace when logging is on, "
                         "as simple_switch)")
    ap.add_argument("--max-port-count", type=int, default=DEFAULT_MAX_PORT_COUNT,
                    help="maximum number of interfaces (default 512)")
    ap.add_argument("--dump-packet-data", type=int, default=0, metavar="N",
                    help="log the first N bytes of every packet received and sent (level info)")
    ap.add_argument("--port-delay", action="append", default=[], metavar="<port-num>:<ms>",
                    help="hold every frame leaving port <port-num> for <ms> milliseconds after "
                         "the queue's departure, first in first out: a link's propagation delay "
                         "(not a simple_switch option; repeatable, one per port)")
    ap.add_argument("--thrift-idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT,
                    metavar="S",
                    help="while the process is out of file descriptors and cannot accept "
                         "Thrift connections, close those that sent nothing for S seconds "
                         f"(default {DEFAULT_IDLE_TIMEOUT:g}; none is closed otherwise); not "
                         "a simple_switch option")
    ap.add_argument("--max-state", default=None, metavar="SIZE",
                    help="the memory the program's register, counter and meter arrays may "
                         f"take, at start-up and in bm_load_new_config (default "
                         f"{DEFAULT_MAX_STATE >> 20}M; K, M, G suffixes; none: no limit); a "
                         "program over it is refused naming its largest arrays; not a "
                         "simple_switch option")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the target's random numbers (random extern, hash 'random'); "
                         "not a simple_switch option")
    ap.add_argument("--no-p4", action="store_true",
                    help="start without a program (frames dropped) until a P4Runtime controller "
                         "sets one (needs --grpc-server-addr)")
    p4rt_process.add_arguments(ap)
    ap.add_argument("--python", default=None, metavar="auto|self|EXE",
                    help="the interpreter the switch runs under: auto (pypy3 when it is on PATH, "
                         "else this one; this one with --grpc-server-addr), self, or an "
                         "interpreter; default $RDTCP_SWITCH_PYTHON, else auto for rdtcp-switch "
                         "and self for python -m; not a simple_switch option")
    ap.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    return ap


# simple_switch's target options (after "--", targets/simple_switch/main.cpp) this switch runs
TARGET_OPTIONS = ("--enable-swap",)


def split_target_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """simple_switch's command line: its options, then "--" and the target's; refuses by name
    what rdtcp-switch does not implement."""
    for a in argv:
        if a == "--":
            break
        name = a.split("=", 1)[0]
        if name in UNSUPPORTED:
            raise StartupError(f"simple_switch option {name} is not supported by rdtcp-switch")
    if "--" not in argv:
        return argv, []
    i = argv.index("--")
    target, moved = [], []
    rest = iter(argv[i + 1:])
    for a in rest:
        name = a.split("=", 1)[0]
        if name in p4rt_process.GRPC_TARGET_OPTIONS:   # simple_switch_grpc's: parsed as ours
            moved += [a] if "=" in a else [a, next(rest, "")]
        elif name not in TARGET_OPTIONS:
            raise StartupError(f"simple_switch target option {name} is not supported by "
                               "rdtcp-switch (only --enable-swap, --grpc-server-addr, --cpu-port)")
        else:
            target.append(a)
    return argv[:i] + moved, target


def setup_logging(args) -> None:
    if not (args.log_console or args.log_file):
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                            format="rdtcp-switch: %(levelname)s: %(message)s")
        return
    logging.addLevelName(5, "TRACE")
    level = LOG_LEVELS[args.log_level or "trace"]
    handler = (logging.FileHandler(args.log_file) if args.log_file
               else logging.StreamHandler(sys.stdout))
    handler.setFormatter(logging.Formatter("[%(asctime)s.%(msecs)03d] [rdtcp-switch] [%(levelname).1s] %(message)s",
                                           "%H:%M:%S"))
    logging.basicConfig(level=level, handlers=[handler])


def open_ports(specs: list[str], max_ports: int) -> dict[int, RawPort]:
    if len(specs) > max_ports:
        raise StartupError(f"{len(specs)} interfaces but --max-port-count is {max_ports}")
    wanted: dict[int, str] = {}
    for spec in specs:
        num, name = parse_interface_spec(spec)
        if num in wanted:
            raise StartupError(f"port {num} given twice (-i {num}@{wanted[num]} and -i {spec})")
        if name in wanted.values():
            raise StartupError(f"interface {name!r} given twice")
        wanted[num] = name
    ports: dict[int, RawPort] = {}
    try:
        for num, name in wanted.items():
            ports[num] = RawPort(num, name)
            print(f"Adding interface {name} as port {num}", flush=True)
    except PortError:
        for p in ports.values():
            p.close()
        raise
    return ports


def start(args) -> SwitchProcess:
    """Everything up to the readiness line; raises StartupError, LoadError, PortError,
    ThriftServerError or ThriftUnavailable."""
    problem = p4rt_process.check(args)
    if problem:
        raise StartupError(problem)
    if not args.config and not args.no_p4:
        raise StartupError("please specify an input JSON configuration file")
    if args.max_port_count < 0:
        raise StartupError("Invalid --max-port-count argument, cannot be negative")
    if not 0 < args.thrift_idle_timeout <= 86400:       # also refuses nan and inf
        raise StartupError("--thrift-idle-timeout must be 0 < S <= 86400 seconds")
    pcap_dir = None
    if args.pcap is not None:
        pcap_dir = Path(args.pcap)
        if not pcap_dir.is_dir():
            raise StartupError(f"Directory '{args.pcap}' specified with '--pcap' does not exist.")
    if args.config and not Path(args.config).is_file():
        raise StartupError(f"cannot read JSON configuration file {args.config!r}: no such file")
    delays = port_delays(args.port_delay, args.interface)
    max_state = DEFAULT_MAX_STATE
    if args.max_state is not None:
        try:
            max_state = parse_state_size(args.max_state)
        except ValueError as e:
            raise StartupError(f"--max-state {e}") from None
    if args.no_p4:
        config_text, sw = "", p4rt_process.NullSwitch()
    else:
        # LoadError for a binary or non-UTF-8 file, or arrays over --max-state
        program = load_program(args.config, max_state=max_state)
        config_text = Path(args.config).read_bytes().decode("utf-8", errors="replace")
        sw = SimpleSwitch(program, seed=args.seed)
    thrift_modules()                   # missing Thrift packages: one line, before any port opens
    host = ProcessHost(sw, config_text, device_id=args.device_id, seed=args.seed,
                       enable_swap="--enable-swap" in args.target_options,
                       max_state=max_state)
    ports = open_ports(args.interface, args.max_port_count)
    try:
        control = ThriftServer(args.thrift_port, make_processor(host),
                               idle_timeout=args.thrift_idle_timeout)
    except ThriftServerError:
        for p in ports.values():
            p.close()
        raise
    pcap = None
    if pcap_dir is not None:
        try:
            pcap = PcapSet(pcap_dir, ports)
        except StartupError:
            control.close()
            for p in ports.values():
                p.close()
            raise
    host.thrift_port = control.port
    proc = SwitchProcess(sw, ports, control, pcap, dump_packet_data=max(args.dump_packet_data, 0),
                         port_delays=delays)
    host.attach(proc)
    proc.p4runtime = None
    if args.grpc_server_addr:
        try:
            proc.p4runtime = p4rt_process.attach(args, host, proc)
        except ValueError as e:        # the packages missing, the address taken, ...
            proc.close()
            raise StartupError(str(e)) from None
    return proc


def port_delays(specs: list[str], interfaces: list[str]) -> dict[int, float]:
    """``--port-delay`` options -> {port: seconds}; every port must be one given with ``-i``."""
    bound = {parse_interface_spec(s)[0] for s in interfaces}
    out: dict[int, float] = {}
    for spec in specs:
        port, delay = parse_port_delay(spec)
        if port in out:
            raise StartupError(f"--port-delay given twice for port {port}")
        if port not in bound:
            raise StartupError(f"--port-delay {spec}: port {port} has no interface "
                               f"(attach one with -i {port}@<interface>)")
        out[port] = delay
    return out


def this_interpreter() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"


def choose_python(choice: str, args) -> tuple[str | None, str]:
    """The interpreter to run the switch under (None: this one) and why."""
    if choice == "self":
        return None, "--python self"
    if choice == "auto":
        if sys.implementation.name == "pypy":
            return None, "--python auto"
        if args.grpc_server_addr:
            return None, "--python auto: P4Runtime's grpcio is a CPython extension"
        path = shutil.which("pypy3")
        if path is None:
            return None, "--python auto: no pypy3 on PATH (installing it speeds the switch up)"
        return path, "--python auto: pypy3 on PATH"
    path = shutil.which(choice)
    if path is None:
        raise StartupError(f"--python {choice}: no such interpreter")
    if os.path.realpath(path) == os.path.realpath(sys.executable):
        return None, f"--python {choice}"
    return path, f"--python {choice}"


def reexec(python: str, why: str, argv: list[str], dirs: list[str]) -> None:
    """Replace this process by the switch under ``python`` (same pid, same standard streams,
    so a caller's signals and pipes reach it), with this checkout and the Thrift modules on
    its path (``dirs``: module_dirs()); it stays there."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT), *dirs, *filter(None, [env.get("PYTHONPATH")])])
    env[PYTHON_ENV] = "self"
    env[_CHOSEN_ENV] = why
    sys.stdout.flush()
    try:
        os.execve(python, [python, "-m", "toolchain.switch.process.main", *argv], env)
    except OSError as e:
        raise StartupError(f"cannot run {python}: {e.strerror or e}") from None


def main(argv: list[str] | None = None, *, python: str | None = None) -> int:
    """``rdtcp-switch``; ``python``: the default of ``--python`` when neither it nor
    ``$RDTCP_SWITCH_PYTHON`` is given (``python -m`` passes self). Without it, auto only for
    the command (``argv`` None: this process is the switch's): a caller that hands its own
    ``argv`` keeps its process, which a re-execution would replace."""
    if python is None:
        python = "auto" if argv is None else "self"
    argv = sys.argv[1:] if argv is None else argv
    given = list(argv)
    try:
        argv, target_options = split_target_options(argv)
    except StartupError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 1
    args = build_parser().parse_args(argv)
    args.target_options = target_options
    if args.version:
        print("rdtcp-switch (toolchain.switch), simple_switch-compatible BMv2 JSON 2.x")
        return 0
    # re-executed by reexec: here it stays, whatever the command line asks
    choice = "self" if _CHOSEN_ENV in os.environ else (args.python or os.environ.get(PYTHON_ENV)
                                                         or python)
    try:
        exe, why = choose_python(choice, args)
        if exe is not None:
            try:
                dirs = module_dirs()
            except ThriftUnavailable:          # start() says what is missing, here
                why = f"{why}, but the Thrift modules are missing"
            else:
                reexec(exe, why, given, dirs)
    except StartupError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 1
    why = os.environ.pop(_CHOSEN_ENV, why)
    setup_logging(args)
    try:
        proc = start(args)
    except (StartupError, LoadError, PortError, ThriftServerError, ThriftUnavailable, CliError) as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 1
    except OSError as e:                   # the JSON file unreadable, etc.
        print(f"error: {e.strerror or e}: {getattr(e, 'filename', '') or ''}", file=sys.stderr, flush=True)
        return 1
    # simple_switch's log lines (bm_runtime::start_server), then the readiness line tools wait for
    log.info("Starting Thrift server on port %d", proc.control.port)
    log.info("Thrift server was started")
    proc.install_signal_handlers()
    if proc.p4runtime is not None:
        print(f"{p4rt_process.P4RUNTIME_LINE_PREFIX}{proc.p4runtime.address}", flush=True)
    print(f"{READY_LINE_PREFIX}{proc.control.host}:{proc.control.port}", flush=True)
    print(f"{INTERPRETER_LINE_PREFIX}{this_interpreter()}: {why}", flush=True)
    log.info("running on %s: %s", this_interpreter(), why)
    try:
        proc.run()
    finally:
        if proc.p4runtime is not None:
            proc.p4runtime.stop()
        proc.close()
    for num, p in sorted(proc.ports.items()):
        log.info("port %d (%s): %d in, %d out, %d send errors", num, p.ifname, p.rx_packets,
                 p.tx_packets, p.tx_errors)
    for num, line in proc.delays.items():
        if len(line):                      # in flight on the delayed link when it stopped
            log.info("port %d: %d delayed frames not sent", num, len(line))
    return 0


if __name__ == "__main__":
    sys.exit(main(python="self"))
