# SPDX-License-Identifier: GPL-2.0
# cfq-iosched: two-layer CFQ for Linux 6.12.  See README.md.
#
#   make demo    install what is missing, build, boot, run RFC Test 1
#   make check   the tests (host unit tests, apply/build, VM tests)
#   make stress  the stress matrix on the debug kernel, 60 s per case
#   make bench   the seed matrix against every peer; report into docs/results/
#   make dynamic fairness over time, every peer; into docs/results/dynamic/
#   make bench-v2 cgroup v2, hierarchy, attribution; into docs/results/v2/
#   make series  the patch set as a git format-patch series against the
#                6.12 base, with a cover letter; into $(CACHE)/series/
#   make series-check  every patch of the series: git am, checkpatch
#                --strict, W=1 build of the lean kernel (make check does
#                the first and the last patch)
#   make deb     Debian packages of a kernel with cfq and of the udev rule
#                (CONFIG=/boot/config-... to start from, LOCALMODCONFIG=1
#                to trim it; default: the lean test config)
#   make deb-check  make deb, then boot the packaged kernel in the VM

PY := /usr/bin/python3
CACHE ?= $(HOME)/.cache/cfq-iosched
export CFQ_CACHE := $(CACHE)
export PYTHONPATH := $(CURDIR)/tests
export PYTHONDONTWRITEBYTECODE := 1

# `make bench`: the seed matrix (the RFC's and the 2008 threads'
# experiments) on the seed devices, every default peer, into
# docs/results/ (the table README's Results section shows).  The other
# devices of the experiment files (d32, two hardware queues, the emulated
# disk) are measured with BENCH_ARGS, e.g. BENCH_ARGS='--exp rfc-test1
# --profile d32'; their reports live under docs/results/issue17 and hdd.
BENCH_RUNTIME ?= 8
BENCH_RUNS ?= 1
BENCH_ARGS ?= --exp rfc-test1 --exp rfc-test2 --exp procs --exp dd \
	--exp partitions --exp dm-ioband \
	--profile d1-rot --profile d8 --profile part-d1-rot

# Seconds per stress case for `make stress` (`make check` runs 10).
STRESS_SECS ?= 60

# Repetitions for `make dynamic` (fairness over time, every peer).
DYNAMIC_RUNS ?= 1
DYNAMIC_ARGS ?= --peer none --peer bfq-ll0 --peer bfq-ll1 --peer cfq

# `make deb`: the config to start from (empty: the lean test config), and
# whether to trim it to the modules loaded here (make localmodconfig).
CONFIG ?=
LOCALMODCONFIG ?= 0

# `make bench-v2`: cgroup v2 and the hierarchy (issue 16), 3 runs.
V2_PEERS := --peer none --peer bfq-ll0 --peer bfq-ll1 --peer cfq --peer cfq-v2

.PHONY: all deps tree apply kernel demo check unit stress bench dynamic \
	bench-v2 series series-check deb deb-check

all: check

deps:
	@scripts/deps.sh

tree: deps
	@scripts/get-tree.sh

apply: deps
	@scripts/apply.sh

kernel: deps
	@scripts/build.sh lean

demo: deps
	scripts/bench.sh $(CACHE)/results/demo --exp rfc-test1 \
		--profile d1-rot --runtime 20 --seed-style \
		--report $(CACHE)/results/demo
	@echo "chart: $(CACHE)/results/demo/report.png"

check: deps
	$(PY) -m pytest -ra --durations=15 -m 'not deb' tests/host

unit:
	$(PY) -m pytest -ra -m 'not vm and not tree' tests/host

stress: deps
	CFQ_STRESS_SECS=$(STRESS_SECS) $(PY) -m pytest -ra tests/host/test_debug.py

bench: deps
	scripts/bench.sh $(CACHE)/results/bench --runs $(BENCH_RUNS) \
		--runtime $(BENCH_RUNTIME) --report docs/results $(BENCH_ARGS)

dynamic: deps
	scripts/bench.sh --dynamic $(CACHE)/results/dynamic \
		--runs $(DYNAMIC_RUNS) --report docs/results/dynamic $(DYNAMIC_ARGS)

bench-v2: deps
	scripts/bench.sh $(CACHE)/results/bench-v2 --runs 3 \
		--runtime $(BENCH_RUNTIME) --exp rfc-test1 --exp rfc-test2 \
		--exp hierarchy $(V2_PEERS) --report docs/results/v2
	scripts/bench.sh --attribution $(CACHE)/results/attribution --runs 3 \
		$(V2_PEERS) --report docs/results/v2/attribution

series: deps
	$(PY) scripts/series.py generate

series-check: deps
	$(PY) scripts/series.py check --every-step

deb: deps
	LOCALMODCONFIG=$(LOCALMODCONFIG) scripts/deb.sh $(CONFIG)

deb-check: deps
	$(PY) -m pytest -ra -m deb tests/host/test_deb.py
