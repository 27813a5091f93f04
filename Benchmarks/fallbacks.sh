#!/usr/bin/env bash
# Fallbacks of one campaign: DEVICES APNs installations (100,000 unless given) of 200 members against the loopback
# APNs sink (nginx, HTTP/2 over TLS, one worker, answering at once), where 70% of the members fetch the payload and
# 30% never do. Each of ROUNDS rounds (3 unless set), on a fresh store:
#   1. the silent fan-out, timed from the POST (`"fallback": {"after": "PT1M"}`) until every push is sent;
#   2. 140 of the 200 members fetch the payload;
#   3. the gateway is stopped through the fetch deadline and started again after it, so every fallback falls due at
#      once; timed from the restart until the status counts every fallback sent.
# Prints each round, the median, and the fallbacks' fan-out rate against the silent pushes' of the same round: both
# from the marketer's side (the POST, the restart) and as the gateway dispatched them, from the first push of each kind
# its hub accepted to the last (the deliveries' sentAt and fallbackSentAt), which leaves out the POST's answer and the
# gateway's start.
#
# Draws the median round's pushes a second over time into docs/img/fallbacks.png (support/chart.py).
#
# What the figures leave out: the deadline's minute itself (the gateway sleeps through it: the figure is the fan-out
# of the fallbacks, not the pace at which their deadlines come), a round trip to a remote hub (hub-round-trip.sh
# measures that), PostgreSQL, and the fetches' own cost (70% of the users fetch once each, before the deadline).
#
#   [ROUNDS=n] Benchmarks/fallbacks.sh [installations]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-100000}
users=200
fetching=140
scripts/ensure-packages nginx-light openssl curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"
bench_start_apns_sink
bench_apns_gateway_flags
admin=(-u admin:bench-admin-password)
# Installations desk-i belong to user(i % 200 + 1): those of the members who never fetch are the fallbacks' audience.
expected=$(python3 -c "print(sum(1 for i in range($devices) if i % $users + 1 > $fetching))")

# fallbacks_sent STATUS_URL: the status's count of fallbacks sent, read in bash (a Python start-up per poll would take
# a core from the gateway being measured).
fallbacks_sent() {
    local status
    status=$(curl -sf "${admin[@]}" "$1")
    [[ $status =~ \"fallbacks\":\{[^}]*\"sent\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}" || echo 0
}

# Both phases look at the status four times a second: each look costs the gateway the status's queries (the
# fallbacks' tally joins every fallback sent), which a look every 50 ms made a share of what was measured. The
# dispatch-alone figures come from the gateway's own times, whatever the looks' pace.
bench_poll_seconds=0.25
rounds=${ROUNDS:-3}
for round in $(seq 1 "$rounds"); do
    port=$(bench_free_port)
    data="$bench_work/data-$round"
    base="http://127.0.0.1:$port"
    bench_start_gateway "$port" "$data" "${apns_flags[@]}"
    echo "round $round: registering $devices APNs installations of $users members…" >&2
    bench_platform=apns bench_import_installations "$base" "$devices" "$users" "${admin[@]}"
    echo "round $round: the silent fan-out…" >&2
    start=$(date +%s.%N)
    created=$(curl -sf "${admin[@]}" -H 'Content-Type: application/json' \
        -d '{"message":"Winter sale","title":"Sale","richType":"text","text":"30% off","audience":"topic:bench","fallback":{"after":"PT1M"}}' \
        "$base/api/notifications")
    id=$(bench_json id <<<"$created")
    status=$(bench_await_status "$base/api/notifications/$id/status" "${admin[@]}")
    finished=$(date +%s.%N)
    [ "$(bench_json sent <<<"$status")" = "$devices" ] || { echo "the campaign was not sent to all: $status" >&2; exit 1; }
    for user in $(seq 1 "$fetching"); do
        curl -sf -o /dev/null -u "user$user:user-password-$user" "$base/api/notifications/$id"
    done
    # The status waits for the fetches just answered to be recorded.
    curl -sf -o /dev/null "${admin[@]}" "$base/api/notifications/$id/status"
    kill -TERM "${bench_pids[-1]}"
    wait "${bench_pids[-1]}" || true
    echo "round $round: waiting out the one-minute fetch deadline with the gateway stopped…" >&2
    sleep "$(python3 -c "import time; print(max(0, $finished + 61 - time.time()))")"
    restart=$(date +%s.%N)
    bench_start_gateway "$port" "$data" "${apns_flags[@]}"
    while [ "$(fallbacks_sent "$base/api/notifications/$id/status")" -lt "$expected" ]; do sleep "$bench_poll_seconds"; done
    done_at=$(date +%s.%N)
    # The gateway's own times: the first and last push of each kind its hub accepted, from the deliveries' export.
    curl -sf "${admin[@]}" "$base/api/notifications/$id/deliveries?format=csv" >"$bench_work/deliveries-$round.csv"
    spans=$(python3 -c '
import csv, sys
from datetime import datetime
def span(rows, column):
    times = sorted(datetime.fromisoformat(row[column].replace("Z", "+00:00")).timestamp() for row in rows if row[column])
    return times[-1] - times[0]
rows = list(csv.DictReader(sys.stdin))
print(span(rows, "sentAt"), span(rows, "fallbackSentAt"))' <"$bench_work/deliveries-$round.csv")
    echo "$start $finished $restart $done_at $spans" >>"$bench_work/rounds"
    kill -TERM "${bench_pids[-1]}"
    wait "${bench_pids[-1]}" || true
done

python3 - "$devices" "$expected" "$bench_work/rounds" <<'PY'
import sys
devices, expected = int(sys.argv[1]), int(sys.argv[2])
print(f"fallbacks of a campaign to {devices} APNs installations, 30% of whose users never fetch ({expected} fallbacks);"
      " loopback nginx HTTP/2 over TLS (1 worker), SQLite")
print("  round  silent/s from the POST  fallbacks/s from the restart  silent/s first to last  fallbacks/s first to last  ratio")
rounds = []
for number, line in enumerate(open(sys.argv[3]), 1):
    start, finished, restart, done, silent_span, fallback_span = (float(v) for v in line.split())
    silent, fallbacks = devices / (finished - start), expected / (done - restart)
    silent_dispatch, fallback_dispatch = devices / silent_span, expected / fallback_span
    rounds.append((fallback_dispatch / silent_dispatch, silent, fallbacks, silent_dispatch, fallback_dispatch, done - restart))
    print(f"  {number:5}  {silent:22.0f}  {fallbacks:28.0f}  {silent_dispatch:22.0f}  {fallback_dispatch:25.0f}  "
          f"{fallback_dispatch / silent_dispatch:5.2f}x")
ratio, silent, fallbacks, silent_dispatch, fallback_dispatch, seconds = sorted(rounds)[len(rounds) // 2]
print(f"  median round: {silent:.0f} silent pushes/s from the POST; every fallback accepted {seconds:.2f} s after the restart"
      f" ({fallbacks:.0f}/s, the gateway's start included)")
print(f"  dispatch alone, from the first push its hub accepted to the last: silent {silent_dispatch:.0f}/s, fallbacks"
      f" {fallback_dispatch:.0f}/s")
print(f"  ratio (fallbacks / silent pushes, dispatch alone) {ratio:.2f}x   (rounds: {', '.join(f'{r[0]:.2f}x' for r in rounds)})")
with open(sys.argv[3] + ".median", "w") as median:
    print(sorted(range(len(rounds)), key=lambda i: rounds[i])[len(rounds) // 2] + 1, file=median)
PY
median=$(cat "$bench_work/rounds.median")
bench_chart rate fallbacks "Silent pushes and their fallbacks, the median round ($devices APNs installations, SQLite)" \
    "silent pushes=$bench_work/deliveries-$median.csv:sentAt" "fallbacks=$bench_work/deliveries-$median.csv:fallbackSentAt"
