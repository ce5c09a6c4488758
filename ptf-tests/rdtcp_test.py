"""PTF data-plane tests of the RD-TCP gateway (p4src/rdtcp.p4), target-agnostic.

Run through ptf-tests/run_ptf.py, which builds the veth pairs in a network namespace and starts
the switch (the embedded target's rdtcp-switch, or real simple_switch). Test parameters:

    target=embedded|bmv2     which switch runs (rdtcp-switch / simple_switch); simple_switch_CLI drives both
    thrift_port=9090
    control=thrift|p4runtime the tests' entries over simple_switch_CLI or P4Runtime (grpc_port=9559)
    epdn_entries=65536       the compiled program's EPDN_ENTRIES (collision test input selection)
    program=PATH             the BMv2 JSON the switch runs (configs are checked against it)

Groups: forwarding, epdn, impair, red, legacy, robustness (``ptf ... --test-dir ptf-tests epdn``).
The behaviours are the scenarios of rdtcp_scenarios.py; the library-mode pytest suite runs the
same scenarios on SimpleSwitch.process.
"""

from __future__ import annotations

import ptf
import ptf.testutils as testutils
from ptf.base_tests import BaseTest
from ptf.testutils import group, test_param_get

import rdtcp_scenarios as sc
from rdtcp_frames import TEST_CONFIG, checksums_ok, deep_merge

from controller import Bmv2Driver, Controller
from controller import names as n

CLI_OF_TARGET = {"embedded": "simple_switch_CLI", "bmv2": "simple_switch_CLI"}
PORTS = [sc.PORT_A, sc.PORT_R2, sc.PORT_ALT, sc.PORT_SMALL_MTU]


class GatewayTest(BaseTest):
    """Base: a controller on the switch under test, state reset, and the scenario harness."""

    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        target = test_param_get("target", "embedded")
        if target not in CLI_OF_TARGET:
            raise ValueError(f"test param target={target!r}: expected one of {sorted(CLI_OF_TARGET)}")
        program = test_param_get("program", None)
        if test_param_get("control", "thrift") == "p4runtime":
            # the entries over P4Runtime; the pipeline installed anew (P4Info beside the JSON)
            from pathlib import Path
            from controller.p4runtime_driver import P4RuntimeDriver
            driver = P4RuntimeDriver(f"127.0.0.1:{int(test_param_get('grpc_port', 9559))}",
                                     p4info=Path(program).with_suffix(".p4info.txt"),
                                     bmv2_json=program,
                                     thrift_port=int(test_param_get("thrift_port", 9090)))
            self.addCleanup(driver.close)
        else:
            driver = Bmv2Driver(int(test_param_get("thrift_port", 9090)),
                                cli=CLI_OF_TARGET[target])
        self.ctl = Controller(driver, program=program)
        self.epdn_entries = int(test_param_get("epdn_entries", 65536))
        self.ctl.reset_state()

    # -- table helpers (the controller's command language) ---------------------------------------
    def add_ipv4_lpm_entry(self, prefix: str, next_hop_mac: str, port: int) -> None:
        self.ctl.driver.run([f"table_add {n.IPV4_LPM} {n.IPV4_FORWARD} {prefix} => "
                             f"{next_hop_mac} {port}"])

    def add_l2_forward_entry(self, in_port: int, out_port: int) -> None:
        self.ctl.driver.run([f"table_add {n.L2_FORWARD} {n.L2_OUTPUT} {in_port} => {out_port}"])

    # -- the scenario harness --------------------------------------------------------------------
    def configure(self, delta: dict, *, base: dict = TEST_CONFIG) -> None:
        self.ctl.apply(deep_merge(base, delta))

    def send(self, port: int, pkt) -> None:
        testutils.send_packet(self, port, pkt)

    def expect(self, port: int, pkt) -> None:
        """The next frame out of ``port`` is exactly ``pkt``, with valid checksums."""
        result = testutils.dp_poll(self, device_number=0, port_number=port)
        if isinstance(result, self.dataplane.PollFailure):
            self.fail(f"expected a frame on port {port}, none arrived\n{result.format()}")
        got = bytes(result.packet)
        self.assertTrue(checksums_ok(got), f"bad checksum on port {port}: {got.hex()}")
        self.assertEqual(got.hex(), bytes(pkt).hex(), f"unexpected frame on port {port}")

    def received(self, port: int) -> list[bytes]:
        """Every frame arriving on ``port`` until none comes for a while, in order."""
        frames = []
        while True:
            result = testutils.dp_poll(self, device_number=0, port_number=port, timeout=0.5)
            if isinstance(result, self.dataplane.PollFailure):
                return frames
            got = bytes(result.packet)
            self.assertTrue(checksums_ok(got), f"bad checksum on port {port}: {got.hex()}")
            frames.append(got)

    def register_write(self, name: str, index: int, value: int) -> None:
        self.ctl.driver.run([f"register_write {name} {index} {value}"])

    def expect_none(self) -> None:
        testutils.verify_no_other_packets(self)

    def counters(self) -> dict:
        return self.ctl.report(ports=PORTS)

    def epdn_table(self) -> list[tuple[int, int]]:
        return [(e["lo"], e["hi"]) for e in self.ctl.epdn_entries()]


@group("forwarding")
class ForwardingTest(GatewayTest):
    """IPv4 LPM forwarding rewrites MACs and decrements the TTL."""
    def runTest(self):
        sc.forwarding_ttl(self)


@group("forwarding")
class TtlExpiredTest(GatewayTest):
    """A packet with TTL 1 is dropped and counted."""
    def runTest(self):
        sc.ttl_expired_dropped(self)


@group("forwarding")
class LpmMissTest(GatewayTest):
    """A destination without a route is dropped and counted."""
    def runTest(self):
        sc.lpm_miss_dropped(self)


@group("forwarding")
class LpmTableHelperTest(GatewayTest):
    """A route added with the table helper forwards by longest prefix."""
    def runTest(self):
        self.configure({})
        self.add_ipv4_lpm_entry("10.0.2.128/25", "00:00:00:00:00:0d", sc.PORT_ALT)
        self.send(sc.PORT_A, sc.a_to_b(1000, dst_ip="10.0.2.200"))
        self.expect(sc.PORT_ALT, sc.a_to_b_out(1000, dst_ip="10.0.2.200",
                                               dst_mac="00:00:00:00:00:0d"))
        self.send(sc.PORT_A, sc.a_to_b(1000, dst_ip="10.0.2.100"))
        self.expect(sc.PORT_R2, sc.a_to_b_out(1000, dst_ip="10.0.2.100"))
        self.expect_none()


@group("forwarding")
class Ipv4ChecksumTest(GatewayTest):
    """A corrupted IPv4 header (checksum mismatch) is discarded and counted (RFC 1812 §5.2.2)."""
    def runTest(self):
        sc.ipv4_header_checksum_verified(self)


@group("forwarding")
class NonTcpTest(GatewayTest):
    """UDP is routed unchanged otherwise and never impaired; ARP is bridged byte for byte."""
    def runTest(self):
        sc.non_tcp_untouched(self)


@group("forwarding")
class IpOptionsTest(GatewayTest):
    """IPv4 options survive forwarding and stamping."""
    def runTest(self):
        sc.ip_options_preserved(self)


@group("epdn")
class StampTest(GatewayTest):
    """Several drops then one forwarded data segment: exactly one stamp, right range, entry cleared."""
    def runTest(self):
        sc.stamp_after_drops(self)


@group("epdn")
class StampWrapTest(GatewayTest):
    """The recorded range follows sequence order across the 2^32 wrap."""
    def runTest(self):
        sc.stamp_range_wraps(self)


@group("epdn")
class MergeTest(GatewayTest):
    """An upstream stamp is merged with the local entry into one option."""
    def runTest(self):
        sc.merge_upstream_stamp(self)


@group("epdn")
class DroppedStampCarriedTest(GatewayTest):
    """A dropped stamped segment passes its range on to the next stamp ([RDTCP] §3)."""
    def runTest(self):
        sc.dropped_stamp_carried_on(self)


@group("epdn")
class EdgeStripTest(GatewayTest):
    """EPDN options arriving on an edge port are stripped; on a core port they are kept."""
    def runTest(self):
        sc.strip_on_edge_port(self)


@group("epdn")
class TwoForgedStampsTest(GatewayTest):
    """Two EPDN options from a host are both stripped; from a core port both are kept."""
    def runTest(self):
        sc.strip_two_forged_options(self)


@group("epdn")
class ThreeForgedStampsTest(GatewayTest):
    """Three EPDN options from a host are all stripped, at odd offsets too; other options stay."""
    def runTest(self):
        sc.strip_three_forged_options(self)


@group("epdn")
class NopThenForgedStampTest(GatewayTest):
    """An EPDN option after a NOP (or after other options) is stripped; the rest is kept."""
    def runTest(self):
        sc.strip_forged_option_after_nop(self)


@group("epdn")
class ForgedBytesInValuesTest(GatewayTest):
    """EPDN bytes inside an option value, after End of Option List or a bad length stay."""
    def runTest(self):
        sc.forged_option_bytes_inside_values_kept(self)


@group("epdn")
class EdgeFragmentTest(GatewayTest):
    """TCP fragments from hosts are dropped (trust boundary); from core ports they are routed."""
    def runTest(self):
        sc.edge_tcp_fragments_dropped(self)


@group("epdn")
class ForgedStampTest(GatewayTest):
    """A forged range from a host is never recorded."""
    def runTest(self):
        sc.forged_stamp_not_recorded(self)


@group("epdn")
class MtuRuleTest(GatewayTest):
    """No stamp past the egress MTU; the entry waits for a segment that fits."""
    def runTest(self):
        sc.mtu_rule(self)


@group("epdn")
class TrailerTest(GatewayTest):
    """Bytes after the IP datagram stay outside the TCP checksum when stripping, merging, stamping."""
    def runTest(self):
        sc.bytes_after_datagram_kept_outside_checksum(self)


@group("epdn")
class CollisionTest(GatewayTest):
    """Two flows in one slot: newest wins, the eviction is counted."""
    def runTest(self):
        sc.collision_policy(self)


@group("robustness")
class MalformedOptionsTest(GatewayTest):
    """Malformed and truncated TCP headers never crash the switch nor yield a corrupt packet."""
    def runTest(self):
        sc.malformed_options_safe(self)


@group("robustness")
class MalformedOptionAreasTest(GatewayTest):
    """Option areas the gateway does not parse are carried byte for byte; a full header defers."""
    def runTest(self):
        sc.malformed_option_areas_carried(self)


@group("red")
class RedDropCurveTest(GatewayTest):
    """RED drops nothing below min_th, everything above max_th, and in between by FJ's count."""
    def runTest(self):
        sc.red_drop_curve(self)


@group("impair")
class InjectedDropTest(GatewayTest):
    """Injected drops are counted by cause and recorded for EPDN."""
    def runTest(self):
        sc.injected_drops_counted(self)


@group("impair")
class RecirculationTest(GatewayTest):
    """A recirculated segment leaves once, intact, and is counted as a reordering."""
    def runTest(self):
        sc.recirculation_counted(self)


@group("impair")
class AlternatePortTest(GatewayTest):
    """A segment picked for the alternate path leaves by the alternate port and is counted."""
    def runTest(self):
        sc.alternate_port_counted(self)


@group("legacy")
class LegacyDropNotRecordedTest(GatewayTest):
    """A legacy router drops and counts, but records no drop and stamps no segment."""
    def runTest(self):
        sc.legacy_drops_not_recorded(self)


@group("legacy")
class LegacyOptionsPassTest(GatewayTest):
    """EPDN options and TCP fragments from a host pass a legacy router's edge port unchanged."""
    def runTest(self):
        sc.legacy_options_pass_edge_port(self)


@group("legacy")
class LegacyUpstreamStampTest(GatewayTest):
    """An upstream stamp passes a legacy router, and is lost with a segment it drops."""
    def runTest(self):
        sc.legacy_upstream_stamp_passes_or_is_lost(self)


@group("legacy")
class LegacyOffAgainTest(GatewayTest):
    """Configured back as a gateway, the switch records, stamps and strips again."""
    def runTest(self):
        sc.legacy_off_again_records_and_stamps(self)
