"""The host TCP engine: a sans-IO connection plus variant policies (docs/architecture.md §4)."""

from hosts.tcp.config import TcpConfig
from hosts.tcp.connection import TcpConnection, reset_for
from netbase.segment import Segment

__all__ = ["TcpConfig", "TcpConnection", "Segment", "reset_for"]
