#!/usr/bin/env bash
# Memory of a CSV export: one notification to N direct installations (100,000 unless given) on the release gateway
# with its embedded SQLite, delivered. The gateway is then started afresh on the same store, so the reference is an
# idle server's RSS and not that of a heap the fan-out grew (whose freed pages an export could reuse unseen). For each
# of ROUNDS rounds (3 unless set): the fresh gateway's peak RSS while `curl` downloads the whole per-delivery CSV
# (`?format=csv`) compared with the RSS the server had idle before its first download. The kernel's peak (VmHWM) is
# reset before each download through /proc/PID/clear_refs. Also prints the rows and bytes received and the rate.
#
# Leaves out: the client's side (curl writes to /dev/null) and PostgreSQL (the same paging, another driver).
#
#   [ROUNDS=n] Benchmarks/export-memory.sh [installations]
set -euo pipefail
cd "$(dirname "$0")/.."
installations=${1:-100000}
rounds=${ROUNDS:-3}
scripts/ensure-packages curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway

port=$(bench_free_port)
bench_start_gateway "$port" "$bench_work/data"
pid=${bench_pids[0]}
base="http://127.0.0.1:$port"
admin=(-u admin:bench-admin-password)
echo "registering $installations installations…" >&2
bench_import_installations "$base" "$installations" 100 "${admin[@]}"
id=$(curl -sf "${admin[@]}" -d '{"message":"Benchmark","richType":"text","text":"x","audience":"topic:bench"}' \
    "$base/api/notifications" | bench_json id)
status=$(bench_await_status "$base/api/notifications/$id/status" "${admin[@]}")
[[ $status =~ \"state\":\"delivered\" ]] || { echo "the notification ended: $status" >&2; exit 1; }

kill "$pid"
wait "$pid" 2>/dev/null || true
bench_start_gateway "$port" "$bench_work/data"
pid=${bench_pids[-1]}
sleep 2
kib() { awk -v key="$1:" '$1 == key {print $2}' "/proc/$pid/status"; }
idle=$(kib VmRSS)
printf '%-6s %10s %10s %10s %8s %12s %9s\n' round idle_MiB peak_MiB over_MiB rows bytes rows/s
for round in $(seq 1 "$rounds"); do
    sleep 1
    echo 5 >"/proc/$pid/clear_refs"
    start=$(date +%s.%N)
    curl -sf "${admin[@]}" -o "$bench_work/export.csv" "$base/api/notifications/$id/deliveries?format=csv"
    finished=$(date +%s.%N)
    peak=$(kib VmHWM)
    rows=$(($(wc -l <"$bench_work/export.csv") - 1))
    bytes=$(stat -c %s "$bench_work/export.csv")
    [ "$rows" -eq "$installations" ] || { echo "the export held $rows rows, not $installations" >&2; exit 1; }
    awk -v r="$round" -v i="$idle" -v p="$peak" -v n="$rows" -v b="$bytes" -v s="$start" -v f="$finished" 'BEGIN {
        printf "%-6s %10.1f %10.1f %10.1f %8d %12d %9.0f\n", r, i / 1024, p / 1024, (p - i) / 1024, n, b, n / (f - s) }'
done
echo "target: the peak stays within 20 MiB of the fresh server's idle RSS"
