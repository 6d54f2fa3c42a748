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

# make conformance / conformance-walks: Kafka releases and walks (docs/conformance.md).
CONFORM_SEEDS    := kafka-18723:buggy kafka-18991:v3-9 kafka-phantom-epoch:shutdown-window kafka-phantom-epoch:kill \
                    kafka-phantom-epoch:v4-1 kafka-13141:v2-8 kafka-13077-precondition:power-loss-2-8 kafka-13077:buggy \
                    kafka-reapplied-shrink:two-brokers kafka-reapplied-shrink:two-brokers-39 \
                    kafka-kraft-guards:replay-KRaftReplayPartitionEpoch
# One release of each served line (3.9.0 before PR 18852 and KAFKA-18991, 4.0.0 before both too).
CONFORM_RELEASES ?= 3.9.0 3.9.2 4.0.0 4.0.2 4.1.2 4.2.1 4.3.2 4.4.0
CONFORM_WALKS    ?= 60
CONFORM_SEED     ?= 1
# Two walk configurations of the Kafka model's data plane: 3 brokers with varied record sizes, 2
# brokers with distinct ones; every fault (crash, controlled shutdown, kill, power loss, lag, message loss, leader changes).
CONFORM_FAULTS   := --set crash=1 --set controlled_shutdown=1 --set unclean_crash=1 --set power_loss=1 --set lag=1 --set message_loss=1 \
                    --set leader_change=2 --set max_epoch=3 --set max_fetch_records=2
CONFORM_WALK3    := --spec specs/kafka-18723.toml --check buggy $(CONFORM_FAULTS) --set record_sizes=varied
CONFORM_WALK2    := --spec specs/kafka-18723.toml --check buggy $(CONFORM_FAULTS) --set brokers=2 --set record_sizes=distinct
# A KRaft configuration (the controller's steps on Kafka's ReplicationControlManager): ELR, a
# controlled shutdown, a crash, a session loss and lag, on the 4.x releases.
CONFORM_WALKK    := --spec specs/kafka-kraft.toml --check shutdown-crash-elr --set session_loss=1 --set lag=1
CONFORM_KRAFT_RELEASES ?= 4.0.2 4.1.2 4.4.0

.PHONY: all build test verify bench fuzz demo clean browser browser-test conformance conformance-walks conformance-tools por-diff cluster-test cluster-faults cluster-netns

all: build

build:
	$(GO) build -o $(KMC) ./cmd/kmc

# Every unit, golden and model test, then the regression suite of spec files. It installs
# nothing: the browser tests (the HTML report, kmc explore) run where chromium is installed
# and skip in one line where it is not (make browser-test installs it and runs them).
test:
	KMC_BROWSER_TESTS=$${KMC_BROWSER_TESTS:-$$(command -v chromium >/dev/null && echo 1)} $(GO) test ./...
	$(GO) run ./cmd/kmc suite specs/

# The HTML report and kmc explore's page are tested in real headless Chromium (Debian's
# package): make browser installs it when it is missing and this is a Debian machine where
# we are root (.ci/run does the same). Without it the browser tests skip, unless
# KMC_BROWSER_TESTS=1 is set (as .ci/run does), which makes them fail instead.
browser:
	@if ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "installing chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

# The partial-order reduction against the plain search on random configurations of each
# model that declares independence (fixed seeds): 1,000 of two-phase commit (make test runs
# 60), 100 of the Kafka model (make test runs 8; few of them reduce, and by few states: docs/engine.md),
# 1,000 of each TLA+ port (make test runs 60 of the reference port's, 20 of Vanlightly's).
por-diff:
	KMC_POR_DIFF=1000 $(GO) test -count=1 -run 'PORDifferentialLong' ./model/twophase/
	KMC_POR_DIFF=1000 $(GO) test -count=1 -run 'PORDifferentialLong' ./model/kafka/
	KMC_POR_DIFF=1000 $(GO) test -count=1 -timeout 30m -run 'PORDifferentialLong' ./model/reference/ ./model/vanlightly/

# The browser tests alone, in Chromium (installed first when missing, as make browser does).
browser-test: browser
	KMC_BROWSER_TESTS=1 $(GO) test -count=1 -v -run 'Browser|InChromium' ./explore/ ./traces/

# The multi-process tests of kmc node and kmc check --cluster: three kmc node processes on
# loopback clustered by routes, the parity of their results with one process's, a node killed
# (SIGKILL) mid-search, a lease that expires (cluster/), the token and the refusals.
# (--partitions runs in make test.)
cluster-test:
	KMC_CLUSTER_TESTS=1 $(GO) test -count=1 -run 'Cluster|Node' ./cmd/kmc/ ./cluster/

# Faults: three kmc node processes, and 20 searches across them (twophase rms=7, a level
# checkpoint at every level), each with one node killed (SIGKILL) at a random moment and
# started again; every search must print the single process's output. KMC_FAULT_SEED
# repeats a run's kills, KMC_FAULT_KILLS changes their number.
cluster-faults:
	KMC_CLUSTER_TESTS=1 KMC_CLUSTER_FAULTS=1 $(GO) test -count=1 -timeout 60m -v -run 'TestClusterFaults' ./cmd/kmc/

# Several hosts: three kmc nodes in network namespaces of their own (10.213.0.1-3 on a bridge),
# a search across them (two-phase commit rms=9, KAFKA-18723's residual by LogMatching), one
# node cut off (its veth's link down, the process alive) at random moments, 3 times each;
# every search must print the single process's output, and after the link is back up the
# node cut off must take the next search. Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN):
# without, it exits 2 saying why. KMC_FAULT_SEED repeats a run's cuts, KMC_NETNS_CUTS
# changes their number (scripts/cluster-netns.sh).
cluster-netns:
	GO=$(GO) scripts/cluster-netns.sh

# gofmt, go vet, go.mod tidy, and the import rules of docs/packages.md: model/... and
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
	echo "demo: the counterexample is under $(DEMO_OUT)/$(DEMO_CHECK)/; open $(DEMO_OUT)/$(DEMO_CHECK)/report.html in a browser"

# Kafka's own classes replay kmc's counterexamples (conformance/suite.txt) and a fixed-seed sample
# of random walks per release (kmc conform; needs java 17+ and mvn; Maven's downloads show).
conformance: build conformance-tools
	rm -rf out/conformance
	@set -e; for sc in $(CONFORM_SEEDS); do s=$${sc%%:*}; c=$${sc##*:}; st=0; \
		./$(KMC) check specs/$$s.toml --check $$c --out out/conformance/$$s >/dev/null || st=$$?; \
		if [ $$st -ne 12 ] && [ $$st -ne 13 ]; then echo "kmc check specs/$$s.toml --check $$c: exit $$st, want a counterexample"; exit 1; fi; \
		echo "kmc check specs/$$s.toml --check $$c: out/conformance/$$s/$$c/trace.itf.json"; done
	./$(KMC) conform --suite conformance/suite.txt
	@set -e; for r in $(CONFORM_RELEASES); do \
		echo "./$(KMC) conform --walks $(CONFORM_WALKS) --seed $(CONFORM_SEED) --kafka $$r (3 and 2 brokers)"; \
		./$(KMC) conform --walks $(CONFORM_WALKS) --seed $(CONFORM_SEED) --kafka $$r $(CONFORM_WALK3) --out out/conformance/walks-$$r; \
		./$(KMC) conform --walks $(CONFORM_WALKS) --seed $(CONFORM_SEED) --kafka $$r $(CONFORM_WALK2) --out out/conformance/walks2-$$r; \
	done
	@set -e; for r in $(CONFORM_KRAFT_RELEASES); do \
		echo "./$(KMC) conform --walks $(CONFORM_WALKS) --seed $(CONFORM_SEED) --kafka $$r (KRaft)"; \
		./$(KMC) conform --walks $(CONFORM_WALKS) --seed $(CONFORM_SEED) --kafka $$r $(CONFORM_WALKK) --out out/conformance/walksk-$$r; \
	done
	@set -e; echo "mvn -B -f conformance/pom.xml -Dkafka.version=4.1.2 test-compile, then surefire:test -Dtest=ReappliedIsrChangeHazardTest on 3.9.2 4.1.2 4.2.1 4.4.0 (docs/conformance.md)"; \
		mvn -B -f conformance/pom.xml -Dkafka.version=4.1.2 test-compile; for r in 3.9.2 4.1.2 4.2.1 4.4.0; do \
		mvn -B -f conformance/pom.xml -Dkafka.version=$$r surefire:test -Dtest=ReappliedIsrChangeHazardTest -Dsurefire.redirectTestOutputToFile=true; done

# The long differential run: 10,000 walks per release (5,000 per configuration); hours.
conformance-walks: build conformance-tools
	@set -e; for r in $(CONFORM_RELEASES); do \
		./$(KMC) conform --walks 5000 --seed $(CONFORM_SEED) --kafka $$r $(CONFORM_WALK3) --out out/conformance/walks-$$r; \
		./$(KMC) conform --walks 5000 --seed $(CONFORM_SEED) --kafka $$r $(CONFORM_WALK2) --out out/conformance/walks2-$$r; \
	done

# java and mvn, from Debian's packages when they are missing and this is a Debian machine where
# we are root; otherwise say what to install.
conformance-tools:
	@if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then \
		if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
			echo "installing openjdk-17-jdk-headless and maven for make conformance"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null; \
		else echo "make conformance needs java (JDK 17+) and mvn: install openjdk-17-jdk-headless and maven"; exit 2; fi; \
	fi
	@java -version 2>&1 | head -1; mvn -v 2>/dev/null | head -1

clean:
	rm -rf bin out conformance/target
