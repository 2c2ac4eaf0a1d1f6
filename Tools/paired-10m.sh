#!/usr/bin/env bash
# Two leakhistory-server binaries (A, the old, and B, the new) measured paired on a database that
# `leakhistory-bench queries` seeded and kept (issue 47's rule: `queries` and `ingest` against the
# baseline in the same run, within ±5%). Paired, so that a machine shared with builds slows both
# alike: only B − A and B / A mean anything there, never one side's figure alone.
#
#   Tools/paired-10m.sh queries A_SERVER B_SERVER DATABASE BENCH_STDERR [ROUNDS]
#   Tools/paired-10m.sh ingest  A_SERVER B_SERVER DATABASE BENCH [ROUNDS]
#
# DATABASE is the kept SQLite file (`queries: the database is kept in DIR`: DIR/bench.sqlite) or
# the kept PostgreSQL URL (`queries: kept postgres://…`). No server ever opens it: each
# measurement works on fresh copies of it made with both servers stopped (SQLite: the file with
# its log; PostgreSQL: `CREATE DATABASE … TEMPLATE`, so nothing else may be connected to the
# kept URL's database), so a server that migrates on open changes only its own copy, and every
# rerun starts from the same bytes.
#
# queries: A and B each on a copy of their own (ports PAIRED_PORT_A, PAIRED_PORT_B: 18080,
#   18081), every third `GET` line of BENCH_STDERR (the bench's stderr, run with
#   `LEAKHISTORY_BENCH_SLOW_MS=0`) asked of both in turn for ROUNDS rounds (3) by
#   `Tools/paired-requests.py --by-route --cpu=…`: each server's mean, p50, p99 and B − A, in
#   wall-clock time and in the CPU time each request cost the server (and the cluster's backends
#   on PostgreSQL), overall and in a table by route.
# ingest: A and B each on a copy of their own (a newer server migrates its copy on open, and an
#   older one refuses a database a newer one migrated), one server at a time on PAIRED_PORT_A, in
#   rounds A B B A A B B A … (ROUNDS, 8). Each round starts its server, sends a warm-up (uploads
#   untimed), then PAIRED_LARGE 1,000-check uploads (300) and PAIRED_SMALL 10-check uploads
#   (3,000), each from `BENCH ingest-client` (8 threads on keep-alive connections, the ingest
#   suite's CI-shaped uploads, going on with the history round after round), and stops it. A's
#   k-th round and B's k-th round send the same uploads to the same history: a pair. For each
#   batch: the client's wall-clock seconds, the server's CPU seconds and, on PostgreSQL, the
#   cluster's (its postmaster and every backend; PAIRED_POSTMASTER_PID if it cannot be found from
#   the URL's port). Printed: each side's throughput and CPU a upload, and B − A over the pairs.
#
# Results go to PAIRED_WORK (/tmp/m47/paired) as `queries-ENGINE-TIME.txt` and
# `ingest-ENGINE-TIME.tsv`/`.txt`; the servers' stderr beside them.
set -euo pipefail

usage() {
  sed -n '7,8p' "$0" | sed 's/^# *//' >&2
  exit 2
}
[ $# -ge 5 ] || usage
MODE=$1 A_SERVER=$2 B_SERVER=$3 DATABASE=$4 INPUT=$5
case "$MODE" in
  queries) ROUNDS=${6:-3} ;;
  ingest) ROUNDS=${6:-8} ;;
  *) usage ;;
esac
TOOLS="$(cd "$(dirname "$0")" && pwd)"
WORK=${PAIRED_WORK:-/tmp/m47/paired}
PORT_A=${PAIRED_PORT_A:-18080}
PORT_B=${PAIRED_PORT_B:-18081}
LARGE=${PAIRED_LARGE:-300}
SMALL=${PAIRED_SMALL:-3000}
for binary in "$A_SERVER" "$B_SERVER"; do
  [ -x "$binary" ] || { echo "paired-10m: $binary is not an executable server binary" >&2; exit 2; }
done
[ -e "$INPUT" ] || { echo "paired-10m: $INPUT not found (the bench's stderr for queries, the bench binary for ingest)" >&2; exit 2; }
mkdir -p "$WORK"
STAMP=$(date -u +%Y%m%dT%H%M%S)
CONFIG="$WORK/server.json"
# The request log off, as the benchmarks run the server.
echo '{"logRequests": false}' >"$CONFIG"

case "$DATABASE" in
  postgres://* | postgresql://*)
    ENGINE=postgres
    # postgres://user@host:port/NAME?options=…: the kept database's name and the URL's other parts.
    PG_BASE=${DATABASE%%\?*}
    PG_QUERY=${DATABASE#"$PG_BASE"}
    PG_NAME=${PG_BASE##*/}
    PG_ADMIN="${PG_BASE%/*}/postgres"
    ;;
  *)
    ENGINE=sqlite
    [ -f "$DATABASE" ] || { echo "paired-10m: no SQLite database at $DATABASE" >&2; exit 2; }
    ;;
esac

# copy_of NAME: a fresh copy of the kept database named NAME; prints its location.
copy_of() {
  local name=$1
  if [ "$ENGINE" = postgres ]; then
    psql "$PG_ADMIN" -qAt -v ON_ERROR_STOP=1 -c "SET client_min_messages TO warning" -c "DROP DATABASE IF EXISTS $name" \
      -c "CREATE DATABASE $name TEMPLATE $PG_NAME STRATEGY FILE_COPY" >&2 \
      || { echo "paired-10m: could not copy PostgreSQL database $PG_NAME to $name (is anything still connected to it?)" >&2; exit 1; }
    echo "${PG_BASE%/*}/$name$PG_QUERY"
  else
    local folder="$WORK/$name"
    rm -rf "$folder"
    mkdir -p "$folder"
    local file
    for file in "$DATABASE" "$DATABASE-wal" "$DATABASE-shm"; do
      [ -f "$file" ] && cp "$file" "$folder/bench.sqlite${file#"$DATABASE"}"
    done
    echo "$folder/bench.sqlite"
  fi
}

# schema_version LOCATION: the highest migration a database holds (whether a server migrated it).
schema_version() {
  if [ "$ENGINE" = postgres ]; then
    psql "$1" -qAt -c "SELECT max(version) FROM schema_migrations"
  else
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(version) FROM schema_migrations").fetchone()[0])' "$1"
  fi
}

# The PostgreSQL server's process (POSTMASTER, empty on SQLite): the one listening on the URL's
# port (5432 when it names none), or PAIRED_POSTMASTER_PID.
POSTMASTER=""
if [ "$ENGINE" = postgres ]; then
  PG_HOST_PORT=${PG_BASE#*://}
  PG_HOST_PORT=${PG_HOST_PORT%%/*}
  PG_HOST_PORT=${PG_HOST_PORT##*@}
  PG_PORT=5432
  [[ "$PG_HOST_PORT" != *:* ]] || PG_PORT=${PG_HOST_PORT##*:}
  POSTMASTER=${PAIRED_POSTMASTER_PID:-$(ss -Hltnp "sport = :$PG_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)}
  if [ -z "$POSTMASTER" ] || [ ! -r "/proc/$POSTMASTER/stat" ]; then
    echo "paired-10m: no PostgreSQL server process found on port $PG_PORT (set PAIRED_POSTMASTER_PID); its CPU is left out" >&2
    POSTMASTER=""
  fi
fi

SERVER_PIDS=()
stop_servers() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${SERVER_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  SERVER_PIDS=()
}
trap stop_servers EXIT

# start_server BINARY PORT LOCATION LOG: starts it, waits for /healthz; the pid in SERVER_PID.
start_server() {
  local binary=$1 port=$2 location=$3 log=$4
  if curl -s -o /dev/null "http://127.0.0.1:$port/healthz"; then
    echo "paired-10m: something already answers on port $port; stop it or set PAIRED_PORT_A/PAIRED_PORT_B" >&2
    exit 1
  fi
  "$binary" --config "$CONFIG" --port "$port" --database "$location" >>"$log" 2>&1 &
  SERVER_PID=$!
  SERVER_PIDS+=("$SERVER_PID")
  local waited=0
  until curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "paired-10m: $binary exited before answering /healthz on port $port; its stderr: $log" >&2
      exit 1
    fi
    waited=$((waited + 1))
    [ "$waited" -le 600 ] || { echo "paired-10m: $binary did not answer /healthz on port $port in 300 s; its stderr: $log" >&2; exit 1; }
    sleep 0.5
  done
}

# cpu_seconds PID: the process's user + system CPU seconds so far.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}

# postgres_cpu_seconds: the cluster's CPU seconds so far: its postmaster, the children it has
# reaped (backends of closed connections) and the live ones.
postgres_cpu_seconds() {
  local hz children
  hz=$(getconf CLK_TCK)
  children=$(ps -o pid= --ppid "$POSTMASTER")
  {
    awk '{ print $14 + $15 + $16 + $17 }' "/proc/$POSTMASTER/stat"
    for child in $children; do
      [ -r "/proc/$child/stat" ] && awk '{ print $14 + $15 }' "/proc/$child/stat" 2>/dev/null || true
    done
  } | awk -v hz="$hz" '{ total += $1 } END { print total / hz }'
}

if [ "$MODE" = queries ]; then
  URLS="$WORK/urls-$ENGINE-$STAMP.txt"
  grep ' GET /' "$INPUT" | awk 'NR % 3 == 1' >"$URLS"
  [ -s "$URLS" ] || { echo "paired-10m: no GET lines in $INPUT (seed with LEAKHISTORY_BENCH_SLOW_MS=0)" >&2; exit 1; }
  OUT="$WORK/queries-$ENGINE-$STAMP.txt"
  A_COPY=$(copy_of m47_paired_a)
  B_COPY=$(copy_of m47_paired_b)
  # The copies' pages written out before anything is timed, not during the first side's requests.
  sync
  start_server "$A_SERVER" "$PORT_A" "$A_COPY" "$WORK/queries-$ENGINE-$STAMP-a.log"
  A_PID=$SERVER_PID
  start_server "$B_SERVER" "$PORT_B" "$B_COPY" "$WORK/queries-$ENGINE-$STAMP-b.log"
  B_PID=$SERVER_PID
  {
    echo "paired queries, $ENGINE, $(date -u '+%Y-%m-%d %H:%M UTC'); uptime: $(uptime)"
    echo "A ($PORT_A): $A_SERVER on a copy of $DATABASE (schema version $(schema_version "$A_COPY"))"
    echo "B ($PORT_B): $B_SERVER on a copy of $DATABASE (schema version $(schema_version "$B_COPY"))"
    echo "$(wc -l <"$URLS") URLs (every third GET line of $INPUT), $ROUNDS rounds"
  } | tee "$OUT"
  python3 "$TOOLS/paired-requests.py" "$URLS" "$ROUNDS" "$PORT_A" "$PORT_B" --by-route \
    "--cpu=$A_PID,$B_PID${POSTMASTER:+,$POSTMASTER}" 2>&1 | tee -a "$OUT"
  echo "uptime at the end: $(uptime)" | tee -a "$OUT"
  stop_servers
  exit 0
fi

# ingest
BENCH=$INPUT
TSV="$WORK/ingest-$ENGINE-$STAMP.tsv"
OUT="$WORK/ingest-$ENGINE-$STAMP.txt"
A_COPY=$(copy_of m47_paired_ingest_a)
B_COPY=$(copy_of m47_paired_ingest_b)
sync
TOKEN_A=$("$A_SERVER" --config "$CONFIG" --database "$A_COPY" tokens create bench 2>>"$WORK/ingest-$ENGINE-$STAMP-a.log")
TOKEN_B=$("$B_SERVER" --config "$CONFIG" --database "$B_COPY" tokens create bench 2>>"$WORK/ingest-$ENGINE-$STAMP-b.log")
{
  echo "paired ingest, $ENGINE, $(date -u '+%Y-%m-%d %H:%M UTC'); uptime: $(uptime)"
  echo "A: $A_SERVER on a copy of $DATABASE (schema version $(schema_version "$A_COPY"))"
  echo "B: $B_SERVER on a copy of $DATABASE (schema version $(schema_version "$B_COPY"))"
  echo "$ROUNDS rounds (A B B A …), each: a warm-up, then $LARGE 1,000-check and $SMALL 10-check uploads from $BENCH ingest-client"
} | tee "$OUT"
printf 'round\tserver\tblock\tbatch\tuploads\tchecks\tseconds\tserver_cpu\tpostgres_cpu\n' >"$TSV"
# batch ROUND SIDE BLOCK NAME UPLOADS CHECKS FIRST_INDEX: one client process's uploads, timed;
# the same BLOCK, NAME and FIRST_INDEX send the same uploads to either side.
batch() {
  local round=$1 side=$2 block=$3 name=$4 uploads=$5 checks=$6 first=$7 token cpu0 pg0 seconds cpu1 pg1
  if [ "$side" = A ]; then token=$TOKEN_A; else token=$TOKEN_B; fi
  cpu0=$(cpu_seconds "$SERVER_PID")
  pg0=0
  [ -z "$POSTMASTER" ] || pg0=$(postgres_cpu_seconds)
  seconds=$("$BENCH" ingest-client leakhistory "$PORT_A" "$token" "paired-$block-$name" "$uploads" "$checks" 8 "$first")
  cpu1=$(cpu_seconds "$SERVER_PID")
  pg1=0
  [ -z "$POSTMASTER" ] || pg1=$(postgres_cpu_seconds)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$side" "$block" "$name" "$uploads" "$checks" "$seconds" \
    "$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { print b - a }')" "$(awk -v a="$pg0" -v b="$pg1" 'BEGIN { print b - a }')" >>"$TSV"
}
BLOCKS_A=0 BLOCKS_B=0
for ((round = 0; round < ROUNDS; round++)); do
  case $((round % 4)) in
    0 | 3) side=A binary=$A_SERVER copy=$A_COPY block=$BLOCKS_A BLOCKS_A=$((BLOCKS_A + 1)) ;;
    *) side=B binary=$B_SERVER copy=$B_COPY block=$BLOCKS_B BLOCKS_B=$((BLOCKS_B + 1)) ;;
  esac
  # Block k's uploads go on where block k − 1's stopped, on both sides alike.
  large_first=$((block * (20 + LARGE))) small_first=$((block * (200 + SMALL)))
  start_server "$binary" "$PORT_A" "$copy" "$WORK/ingest-$ENGINE-$STAMP-$(echo "$side" | tr AB ab).log"
  # Warm-up (not kept): the server's caches and, in the first block, the suite's keys interned.
  batch "$round" "$side" "$block" warm-large 20 1000 "$large_first"
  batch "$round" "$side" "$block" warm-small 200 10 "$small_first"
  batch "$round" "$side" "$block" large "$LARGE" 1000 $((large_first + 20))
  batch "$round" "$side" "$block" small "$SMALL" 10 $((small_first + 200))
  stop_servers
  echo "round $round ($side, block $block): $(awk -F'\t' -v r="$round" '$1 == r && $4 !~ /^warm/ { printf "%s %s uploads in %.2f s, server CPU %.2f s, PostgreSQL CPU %.2f s; ", $4, $5, $7, $8, $9 }' "$TSV")" | tee -a "$OUT"
done
echo "schema versions at the end: A $(schema_version "$A_COPY"), B $(schema_version "$B_COPY"); uptime: $(uptime)" | tee -a "$OUT"
python3 - "$TSV" <<'EOF' | tee -a "$OUT"
import csv, statistics, sys

rows = [row for row in csv.DictReader(open(sys.argv[1]), delimiter="\t") if not row["batch"].startswith("warm")]
# Figures a batch: throughput and CPU milliseconds an upload (server, and server + PostgreSQL).
def figures(row):
    uploads, checks = int(row["uploads"]), int(row["checks"])
    seconds, server, postgres = float(row["seconds"]), float(row["server_cpu"]), float(row["postgres_cpu"])
    rate = uploads * checks / seconds if checks >= 1000 else uploads / seconds
    return {
        "checks/s" if checks >= 1000 else "uploads/s": rate,
        "server CPU ms an upload": server * 1000 / uploads,
        "server + PostgreSQL CPU ms an upload": (server + postgres) * 1000 / uploads,
    }

print("| batch | figure | A mean, median (rounds) | B mean, median (rounds) | B − A mean, median (pairs) | B / A (means) |")
print("|---|---|---|---|---|---|")
for batch in ("large", "small"):
    # Each side's blocks; block k of A and block k of B sent the same uploads: a pair.
    sides = {side: {int(row["block"]): figures(row) for row in rows if row["batch"] == batch and row["server"] == side}
             for side in "AB"}
    blocks = sorted(set(sides["A"]) & set(sides["B"]))
    for name in sides["A"][blocks[0]]:
        if name.startswith("server + PostgreSQL") and all(float(row["postgres_cpu"]) == 0 for row in rows):
            continue
        a = [figs[name] for figs in sides["A"].values()]
        b = [figs[name] for figs in sides["B"].values()]
        deltas = [sides["B"][block][name] - sides["A"][block][name] for block in blocks]
        digits = 0 if name.endswith("/s") else 3
        print(f"| {batch} | {name} | {statistics.mean(a):,.{digits}f}, {statistics.median(a):,.{digits}f} ({len(a)}) "
              f"| {statistics.mean(b):,.{digits}f}, {statistics.median(b):,.{digits}f} ({len(b)}) "
              f"| {statistics.mean(deltas):+,.{digits}f}, {statistics.median(deltas):+,.{digits}f} ({len(deltas)}) "
              f"| {statistics.mean(b) / statistics.mean(a):.3f} |")
EOF
