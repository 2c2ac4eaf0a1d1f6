#!/usr/bin/env python3
"""Paired A/B timing of two leakhistory servers on the same database.

Asks every URL of a list (one path a line, or the lines `LEAKHISTORY_BENCH_SLOW_MS=0
leakhistory-bench queries` prints on stderr, `grep`ped for the route wanted) of both servers in turn, the
order alternating, and prints each server's mean, p50, p90, p99 and max and the mean and median
of B − A. The machine's drift hits both alike, so a difference of a few tenths of a millisecond
shows where unpaired runs of one build differ by 15%. Each pair of answers is compared (status
and body): a change that alters an answer is counted and its first URLs printed.

    python3 Tools/paired-requests.py URLS [ROUNDS] [PORT_A] [PORT_B] [--by-route] [--cpu=PID_A,PID_B[,POSTMASTER]]

Ports 18080 and 18081 unless named. `--by-route`: the same figures for each route (the path with
its project, type and commit named generically, and its `limit`), as a Markdown table.
`--cpu=…`: also the CPU time each request cost its server (all threads of PID_A or PID_B, read
from `/proc/PID/task/*/schedstat` as `Tools/request-cpu.py` does) and, with POSTMASTER, the
PostgreSQL cluster's children (the backends, which do the queries' work): on a machine shared
with builds, where wall-clock time is mostly the wait for a core, this is the request's own work.

Start the servers first, e.g. the old and the new build on a database the bench kept
(`LEAKHISTORY_BENCH_KEEP=1`): `leakhistory-server --port 18080 --database 'postgres://…'`
(`Tools/paired-10m.sh queries` does all of it). Requests go to 127.0.0.1 only, one at a time.
"""
import hashlib
import http.client
import importlib.util
import os
import statistics
import sys
import time
import urllib.parse

# The path segment after each of these names a value, not a route.
PLACEHOLDERS = {"projects": "{project}", "p": "{project}", "types": "{type}", "commits": "{sha}"}


def route(url: str) -> str:
    """The route a URL asks, with its `limit` (a trend of 50 commits and one of 1,000 differ)."""
    path, _, query = url.partition("?")
    parts = path.split("/")
    for index in range(1, len(parts)):
        if parts[index] and parts[index - 1] in PLACEHOLDERS:
            parts[index] = PLACEHOLDERS[parts[index - 1]]
    limit = urllib.parse.parse_qs(query).get("limit")
    return "/".join(parts) + (f" limit={limit[0]}" if limit else "")


def quantile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def cpu_reader(pid_a: int, pid_b: int, postmaster):
    """A function of a port's index (0 for A, 1 for B) that returns the CPU nanoseconds its server
    and the cluster's children have run so far."""
    sys.dont_write_bytecode = True  # no __pycache__ left in Tools/
    spec = importlib.util.spec_from_file_location("request_cpu", os.path.join(os.path.dirname(__file__), "request-cpu.py"))
    request_cpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(request_cpu)

    def children() -> list[int]:
        if postmaster is None:
            return []
        with open(f"/proc/{postmaster}/task/{postmaster}/children") as listing:
            return [int(pid) for pid in listing.read().split()]

    return lambda side: request_cpu.server_cpu_ns([(pid_a, pid_b)[side]] + children())


def summary(name: str, values) -> str:
    return (f"{name}: n={len(values)} mean={statistics.mean(values):.2f} p50={quantile(values, .5):.2f} "
            f"p90={quantile(values, .9):.2f} p99={quantile(values, .99):.2f} max={max(values):.2f} ms")


def main() -> None:
    flags = [argument for argument in sys.argv[1:] if argument.startswith("--")]
    arguments = [argument for argument in sys.argv if not argument.startswith("--")]
    if len(arguments) < 2 or any(flag != "--by-route" and not flag.startswith("--cpu=") for flag in flags):
        sys.exit(__doc__)
    by_route = "--by-route" in flags
    cpu = None
    for flag in flags:
        if flag.startswith("--cpu="):
            pids = [int(pid) for pid in flag.removeprefix("--cpu=").split(",")]
            cpu = cpu_reader(pids[0], pids[1], pids[2] if len(pids) > 2 else None)
    # A path a line, or the bench's own lines ("slow: 12.3 ms GET /v1/…"): the path after "GET ".
    urls = [line.split("GET ", 1)[-1].strip() for line in open(arguments[1])]
    urls = [url for url in urls if url.startswith("/")]
    rounds = int(arguments[2]) if len(arguments) > 2 else 1
    ports = [int(arguments[3]) if len(arguments) > 3 else 18080, int(arguments[4]) if len(arguments) > 4 else 18081]
    connections = {port: http.client.HTTPConnection("127.0.0.1", port, timeout=30) for port in ports}
    times = {port: [] for port in ports}
    cpu_times = {port: [] for port in ports}
    asked = []  # the URL of each pair of times, in order
    different = 0
    different_by_route = {}

    def ask(port: int, url: str):
        for attempt in range(2):
            try:
                cpu_before = cpu(ports.index(port)) if cpu else 0
                start = time.perf_counter()
                connections[port].request("GET", url)
                response = connections[port].getresponse()
                body = response.read()
                milliseconds = (time.perf_counter() - start) * 1000
                cpu_milliseconds = (cpu(ports.index(port)) - cpu_before) / 1e6 if cpu else 0
                return milliseconds, cpu_milliseconds, response.status, hashlib.md5(body).hexdigest()
            except (OSError, http.client.HTTPException):
                connections[port].close()
                connections[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                if attempt == 1:
                    raise

    for round_ in range(rounds):
        for index, url in enumerate(urls):
            order = ports if (index + round_) % 2 == 0 else ports[::-1]
            answers = {}
            for port in order:
                answers[port] = ask(port, url)
                times[port].append(answers[port][0])
                cpu_times[port].append(answers[port][1])
            asked.append(url)
            if answers[ports[0]][2:] != answers[ports[1]][2:]:
                different += 1
                different_by_route[route(url)] = different_by_route.get(route(url), 0) + 1
                if different <= 5:
                    print(f"different answers: {url} (status {answers[ports[0]][2]} / {answers[ports[1]][2]})", file=sys.stderr)

    for port in ports:
        print(summary(str(port), times[port]))
    deltas = [b - a for a, b in zip(times[ports[0]], times[ports[1]])]
    print(f"B - A: mean {statistics.mean(deltas):+.2f} ms, median {statistics.median(deltas):+.2f} ms; "
          f"different answers: {different}")
    if cpu:
        for port in ports:
            print(summary(f"{port} server CPU", cpu_times[port]))
        deltas = [b - a for a, b in zip(cpu_times[ports[0]], cpu_times[ports[1]])]
        print(f"server CPU B - A: mean {statistics.mean(deltas):+.2f} ms, median {statistics.median(deltas):+.2f} ms")
    if by_route:
        print()
        print_by_route("wall-clock", asked, times[ports[0]], times[ports[1]], different_by_route)
        if cpu:
            print()
            print_by_route("server CPU", asked, cpu_times[ports[0]], cpu_times[ports[1]], different_by_route)


def print_by_route(what: str, asked, times_a, times_b, different_by_route) -> None:
    """A Markdown table: for each route, A's and B's mean / p50 / p99, B − A's mean and median,
    B's mean over A's, and the answers that differed."""
    pairs = {}
    for url, a, b in zip(asked, times_a, times_b):
        pairs.setdefault(route(url), []).append((a, b))
    print(f"| route ({what}) | requests a server | A mean / p50 / p99 ms | B mean / p50 / p99 ms | B − A mean, median ms | B / A (means) | different answers |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(pairs):
        a = [pair[0] for pair in pairs[name]]
        b = [pair[1] for pair in pairs[name]]
        deltas = [y - x for x, y in pairs[name]]
        ratio = f"{statistics.mean(b) / statistics.mean(a):.3f}" if statistics.mean(a) else "—"
        print(f"| {name} | {len(a)} | {statistics.mean(a):.2f} / {quantile(a, .5):.2f} / {quantile(a, .99):.2f} "
              f"| {statistics.mean(b):.2f} / {quantile(b, .5):.2f} / {quantile(b, .99):.2f} "
              f"| {statistics.mean(deltas):+.2f}, {statistics.median(deltas):+.2f} "
              f"| {ratio} | {different_by_route.get(name, 0)} |")


if __name__ == "__main__":
    main()
