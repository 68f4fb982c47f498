# Chronicle: see README.md. Every target works on a fresh clone with Go 1.26.
GO      ?= go
BIN     := bin
FUZZTIME ?= 10s
PKGS    := ./...

.PHONY: all build run test lint cross wine-test release bench bench-archive fuzz reliability clean

# The platforms every package builds and vets for (make cross, in make
# test) and make release builds binaries for.
PLATFORMS := linux/amd64 linux/arm64 windows/amd64 windows/arm64 darwin/amd64 darwin/arm64 freebsd/amd64
# linux/amd64, the host, is vetted by make lint and tested by make test.
CROSS_PLATFORMS := $(filter-out linux/amd64,$(PLATFORMS))

all: build

# The version and commit `chronicle version` reports, from git when the tree
# is a clone (the toolchain's own VCS stamp is off on machines with
# GOFLAGS=-buildvcs=false).
REPL := github.com/casper-chronicle/chronicle/repl
STAMP = -X $(REPL).stampedVersion=$(shell git describe --tags --always --dirty 2>/dev/null) \
	-X $(REPL).stampedCommit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X $(REPL).stampedModified=$(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo true)

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(STAMP)" -o $(BIN)/ ./cmd/...

# run: build the commands, open (or create) ./chronicle.db, ingest the
# sample stories if the archive is empty (and the two-document story of
# testdata/stories if it is missing), then start the REPL on it when
# stdin and stdout are a terminal; otherwise (CI, pipes) show a short tour
# of what it can do and exit.
run: build
	@set -e; ch=$(CURDIR)/$(BIN)/chronicle; \
	if [ -z "$$($$ch docs --json 2>/dev/null)" ]; then \
		echo '$$ chronicle ingest testdata/samples testdata/stories'; $$ch ingest testdata/samples testdata/stories; echo; \
	elif ! $$ch show testdata/stories/1-loan-agreement-en.txt 1-1 >/dev/null 2>&1; then \
		echo '$$ chronicle ingest testdata/stories'; $$ch ingest testdata/stories; echo; fi; \
	if [ -t 0 ] && [ -t 1 ]; then exec $$ch; fi; \
	echo '$$ chronicle docs'; $$ch docs; echo; \
	echo '$$ chronicle query testdata/samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟" --text'; \
	$$ch query testdata/samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟" --text; echo; \
	echo '$$ chronicle find Saud --text'; $$ch find Saud --text; echo; \
	echo '$$ chronicle settle "Did Layla repay Omar?" --text'; $$ch settle "Did Layla repay Omar?" --text; echo; \
	echo '$$ chronicle claims check testdata/claims/agent-answer.jsonl --text --out $$ROWS'; \
	rows=$$(mktemp -d)/agent-rows.jsonl; \
	$$ch claims check testdata/claims/agent-answer.jsonl --text --out $$rows; echo; \
	echo '$$ chronicle claims verify $$ROWS'; $$ch claims verify $$rows; echo; \
	echo '$$ chronicle receipts --verify'; $$ch receipts --verify; echo; \
	echo "Next: ./bin/chronicle   (the REPL on ./chronicle.db: help, Tab, exit; the drop-in original is ./bin/casper-chronicle)"; \
	echo "      ./bin/chronicle serve   (the same archive in your browser: open the URL it prints)"

test: lint cross
	$(GO) test -count=1 -timeout=20m $(PKGS)
	@$(MAKE) --no-print-directory wine-test

# cross: every package and command (and every test not tagged for one
# platform) builds and vets for each of CROSS_PLATFORMS, static
# (CGO_ENABLED=0) as released.
cross:
	@set -e; for p in $(CROSS_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; echo "go build+vet $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build $(PKGS); \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) vet $(PKGS); \
	done

# wine-test: the platform-neutral packages' tests, built for windows/amd64
# and run under Wine (Debian's wine64; .ci/run installs it). Where wine is
# missing, or cannot run a Go binary (Debian 12's Wine 8.0 lacks the
# bcryptprimitives.dll that Go 1.24 and later need), it says so and
# passes: the cross-compile and vet above still hold.
WINE_PKGS := ./engine/... ./index ./db/suggest ./original ./platform ./db/fileio
wine-test:
	@set -e; wine=$$(command -v wine || command -v wine64 || ls /usr/lib/wine/wine64 2>/dev/null || true); \
	if [ -z "$$wine" ]; then echo "wine-test: wine is not installed (apt-get install wine64): the Windows tests did not run; cross-compile and vet did"; exit 0; fi; \
	dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; export WINEPREFIX="$$dir/prefix" WINEDEBUG=-all; \
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) test -c -o "$$dir/probe.exe" ./db/suggest; \
	if ! "$$wine" "$$dir/probe.exe" -test.run='^$$' > "$$dir/probe.out" 2>&1; then \
		echo "wine-test: $$("$$wine" --version 2>/dev/null || echo wine) cannot run a Go $$($(GO) env GOVERSION) Windows binary ($$(grep -m1 -E 'fatal|error' "$$dir/probe.out" || head -n1 "$$dir/probe.out")): the Windows tests did not run; cross-compile and vet did"; \
		exit 0; \
	fi; \
	for pkg in $$($(GO) list $(WINE_PKGS)); do \
		name=$$(echo $$pkg | tr / _); \
		CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) test -c -o "$$dir/$$name.exe" $$pkg; \
		[ -f "$$dir/$$name.exe" ] || continue; \
		echo "wine-test $$pkg"; \
		(cd $$($(GO) list -f '{{.Dir}}' $$pkg) && "$$wine" "$$dir/$$name.exe" -test.count=1); \
	done

# release: static binaries of the three commands for each of PLATFORMS in
# $(BIN)/release/chronicle-VERSION-OS-ARCH/, each directory with a copy of
# LICENSE, and SHA256SUMS beside them.
release:
	@set -e; v=$$(git describe --tags --always --dirty 2>/dev/null || echo unknown); \
	out=$(BIN)/release; rm -rf $$out; mkdir -p $$out; \
	for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; d=$$out/chronicle-$$v-$$os-$$arch; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w $(STAMP)" -o $$d/ ./cmd/chronicle ./cmd/chronicle-mcp ./cmd/chronicle-serve ./cmd/chronicle-extract ./cmd/casper-chronicle; \
		cp LICENSE $$d/; \
	done; \
	(cd $$out && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum > SHA256SUMS); \
	echo "$$out:"; cat $$out/SHA256SUMS

# reliability: the damage harness of issue 12 at full size (3000 damaged
# copies of a 20-document archive, every read command on each); prints its
# counts. `make test` runs 200 trials.
DAMAGE_TRIALS ?= 3000
reliability:
	CHRONICLE_DAMAGE_TRIALS=$(DAMAGE_TRIALS) $(GO) test -count=1 -timeout=30m -run '^TestDamageHarness$$' -v ./cmd/chronicle | grep -a -E 'damage harness:|WRONG|VALID over|MISSED|^(ok|FAIL|---)'

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=5 $(PKGS)

# bench-archive: the archive benchmarks (cmd/benchreal/PERFORMANCE.md) at full size
# (1,000 documents, about 1 GB; sources and archive cached in
# CHRONICLE_BENCH_DIR, default $TMPDIR/chronicle-bench). `make bench` runs
# the same benchmarks on 64 MB. rg_ms appears when ripgrep is installed.
BENCH_MB ?= 1000
bench-archive:
	CHRONICLE_BENCH_MB=$(BENCH_MB) $(GO) test -run='^$$' -bench='^BenchmarkArchive' -benchmem -count=3 -timeout=0 ./db

# bench-real: issue 13's measurements on real text (cmd/benchreal): installs
# ripgrep and Debian's Arabic dictionaries with apt-get when missing, builds
# English/code and Arabic corpora of ~1 MB documents (cached in
# $TMPDIR/chronicle-bench-real), ingests them with chronicle and
# casper-chronicle and times find against `rg -F -c`, at BENCH_REAL_MB and at
# the full size (capped at BENCH_REAL_FULL_MB; 0 skips it).
BENCH_REAL_MB ?= 40
BENCH_REAL_FULL_MB ?= 400
BENCH_REAL_AR_MB ?= 150
.PHONY: bench-real
bench-real: build
	$(GO) run ./cmd/benchreal -bin $(BIN) -mb $(BENCH_REAL_MB) -full-mb $(BENCH_REAL_FULL_MB) -ar-mb $(BENCH_REAL_AR_MB)

# bench-scale: issue 26's measurements at scale (cmd/benchscale): installs
# ripgrep, sqlite3, GNU time and Debian's Arabic dictionaries with apt-get
# when missing, cuts the machine's real text (Python, man pages, package
# docs, licenses, Arabic dictionaries, Perl, C headers; no Go) into
# BENCH_SCALE_DOCS small documents (cached in $TMPDIR/chronicle-bench-scale)
# and times chronicle ingest, find, entity, docs and stats beside SQLite
# FTS5 (trigram) and `rg -F -c` on the same files, checking that their
# counts agree; prints one markdown table. The 100,000-document size takes
# a while (ingest alone runs minutes).
BENCH_SCALE_DOCS ?= 10000,100000
.PHONY: bench-scale
bench-scale: build
	$(GO) run ./cmd/benchscale -bin $(BIN) -docs $(BENCH_SCALE_DOCS)

# bench-serve: issue 28's measurements of `chronicle serve` (cmd/benchserve):
# serves bench-real's English archive at its full size (reused from
# $TMPDIR/chronicle-bench-real, else built by benchreal) and an archive of
# BENCH_SERVE_DOCS small documents of benchscale's pool (built once and
# cached in $TMPDIR/chronicle-bench-serve) with the real `chronicle serve`,
# times every page kind and four API endpoints BENCH_SERVE_RUNS times each
# (server time from the Server-Timing header, client time from Go's
# net/http client) and the same commands in process, checking that the
# API's answers are the CLI's byte for byte; prints markdown tables with
# the targets' marks (p95 <= 50 ms per page, API <= 2 ms over the CLI).
BENCH_SERVE_DOCS ?= 100000
BENCH_SERVE_RUNS ?= 20
.PHONY: bench-serve
bench-serve: build
	$(GO) run ./cmd/benchserve -bin $(BIN) -docs $(BENCH_SERVE_DOCS) -runs $(BENCH_SERVE_RUNS)

# fuzz: run every fuzz target for FUZZTIME each (go test -fuzz takes one
# target per run).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for t in $$($(GO) test -list='^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$t"; \
			$(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf $(BIN)
