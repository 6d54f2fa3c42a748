# kmc: build, test, verify, bench, fuzz and demo. Needs only Go (see go.mod for the version).

GO        ?= go
KMC       := bin/kmc
# make bench: one complete search per benchmark (each takes up to about a minute).
BENCHTIME ?= 1x
# make fuzz: time per fuzz target.
FUZZTIME  ?= 20s
# make demo: a seed spec and its check that finds a counterexample.
DEMO_SPEC  ?= specs/kafka-18723.toml
DEMO_CHECK ?= buggy
DEMO_OUT   ?= out/demo

.PHONY: all build test verify bench fuzz demo clean browser

all: build

build:
	$(GO) build -o $(KMC) ./cmd/kmc

# Every unit, golden and model test, then the regression suite of spec files.
test: browser
	KMC_BROWSER_TESTS=$${KMC_BROWSER_TESTS:-$$(command -v chromium >/dev/null && echo 1)} $(GO) test ./...
	$(GO) run ./cmd/kmc suite specs/

# The HTML report is tested in real headless Chromium (Debian's package); install it when
# it is missing and this is a Debian machine where we are root. Without it the browser test
# skips, unless KMC_BROWSER_TESTS=1 is set (as .ci/run does), which makes it fail instead.
browser:
	@if ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "installing chromium for the HTML report test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

# gofmt, go vet, go.mod tidy, and the import rules of README.md's Packages: model/... and
# checker import only the standard library; nothing imports a command (cmd/...) but the
# command's own packages below it.
verify:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	@bad=$$($(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./model/... | grep -v '^kmc/model\(/\|$$\)' || true); \
	if [ -n "$$bad" ]; then echo "model imports more than the standard library:"; echo "$$bad"; exit 1; fi
	@bad=$$($(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./checker/ | grep -v '^kmc/checker$$' || true); \
	if [ -n "$$bad" ]; then echo "checker imports more than the standard library:"; echo "$$bad"; exit 1; fi
	@bad=$$($(GO) list -f '{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | \
		awk '{for (i = 2; i <= NF; i++) if ($$i ~ /^kmc\/cmd(\/|$$)/ && index($$i, $$1 "/") != 1) print $$1 " imports " $$i}'); \
	if [ -n "$$bad" ]; then echo "a command is imported (nothing imports cmd/...):"; echo "$$bad"; exit 1; fi
	@echo "verify: ok"

# The Go benchmarks, the benchmark table (kmc bench: bench/table.toml), then the heavier
# specs under specs/large/ (kmc suite specs/ skips that folder) when there are any.
bench: build
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./bench/ ./checker/
	$(KMC) bench
	@if [ -d specs/large ]; then echo "$(GO) run ./cmd/kmc suite specs/large/"; $(GO) run ./cmd/kmc suite specs/large/; fi

# Each fuzz target of each package for FUZZTIME.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$f"; \
			$(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg; \
		done; \
	done

# The main job: check a seed spec, print its counterexample, write it under DEMO_OUT.
demo: build
	@status=0; ./$(KMC) check $(DEMO_SPEC) --check $(DEMO_CHECK) --out $(DEMO_OUT) || status=$$?; \
	if [ $$status -ne 12 ] && [ $$status -ne 13 ]; then \
		echo "demo: expected a counterexample (exit 12 or 13), got exit $$status"; exit 1; fi; \
	echo "demo: the counterexample is under $(DEMO_OUT)/$(DEMO_CHECK)/"

clean:
	rm -rf bin out
