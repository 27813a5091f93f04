#!/usr/bin/env bash
# Fan-out of one notification to 100,000 APNs installations against a loopback HTTP/2-over-TLS sink shaped like
# APNs (nginx: one worker, `return 200` with the apns-id echoed), compared in the same run with h2load sending the
# same number of requests with the same headers and body to the same sink. Prints, for each of ROUNDS rounds (3 unless
# set) and their median, two rates against h2load's: from just before the POST until the status counts every push
# sent (what the marketer sees), and the dispatch alone, from the POST's answer; and the gateway's peak RSS.
#
# Each round also sends a campaign with a title, custom data and three languages (the installations speak French,
# German, Brazilian Portuguese or none of them, a quarter each) right after the plain notification, and prints its
# dispatch rate beside the plain one's: what a marketer's content costs the fan-out.
# Draws the last round's pushes a second over the campaign into docs/img/apns-fanout.png (support/chart.py).
#
# GATEWAY_FLAGS adds serve flags to the gateway (`--dispatch-batches-in-flight 4 --hub-streams 256`: the defaults
# before far hubs were measured).
#
#   [ROUNDS=n] [GATEWAY_FLAGS=…] Benchmarks/apns-fanout.sh [installations]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-100000}
scripts/ensure-packages nginx-light nghttp2-client openssl curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"

bench_start_apns_sink

gateway_port=$(bench_free_port)
bench_apns_gateway_flags
# shellcheck disable=SC2086
bench_start_gateway "$gateway_port" "$bench_work/data" "${apns_flags[@]}" ${GATEWAY_FLAGS:-}
gateway_pid=${bench_pids[-1]}
base="http://127.0.0.1:$gateway_port"
admin=(-u admin:bench-admin-password)
curl -sf "${admin[@]}" -d '{"username":"alice","password":"alice-password","role":"member"}' "$base/api/users" >/dev/null
echo "registering $devices APNs installations…" >&2
python3 - "$devices" "$bench_work/import" <<'PY'
import json, sys
count, prefix = int(sys.argv[1]), sys.argv[2]
for part, first in enumerate(range(0, count, 10000)):
    languages = [None, "fr-FR", "de", "pt-BR"]
    entries = [{"installationId": f"phone-{i}", "owner": "alice", "platform": "apns", "pushChannel": f"{i:064x}",
                "tags": ["topic:bench"], **({"language": languages[i % 4]} if languages[i % 4] else {})}
               for i in range(first, min(first + 10000, count))]
    with open(f"{prefix}-{part:03d}.json", "w") as out:
        json.dump({"installations": entries}, out)
PY
for file in "$bench_work"/import-*.json; do
    curl -sf "${admin[@]}" -H 'Content-Type: application/json' --data-binary "@$file" "$base/api/installations/import" >/dev/null
done

# The same requests from h2load: same path shape, headers and body, as many streams in flight as one connection of
# the gateway's allows.
h2load_rate() { bench_h2load_apns "$devices" 1 256 "$sink_port"; }

# The gateway's CPU time so far (user and system, in clock ticks): CPU per push is steadier than a rate on a shared
# machine, since it does not count the time the gateway waits for a core.
gateway_ticks() { awk '{print $14 + $15}' "/proc/$gateway_pid/stat"; }

# Rounds of one notification to every installation, each between two h2load runs: on a shared two-core machine either
# rate can vary by half from one minute to the next, so each ratio compares a round with the mean of its neighbours
# on both sides, and the median is reported.
campaign='{"message":"Check this image out!","richType":"text","text":"x","audience":"topic:bench","title":"Winter sale",
  "data":{"campaign":"winter-2026","deepLink":"shop://sale/winter"},
  "localizations":{"fr":{"message":"Découvrez cette image !","title":"Soldes d’hiver"},"de":{"message":"Schau dir dieses Bild an!",
  "title":"Winterschlussverkauf"},"pt-BR":{"message":"Confira esta imagem!","title":"Liquidação de inverno"}}}'
# campaign_seconds BODY: seconds from the POST's answer until every push of the notification BODY creates is sent.
campaign_seconds() {
    local created accepted status finished
    created=$(curl -sf "${admin[@]}" -H 'Content-Type: application/json' -d "$1" "$base/api/notifications")
    accepted=$(date +%s.%N)
    status=$(bench_await_status "$base/api/notifications/$(bench_json id <<<"$created")/status" "${admin[@]}")
    finished=$(date +%s.%N)
    [ "$(bench_json sent <<<"$status")" = "$devices" ] || { echo "the campaign was not sent to all: $status" >&2; exit 1; }
    python3 -c "print($finished - $accepted)"
}

rounds=${ROUNDS:-3}
h2load_before=$(h2load_rate)
for round in $(seq 1 "$rounds"); do
    echo "round $round: sending one notification to all of them…" >&2
    start=$(date +%s.%N) start_ticks=$(gateway_ticks)
    created=$(curl -sf "${admin[@]}" -d '{"message":"Check this image out!","richType":"text","text":"x","audience":"topic:bench"}' \
        "$base/api/notifications")
    accepted=$(date +%s.%N) accepted_ticks=$(gateway_ticks)
    id=$(bench_json id <<<"$created")
    status=$(bench_await_status "$base/api/notifications/$id/status" "${admin[@]}")
    finished=$(date +%s.%N) finished_ticks=$(gateway_ticks)
    sent=$(bench_json sent <<<"$status")
    [ "$sent" = "$devices" ] || { echo "only $sent of $devices sent: $status" >&2; exit 1; }
    curl -sf "${admin[@]}" "$base/api/notifications/$id/deliveries?format=csv" >"$bench_work/deliveries-$round.csv"
    echo "round $round: sending the campaign with a title, data and three languages…" >&2
    campaign_time=$(campaign_seconds "$campaign")
    h2load_after=$(h2load_rate)
    echo "$start $accepted $finished $h2load_before $h2load_after $((accepted_ticks - start_ticks))" \
        "$((finished_ticks - accepted_ticks)) $campaign_time" >>"$bench_work/rounds"
    h2load_before=$h2load_after
done
peak_rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$gateway_pid/status")

python3 - "$devices" "$peak_rss_kb" "$bench_work/rounds" "$(getconf CLK_TCK)" <<'PY'
import statistics, sys
devices, rss, ticks_per_second = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[4])
print(f"APNs fan-out to {devices} installations, loopback nginx HTTP/2 over TLS (1 worker)")
print("  round  accepted in  dispatch/s  end to end/s  h2load req/s  ratio  CPU µs/push: accept  dispatch"
      "  campaign dispatch/s  campaign / plain")
ratios, content = [], []
for number, line in enumerate(open(sys.argv[3]), 1):
    start, accepted, finished, h2load_before, h2load_after, accept_ticks, dispatch_ticks, campaign_time = (float(v) for v in line.split())
    h2load = (h2load_before + h2load_after) / 2
    dispatch, end_to_end = devices / (finished - accepted), devices / (finished - start)
    ratios.append((dispatch / h2load, dispatch, end_to_end, h2load))
    campaign = devices / campaign_time
    content.append((campaign / dispatch, campaign, dispatch))
    accept_cpu, dispatch_cpu = (ticks / ticks_per_second / devices * 1e6 for ticks in (accept_ticks, dispatch_ticks))
    print(f"  {number:5}  {accepted - start:9.2f} s  {dispatch:10.0f}  {end_to_end:12.0f}  {h2load:12.0f}  {dispatch / h2load:4.2f}x"
          f"  {accept_cpu:18.1f}  {dispatch_cpu:8.1f}  {campaign:19.0f}  {campaign / dispatch:15.2f}x")
ratio, dispatch, end_to_end, h2load = sorted(ratios)[len(ratios) // 2]
from_post = sorted((r[2] / r[3], r[2], r[3]) for r in ratios)
post_ratio, post_rate, post_h2load = from_post[len(from_post) // 2]
print(f"  median round from the POST: richpush {post_rate:.0f} pushes/s, h2load {post_h2load:.0f} requests/s")
print(f"  ratio (from the POST / h2load) {post_ratio:.2f}x   (rounds: {', '.join(f'{r[2] / r[3]:.2f}x' for r in ratios)})")
print(f"  median round dispatch alone: richpush {dispatch:.0f} pushes/s, h2load {h2load:.0f} requests/s")
print(f"  ratio (dispatch / h2load) {ratio:.2f}x   (rounds: {', '.join(f'{r[0]:.2f}x' for r in ratios)})")
share, campaign, plain = sorted(content)[len(content) // 2]
print(f"  campaign with title, data and 3 languages: {campaign:.0f} pushes/s against {plain:.0f} plain in its round,"
      f" {share:.2f}x   (rounds: {', '.join(f'{c[0]:.2f}x' for c in content)})")
print(f"  gateway peak RSS          {rss / 1024:.1f} MiB")
PY
bench_chart rate apns-fanout "One notification to $devices APNs installations, the last round" \
    "silent pushes=$bench_work/deliveries-$rounds.csv:sentAt"
