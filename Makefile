# Every target installs the Debian packages it needs first (scripts/install-deps.sh).
SWIFT ?= swift

.PHONY: deps build demo test docs docs-coverage fuzz bench release install uninstall deb install-examples clean

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

demo: build
	@bash scripts/demo.sh "$$($(SWIFT) build --show-bin-path)"

# XCTest runs on the process's main thread, where the GLib loop can drive the main actor;
# the suite is XCTest only, so Swift Testing's empty run is skipped. Afterwards, passed or
# failed, no process started from the build folders may still run: the check names and kills
# any that does, and fails. The documentation is checked too: every public symbol documented,
# and the DocC catalogs build without a warning (about 1 min; `make docs`); and every code sample
# of the README and the articles builds as a package of its own (Tests/DocSamples,
# scripts/doc-samples.sh: about 1 min). No source file of the continuity and agent layers may be
# over 400 lines (scripts/check-file-sizes.sh). When anything failed, the last lines say which parts,
# and which tests failed or were running when the test process ended (scripts/suite.sh; the
# suite's whole output is kept in .build/suite.log).
test: deps
	$(SWIFT) build --build-tests
	@failed=""; SWIFT="$(SWIFT)" bash scripts/doc-samples.sh || failed="$$failed doc-samples"; \
	SWIFT="$(SWIFT)" bash scripts/suite.sh || failed="$$failed suite"; \
	FUZZ_RUNS=$(FUZZ_TEST_RUNS) FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) bash scripts/fuzz.sh run || failed="$$failed fuzz"; \
	bash scripts/docs.sh coverage || failed="$$failed docs-coverage"; \
	bash scripts/docs.sh build >/dev/null || failed="$$failed docs-build"; \
	bash scripts/check-no-leftovers.sh || failed="$$failed leftovers"; \
	bash scripts/check-file-sizes.sh || failed="$$failed file-sizes"; \
	[ -z "$$failed" ] || { echo "make test failed:$$failed"; SWIFT="$(SWIFT)" bash scripts/suite.sh summary; exit 1; }

# `make docs`: the DocC archives (Sources/*/*.docc, built with swift-docc-plugin) in .build/docs,
# then the coverage check, which fails naming each public symbol of Baton, BatonContinuity,
# BatonLoop or BatonAgent that has no documentation; `make
# docs-coverage` runs the check alone (scripts/docs.sh, scripts/doc-coverage.py). About 25 s for
# the archives and 20 s for the check on a built tree; `make test` runs both.
docs: build
	@status=0; bash scripts/docs.sh build || status=$$?; bash scripts/docs.sh coverage || status=1; \
	[ $$status -ne 0 ] || echo "docs: .build/docs/{Baton,BatonContinuity,BatonLoop,BatonAgent}.doccarchive"; exit $$status

docs-coverage: build
	@bash scripts/docs.sh coverage

# libFuzzer with AddressSanitizer on every decoder of untrusted bytes (scripts/fuzz.sh,
# docs/TESTING.md "Fuzzing"): `make fuzz FUZZ_RUNS=10000000`, or some targets: `make fuzz FUZZ_TARGETS="Variant Roster"`.
# `make test` ends with a short pass of every target: FUZZ_TEST_RUNS runs or FUZZ_TEST_SECONDS each.
FUZZ_RUNS ?= 1000000
FUZZ_TEST_RUNS ?= 20000
FUZZ_TEST_SECONDS ?= 10
fuzz: deps
	FUZZ_RUNS=$(FUZZ_RUNS) bash scripts/fuzz.sh run $(FUZZ_TARGETS)

# `make bench`: every figure beside its baseline from the same run (Benchmarks/BatonBench/main.swift
# lists the options). `make bench BENCH_ARGS=--quick`: issue 30's figures in under two minutes —
# payload coding, a mutual TLS handshake through GIO beside OpenSSL's, cold continuation, one-shot
# MainLoop.idle, the Task { @MainActor } chain, MainActor.run from another thread and the
# DispatchQueue.main chain (beside dispatchMain() and beside libdispatch's eventfd floor) — each
# with its baseline and aim, to check a change before landing it. `BENCH_ARGS=--loop`: the loop's
# rows alone; `--memory-only`: batond's memory with 1, 8 and 32 links; `--cold-start-only` (root):
# cold start, warm link and resume from suspend between namespace hosts.
bench: deps
	$(SWIFT) build -c release --product batond
	$(SWIFT) build -c release --product BatonBench
	$(SWIFT) run -c release --skip-build BatonBench $(BENCH_ARGS)

# `make install [PREFIX=/usr/local] [DESTDIR=] [UNITDIR=]`: baton, batond, the systemd user units
# (batond.socket, batond.service) and the docs, built in release mode (scripts/install.sh). The
# units go in $(PREFIX)/share/systemd/user (/usr/lib/systemd/user for PREFIX=/usr) unless UNITDIR
# says otherwise. `make uninstall` with the same PREFIX and DESTDIR removes exactly what was
# installed, from the list install wrote ($(PREFIX)/share/baton/installed-files; scripts/uninstall.sh).
PREFIX ?= /usr/local
# `make release`: baton and batond built with the Swift runtime linked in, as for the package, so
# installed programs do not depend on where the toolchain is (.build/release).
# `sudo make install` does not build as root (that would leave root's files in your .build, and
# sudo's PATH may lack the toolchain): it installs what `make release` built, and asks for that
# first when nothing is built. Without sudo, `make install` builds, then installs.
RELEASE_BIN := .build/release
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product baton
	$(SWIFT) build -c release --static-swift-stdlib --product batond

install:
	@if [ "$$(id -u)" = 0 ] && [ -n "$${SUDO_USER:-}" ]; then \
	  [ -x "$(RELEASE_BIN)/baton" ] && [ -x "$(RELEASE_BIN)/batond" ] || { \
	    echo "make install: nothing built: run 'make release' as $$SUDO_USER first, then sudo make install" >&2; exit 2; }; \
	else $(MAKE) --no-print-directory release; fi
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" UNITDIR="$(UNITDIR)" bash scripts/install.sh "$(RELEASE_BIN)"

# `make install-examples`: the device examples (Shapes, Map Viewer, Mail, Reader, GTK Notes) as
# apps the agent can launch, their desktop entries and manifests in $XDG_DATA_HOME pointing at
# this build (scripts/install-examples.sh, docs/EXAMPLES.md); `baton app remove APPID` removes one.
install-examples: build
	bash scripts/install-examples.sh "$$($(SWIFT) build --show-bin-path)"

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" bash scripts/uninstall.sh

# `make deb [DEB_DIR=.build] [DEB_VERSION=]`: baton_VERSION_ARCH.deb (scripts/deb.sh) from a release
# build with the Swift runtime linked in (--static-swift-stdlib: no Debian package has it), so
# the package needs only Debian's libraries. DEB_VERSION defaults to BatonVersion.current (Sources/BatonAgent/BatonVersion.swift).
DEB_DIR ?= .build
deb: release
	DEB_VERSION="$(DEB_VERSION)" bash scripts/deb.sh "$(RELEASE_BIN)" "$(DEB_DIR)"

clean:
	rm -rf .build .build-fuzz
