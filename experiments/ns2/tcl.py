"""The ns-2 script of a scenario (``experiments.ns2.scenario.Ns2Run``): Tcl for ``ns``.

The script builds the nodes and duplex links (DropTail, or RED at the gateway), sets the
queue limits, creates the sender and sink with their bound variables (``Agent/TCP/...``,
``Agent/TCPSink/...``) and an FTP source from time 0, inserts the impairments' error models
(``errormodule``: before the queue; ``insert-linkloss``-style after the link's transmitter, one
model after another), seeds ns-2's default random stream with the run's seed, and at the run's
end prints one line ``ns2-result key=value ...`` with the sender's and the sink's counters:
ack_ (highest cumulative ACK), ndatapack_ (data packets sent), nrexmitpack_ (retransmitted
packets), nrexmit_ (retransmission timeouts), ncwndcuts_ (window reductions) and the sink's
bytes_ (bytes delivered in order, headers included). Nothing in the script comes from the
user as code: every value is a number or one of the names above.
"""

from __future__ import annotations

import re

from experiments.ns2.scenario import CLASSES, Impairment, Ns2Run
from hosts.tcp.ns2 import AGENTS, AGENT_DEFAULTS

__all__ = ["script", "RESULT_TAG"]

RESULT_TAG = "ns2-result"
_TRACE_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")     # a file name in the script's folder


def _num(x: float) -> str:
    return repr(float(x)) if isinstance(x, float) else str(int(x))


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _num(v)
    raise ValueError(f"an ns-2 variable must be a number or a boolean, got {v!r}")


def script(run: Ns2Run, *, trace: str | None = None) -> str:
    """The Tcl text of ``run`` (deterministic: the same run gives the same text); with
    ``trace``, ns-2's packet trace of every link (``$ns trace-all``) goes to that file."""
    spec = run.spec
    agent = run.agent
    lines = [f"# ns-2 script of {spec!r}",
             "# written by experiments.ns2.tcl (python -m experiments.ns2_runs)",
             *(f"#   {n}" for n in run.notes),
             "set ns [new Simulator]",
             f"$defaultRNG seed {int(spec.seed)}"]
    if trace is not None:
        if not _TRACE_NAME.fullmatch(trace):
            raise ValueError(f"trace file name {trace!r}: letters, digits, '.', '_' and '-' "
                             f"only")
        lines += [f"set tf [open {trace} w]", "$ns trace-all $tf"]
    if run.red is not None:
        r = run.red
        lines += ["Queue/RED set bytes_ false", "Queue/RED set queue_in_bytes_ false",
                  "Queue/RED set gentle_ false", f"Queue/RED set thresh_ {_num(r.min_th)}",
                  f"Queue/RED set maxthresh_ {_num(r.max_th)}",
                  f"Queue/RED set q_weight_ {_num(r.w_q)}",
                  f"Queue/RED set linterm_ {_num(1 / r.max_p)}"]
    for name in run.nodes:
        lines.append(f"set n({name}) [$ns node]")
    for ln in run.links:
        kind = "RED" if run.red is not None and (ln.a, ln.b) == (run.red.a, run.red.b) \
            else "DropTail"
        lines.append(f"$ns duplex-link $n({ln.a}) $n({ln.b}) {_num(ln.bandwidth)} "
                     f"{_num(ln.delay)} {kind}")
        lines.append(f"$ns queue-limit $n({ln.a}) $n({ln.b}) {int(ln.limit)}")
        lines.append(f"$ns queue-limit $n({ln.b}) $n({ln.a}) {int(ln.limit_back)}")
    cls = AGENTS[agent.agent].ns2_class
    lines += [f"set tcp [new {cls}]", "$tcp set fid_ 1"]
    for name in sorted(agent.params):
        if name not in AGENT_DEFAULTS:
            raise ValueError(f"unknown Agent/TCP variable {name!r}")
        lines.append(f"$tcp set {name} {_value(agent.params[name])}")
    sink = "Agent/TCPSink" + (f"/{agent.sink}" if agent.sink else "")
    lines += [f"set sink [new {sink}]", "$sink set fid_ 1"]
    for name in sorted(agent.sink_params):
        lines.append(f"$sink set {name} {_value(agent.sink_params[name])}")
    lines += [f"$ns attach-agent $n({run.src}) $tcp", f"$ns attach-agent $n({run.dst}) $sink",
              "$ns connect $tcp $sink", "set ftp [$tcp attach-app FTP]",
              '$ns at 0.0 "$ftp start"']
    for i, imp in enumerate(run.impairments):
        lines += _impairment(i, imp)
    if run.holdback is not None:
        lines += _holdback(run)
    lines += [
        "proc finish {} {",
        "    global tcp sink" + (" tf" if trace is not None else ""),
        *(["    flush $tf"] if trace is not None else []),
        f'    puts "{RESULT_TAG} ack=[$tcp set ack_] ndatapack=[$tcp set ndatapack_] '
        "nrexmitpack=[$tcp set nrexmitpack_] nrexmit=[$tcp set nrexmit_] "
        'ncwndcuts=[$tcp set ncwndcuts_] bytes=[$sink set bytes_]"',
        "    exit 0",
        "}",
        f'$ns at {_num(float(spec.duration))} "finish"',
        "$ns run", ""]
    return "\n".join(lines)


def _holdback(run: Ns2Run) -> list[str]:
    """[RDTCP]'s swaps as hold-backs (experiments.ns2.scenario.Holdback): CLASSES error models at
    the bottleneck's head, and a procedure that every packet time reads the queue's length
    from a QueueMonitor and sets the models' delays to that length's displacements (rates
    to 0 while fewer than two packets wait)."""
    hb = run.holdback
    shares = _shares(hb.rate, CLASSES)
    link = f"$n({hb.a}) $n({hb.b})"
    out = [f"set hbq [$ns monitor-queue {link} [open /dev/null w]]"]
    for w in range(2, hb.limit + 1):
        out.append(f"set hbd({w}) {{{' '.join(_num(d) for d in hb.classes(w))}}}")
    for k in range(CLASSES):
        out += [f"set hb{k} [new ErrorModel]", f"$hb{k} unit pkt", f"$hb{k} set rate_ 0",
                f"$hb{k} set delay_pkt_ true", f"$hb{k} set delay_ 0",
                f"set hbm{k} [new ErrorModule Fid]", f"$hbm{k} insert $hb{k}",
                f"$hbm{k} bind $hb{k} 1", f"$hbm{k} default pass",
                f"[$ns link {link}] errormodule $hbm{k}"]
    models = " ".join(f"$hb{k}" for k in range(CLASSES))
    out += [
        "set hb_last -1",
        "proc holdback_follow {k} {",
        "    global ns hbq hbd hb_last " + " ".join(f"hb{k}" for k in range(CLASSES)),
        "    set w [$hbq set pkts_]",
        f"    if {{$w > {hb.limit}}} {{ set w {hb.limit} }}",
        "    if {$w < 2} { set w 0 }",
        "    incr k",
        f'    $ns at [expr {{$k * {_num(hb.packet_time)}}}] "holdback_follow $k"',
        "    if {$w == $hb_last} { return }",
        "    set hb_last $w",
        f"    set models [list {models}]",
        "    if {$w < 2} {",
        "        foreach m $models { $m set rate_ 0 }",
        "    } else {",
        f"        foreach m $models d $hbd($w) r {{{' '.join(_num(r) for r in shares)}}} {{",
        "            $m set rate_ $r",
        "            $m set delay_ $d",
        "        }",
        "    }",
        "}",
        '$ns at 0.0 "holdback_follow 0"']
    return out


def _shares(rate: float, n: int) -> tuple[float, ...]:
    """Rates of a chain of n error models taking rate/n of the packets each (the k-th hits
    with (rate/n)/(1 - k rate/n) of those the earlier ones left alone)."""
    return tuple((rate / n) / (1 - k * rate / n) for k in range(n))


def _impairment(i: int, imp: Impairment) -> list[str]:
    """An error model in packets for flow 1 on link a -> b: before the queue in an error
    module of its own (ErrorModule Fid, at the link's head), or after the transmitter (the
    model spliced in behind the link's delay element, as insert-linkloss does)."""
    m = f"em{i}"
    out = [f"set {m} [new ErrorModel]", f"${m} unit pkt", f"${m} set rate_ {_num(imp.rate)}"]
    if imp.delay is not None:
        out += [f"${m} set delay_pkt_ true", f"${m} set delay_ {_num(imp.delay)}"]
    link = f"[$ns link $n({imp.a}) $n({imp.b})]"
    if imp.where == "head":
        # the module's other flows pass; a hit is dropped into the link's drop trace
        out += [f"set mod{i} [new ErrorModule Fid]", f"$mod{i} insert ${m}",
                f"$mod{i} bind ${m} 1", f"$mod{i} default pass", f"{link} errormodule $mod{i}"]
    else:
        if imp.delay is None:
            out.append(f"${m} drop-target [$ns set nullAgent_]")
        out += [f"set dl{i} [{link} link]", f"${m} target [$dl{i} target]",
                f"$dl{i} target ${m}"]
    return out
