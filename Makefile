# Spur: the two commands are `make demo` and `make test`.
# Both install what they need (scripts/setup.sh), then build.

CARGO ?= cargo

.PHONY: demo test lint build setup compat package test-upgrade bench bench-failover bench-flood bench-srun bench-sched sim clean conformance coverage fuzz

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --workspace --bins

demo: build
	bash scripts/demo.sh

# The code's own checks first: formatting (rustfmt.toml) and clippy with every
# warning an error, so a run that would not land stops in a minute, not after
# the end-to-end tests.
lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

test: lint build
	bash scripts/compat.sh
	$(CARGO) test --workspace
	bash scripts/fuzz.sh bounded
	python3 -m unittest discover -s conformance/tests
	python3 conformance/replay
	SPUR_PACKAGE_PROFILE=dev bash packaging/build.sh
	bash packaging/upgrade-test.sh

# .deb and .rpm packages in place of Slurm's, into target/package/ (a release
# build; cargo-deb, cargo-generate-rpm; lintian must find no error)
package: setup
	bash packaging/build.sh

# Debian's Slurm 22.05 replaced by these packages in a Debian 12 chroot, and
# back (packaging/upgrade-test.sh; make test runs it)
test-upgrade: package
	bash packaging/upgrade-test.sh

# libspur_compat under Slurm's library names, one per release:
# target/compat/24.11/libslurm.so.42 and target/compat/22.05/libslurm.so.38
compat: setup
	bash scripts/compat.sh

# every fuzz target for 10 minutes (FUZZ_SECS=N, scripts/fuzz.sh long N)
fuzz: setup
	bash scripts/fuzz.sh long $(FUZZ_SECS)

conformance: build
	python3 conformance/replay

# conformance/COVERAGE.md: Slurm's documented options/variables/subcommands/keys vs the
# recordings (checked by make test; rewrite it after recording or editing KNOWN_DIFFERENCES.md)
coverage:
	python3 conformance/coverage

bench: build
	bash bench/submit_squeue.sh

bench-failover: build
	BENCH_NO_BUILD=1 bash bench/failover.sh

bench-flood: build
	bash bench/flood.sh

# one scheduling pass with backfill on 10,000 nodes x 8 GPUs, 1k/10k/100k
# pending jobs (criterion); the last line is backfill_pass_ms=<10k x 100k>
bench-sched: setup
	$(CARGO) bench -p spur-sched --bench backfill

# the scheduling simulator (bench/sim/README.md): the real scheduling pass in
# virtual time, with and without backfill, on the UniLu Gaia trace of the
# Parallel Workloads Archive (51,987 jobs; 144 nodes x 14 CPUs) and on a
# generated trace of 10,000 jobs (seed 1; 32 nodes x 16 CPUs)
sim: setup
	bash bench/sim/fetch-trace.sh target/sim
	$(CARGO) run --release -p spur-sim -- --both --swf target/sim/UniLu-Gaia-2014-2.swf
	$(CARGO) run --release -p spur-sim -- --both --generate 10000 --seed 1

# parallel launch: srun -N1, -N2 -n8, a step in an allocation, -N100 (bench/srun.sh)
bench-srun: build
	BENCH_NO_BUILD=1 bash bench/srun.sh

clean:
	$(CARGO) clean
