"""The P4Runtime server in the switch process (`rdtcp-switch --grpc-server-addr HOST:PORT`).

simple_switch_grpc's options: `--grpc-server-addr` (here off unless given; simple_switch_grpc
listens on 0.0.0.0:9559 by default) and `--cpu-port N` (the port whose frames become
PacketIns and where PacketOuts enter; without it there is no packet I/O), accepted before or
after `--`; `--no-p4` starts with no program (every frame dropped) until a controller's
SetForwardingPipelineConfig delivers one. The server's calls run in the process's selectors
loop between packets (LoopExecutor), so the Thrift API, the P4Runtime API and the data path
share one switch without locks.
"""
from __future__ import annotations

import logging

__all__ = ["GRPC_TARGET_OPTIONS", "add_arguments", "attach", "check", "NullSwitch",
           "P4RUNTIME_LINE_PREFIX"]

log = logging.getLogger("rdtcp-switch")

GRPC_TARGET_OPTIONS = ("--grpc-server-addr", "--cpu-port")
P4RUNTIME_LINE_PREFIX = "P4Runtime server was started on "


def add_arguments(ap) -> None:
    ap.add_argument("--grpc-server-addr", metavar="HOST:PORT",
                    help="serve P4Runtime (gRPC) on HOST:PORT, as simple_switch_grpc (port 0: a "
                         "free one, printed); off when not given")
    ap.add_argument("--cpu-port", type=int, default=None, metavar="N",
                    help="the CPU port of P4Runtime packet I/O (PacketIn/PacketOut), as "
                         "simple_switch_grpc's; needs --grpc-server-addr")


def check(args) -> str | None:
    """A one-line complaint about the P4Runtime options, or None."""
    if args.cpu_port is not None and not args.grpc_server_addr:
        return "--cpu-port needs --grpc-server-addr"
    if args.no_p4 and not args.grpc_server_addr:
        return "--no-p4 needs --grpc-server-addr (a P4Runtime controller sends the program)"
    if args.no_p4 and args.config:
        return "--no-p4 and a JSON file: give one or the other"
    if args.cpu_port is not None and not 0 <= args.cpu_port < 512:
        return f"--cpu-port {args.cpu_port}: a port is 0..511"
    return None


def attach(args, host, proc):
    """Start the server for the process ``proc`` (its loop runs the calls); the CPU port
    joins the process's ports. ValueError with a one-line message when it cannot start."""
    try:
        from .server import CpuPort, LoopExecutor, P4RuntimeServer, P4RuntimeUnavailable, \
            SwitchSlot
    except ImportError as e:
        raise ValueError(f"the P4Runtime server needs the grpcio, protobuf and p4runtime "
                         f"packages (pip install p4runtime grpcio): {e}") from None
    if args.cpu_port is not None and args.cpu_port in proc.ports:
        raise ValueError(f"--cpu-port {args.cpu_port} is also an interface (-i)")
    try:
        executor = LoopExecutor()
        executor.attach(proc.sel)
        cpu = None
        if args.cpu_port is not None:
            cpu = CpuPort(args.cpu_port)
            proc.ports[args.cpu_port] = cpu
        server = P4RuntimeServer(SwitchSlot(host, proc), args.grpc_server_addr,
                                 executor=executor, device_id=args.device_id, cpu_port=cpu,
                                 seed=args.seed)
    except P4RuntimeUnavailable as e:
        raise ValueError(str(e)) from None
    server.start()
    log.info("Server listening on %s", server.address)
    return server


class NullSwitch:
    """The data path before any pipeline (`--no-p4`): every frame dropped, nothing queued."""

    program = None

    def receive(self, port, frame, now=0.0):
        return None

    def advance(self, now=0.0):
        return []

    def next_event_time(self):
        return None

    class tm:                       # noqa: N801 - the traffic manager's one query
        @staticmethod
        def queue_length(port):
            return 0
