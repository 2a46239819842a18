# Spur: the two commands are `make demo` and `make test`.
# Both install what they need (scripts/setup.sh), then build.

CARGO ?= cargo

.PHONY: demo test build setup bench bench-failover clean conformance

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --workspace --bins

demo: build
	bash scripts/demo.sh

test: build
	$(CARGO) test --workspace
	python3 -m unittest discover -s conformance/tests
	python3 conformance/replay

conformance: build
	python3 conformance/replay

bench: build
	bash bench/submit_squeue.sh

bench-failover: build
	BENCH_NO_BUILD=1 bash bench/failover.sh

clean:
	$(CARGO) clean
