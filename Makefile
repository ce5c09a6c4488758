# RD-TCP lab. `make run` sets up and reproduces RD-TCP's Figures 1-4; `make test` runs the tests,
# `make check` a two-minute smoke test.
#
# Everything runs in a virtual environment inside the checkout (.venv/), made with the first
# python3 on PATH (3.11 or newer): Debian's own python3 refuses `pip install` outside one (PEP 668).
SYSTEM_PYTHON ?= python3
VENV ?= .venv
PYTHON := $(VENV)/bin/python
# python3-venv: Debian's python3 needs it for `python3 -m venv` (ensurepip); ethtool: live runs
# with Linux's TCP turn segmentation offloads off
APT_PACKAGES := iproute2 tshark python3-venv ethtool
# optional: the sweeps run in PyPy workers when it is there (2-5x faster), else on CPython;
# live runs build the network with Mininet when it is there, else with plain ip netns;
# ns-2 (ns2, and its validation suites in ns2-examples) is the outside reference for TCP
# (experiments.ns2_conformance, experiments.ns2_runs): without it those comparisons skip;
# rdtcp-switch runs under PyPy too when it is there; tcpreplay is bench_switch_process's
# overload sender (without it a Python sender, slower than the switch under PyPy); libns3-dev
# and g++ build bench_sim.py --against's ns-3 program (without them that column is skipped)
APT_OPTIONAL := pypy3 mininet ns2 ns2-examples tcpreplay libns3-dev g++
MODE ?= full
# make run SCHEDULER=tcp://HOST:8786 (or local:N): the runs as tasks on a Dask cluster
# (experiments/CLUSTER.md); empty: this machine's own worker processes
SCHEDULER ?=
RRTCP_MODE ?= quick
# more options of experiments.rrtcp_figures, e.g. RRTCP_FLAGS=--sweep-57 ([RRTCP] §5.7's sweep, full
# mode only) or --resume
RRTCP_FLAGS ?=
FRTO_MODE ?= quick
DBCE_MODE ?= quick
NETRENO_MODE ?= quick
JOBS ?= $(shell nproc)
P4C ?= $(PYTHON) -m toolchain.compiler.driver
# the stamp records that the venv holds the project as pyproject.toml describes it, so a second
# `make deps` reinstalls nothing unless pyproject.toml changed
VENV_STAMP := $(VENV)/.installed
# every target runs with the venv first on PATH, so its rdtcp-* commands and python are the ones used
export PATH := $(abspath $(VENV))/bin:$(PATH)

# the tests run in parallel, one pytest-xdist worker per core; then those marked 'serial' (network
# namespaces, veths, fixed ports, real time: tests/conftest.py), one at a time with the machine
# to themselves. `make test` leaves out those marked 'slow' (the reproduction checks on quick
# sweeps, minutes of CPU each); `make test-all` runs them too.
TEST_JOBS ?= $(JOBS)
PYTEST_PARALLEL = -n $(TEST_JOBS) --dist loadgroup
# the tests start hundreds of Python processes (the rdtcp-* commands, simple_switch_CLI, the
# runners) and each pytest process collects every test module: with bytecode cached (in build/,
# also where PYTHONDONTWRITEBYTECODE is set, as .ci/run does) a module is compiled and its
# asserts rewritten once per run, not once per process (about a third of the suite's CPU time)
PYTEST_ENV = PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(abspath build)/pycache
# `make test` runs the PTF suite whole on the switch process (tests/gateway/test_ptf_suite.py):
# `make check`'s one PTF group (tests/test_smoke.py) would run a part of it again
TEST_COVERED = --deselect tests/test_smoke.py::test_one_ptf_group_on_the_switch_process
TEST_SELECT = and not slow
TEST_NAME = test
# benchmarks that need nothing but .venv/; bench-live: those that need root and build namespaces
BENCH_LIVE := bench/bench_live.py bench/bench_switch_process.py
BENCH := $(filter-out $(BENCH_LIVE),$(sort $(wildcard bench/bench_*.py)))
# bench_sim.py's goal is PyPy's: time the scenario under it too when it is installed
PYPY := $(shell command -v pypy3 2>/dev/null)

.PHONY: help deps apt-deps test test-all test-slow test-fast check ptf run run-quick run-rrtcp run-frto run-dbce run-netreno live bench bench-live build clean

help:
	@echo "make deps       system packages (apt, when root) and .venv/ with the project and its test extras"
	@echo "make run        deps + reproduce RD-TCP Figures 1-4 (MODE=full|quick) into results/"
	@echo "make run-quick  the same in quick mode (60 s transfers, fewer points; a few minutes)"
	@echo "make run-rrtcp  deps + reproduce RR-TCP [RRTCP] Figures 1, 4-19 and Tables 3-4, each statement checked in"
	@echo "                paper_table.md (RRTCP_MODE=quick|full; RRTCP_MODE=full RRTCP_FLAGS=--sweep-57: the"
	@echo "                section 5.7 sweep) into results/rrtcp/"
	@echo "make run-frto   deps + reproduce F-RTO [FRTO] Tables 1-3, Figures 6-9 (FRTO_MODE=quick|full) into results/frto/"
	@echo "make run-dbce   deps + [TCPDEBUG] ch. 4-5: delay-based estimators (LPA/FPA) and the RTO replay (DBCE_MODE=quick|full) into results/dbce/"
	@echo "make run-netreno deps + reproduce Net Reno [NETRENO] Tables 1-3, Figure 1 with RED in the P4 gateway (NETRENO_MODE=quick|full) into results/netreno/"
	@echo "make test       deps + the tests (unit, STF conformance, PTF on the embedded target, mypy over hosts/),"
	@echo "                in parallel, then the serial ones; as root it creates (and removes) network namespaces and veths"
	@echo "make test-all   the same with the reproduction checks on quick sweeps (marked slow) too"
	@echo "make test-slow  only those reproduction checks (CI: make test, then make test-slow)"
	@echo "make test-fast  the tests without reinstalling, stopping at the first failure"
	@echo "make check      deps + a smoke test in under 2 minutes: the gateway compiled, one STF program,"
	@echo "                one PTF group (root), one short simulated run of each paper"
	@echo "make ptf        the PTF data-plane suite on the embedded switch (root: makes a network namespace)"
	@echo "make live       one real-time run of the paper dumbbell on network namespaces (root; experiments/LIVE.md)"
	@echo "make bench      the benchmarks that need no root: figures, commands, each goal met or NOT MET"
	@echo "make bench-live the live benchmarks (root: network namespaces, veths, switch processes)"
	@echo "make build      compile p4src/rdtcp.p4 to build/rdtcp.json and its P4Info build/rdtcp.p4info.txt"
	@echo "make clean      remove build/, results/, run/ and caches (keeps .venv/; rm -rf .venv to redo it)"

deps: apt-deps $(VENV_STAMP)

apt-deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi; \
	  for p in $(APT_OPTIONAL); do dpkg -s $$p >/dev/null 2>&1 || \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p; } || \
	    echo "deps: optional $$p not installed (pypy3: runs and rdtcp-switch use CPython; mininet: plain ip netns; ns2: the ns-2 comparisons skip; tcpreplay: a Python sender overloads the switch)"; done; \
	else echo "deps: not root or no apt-get; install $(APT_PACKAGES) (and optionally $(APT_OPTIONAL)) yourself if tests need them"; fi

$(VENV_STAMP): pyproject.toml
	@$(SYSTEM_PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "deps: $(SYSTEM_PYTHON) is Python %d.%d; the project needs 3.11 or newer (set SYSTEM_PYTHON=...)" % sys.version_info[:2])'
	@[ -x $(PYTHON) ] || $(SYSTEM_PYTHON) -m venv $(VENV)
	$(PYTHON) -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

build: build/rdtcp.json build/rdtcp.p4info.txt
# one compilation writes both (a grouped target: either missing runs it)
build/rdtcp.json build/rdtcp.p4info.txt &: $(VENV_STAMP) p4src/rdtcp.p4 $(wildcard p4src/include/*.p4) $(shell find toolchain/compiler -name "*.py")
	@mkdir -p build
	$(P4C) p4src/rdtcp.p4 -o build/rdtcp.json --p4runtime-files build/rdtcp.p4info.txt

test: deps
	@# pytest's status 5 is "no test selected" (no serial test among the slow ones): not a failure
	@[ "$$(id -u)" != 0 ] || echo "make $(TEST_NAME): as root, the tests marked serial create network namespaces and veth pairs (and remove them)"
	@$(PYTEST_ENV) $(PYTHON) -m pytest -q $(PYTEST_PARALLEL) -m "not serial $(TEST_SELECT)"; parallel=$$?; \
	echo "make $(TEST_NAME): the tests marked serial, one at a time"; \
	$(PYTEST_ENV) $(PYTHON) -m pytest -q -p no:xdist -m "serial $(TEST_SELECT)" $(TEST_COVERED); serial=$$?; \
	[ $$parallel != 5 ] || parallel=0; [ $$serial != 5 ] || serial=0; \
	exit $$(( parallel ? parallel : serial ))

test-all: TEST_SELECT =
test-all: TEST_NAME = test-all
test-all: test

# only the reproduction checks that `make test` leaves out (CI runs `make test`, then this)
test-slow: TEST_SELECT = and slow
test-slow: TEST_NAME = test-slow
test-slow: test

test-fast: $(VENV_STAMP)
	$(PYTEST_ENV) $(PYTHON) -m pytest -q -x $(PYTEST_PARALLEL) -m "not serial $(TEST_SELECT)"
	$(PYTEST_ENV) $(PYTHON) -m pytest -q -x -p no:xdist -m "serial $(TEST_SELECT)" $(TEST_COVERED)

check: deps
	$(PYTEST_ENV) $(PYTHON) -m pytest -q $(PYTEST_PARALLEL) tests/test_smoke.py

ptf: deps
	$(PYTHON) ptf-tests/run_ptf.py

run: deps
	$(PYTHON) -m experiments.rdtcp_figures --mode $(MODE) --jobs $(JOBS) --out results/ $(if $(SCHEDULER),--scheduler $(SCHEDULER))

run-quick:
	$(MAKE) run MODE=quick

run-rrtcp: deps
	$(PYTHON) -m experiments.rrtcp_figures --mode $(RRTCP_MODE) --jobs $(JOBS) --out results/rrtcp/ $(RRTCP_FLAGS)

run-frto: deps
	$(PYTHON) -m experiments.frto_tables --mode $(FRTO_MODE) --jobs $(JOBS) --out results/frto/

run-dbce: deps
	$(PYTHON) -m experiments.dbce_tables --mode $(DBCE_MODE) --jobs $(JOBS) --out results/dbce/

run-netreno: deps
	$(PYTHON) -m experiments.netreno_tables --mode $(NETRENO_MODE) --jobs $(JOBS) --out results/netreno/

live: deps build
	$(PYTHON) -m experiments.live_run --variant rdtcp --duration 20 --out results/live/

bench: $(VENV_STAMP)
	@echo "make bench: the benchmarks that need no root ($(BENCH_LIVE): make bench-live)"
	@for b in $(BENCH); do echo "== $$b"; \
	  case $$b in */bench_sim.py) extra="$(if $(PYPY),--python $(PYPY))";; *) extra="";; esac; \
	  $(PYTHON) $$b $$extra || exit 1; done
	@echo "== bench/bench_sim.py --against ns2,ns3"; \
	  $(PYTHON) bench/bench_sim.py --against ns2,ns3 $(if $(PYPY),--python $(PYPY))

bench-live: $(VENV_STAMP)
	@[ "$$(id -u)" = 0 ] || { echo "make bench-live: needs root (network namespaces, veth pairs, AF_PACKET sockets)"; exit 2; }
	@echo "make bench-live: live benchmarks; they create network namespaces, veth pairs and switch processes, and remove them"
	@for b in $(BENCH_LIVE); do echo "== $$b"; $(PYTHON) $$b || exit 1; done

clean:
	rm -rf build results run .pytest_cache .hypothesis .mypy_cache
