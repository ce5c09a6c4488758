"""ns-2's packet trace, the validation suites' conversion of it, and the comparison of results.

The trace (``$ns trace-all``; the ns Manual, ch. "Trace and Monitoring Support", "Trace File
Format") has one line per event on a link: ``EV TIME FROM TO TYPE SIZE FLAGS FID SRC DST SEQNO
PKTID``, EV being ``+`` (enqueued at the link's queue), ``-`` (dequeued: its transmission
starts), ``r`` (received at the far node) or ``d`` (dropped, by the queue or by the link's error
module); SRC and DST are ``node.port``; SEQNO is the packet number of a data packet and the
cumulative ACK (the highest in-order packet) of an ACK. An agent's event trace (``$ns
eventtrace-all``) adds ``E TIME SRC DST TCP EVENT FID SEQNO CWND`` lines.

A suite's ``finish`` turns ``all.tr`` into xgraph point lists with three Perl tools of ns-2's
source tree that Debian does not ship; ``getrc``, ``set_flow_id`` and ``raw2xg`` below do what
each one's usage text says, as functions over lines:

- getrc -s N [-d M] [-b] [-e] [-f FID]: the events on the link from node N (to node M; with -b
  also those from M to N), of one flow; with -e also the agents' ``E`` lines.
- set_flow_id -s|-d|-m: overwrite the FID field with the source node, the destination node or
  the smaller of the two (``E`` lines: their FID field likewise, from their own node fields).
- raw2xg: one point ``TIME Y`` per event, Y = FID*n + (SEQNO mod m)*s (-s scale, -m modulus,
  -n flow factor), into the sections ``"packets`` (data, ``+`` and ``-`` events in trace
  order), ``"acks`` (-a; sorted), ``"drops`` (``d`` events), ``"events`` (-v: the agents'
  timeouts, slow starts and fast retransmits) and placeholders (``"skip-1``, ``"skip-2``: "0 1",
  left out with -c). A section that is sorted starts with up to four of its points in trace
  order, so that xgraph marks a single point ("Repeat the first line ... because often we have
  only one drop"); sorting is by the text of the line, as Perl's ``sort`` does.

``compare`` says whether two such lists are the same: the same sections in the same order, in
each the same points (same Y: same packet of the same flow) in the same time order, every time
within ``tolerance`` (1 ms) of the other's. Events at one instant count as simultaneous: their
order within the instant is not compared.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

__all__ = ["getrc", "set_flow_id", "raw2xg", "parse_xgraph", "Section", "Difference",
           "compare", "format_time", "TOLERANCE"]

TOLERANCE = 0.001       # seconds: a point's time may differ this much and still be the same


def format_time(t: float) -> str:
    """A trace time as ns-2 writes it: rounded to the microsecond, then ``%.15g``."""
    return "%.15g" % (math.floor(t * 1e6 + 0.5) / 1e6)


_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _num(text: str | None) -> float:
    """Perl's numeric value of a field: its leading number, 0 for none (or a missing field)."""
    m = _NUMBER.match(text or "")
    return float(m.group(0)) if m else 0.0


def getrc(lines: Iterable[str], *, src: int, dst: int | None = None, both: bool = False,
          events: bool = False, fid: int | None = None) -> list[str]:
    """The lines of link ``src`` -> ``dst`` (``both``: and back), of flow ``fid``, with
    ``events`` the agents' E lines; version lines (``v ...``) pass."""
    out = []
    for line in lines:
        if line.startswith("v"):
            out.append(line)
            continue
        f = line.split()
        f += [""] * (8 - len(f))
        if _num(f[2]) == src:
            if fid is not None and _num(f[7]) != fid:
                continue
            if dst is None or _num(f[3]) == dst:
                out.append(line)
            continue
        if both and _num(f[3]) == src:
            if fid is not None and _num(f[7]) != fid:
                continue
            if dst is None or _num(f[2]) == dst:
                out.append(line)
            continue
        if events and f[0] == "E":
            out.append(line)
    return out


def set_flow_id(lines: Iterable[str], mode: str = "min") -> list[str]:
    """Every packet line's FID field set from its SRC and DST nodes (``mode``: "src", "dst"
    or "min"); E lines alike from their node fields; other lines unchanged."""
    if mode not in ("min", "src", "dst"):
        raise ValueError(f"set_flow_id mode must be min, src or dst, got {mode!r}")
    out = []
    for line in lines:
        if not line or line[0] not in "-+hdrE":
            out.append(line)
            continue
        f = line.rstrip("\n").split(" ")
        f += [""] * (10 - len(f))
        if f[0] != "E":
            src, dst, at = f[8].split(".")[0], f[9].split(".")[0], 7
        else:
            src, dst, at = f[2], f[3], 6
        lower = src if _num(src) < _num(dst) else dst
        f[at] = {"min": lower, "src": src, "dst": dst}[mode]
        out.append(" ".join(f) + "\n")
    return out


def _point(time: str, seq: str, flow: str, *, scale: float, modulus: int,
           flow_factor: float) -> str:
    s = int(_num(seq))
    if s == -1:
        s = 0
    y = _num(flow) * flow_factor + (s % modulus) * scale
    return f"{time} {y:.15g}\n"


_EVENTS = (("event_timeout", "TCP_TIMEOUT"), ("event_slowstart", "SLOW_START"),
           ("event_fastretx", "FAST_RETX"), ("event_renofastretx", "RENO_FAST_RETX"),
           ("event_nrenofastretx", "NEWRENO_FAST_RETX"), ("event_fastrecovery", "FAST_RECOVERY"))


def raw2xg(lines: Iterable[str], *, title: str, scale: float = 1.0, modulus: int = 2 ** 31,
           flow_factor: float = 1.0, acks: bool = False, ecn: bool = False,
           drops_only: bool = False, events: bool = False, compact: bool = False,
           really_compact: bool = False, no_preface: bool = False,
           arrivals_only: bool = False) -> str:
    """The xgraph text of the trace ``lines`` (raw2xg -t TITLE -s SCALE -m MODULUS, and -a
    ``acks``, -e ``ecn``, -d ``drops_only``, -v ``events``, -c ``compact``, -x
    ``really_compact``, -p ``no_preface``, -r ``arrivals_only``)."""
    pt = {"scale": scale, "modulus": modulus, "flow_factor": flow_factor}
    p, pc, pg, a, ac, ae, d = [], [], [], [], [], [], []
    ev: dict[str, list[str]] = {name: [] for name, _ in _EVENTS}
    link_down, link_up = [], []
    top = 0.0
    for line in lines:
        f = line.split()
        if len(f) >= 2 and f[0] in "+-" and line[1:2] == " ":
            f += [""] * (11 - len(f))
            top = max(top, _num(f[7]))
            is_ack = f[4] in ("ack", "tcpFriendCtl")
            if is_ack and not acks or f[0] == "-" and arrivals_only:
                continue
            stmt = _point(f[1], f[10], f[7], **pt)
            if drops_only:
                if "E" in f[6]:
                    pc.append(stmt)
            elif is_ack:
                (ac if "E" in f[6] else a).append(stmt)
                if "C" in f[6]:
                    ae.append(stmt)
            else:
                (pc if "E" in f[6] else p).append(stmt)
                if "A" in f[6]:
                    pg.append(stmt)
        elif line.startswith("d "):
            f += [""] * (11 - len(f))
            d.append(_point(f[1], f[10], f[7], **pt))
        elif "link-down" in line:
            link_down.append(f[1])
        elif "link-up" in line:
            link_up.append(f[1])
        elif events and line.startswith("E "):
            f += [""] * (8 - len(f))
            for name, kind in _EVENTS:
                if f[5] == kind:
                    ev[name].append(_point(f[1], f[7], f[6], **pt))
                    break
    out = []
    if not no_preface:
        out.append(f"TitleText: {title}\nDevice: Postscript\nBoundBox: true\nTicks: true\n"
                   "NoLines: true\nMarkers: true\nXUnitText: time\nYUnitText: packets\n")
    out += ['\n"packets\n', *p]
    if pc:
        out += ['\n"ecn_packets\n', *pc[:4], *sorted(pc)]
    elif not compact:
        out.append('\n"skip-1\n0 1\n')
    if not really_compact and not a:
        a.append("0 1\n")
    if acks:
        out += ['\n"acks\n', *sorted(a)]
        if ecn and ac:
            out += ['\n"ecn-acks\n', *sorted(ac)]
        if ecn and ae:
            out += ['\n"echo-acks\n', *sorted(ae)]
    elif not compact:
        out.append('\n"skip-2\n0 1\n')
    out += ['\n"drops\n', *d[:4], *sorted(d)]
    if events:
        out.append('\n"events\n')
        for name, _ in _EVENTS:
            out += [f'\n"{name}\n', *ev[name][:4], *sorted(ev[name])]
    top_label = f"{top + 1:.15g}"
    out.append("\n")
    out += [f'"link-down\n{t} 0\n{t} {top_label}\n' for t in link_down]
    out += [f'"link-up\n{t} 0\n{t} {top_label}\n' for t in link_up]
    if ecn and pg:
        if not really_compact and not d:
            out.append('\n"skip-3\n0 1\n')
        out += ['\n"cong_act_packets\n', *pg[:4], *sorted(pg)]
    return "".join(out)


# ---------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class Section:
    name: str
    points: tuple[tuple[float, str], ...]     # (time, Y as written), in time order


# raw2xg keeps trace order only in "packets"; these start with up to four points repeated
_HEADED = {"drops", "ecn_packets", "cong_act_packets"} | {name for name, _ in _EVENTS}


def parse_xgraph(text: str) -> list[Section]:
    """The point sections of an xgraph text (a preface and "Color" lines are skipped), each in
    time order: a sorted section's leading repeated points are dropped, so each event appears
    once, and events of one instant are put in the order of their Y values. (A trace lists
    events in time order; the order ns-2 gives events of the same instant follows from the
    order in which its scheduler happened to queue them, which rounding in the last bit of a
    computed time can decide, so it is not compared.)"""
    sections: list[tuple[str, list[tuple[float, str]]]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith('"'):
            sections.append((line[1:], []))
        elif sections and line and ":" not in line:
            t, _, y = line.partition(" ")
            try:
                sections[-1][1].append((float(t), y.strip()))
            except ValueError:
                raise ValueError(f"not an xgraph point: {raw!r}") from None
    out = []
    for name, pts in sections:
        if name in _HEADED:
            n = len(pts) - 4 if len(pts) >= 8 else len(pts) // 2
            pts = pts[len(pts) - n:]
        out.append(Section(name, tuple(sorted(pts, key=lambda p: (p[0], _num(p[1]))))))
    return out


@dataclass(frozen=True)
class Difference:
    section: str
    index: int                  # the point's place in its section (0-based; -1: the sections)
    expected: tuple[float, str] | None     # None: ours has a point too many
    ours: tuple[float, str] | None         # None: ours lacks this point
    expected_section: str | None = None    # where the sections themselves differ
    our_section: str | None = None

    def __str__(self) -> str:
        if self.index < 0:
            return (f"{self.section}: expected \"{self.expected_section}, "
                    f"ours \"{self.our_section}")

        def show(p):
            return "none" if p is None else f"({p[0]:.6f}, {p[1]})"
        return (f'"{self.section} point {self.index + 1}: expected {show(self.expected)}, '
                f"ours {show(self.ours)}")


def compare(expected: Sequence[Section], ours: Sequence[Section], *,
            tolerance: float = TOLERANCE) -> Difference | None:
    """The first difference between two parsed xgraph texts, or None when they are the same:
    the same section names in order, and per section the same Y values in the same (time)
    order, each time within ``tolerance`` of the other's."""
    for i in range(max(len(expected), len(ours))):
        want = expected[i].name if i < len(expected) else None
        got = ours[i].name if i < len(ours) else None
        if want != got:
            return Difference(f"section {i + 1}", -1, None, None, want, got)
        e, o = expected[i].points, ours[i].points
        for j in range(max(len(e), len(o))):
            pe = e[j] if j < len(e) else None
            po = o[j] if j < len(o) else None
            if pe is None or po is None or pe[1] != po[1] or abs(pe[0] - po[0]) > tolerance:
                return Difference(expected[i].name, j, pe, po)
    return None
