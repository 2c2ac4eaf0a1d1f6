# The commands README.md gives. Each installs the system packages it needs first.
.PHONY: deps server test bench bench-quick

deps:
	@bash .ci/install-deps

# The server on its embedded SQLite default: 127.0.0.1:8080, ./leakhistory.sqlite.
server: deps
	swift run -c release leakhistory-server

# Every test: LeakReport, LeakCheck (Swift Testing, XCTest, Swift 5 mode), storage, server.
test: deps
	swift test

bench: deps
	swift build -c release --product leakhistory
	swift build -c release --product leakhistory-bench
	.build/release/leakhistory-bench all

bench-quick: deps
	swift build -c release --product leakhistory
	swift build -c release --product leakhistory-bench
	.build/release/leakhistory-bench all --quick
