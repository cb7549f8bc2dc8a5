# The two commands of the README: `make run` and `make test`. Everything else is what they need.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin

.PHONY: lint format run test test-corpus bench bench-full fuzz soak build install db clean cluster cluster-stop cluster-test

install: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

build: install
	node scripts/generate-configuration-types.mjs
	$(NODE_BIN)/tsc -p tsconfig.json
	node scripts/prune-build.mjs

# The linter and the formatter (Biome, biome.jsonc) over the whole tree: code that is not formatted, or that
# breaks a rule, fails `make test`. `make format` formats it.
lint: install
	$(NODE_BIN)/biome ci --colors=off .

format: install
	$(NODE_BIN)/biome check --write .

db: build
	bash scripts/ensure-mysql.sh

run: build db
	node build/src/cli.js serve

# The pipeline order first (pipeline-order.config.mjs): no import points back up.
test: build db lint
	node scripts/check-pipeline-order.mjs
	node scripts/run-tests.mjs

# The tests that read third-party material (the OASIS CSDL schemas and ABNF test cases, the standard's
# batch examples, Olingo's batch vectors): test/corpus/*.corpus.ts, from the folder CORPUS_DIR names
# (docs/testing.md). `make test` needs none of it.
CORPUS_DIR ?= ../shared/corpus

test-corpus: build
	@if [ ! -d "$(CORPUS_DIR)" ]; then echo "make test-corpus: the corpus folder $(CORPUS_DIR) is missing; set CORPUS_DIR=<folder holding abnf/, csdl/, batch-spec/, batch-peers/>" >&2; exit 1; fi
	CORPUS_DIR="$(abspath $(CORPUS_DIR))" node scripts/run-tests.mjs $$(find build/test/corpus -name '*.corpus.js' | sort)

# Benchmarks print their figure and the ratio against a baseline measured in the same run. The default
# run seeds only what takes minutes; a benchmark that needs the ten-million-movement database says it
# skipped itself. bench-full seeds that database once (about 40 minutes, with the buffer pool it sizes) and runs those too.
bench: build db
	node scripts/run-benchmarks.mjs

bench-full: build db
	BENCH_FULL=1 node scripts/run-benchmarks.mjs

# Long seeded fuzzing (the test suite runs a short slice of the same fuzzers).
fuzz: build db
	FUZZ_SCALE=50 node scripts/run-tests.mjs --grep fuzz

# Half an hour of mixed concurrent batches through the driver, then rows, totals, the request log and the
# server's memory checked (scripts/soak.mjs; SOAK_SECONDS shortens it). Not part of `make test`.
soak: build db
	node scripts/soak.mjs

# A three-node MariaDB Galera cluster under .data/cluster/ (ports 3311-3313), for the service across nodes.
cluster:
	bash scripts/galera-cluster.sh start 3

cluster-stop:
	bash scripts/galera-cluster.sh stop

# The long cluster tests (test/cluster/): they start the cluster, and it is stopped when they end.
# RUNS=N runs them N times in a row on the same cluster, one line per run (passed or not, seconds taken),
# and fails when any run failed: a failover that passes only at some moments of the kill is no failover.
# Then, once, the change-feed property on the cluster (test/cluster/change-feed.cluster.ts).
RUNS ?= 1
cluster-test: build
	bash scripts/galera-cluster.sh start 3
	status=0; for run in $$(seq 1 $(RUNS)); do \
	  started=$$(date +%s); \
	  if CLUSTER_TESTS=long TAP_TIMEOUT=900 node scripts/run-tests.mjs build/test/cluster/failover.cluster.js; then result=passed; else result=FAILED; status=1; fi; \
	  echo "cluster-test run $$run of $(RUNS): $$result in $$(( $$(date +%s) - started )) s"; \
	done; \
	if CLUSTER_TESTS=long TAP_TIMEOUT=900 node scripts/run-tests.mjs build/test/cluster/change-feed.cluster.js; then result=passed; else result=FAILED; status=1; fi; \
	echo "cluster-test change feed: $$result"; \
	bash scripts/galera-cluster.sh stop; exit $$status

clean:
	rm -rf build .tap
