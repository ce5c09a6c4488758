"""``python -m analyzer TRACE.pcap``: TCPdebug-style analysis of a capture (see README.md)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import textwrap
from typing import Sequence

from netbase.pcap import LINKTYPE_ETHERNET, PcapFormatError, parse_global_header, read_pcap

from analyzer.profiles import DEFAULT_PROFILES, PROFILES
from analyzer.report import CsvSink, render_flow, render_head
from analyzer.trace import Analyzer, AnalyzerConfig, VANTAGES

__all__ = ["main", "analyze_file", "UsageError"]

_PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"


class UsageError(Exception):
    """Input the user can correct: printed as one ``error:`` line, exit status 2."""


def _profile_list(text: str) -> tuple:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in PROFILES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown profile {', '.join(bad)}; choose from "
                                         f"{', '.join(PROFILES)}")
    if not names:
        raise argparse.ArgumentTypeError("the list is empty")
    return names


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    # the name it was started by: the installed script, or the module
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    prog = script if script == "rdtcp-analyze" else "python -m analyzer"
    profiles = "\n".join(textwrap.fill(f"{n}: {p.description}", 79, subsequent_indent="    ")
                         for n, p in PROFILES.items())
    p = argparse.ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill(
            "Replay every TCP connection of a pcap through passive models of its sender, as "
            "TCPdebug does ([TCPDEBUG], ch. 3): classify each out-of-sequence data segment "
            "(fast retransmit, SACK, partial ACK, RTO, implicit go-back-N, network "
            "reordering or duplication), judge each retransmission needed or unneeded, and "
            "say which sender profiles explain the connection. Prints a summary per "
            "connection and direction; see analyzer/README.md.", 79),
        epilog="sender profiles:\n" + profiles + "\n\nexamples:\n"
               "  python -m experiments.one_run --variant rdtcp --pcap a --out run/\n"
               "  python -m analyzer run/sender.pcap --csv run/seg.csv --json run/report.json"
               "\n"
               "  python -m analyzer r1/bottleneck.pcap --vantage path  # one_run --pcap: "
               "at R1")
    p.add_argument("trace", metavar="TRACE.pcap",
                   help="libpcap capture with Ethernet frames (pcapng: convert it with "
                        "'editcap -F pcap'); header-only captures (a snap length) are fine")
    p.add_argument("--csv", metavar="F",
                   help="write a row per transmission of every data segment (its class under "
                        "each profile, its need, when it was acknowledged, DSACKs) to F")
    p.add_argument("--json", metavar="F", help="write the full report (every flow, every "
                                               "profile's counts) as JSON to F")
    p.add_argument("--vantage", choices=VANTAGES, default="sender",
                   help="where the capture was taken: 'sender' (the data sender's interface, "
                        "experiments.one_run --pcap a: every ACK seen reached the sender, so "
                        "a profile's fast retransmit that does not follow counts against it) "
                        "or 'path' (between sender and receiver, --pcap: segments may be "
                        "reordered or lost before the capture) (default: sender)")
    p.add_argument("--profiles", type=_profile_list, default=DEFAULT_PROFILES, metavar="LIST",
                   help=f"comma-separated sender profiles to try (default: "
                        f"{','.join(DEFAULT_PROFILES)}; also: "
                        f"{','.join(n for n in PROFILES if n not in DEFAULT_PROFILES)})")
    p.add_argument("--rdtcp-k", type=_non_negative_int, default=3, metavar="K",
                   help="k of the rdtcp profile: it waits 3+K duplicate ACKs on the reorder "
                        "bit (default: 3, the paper's)")
    return p.parse_args(argv)


def _check_outputs(args: argparse.Namespace) -> None:
    outs = [(opt, path) for opt, path in (("--csv", args.csv), ("--json", args.json)) if path]
    seen = {}
    for opt, path in outs:
        real = os.path.realpath(path)
        if real == os.path.realpath(args.trace):
            raise UsageError(f"{opt} {path} is the trace itself: it would be overwritten")
        if real in seen:
            raise UsageError(f"{seen[real]} and {opt} name the same file {path}")
        seen[real] = opt
        if os.path.isdir(path):
            raise UsageError(f"{opt} {path} is a directory")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise UsageError(f"{opt} {path}: directory {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise UsageError(f"{opt} {path}: cannot write in {parent}")


def _check_trace(path: str) -> None:
    """A clear error before any work: missing, unreadable, pcapng, not Ethernet."""
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory, not a capture file")
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if head[:4] == _PCAPNG_MAGIC:
        raise UsageError(f"{path} is a pcapng file; convert it with 'editcap -F pcap "
                         f"{path} out.pcap'")
    try:
        _, _, linktype = parse_global_header(head, path)
    except PcapFormatError:
        return                          # reading it says what is wrong, with the same message
    if linktype != LINKTYPE_ETHERNET:
        raise UsageError(f"{path}: link type {linktype} is not Ethernet "
                         f"(the analyzer reads Ethernet captures only)")


class _Output:
    """A file written beside its destination and moved over it only when the analysis
    succeeded, so an error never destroys a file the user already had."""

    def __init__(self, path: str):
        self.path = path
        fd, self.tmp = tempfile.mkstemp(prefix=".analyzer-", suffix=".tmp",
                                        dir=os.path.dirname(os.path.abspath(path)))
        self.file = os.fdopen(fd, "w", newline="")

    def commit(self) -> None:
        self.file.close()
        try:            # the mode a plain open() would give (mkstemp's is 0600)
            mode = os.stat(self.path).st_mode & 0o777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(self.tmp, mode)
        os.replace(self.tmp, self.path)

    def discard(self) -> None:
        self.file.close()
        try:
            os.unlink(self.tmp)
        except OSError:
            pass


def analyze_file(path: str, config: AnalyzerConfig | None = None, *, on_record=None,
                 on_flow=None, on_series=None) -> dict:
    """The report of the capture at ``path`` (PcapFormatError when it is not one);
    ``on_record``, ``on_flow``, ``on_series``: as ``Analyzer`` takes them."""
    analyzer = Analyzer(config, on_record=on_record, on_flow=on_flow, on_series=on_series)
    feed = analyzer.feed
    for rec in read_pcap(path):
        feed(rec.time, rec.data, rec.orig_len)
    return analyzer.finish()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    outputs: list[_Output] = []
    # flows are reported as their connections finish, so memory does not grow with the trace:
    # the text into a spool (printed after the trace's line, and only when the analysis
    # succeeds), the JSON one flow a line inside its "flows" array
    text = tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+")
    done = False
    try:
        config = AnalyzerConfig(vantage=args.vantage, profiles=args.profiles,
                                rdtcp_k=args.rdtcp_k)
        _check_trace(args.trace)
        _check_outputs(args)
        csv_out = _Output(args.csv) if args.csv else None
        if csv_out:
            outputs.append(csv_out)
        json_out = _Output(args.json) if args.json else None
        if json_out:
            outputs.append(json_out)
        sink = CsvSink(csv_out.file, config.profiles) if csv_out else None
        head = {"trace": args.trace, "vantage": config.vantage,
                "profiles": {p.name: p.description for p in config.sender_profiles}}
        if json_out:
            json_out.file.write(json.dumps(head, indent=2)[:-2] + ',\n  "flows": [')
        on_flow = _FlowWriter(text, json_out.file if json_out else None)
        try:
            report = analyze_file(args.trace, config, on_record=sink, on_flow=on_flow)
        except PcapFormatError as exc:
            raise UsageError(str(exc)) from None
        if not report["tcp_frames"]:
            raise UsageError(f"{args.trace}: no TCP segments in its {report['frames']:,} "
                             f"frames ({report['malformed_frames']:,} malformed)")
        if json_out:
            tail = {k: v for k, v in report.items() if k not in head and k != "flows"}
            json_out.file.write("\n  ],\n" + json.dumps(tail, indent=2)[2:] + "\n")
        for out in outputs:
            out.commit()
        outputs.clear()
        done = True
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:          # reading the trace, or writing an output (disk full)
        where = exc.filename or "reading the trace or writing the outputs"
        print(f"error: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: nothing written", file=sys.stderr)
        return 130
    finally:
        for out in outputs:
            out.discard()
        if not done:
            text.close()
    if report["malformed_frames"]:
        print(f"warning: skipped {report['malformed_frames']:,} malformed frame(s): "
              f"{'; '.join(report['malformed_examples'])}", file=sys.stderr)
    if report["frames_out_of_time_order"]:
        print(f"warning: {report['frames_out_of_time_order']:,} frame(s) are earlier than "
              f"the frame before them; the analysis assumes a time-sorted trace",
              file=sys.stderr)
    sys.stdout.write(render_head(report, trace=args.trace))
    text.seek(0)
    shutil.copyfileobj(text, sys.stdout)
    text.close()
    written = [p for p in (args.csv, args.json) if p]
    if written:
        print(f"wrote {', '.join(written)}")
    return 0


class _FlowWriter:
    """``Analyzer``'s ``on_flow``: each flow's text block to ``text``, its summary as one line
    of the JSON report's "flows" array to ``json_file``."""

    def __init__(self, text, json_file):
        self.text, self.json_file = text, json_file
        self.count = 0

    def __call__(self, summary: dict) -> None:
        self.text.write(render_flow(summary))
        if self.json_file is not None:
            self.json_file.write(("," if self.count else "") + "\n"
                                 + json.dumps(summary, separators=(",", ":")))
        self.count += 1
