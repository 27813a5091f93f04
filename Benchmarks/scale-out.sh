#!/usr/bin/env bash
# Scale-out on PostgreSQL, against the release gateway and a private PostgreSQL server (durable settings):
#  1. fan-out: one notification to N installations (100 users), direct streams and then APNs (the loopback nginx
#     HTTP/2 + TLS sink of apns-fanout.sh), from the POST until the last delivery was sent (its `sentAt`; the status
#     is polled every 0.5 s, as `richpush send --follow` does, so the polling's own counts weigh as they do for a
#     user), on SQLite's single process and on PostgreSQL with one gateway process and with two on the same database
#     (the notification created on the first, both dispatching), with the CPU each part used per push, then the time
#     the CSV export of its results takes;
#  2. the device's payload fetch (P1: an authorized GET of a ~110 KB PNG, wrk -t2 -c64) on PostgreSQL and on SQLite.
# Prints the rates and the ratios two processes / one and PostgreSQL / SQLite, and where one process's fan-outs on
# PostgreSQL spend the database's time: each statement's execution time per push, from pg_stat_statements (server
# time only: the round trips and the gateway's own work are not in it).
#
# With PIN=1, the database server runs on the first core and the gateways on the second (taskset), so the figures
# show what the gateway and the database each cost apart rather than what they cost sharing both cores.
#
#   [PIN=1] Benchmarks/scale-out.sh [installations] [seconds per fetch round] [fetch rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RICHPUSH_TEST_DATABASE_URL:-}" ]; then
    RICHPUSH_POSTGRES_DURABLE=1 RICHPUSH_POSTGRES_STATEMENTS=1 exec scripts/with-postgres "$(realpath "$0")" "$@"
fi
installations=${1:-100000}
seconds=${2:-10}
rounds=${3:-3}
users=100
scripts/ensure-packages wrk nginx-light openssl curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config util-linux
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"
bench_start_apns_sink
bench_apns_gateway_flags
sink_processes=${#bench_pids[@]}
if [ "${PIN:-0}" = 1 ]; then
    # The private server's processes on core 0 (the backends it starts later inherit it); the gateways on core 1.
    for server in "$RICHPUSH_TEST_POSTGRES_PID" $(pgrep -P "$RICHPUSH_TEST_POSTGRES_PID"); do
        taskset -a -p -c 0 "$server" >/dev/null
    done
    richpush_binary_unpinned=$richpush_binary
    richpush_binary="$bench_work/pinned-richpush"
    printf '#!/bin/sh\nexec taskset -c 1 %s "$@"\n' "$richpush_binary_unpinned" >"$richpush_binary"
    chmod +x "$richpush_binary"
fi
results="$bench_work/results"

# stop_gateways: ends every gateway started since the APNs sink, gracefully; the sink stays.
stop_gateways() {
    local gateways=("${bench_pids[@]:$sink_processes}")
    for pid in "${gateways[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${gateways[@]}"; do wait "$pid" 2>/dev/null || true; done
    bench_pids=("${bench_pids[@]:0:$sink_processes}")
}

# now_seconds: a monotonic-enough clock with sub-millisecond resolution.
now_seconds() { date +%s.%N; }

# cpu_ticks GATEWAY_PID…: the CPU ticks so far of the gateways, of the database server (its backends included; 0 on
# SQLite's runs, where the database is in the gateway), of the APNs sink and of the whole machine (busy, not idle or
# stolen), as "gateways,database,sink,machine".
cpu_ticks() {
    local database=0
    [ -n "${RICHPUSH_TEST_POSTGRES_PID:-}" ] && database=$(bench_ticks "$RICHPUSH_TEST_POSTGRES_PID")
    echo "$(bench_ticks "$@"),$database,$(bench_ticks "${bench_pids[@]:0:$sink_processes}"),$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat)"
}

psql "$RICHPUSH_TEST_DATABASE_URL" -q -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >&2

# fan_out LABEL PLATFORM STORE_FLAGS PROCESSES [DATABASE]: registers the installations of PLATFORM (direct or apns)
# through the first process, then times the send; with a DATABASE name, keeps the send's statement statistics of that
# database in $results-LABEL.
fan_out() {
    local label=$1 platform=$2 store=$3 processes=$4 database=${5:-} ports=() port hub=()
    [ "$platform" = apns ] && hub=("${apns_flags[@]}")
    for _ in $(seq 1 "$processes"); do
        port=$(bench_free_port)
        # shellcheck disable=SC2086
        bench_start_gateway "$port" "$bench_work/data-$label" $store "${hub[@]}"
        ports+=("$port")
    done
    local base="http://127.0.0.1:${ports[0]}" admin=(-u admin:bench-admin-password)
    echo "$label: registering $installations installations…" >&2
    bench_platform=$platform bench_import_installations "$base" "$installations" "$users" "${admin[@]}"
    echo "$label: sending…" >&2
    local start created id status finished gateways=("${bench_pids[@]:$sink_processes}") cpu_before cpu_after
    [ -z "$database" ] || psql "$RICHPUSH_TEST_DATABASE_URL" -q -t -c "SELECT pg_stat_statements_reset()" >/dev/null
    cpu_before=$(cpu_ticks "${gateways[@]}")
    start=$(now_seconds)
    id=$(curl -sf "${admin[@]}" -d '{"message":"Benchmark","richType":"text","text":"x","audience":"topic:bench"}' \
        "$base/api/notifications" | bench_json id)
    created=$(now_seconds)
    # A look every 0.5 s, as `richpush send --follow` takes; the end is when the last push was sent.
    status=$(bench_poll_seconds=0.5 bench_await_status "$base/api/notifications/$id/status" "${admin[@]}")
    cpu_after=$(cpu_ticks "${gateways[@]}")
    [[ $status =~ \"state\":\"delivered\" ]] || { echo "$label: the notification ended: $status" >&2; exit 1; }
    [ -z "$database" ] || psql "$RICHPUSH_TEST_DATABASE_URL" -q -t -A -F $'\t' -c "
        SELECT calls, total_exec_time, rows, wal_fpi, wal_bytes, regexp_replace(query, '\s+', ' ', 'g') FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$database') ORDER BY total_exec_time DESC LIMIT 12" \
        >"$results-$label"
    local export_start exported
    export_start=$(now_seconds)
    finished=$(bench_last_sent "$base/api/notifications/$id/deliveries" "${admin[@]}")
    exported=$(now_seconds)
    echo "fanout $label $start $created $finished $cpu_before $cpu_after $export_start $exported" >>"$results"
    stop_gateways
}

# database_name URL: the database a URL names.
database_name() { python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).path.lstrip("/"))' "$1"; }

for platform in direct apns; do
    fan_out "sqlite-$platform-1" "$platform" "" 1
    profiled=$(bench_new_database)
    fan_out "postgresql-$platform-1" "$platform" "--database-url $profiled" 1 "$(database_name "$profiled")"
    fan_out "postgresql-$platform-2" "$platform" "--database-url $(bench_new_database)" 2
done

# fetch_setup LABEL STORE_FLAGS: a gateway with one image notification; prints its payload URL.
python3 Benchmarks/support/noise_png.py 112000 "$bench_work/payload.png"
fetch_setup() {
    local label=$1 store=$2 port
    port=$(bench_free_port)
    # shellcheck disable=SC2086
    bench_start_gateway "$port" "$bench_work/fetch-$label" $store
    local base="http://127.0.0.1:$port" admin=(-u admin:bench-admin-password) image id
    curl -sf "${admin[@]}" -d '{"username":"alice","password":"alice-password","role":"member"}' "$base/api/users" >/dev/null
    image=$(curl -sf "${admin[@]}" -H 'Content-Type: image/png' --data-binary "@$bench_work/payload.png" "$base/api/images" | bench_json id)
    id=$(curl -sf "${admin[@]}" -d "{\"message\":\"Benchmark\",\"richType\":\"img\",\"imageId\":$image,\"audience\":\"username:alice\"}" \
        "$base/api/notifications" | bench_json id)
    curl -sf -u alice:alice-password -o "$bench_work/fetched-$label.png" "$base/api/notifications/$id"
    cmp -s "$bench_work/fetched-$label.png" "$bench_work/payload.png" || { echo "$label served other bytes" >&2; exit 1; }
    echo "$base/api/notifications/$id"
}
# Not in $(…): a subshell would keep the gateways' pids from stop_gateways and leave them running.
fetch_setup sqlite "" >"$bench_work/url-sqlite"
fetch_setup postgresql "--database-url $(bench_new_database)" >"$bench_work/url-postgresql"
sqlite_url=$(cat "$bench_work/url-sqlite")
postgresql_url=$(cat "$bench_work/url-postgresql")
authorization="Authorization: Basic $(printf 'alice:alice-password' | base64)"
echo "warming up…" >&2
wrk -t2 -c64 -d3s -H "$authorization" "$sqlite_url" >/dev/null
wrk -t2 -c64 -d3s -H "$authorization" "$postgresql_url" >/dev/null
for round in $(seq 1 "$rounds"); do
    echo "fetch round $round of $rounds…" >&2
    echo "fetch $(bench_wrk sqlite "$sqlite_url" -t2 -c64 -H "$authorization" -d"${seconds}s")" >>"$results"
    echo "fetch $(bench_wrk postgresql "$postgresql_url" -t2 -c64 -H "$authorization" -d"${seconds}s")" >>"$results"
done
stop_gateways

python3 - "$results" "$installations" "$seconds" "$rounds" <<'PY'
import os, statistics, sys
path, installations, seconds, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = [line.split() for line in open(path)]
hz = os.sysconf("SC_CLK_TCK")
def cpu(before, after):
    """CPU µs per push of the gateways, the database server, the sink and the whole machine."""
    spent = [int(b) - int(a) for a, b in zip(before.split(","), after.split(","))]
    return [ticks / hz / installations * 1e6 for ticks in spent]
fanout = {r[1]: (float(r[3]) - float(r[2]), float(r[4]) - float(r[3]), cpu(r[5], r[6]), float(r[8]) - float(r[7]))
          for r in rows if r[0] == "fanout"}
for platform in ("direct", "apns"):
    print(f"fan-out to {installations} {platform} installations: POST answered, then every delivery sent; CPU µs per push from the")
    print("POST to the end (the gateways, the database server, the APNs sink, the whole machine); then the CSV export of its results")
    for processes in ("sqlite-1", "postgresql-1", "postgresql-2"):
        engine, count = processes.split("-")
        create, dispatch, (gateways, database, sink, machine), export = fanout[f"{engine}-{platform}-{count}"]
        print(f"  {processes:14} create {create:5.2f} s  dispatch {dispatch:5.2f} s {installations / dispatch:7.0f}/s"
              f"  from the POST {installations / (create + dispatch):7.0f}/s"
              f"  CPU {gateways:5.1f} {database:5.1f} {sink:5.1f} {machine:5.1f}  export {export:5.2f} s")
    one, two = fanout[f"postgresql-{platform}-1"][1], fanout[f"postgresql-{platform}-2"][1]
    print(f"  ratio two processes / one on PostgreSQL: {one / two:.2f}x the rate")
    print(f"  ratio PostgreSQL / SQLite, one process:  {fanout[f'sqlite-{platform}-1'][1] / one:.2f}x the rate")
    print(f"PostgreSQL's execution time per push in postgresql-{platform}-1's send, by statement (pg_stat_statements, server time only)")
    statements = [line.rstrip("\n").split("\t", 5) for line in open(f"{path}-postgresql-{platform}-1") if line.strip()]
    total = sum(float(s[1]) for s in statements)
    print(f"  {'µs/push':>8} {'calls':>8} {'rows':>9} {'WAL B/push':>10} {'full pages':>10}  statement"
          f"   (the {len(statements)} costliest: {total * 1000 / installations:.1f} µs/push)")
    for calls, milliseconds, affected, full_pages, wal_bytes, query in statements:
        print(f"  {float(milliseconds) * 1000 / installations:8.1f} {int(calls):8d} {int(affected):9d}"
              f" {int(wal_bytes) / installations:10.0f} {int(full_pages):10d}  {query[:90]}")
def fetch(name):
    picked = [(float(r[2]), float(r[3])) for r in rows if r[0] == "fetch" and r[1] == name]
    return statistics.median(x for x, _ in picked), statistics.median(p for _, p in picked)
sqlite_rate, sqlite_p99 = fetch("sqlite")
pg_rate, pg_p99 = fetch("postgresql")
print(f"payload fetch, ~110 KB PNG, wrk -t2 -c64, {rounds} rounds of {seconds} s, medians")
print(f"  SQLite       {sqlite_rate:10.0f} req/s   p99 {sqlite_p99:7.2f} ms")
print(f"  PostgreSQL   {pg_rate:10.0f} req/s   p99 {pg_p99:7.2f} ms")
print(f"  ratio PostgreSQL / SQLite: throughput {pg_rate / sqlite_rate:.2f}x   p99 {pg_p99 / sqlite_p99:.2f}x")
PY
