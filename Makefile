# The commands README.md gives. Each installs the system packages it needs first, and only
# those: the server's build libraries for `make server`, plus git for the bench, plus chromium
# and python3-jsonschema for the tests.
.PHONY: deps deps-server deps-bench deps-peer server test portable bench bench-quick release-tools crash-test load fuzz bad-input attack

deps:
	@bash .ci/install-deps test

deps-server:
	@bash .ci/install-deps server

deps-bench:
	@bash .ci/install-deps bench

# The ingest suite's peer, Datasette 1.0a41 from PyPI, in .build/peer (the full bench compares
# against it; without it the peer's figures are left out).
deps-peer:
	@bash .ci/install-deps peer

# The server on its embedded SQLite default: 127.0.0.1:8080, ./leakhistory.sqlite.
server: deps-server
	swift run -c release leakhistory-server

# Every test: LeakReport, LeakCheck (Swift Testing, XCTest, Swift 5 mode), storage, server,
# the CLI, the dashboard in headless Chromium — the store suites on SQLite and on a throw-away
# PostgreSQL cluster (.ci/postgres-test-cluster).
test: deps
	bash .ci/postgres-test-cluster run swift test

# What Apple platforms build, compiled here with the Linux-only paths off (the `+Darwin` platform
# files in), warnings as errors; then the short list of what still needs an Apple SDK.
portable:
	.ci/portable-check

bench: deps-bench deps-peer
	swift build -c release --product leakhistory
	swift build -c release --product leakhistory-server
	swift build -c release --product leakhistory-bench
	.build/release/leakhistory-bench all

bench-quick: deps-bench
	swift build -c release --product leakhistory
	swift build -c release --product leakhistory-server
	swift build -c release --product leakhistory-bench
	.build/release/leakhistory-bench all --quick

# The release server and bench binaries side by side: the reliability targets run the real
# server executable as a child process.
release-tools: deps-bench
	swift build -c release --product leakhistory-server
	swift build -c release --product leakhistory-bench

# SIGKILL the server 20 times under concurrent uploads, then fill a 4 MiB tmpfs (needs root;
# skipped with a message otherwise). Fails on any acknowledged run lost or half-stored.
crash-test: release-tools
	.build/release/leakhistory-bench crash-test

# 16 clients of mixed traffic (70% uploads of 100-check runs, 20% diffs, 10% trends) for 60 s
# against the server binary on loopback; latency per route, errors, server RSS over time.
load: release-tools
	.build/release/leakhistory-bench load --seconds 60

# schemathesis against /openapi.json of the release server (50 examples per operation, every
# check), then libFuzzer on the upload path (run decoder, validation, gzip) for FUZZ_SECONDS.
# A crashing input lands in Fuzz/regressions/, which `swift test` replays from then on.
FUZZ_SECONDS ?= 60
fuzz: release-tools
	.ci/fuzz-api 50
	swift build --sanitize fuzzer --product leakhistory-fuzz --scratch-path .build/fuzz -Xswiftc -DLIBFUZZER
	mkdir -p .build/fuzz-corpus
	.build/fuzz/debug/leakhistory-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix=Fuzz/regressions/ .build/fuzz-corpus Fuzz/corpus

# A 200 MiB upload (announced and chunked), 10,000 idle connections and a 1 byte/s client against
# the server binary, while a steady client keeps asking /healthz. About 30 s.
bad-input: release-tools
	.build/release/leakhistory-bench bad-input

# Every attack of issue 13 at once for 30 s — 2,000 slow-header and slow-body connections, 64
# tokenless 30 MiB bodies, gzip bombs, a page flood, 40 clients that never read — while a steady
# client uploads and queries from 127.0.0.1, in three settings: attackers on other loopback
# addresses; a misbehaving job on the steady client's own address (1,000 slow-header and 400
# slow-body connections, 48 tokenless bodies, a page flood); everything through a forwarding
# proxy the server trusts (trustedProxies). Each prints its p50/p99/max and errors, the
# server's RSS peak and the recovery time, and fails unless p99 ≤ 100 ms, no errors,
# RSS ≤ 300 MB and normal service within 1 s. Then a CI fleet's burst: 200 simultaneous
# `leakhistory upload` of 2,000 checks from one address, direct and through the proxy; fails
# unless all are stored and no connection is closed unanswered.
# ATTACK_FLAGS=--quick: shorter and smaller (under a minute in all).
attack: release-tools
	swift build -c release --product leakhistory
	.build/release/leakhistory-bench attack $(ATTACK_FLAGS)
	.build/release/leakhistory-bench burst $(ATTACK_FLAGS)
