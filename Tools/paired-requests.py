#!/usr/bin/env python3
"""Paired A/B timing of two leakhistory servers on the same database.

Asks every URL of a list (one path a line, or the lines `LEAKHISTORY_BENCH_SLOW_MS=0
leakhistory-bench queries` prints on stderr, `grep`ped for the route wanted) of both servers in turn, the
order alternating, and prints each server's mean, p50, p90, p99 and max and the mean and median
of B − A. The machine's drift hits both alike, so a difference of a few tenths of a millisecond
shows where unpaired runs of one build differ by 15%. Each pair of answers is compared (status
and body): a change that alters an answer is counted and its first URLs printed.

    python3 Tools/paired-requests.py URLS [ROUNDS] [PORT_A] [PORT_B]   # ports 18080, 18081

Start the servers first, e.g. the old and the new build on a database the bench kept
(`LEAKHISTORY_BENCH_KEEP=1`): `leakhistory-server --port 18080 --database 'postgres://…'`.
Requests go to 127.0.0.1 only, one at a time.
"""
import hashlib
import http.client
import statistics
import sys
import time


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    # A path a line, or the bench's own lines ("slow: 12.3 ms GET /v1/…"): the path after "GET ".
    urls = [line.split("GET ", 1)[-1].strip() for line in open(sys.argv[1])]
    urls = [url for url in urls if url.startswith("/")]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    ports = [int(sys.argv[3]) if len(sys.argv) > 3 else 18080, int(sys.argv[4]) if len(sys.argv) > 4 else 18081]
    connections = {port: http.client.HTTPConnection("127.0.0.1", port, timeout=30) for port in ports}
    times = {port: [] for port in ports}
    different = 0

    def ask(port: int, url: str):
        for attempt in range(2):
            try:
                start = time.perf_counter()
                connections[port].request("GET", url)
                response = connections[port].getresponse()
                body = response.read()
                return (time.perf_counter() - start) * 1000, response.status, hashlib.md5(body).hexdigest()
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
            if answers[ports[0]][1:] != answers[ports[1]][1:]:
                different += 1
                if different <= 5:
                    print(f"different answers: {url} (status {answers[ports[0]][1]} / {answers[ports[1]][1]})", file=sys.stderr)

    def quantile(values, fraction):
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    for port in ports:
        values = times[port]
        print(f"{port}: n={len(values)} mean={statistics.mean(values):.2f} p50={quantile(values, .5):.2f} "
              f"p90={quantile(values, .9):.2f} p99={quantile(values, .99):.2f} max={max(values):.2f} ms")
    deltas = [b - a for a, b in zip(times[ports[0]], times[ports[1]])]
    print(f"B - A: mean {statistics.mean(deltas):+.2f} ms, median {statistics.median(deltas):+.2f} ms; "
          f"different answers: {different}")


if __name__ == "__main__":
    main()
