"""Gateway configuration: load a TOML/JSON file (or a dict), validate it, return a GatewayConfig.

Every error is a ``ConfigError`` whose message starts with the dotted path of the offending field
(``ports.2.impair.drop_prob``) and says why. Unknown keys are errors, not ignored: a misspelt knob
must not silently leave an experiment unimpaired. The schema is documented in controller/README.md.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from controller.names import (DEFAULT_MAX_PORTS, DROP_PORT, IMPAIR_CODES, PATTERN_SLOTS,
                              RED_MAX_QUEUE, RED_W_Q_ONE)

__all__ = ["ConfigError", "GatewayConfig", "PortConfig", "Impairments", "RedConfig", "Route",
           "L2Link", "load_config"]

MAC_RE = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
MIN_MTU = 68          # RFC 791 §3.1: every IPv4 module must handle 68-byte datagrams
MAX_MTU = 65535
MAX_LIMIT = 1 << 20   # packets; the register is 32 bits, this catches unit mistakes (bytes)
U32 = (1 << 32) - 1


class ConfigError(ValueError):
    """A configuration is invalid; ``str(e)`` is ``"<field path>: <reason>"``."""

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}" if path else reason)


@dataclass(frozen=True)
class Route:
    prefix: str            # "10.0.2.0/24", normalised
    port: int
    next_hop_mac: str      # lower case


@dataclass(frozen=True)
class L2Link:
    in_port: int
    out_port: int


@dataclass(frozen=True)
class Impairments:
    drop_prob: float = 0.0
    recirc_prob: float = 0.0
    alt_prob: float = 0.0
    recirc_loops: int = 0
    alt_port: int | None = None
    pattern: tuple[int, ...] = ()      # slot values 0 pass, 1 drop, 2 recirc, 3 alt

    @property
    def active(self) -> bool:
        return bool(self.drop_prob or self.recirc_prob or self.alt_prob or self.pattern)


@dataclass(frozen=True)
class RedConfig:
    """Random Early Detection on a port (Floyd and Jacobson 1993; p4src/include/buffer.p4)."""
    min_th: float          # packets: below it the average queue drops nothing
    max_th: float          # packets: at or above it every arrival is dropped
    w_q: float             # the average's weight, in (0, 1]
    max_p: float           # the drop probability as the average reaches max_th, in [0, 1]


@dataclass(frozen=True)
class PortConfig:
    port: int
    edge: bool = False
    mtu: int | None = None             # None: the program's default (1500)
    buffer_limit: int = 0              # packets; 0 = unlimited
    tm_depth: int | None = None        # traffic-manager queue depth; None = derived
    queue_rate_pps: int | None = None  # set_queue_rate; None = unlimited
    impair: Impairments = field(default_factory=Impairments)
    red: RedConfig | None = None       # None: RED off (drop-tail only)
    sources: tuple[str, ...] = ()      # an edge port's allowed source prefixes; () = its routes'


@dataclass(frozen=True)
class GatewayConfig:
    name: str = "gateway"
    max_ports: int = DEFAULT_MAX_PORTS
    routes: tuple[Route, ...] = ()
    l2: tuple[L2Link, ...] = ()
    ports: Mapping[int, PortConfig] = field(default_factory=dict)
    legacy: bool = False               # a legacy router: no EPDN recording, stamping, stripping


# ------------------------------------------------------------------ loading
def load_config(source: str | Path | Mapping[str, Any]) -> GatewayConfig:
    """Read ``source`` (a .toml or .json path, or an already-parsed mapping) and validate it."""
    if isinstance(source, Mapping):
        return _gateway(source)
    path = Path(source)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError("", f"{path}: cannot read config ({e.strerror or e})") from None
    text = _utf8_text(raw, path)
    if path.suffix == ".json":
        _check_json_depth(text, path)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError("", f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
        except ValueError:          # an integer of thousands of digits (int_max_str_digits)
            raise ConfigError("", f"{path}: invalid JSON: {_TOO_LONG}") from None
    elif path.suffix == ".toml":
        try:
            import tomllib          # Python 3.11+; imported here so that the simulator's workers
        except ImportError:         # also run on older interpreters (PyPy 3.9) with dict configs
            raise ConfigError("", f"{path}: reading TOML needs Python 3.11 or later (tomllib); "
                                  "use a .json config with this interpreter") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError("", f"{path}: invalid TOML: {e}") from None
        except ValueError:          # an integer of thousands of digits (int_max_str_digits)
            raise ConfigError("", f"{path}: invalid TOML: {_TOO_LONG}") from None
        except RecursionError:      # tomllib recurses once per nested array or table
            raise ConfigError("", f"{path}: invalid TOML: nested too deeply") from None
    else:
        raise ConfigError("", f"{path}: unknown config format {path.suffix!r} (use .toml or .json)")
    if not isinstance(data, Mapping):
        raise ConfigError("", f"{path}: the top level must be a table/object")
    return _gateway(data)


# what Python refuses to read as an int: a config's largest value has ten digits
_TOO_LONG = "a number too long to read (thousands of digits)"

# a gateway config nests a few levels; json.loads recurses once per level and fails with a
# RecursionError (a traceback, not a message) somewhere near a thousand
MAX_JSON_DEPTH = 100


def _utf8_text(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise ConfigError("", f"{path}:{line}:{col}: byte 0x{raw[e.start]:02x} is not UTF-8: a "
                              f"config is text (is this a binary file?)") from None


def _check_json_depth(text: str, path: Path) -> None:
    """Refuse JSON nested deeper than MAX_JSON_DEPTH, where it first goes past it."""
    depth, in_string, escaped, line, col = 0, False, False, 1, 0
    for c in text:
        col += 1
        if c == "\n":
            line, col = line + 1, 0
        elif in_string:
            escaped, in_string = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ConfigError("", f"{path}:{line}:{col}: invalid JSON: nested more than "
                                      f"{MAX_JSON_DEPTH} levels deep")
        elif c in "]}":
            depth -= 1


# ------------------------------------------------------------------ field checkers
def _check_keys(data: Mapping[str, Any], path: str, allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            where = f"{path}.{key}" if path else str(key)
            raise ConfigError(where, f"unknown key (allowed: {', '.join(allowed)})")


def _table(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(path, f"expected a table, got {type(value).__name__}")
    return value


def _int(value: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(path, f"expected an integer, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(path, f"{value} out of range {lo}..{hi}")
    return value


def _port(value: Any, path: str, max_ports: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(path, f"expected a port number, got {value!r}")
    if not 0 <= value < max_ports:
        raise ConfigError(path, f"port {value} out of range 0..{max_ports - 1} "
                                f"(the program's MAX_PORTS is {max_ports})")
    if value == DROP_PORT:
        # v1model: egress_spec 511 means "drop" (simple_switch's default drop port), so a route,
        # link or knob naming it would silently discard traffic instead of forwarding it.
        raise ConfigError(path, f"port {value} is v1model's drop port, not a switch port")
    return value


def _prob(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(path, f"expected a probability, got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ConfigError(path, f"probability {value} out of range 0..1")
    return float(value)


def _mac(value: Any, path: str) -> str:
    if not isinstance(value, str) or not MAC_RE.match(value):
        raise ConfigError(path, f"expected a MAC address like 00:00:00:00:02:02, got {value!r}")
    return value.lower()


def _prefix(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(path, f"expected an IPv4 prefix like 10.0.2.0/24, got {value!r}")
    try:
        net = ipaddress.IPv4Network(value if "/" in value else value + "/32", strict=True)
    except ValueError as e:
        raise ConfigError(path, f"invalid IPv4 prefix {value!r}: {e}") from None
    return str(net)


# ------------------------------------------------------------------ sections
def _gateway(data: Mapping[str, Any]) -> GatewayConfig:
    _check_keys(data, "", ("name", "max_ports", "legacy", "routes", "l2", "ports"))
    name = data.get("name", "gateway")
    if not isinstance(name, str) or not name:
        raise ConfigError("name", f"expected a non-empty string, got {name!r}")
    max_ports = _int(data.get("max_ports", DEFAULT_MAX_PORTS), "max_ports", 1, 512)
    if max_ports & (max_ports - 1):
        raise ConfigError("max_ports", f"{max_ports} is not a power of two (the program indexes "
                                       "per-port registers with port & (MAX_PORTS - 1))")
    routes = tuple(_route(r, f"routes[{i}]", max_ports)
                   for i, r in enumerate(_list(data.get("routes", []), "routes")))
    _no_duplicate_prefixes(routes)
    l2 = tuple(_l2(x, f"l2[{i}]", max_ports) for i, x in enumerate(_list(data.get("l2", []), "l2")))
    _no_duplicate_in_ports(l2)
    ports = _ports(data.get("ports", {}), max_ports)
    legacy = data.get("legacy", False)
    if not isinstance(legacy, bool):
        raise ConfigError("legacy", f"expected true or false, got {legacy!r}")
    if legacy:
        _nothing_a_legacy_router_ignores(ports)
    return GatewayConfig(name=name, max_ports=max_ports, routes=routes, l2=l2, ports=ports,
                         legacy=legacy)


def _nothing_a_legacy_router_ignores(ports: Mapping[int, PortConfig]) -> None:
    """A legacy router ([RDTCP] §7: not upgraded to RD-TCP) strips no EPDN option and inserts no
    stamp, so a port's ``edge`` (the trust boundary) and ``mtu`` (the stamping rule) would not
    act: a config naming them says something the switch will not do."""
    for number in sorted(ports):
        pc = ports[number]
        if pc.edge:
            raise ConfigError(f"ports.{number}.edge", "a legacy router (legacy = true) strips no "
                                                      "EPDN option: leave edge out")
        if pc.mtu is not None:
            raise ConfigError(f"ports.{number}.mtu", "the MTU rule governs EPDN stamps, which a "
                                                     "legacy router (legacy = true) never inserts: "
                                                     "leave mtu out")


def _list(value: Any, path: str) -> list:
    if not isinstance(value, list):
        raise ConfigError(path, f"expected a list, got {type(value).__name__}")
    return value


def _route(value: Any, path: str, max_ports: int) -> Route:
    t = _table(value, path)
    _check_keys(t, path, ("prefix", "port", "next_hop_mac"))
    for key in ("prefix", "port", "next_hop_mac"):
        if key not in t:
            raise ConfigError(f"{path}.{key}", "missing")
    return Route(prefix=_prefix(t["prefix"], f"{path}.prefix"),
                 port=_port(t["port"], f"{path}.port", max_ports),
                 next_hop_mac=_mac(t["next_hop_mac"], f"{path}.next_hop_mac"))


def _no_duplicate_prefixes(routes: tuple[Route, ...]) -> None:
    seen: dict[str, int] = {}
    for i, r in enumerate(routes):
        if r.prefix in seen:
            raise ConfigError(f"routes[{i}].prefix",
                              f"{r.prefix} already routed by routes[{seen[r.prefix]}]")
        seen[r.prefix] = i


def _l2(value: Any, path: str, max_ports: int) -> L2Link:
    t = _table(value, path)
    _check_keys(t, path, ("in_port", "out_port"))
    for key in ("in_port", "out_port"):
        if key not in t:
            raise ConfigError(f"{path}.{key}", "missing")
    return L2Link(in_port=_port(t["in_port"], f"{path}.in_port", max_ports),
                  out_port=_port(t["out_port"], f"{path}.out_port", max_ports))


def _no_duplicate_in_ports(links: tuple[L2Link, ...]) -> None:
    """l2_forward matches the ingress port exactly: a second link from one port is a second
    entry with the same key, which the switch refuses."""
    seen: dict[int, int] = {}
    for i, link in enumerate(links):
        if link.in_port in seen:
            raise ConfigError(f"l2[{i}].in_port",
                              f"port {link.in_port} already bridged by l2[{seen[link.in_port]}]")
        seen[link.in_port] = i


def _ports(value: Any, max_ports: int) -> dict[int, PortConfig]:
    t = _table(value, "ports")
    out: dict[int, PortConfig] = {}
    for key, body in t.items():
        path = f"ports.{key}"
        try:
            number = int(key)
        except (TypeError, ValueError):
            raise ConfigError(path, "port keys must be port numbers") from None
        number = _port(number, path, max_ports)
        if number in out:
            raise ConfigError(path, f"port {number} configured twice")
        out[number] = _port_config(number, _table(body, path), path, max_ports)
    return out


def _port_config(port: int, t: Mapping[str, Any], path: str, max_ports: int) -> PortConfig:
    _check_keys(t, path, ("edge", "mtu", "buffer_limit", "tm_depth", "queue_rate_pps", "impair",
                          "red", "sources"))
    edge = t.get("edge", False)
    if not isinstance(edge, bool):
        raise ConfigError(f"{path}.edge", f"expected true or false, got {edge!r}")
    sources = _sources(t["sources"], f"{path}.sources", edge) if "sources" in t else ()
    mtu = t.get("mtu")
    if mtu is not None:
        mtu = _int(mtu, f"{path}.mtu", MIN_MTU, MAX_MTU)
    limit = _int(t.get("buffer_limit", 0), f"{path}.buffer_limit", 0, MAX_LIMIT)
    depth = t.get("tm_depth")
    if depth is not None:
        depth = _int(depth, f"{path}.tm_depth", 1, MAX_LIMIT)
        if limit and depth <= limit:
            raise ConfigError(f"{path}.tm_depth", f"{depth} must exceed buffer_limit {limit}: the "
                              "program, not the traffic manager, must make every congestion drop")
    rate = t.get("queue_rate_pps")
    if rate is not None:
        rate = _int(rate, f"{path}.queue_rate_pps", 1, U32)
    impair = _impairments(t.get("impair", {}), f"{path}.impair", max_ports, port)
    red = None if t.get("red") is None else _red(t["red"], f"{path}.red", limit)
    return PortConfig(port=port, edge=edge, mtu=mtu, buffer_limit=limit, tm_depth=depth,
                      queue_rate_pps=rate, impair=impair, red=red, sources=sources)


MAX_SOURCES = 256    # prefixes per edge port (the program's edge_source table holds 1024)


def _sources(value: Any, path: str, edge: bool) -> tuple[str, ...]:
    """The source prefixes an edge port's hosts may use (BCP 38): a non-empty list of IPv4
    prefixes, each once."""
    if not edge:
        raise ConfigError(path, "only an edge port checks source addresses: set edge = true")
    items = _list(value, path)
    if not items:
        raise ConfigError(path, "an empty list would drop everything the port's hosts send; "
                                "leave sources out to allow the prefixes routed out of the port")
    if len(items) > MAX_SOURCES:
        raise ConfigError(path, f"{len(items)} prefixes, at most {MAX_SOURCES}")
    out: list[str] = []
    for i, item in enumerate(items):
        prefix = _prefix(item, f"{path}[{i}]")
        if prefix in out:
            raise ConfigError(f"{path}[{i}]", f"{prefix} is listed twice")
        out.append(prefix)
    return tuple(out)


def _number(value: Any, path: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(path, f"expected a number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(path, f"{value} out of range {lo:g}..{hi:g}")
    return float(value)


def _red(value: Any, path: str, buffer_limit: int) -> RedConfig:
    """Floyd and Jacobson's parameters (1993, §4 and §11). Thresholds are packets; the program
    keeps the average in 1/65536 packets and w_q in 1/2^24 (p4src/include/buffer.p4)."""
    t = _table(value, path)
    keys = ("min_th", "max_th", "w_q", "max_p")
    _check_keys(t, path, keys)
    for key in keys:
        if key not in t:
            raise ConfigError(f"{path}.{key}", "missing")
    min_th = _number(t["min_th"], f"{path}.min_th", 0, RED_MAX_QUEUE)
    max_th = _number(t["max_th"], f"{path}.max_th", 0, RED_MAX_QUEUE)
    if max_th < min_th + 1:
        raise ConfigError(f"{path}.max_th", f"{max_th:g} must exceed min_th {min_th:g} by at least "
                                            "one packet")
    if buffer_limit and max_th > buffer_limit:
        raise ConfigError(f"{path}.max_th", f"{max_th:g} is above the port's buffer_limit "
                                            f"{buffer_limit}: the buffer drops first")
    w_q = t["w_q"]
    if isinstance(w_q, bool) or not isinstance(w_q, (int, float)) or not 0 < w_q <= 1:
        raise ConfigError(f"{path}.w_q", f"expected a weight in (0, 1], got {w_q!r}")
    if round(w_q * RED_W_Q_ONE) < 1:
        raise ConfigError(f"{path}.w_q", f"{w_q:g} is below the program's resolution 2^-24")
    max_p = _number(t["max_p"], f"{path}.max_p", 0, 1)
    return RedConfig(min_th=min_th, max_th=max_th, w_q=float(w_q), max_p=max_p)


def _impairments(value: Any, path: str, max_ports: int, port: int) -> Impairments:
    t = _table(value, path)
    _check_keys(t, path, ("drop_prob", "recirc_prob", "alt_prob", "recirc_loops", "alt_port",
                          "pattern"))
    pattern = _pattern(t.get("pattern", ()), f"{path}.pattern")
    imp = Impairments(
        drop_prob=_prob(t.get("drop_prob", 0.0), f"{path}.drop_prob"),
        recirc_prob=_prob(t.get("recirc_prob", 0.0), f"{path}.recirc_prob"),
        alt_prob=_prob(t.get("alt_prob", 0.0), f"{path}.alt_prob"),
        recirc_loops=_int(t.get("recirc_loops", 0), f"{path}.recirc_loops", 0, 255),
        alt_port=(None if t.get("alt_port") is None
                  else _port(t["alt_port"], f"{path}.alt_port", max_ports)),
        pattern=pattern,
    )
    if (imp.recirc_prob or IMPAIR_CODES["recirc"] in pattern) and imp.recirc_loops == 0:
        raise ConfigError(f"{path}.recirc_loops", "must be >= 1 when packets are recirculated")
    if (imp.alt_prob or IMPAIR_CODES["alt"] in pattern) and imp.alt_port is None:
        raise ConfigError(f"{path}.alt_port", "missing: alternate-port reordering needs a port")
    if imp.alt_port == port:
        raise ConfigError(f"{path}.alt_port", f"{port} is the port itself: an alternate path "
                                              "must be another port")
    # The program takes the pattern *instead of* the probabilities (p4src/README.md): a config
    # with both would silently run without the probabilities it names.
    if pattern and (imp.drop_prob or imp.recirc_prob or imp.alt_prob):
        raise ConfigError(f"{path}.pattern", "a pattern replaces the port's drop_prob, "
                                             "recirc_prob and alt_prob: set one or the other")
    return imp


def _pattern(value: Any, path: str) -> tuple[int, ...]:
    """A list of slot names ("pass", "drop", "recirc", "alt") or a string of ".DRA" codes."""
    if isinstance(value, str):
        items: list[Any] = list(value)
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ConfigError(path, f"expected a list of pass/drop/recirc/alt or a string of "
                                f"'.DRA' codes, got {value!r}")
    if len(items) > PATTERN_SLOTS:
        raise ConfigError(path, f"{len(items)} slots, at most {PATTERN_SLOTS}")
    codes = []
    for i, item in enumerate(items):
        if not isinstance(item, str) or item not in IMPAIR_CODES:
            raise ConfigError(f"{path}[{i}]", f"unknown slot {item!r} "
                                              "(pass, drop, recirc, alt or . D R A)")
        codes.append(IMPAIR_CODES[item])
    return tuple(codes)
