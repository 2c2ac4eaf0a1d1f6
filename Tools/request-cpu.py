#!/usr/bin/env python3
"""The server CPU time each request of a list costs, whatever the machine's load.

On a machine shared with builds (a load of 15 on 2 cores), a request's wall-clock time is
mostly the time it waited for a core: the queries bench's p99 there says more about the load
than about the query. This asks one leakhistory server every URL of a list (one path a line, or
the bench's "slow: … GET /v1/…" lines), once to warm it and once measured, and reads the CPU
time all of the server's threads ran meanwhile (`/proc/PID/task/*/schedstat`, nanoseconds):
the request's own work, which waiting does not add to. It prints p50, p99 and max over the
list, how many were over the threshold, and the costliest URLs.

    python3 Tools/request-cpu.py URLS PID [PORT] [THRESHOLD_MS] [TOP]   # port 18080, 15 ms, 20

Start the server first on a database the bench kept (`LEAKHISTORY_BENCH_KEEP=1`), alone on it
(no other client): `leakhistory-server --port 18080 --database …`; PID is its process id.
Linux only. Not the bench's figure (that is wall-clock, beside a baseline of the same run):
where the two disagree, the load made the difference.
"""
import http.client
import os
import sys


def server_cpu_ns(pid: int) -> int:
    total = 0
    for thread in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{thread}/schedstat") as stat:
                total += int(stat.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    urls = [line.split("GET ", 1)[-1].strip() for line in open(sys.argv[1])]
    urls = [url for url in urls if url.startswith("/")]
    pid = int(sys.argv[2])
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 18080
    threshold = float(sys.argv[4]) if len(sys.argv) > 4 else 15.0
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    costs = []
    for url in urls:
        connection.request("GET", url)
        connection.getresponse().read()
        before = server_cpu_ns(pid)
        connection.request("GET", url)
        response = connection.getresponse()
        body = response.read()
        after = server_cpu_ns(pid)
        if response.status != 200:
            sys.exit(f"GET {url} answered {response.status}: {body[:200]!r}")
        costs.append(((after - before) / 1e6, len(body), url))
    values = sorted(cost for cost, _, _ in costs)
    count = len(values)
    if count == 0:
        sys.exit(f"no URL in {sys.argv[1]} (a path a line, starting with /)")
    print(f"server CPU a request over {count} requests: p50 {values[count // 2]:.2f} ms, "
          f"p99 {values[min(count - 1, int(count * 0.99))]:.2f} ms, max {values[-1]:.2f} ms; "
          f"over {threshold:g} ms: {sum(value > threshold for value in values)}")
    for cost, size, url in sorted(costs, reverse=True)[:top]:
        print(f"{cost:8.2f} ms {size:8d} B  {url}")


if __name__ == "__main__":
    main()
