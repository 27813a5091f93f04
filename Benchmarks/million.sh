#!/usr/bin/env bash
# A million devices on each engine: one campaign to 100,000 direct installations, then, with 900,000 more registered,
# one to all 1,000,000, on SQLite and on a private PostgreSQL server (durable settings), against the release gateway.
# Prints for each campaign the time from the POST to its answer (the goal: 10 s for the million), the dispatch rate
# from the answer until the last delivery's `sentAt` (the goal: the million's within 20% of the 100,000's), and the
# gateway's peak RSS over the whole run (the goal: 400 MB).
#
# The status is followed as `richpush send --follow` does, a look every 0.5 s.
#
# The installations belong to USERS members (100 unless set), round robin: the direct channel's events are indexed
# by user, so a batch of 1,000 touches one place of that index per distinct member.
#
#   [USERS=n] Benchmarks/million.sh [engine…]      engines: sqlite postgresql (both unless given)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RICHPUSH_TEST_DATABASE_URL:-}" ]; then
    RICHPUSH_POSTGRES_DURABLE=1 exec scripts/with-postgres "$(realpath "$0")" "$@"
fi
engines=("${@:-sqlite postgresql}")
read -r -a engines <<<"${engines[*]}"
users=${USERS:-100}
scripts/ensure-packages curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
results="$bench_work/results"

# campaign ENGINE BASE DEVICES: times one notification to every installation, from the POST to its answer, then to
# the last delivery sent.
campaign() {
    local engine=$1 base=$2 devices=$3 start answered id status finished admin=(-u admin:bench-admin-password)
    start=$(date +%s.%N)
    id=$(curl -sf -u admin:bench-admin-password -d '{"message":"Benchmark","richType":"text","text":"x","audience":"topic:bench"}' \
        "$base/api/notifications" | bench_json id)
    answered=$(date +%s.%N)
    status=$(bench_poll_seconds=0.5 bench_await_status "$base/api/notifications/$id/status" "${admin[@]}")
    [ "$(bench_json sent <<<"$status")" = "$devices" ] || { echo "$engine: not sent to all $devices: $status" >&2; exit 1; }
    finished=$(bench_last_sent "$base/api/notifications/$id/deliveries" "${admin[@]}")
    echo "$engine $devices $start $answered $finished" >>"$results"
}

for engine in "${engines[@]}"; do
    store=()
    [ "$engine" = postgresql ] && store=(--database-url "$(bench_new_database)")
    port=$(bench_free_port)
    bench_start_gateway "$port" "$bench_work/data-$engine" "${store[@]}"
    pid=${bench_pids[-1]}
    base="http://127.0.0.1:$port"
    admin=(-u admin:bench-admin-password)
    echo "$engine: registering 100,000 installations…" >&2
    bench_import_installations "$base" 100000 "$users" "${admin[@]}"
    echo "$engine: a campaign to 100,000…" >&2
    campaign "$engine" "$base" 100000
    echo "$engine: registering 900,000 more…" >&2
    bench_register_installations "$base" 100000 1000000 "$users" "${admin[@]}"
    echo "$engine: a campaign to 1,000,000…" >&2
    campaign "$engine" "$base" 1000000
    echo "rss $engine $(awk '/VmHWM/ {print $2}' "/proc/$pid/status")" >>"$results"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done

python3 - "$results" "$users" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
rss = {r[1]: int(r[2]) / 1024 for r in rows if r[0] == "rss"}
campaigns = {}
for engine, devices, start, answered, finished in (r for r in rows if r[0] != "rss"):
    devices, start, answered, finished = int(devices), float(start), float(answered), float(finished)
    campaigns[(engine, devices)] = (answered - start, devices / (finished - answered), devices / (finished - start))
print(f"one campaign to N direct installations ({sys.argv[2]} members), the POST's answer and then every delivery sent")
for engine in dict.fromkeys(e for e, _ in campaigns):
    for devices in (100000, 1000000):
        accept, dispatch, total = campaigns[(engine, devices)]
        print(f"  {engine:10} {devices:9,}  answered in {accept:6.2f} s   dispatch {dispatch:8.0f}/s   from the POST {total:8.0f}/s")
    ratio = campaigns[(engine, 1000000)][1] / campaigns[(engine, 100000)][1]
    print(f"  {engine:10} the million's dispatch rate / the 100,000's: {ratio:.2f}x   gateway peak RSS {rss[engine]:.0f} MiB")
PY
