# RD-TCP lab. `make run` sets up and reproduces RD-TCP's Figures 1-4; `make test` runs the tests.
PYTHON ?= python3
APT_PACKAGES := iproute2 tshark
# optional: the sweeps run in PyPy workers when it is there (2-5x faster), else on CPython;
# live runs build the network with Mininet when it is there, else with plain ip netns
APT_OPTIONAL := pypy3 mininet
MODE ?= full
RRTCP_MODE ?= quick
FRTO_MODE ?= quick
JOBS ?= $(shell nproc)
P4C ?= $(PYTHON) -m toolchain.compiler.driver

.PHONY: help deps test test-fast ptf run run-quick run-rrtcp live bench build clean

help:
	@echo "make deps       install system packages (apt, when root) and the Python package with test extras"
	@echo "make run        deps + reproduce RD-TCP Figures 1-4 (MODE=full|quick) into results/"
	@echo "make run-rrtcp  deps + reproduce RR-TCP (seed 000) Figures 4-5 (RRTCP_MODE=quick|full) into results/rrtcp/"
	@echo "make run-frto   deps + reproduce F-RTO (seed 001) Tables 1-3, Figures 6-8 (FRTO_MODE=quick|full) into results/frto/"
	@echo "make test       deps + every test (unit, STF conformance, PTF on the embedded target)"
	@echo "make live       one real-time run of the paper dumbbell on network namespaces (root; experiments/LIVE.md)"
	@echo "make bench      print the benchmarks' figures and the commands that produced them"
	@echo "make build      compile p4src/rdtcp.p4 to build/rdtcp.json with the project's front end"

deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi; \
	  for p in $(APT_OPTIONAL); do dpkg -s $$p >/dev/null 2>&1 || \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p; } || \
	    echo "deps: optional $$p not installed; runs use $(PYTHON) instead"; done; \
	else echo "deps: not root or no apt-get; install $(APT_PACKAGES) (and optionally $(APT_OPTIONAL)) yourself if tests need them"; fi
	$(PYTHON) -m pip install -q -e '.[test]'

build: build/rdtcp.json
build/rdtcp.json: p4src/rdtcp.p4 $(wildcard p4src/include/*.p4) $(shell find toolchain/compiler -name "*.py")
	@mkdir -p build
	$(P4C) p4src/rdtcp.p4 -o $@

test: deps
	$(PYTHON) -m pytest -q

test-fast:
	$(PYTHON) -m pytest -q -x

run: deps
	$(PYTHON) -m experiments.rdtcp_figures --mode $(MODE) --jobs $(JOBS) --out results/

run-quick:
	$(MAKE) run MODE=quick

run-rrtcp: deps
	$(PYTHON) -m experiments.rrtcp_figures --mode $(RRTCP_MODE) --jobs $(JOBS) --out results/rrtcp/

.PHONY: run-frto
run-frto: deps
	$(PYTHON) -m experiments.frto_tables --mode $(FRTO_MODE) --jobs $(JOBS) --out results/frto/

live: deps build
	$(PYTHON) -m experiments.live_run --variant rdtcp --duration 20 --out results/live/

bench:
	@for b in bench/bench_*.py; do echo "== $$b"; $(PYTHON) $$b || exit 1; done

clean:
	rm -rf build results .pytest_cache .hypothesis
