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
# the suite is XCTest only, so Swift Testing's empty run is skipped. Afterwards, passed or
# failed, no process started from the build folders may still run: the check names and kills
# any that does, and fails.
test: deps
	$(SWIFT) build --build-tests
	@status=0; $(SWIFT) test --skip-build --disable-swift-testing || status=$$?; \
	bash scripts/check-no-leftovers.sh || status=1; exit $$status

bench: deps
	$(SWIFT) build -c release --product BatonBench
	$(SWIFT) run -c release --skip-build BatonBench $(BENCH_ARGS)

clean:
	rm -rf .build
