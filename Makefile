# Every target installs the Debian packages it needs first (scripts/install-deps.sh).
SWIFT ?= swift

.PHONY: deps build demo test bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

demo: build
	@bash scripts/demo.sh "$$($(SWIFT) build --show-bin-path)"

# XCTest runs on the process's main thread, where the GLib loop can drive the main actor;
# the suite is XCTest only, so Swift Testing's empty run is skipped.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

bench: deps
	$(SWIFT) build -c release --product BatonBench
	$(SWIFT) run -c release --skip-build BatonBench $(BENCH_ARGS)

clean:
	rm -rf .build
