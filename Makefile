# Chronicle: see README.md. Every target works on a fresh clone with Go 1.26.
GO      ?= go
BIN     := bin
FUZZTIME ?= 10s
PKGS    := ./...

.PHONY: all build run test lint bench fuzz clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# run: build the commands, then ingest, query, find and verify the sample
# stories in a scratch directory with the drop-in casper-chronicle.
# Nothing outside a fresh temporary directory is written.
run: build
	@set -e; cc=$(CURDIR)/$(BIN)/casper-chronicle; dir=$$(mktemp -d); \
	cp testdata/samples/ahmed-khalid-ar.txt testdata/samples/alice-bob-en.txt $$dir/; cd $$dir; \
	echo "# working in $$dir"; \
	echo '$$ casper-chronicle ingest ahmed-khalid-ar.txt'; $$cc ingest ahmed-khalid-ar.txt; \
	echo '$$ casper-chronicle verify ahmed-khalid-ar.txt.chronicle.receipt'; $$cc verify ahmed-khalid-ar.txt.chronicle.receipt; \
	echo '$$ casper-chronicle query ahmed-khalid-ar.txt.chronicle "هل سدد أحمد دين خالد؟"'; \
	$$cc query ahmed-khalid-ar.txt.chronicle "هل سدد أحمد دين خالد؟"; \
	echo '$$ casper-chronicle ingest alice-bob-en.txt'; $$cc ingest alice-bob-en.txt; \
	echo '$$ casper-chronicle query alice-bob-en.txt.chronicle "Did Alice repay Bob?"'; \
	$$cc query alice-bob-en.txt.chronicle "Did Alice repay Bob?"; \
	echo '$$ casper-chronicle find alice-bob-en.txt.chronicle "Saud"'; $$cc find alice-bob-en.txt.chronicle "Saud"; \
	for r in *.receipt; do printf '$$ casper-chronicle verify %s\n' "$$r"; $$cc verify "$$r"; done

test: lint
	$(GO) test -count=1 $(PKGS)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=5 $(PKGS)

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
