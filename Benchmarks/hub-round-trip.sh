#!/usr/bin/env bash
# Fan-out of one notification to DEVICES installations (50,000 unless given) of a remote hub, HUB (apns unless set;
# or fcm, wns, webpush), against a sink as far away as the hub is from most data centres, and against the same sink
# next door, in the same run: one nginx worker with HTTP/2 over TLS and 1000 streams a connection, as APNs
# advertises, answering each push RTT_MS milliseconds (40 unless set) after it arrived, or at once (nginx's echo
# module). APNs, WNS and Web Push answer 410 to a share of the devices (GONE_PERCENT, 2 unless set); FCM names the
# device in the body, which the sink does not read, so FCM's every answer is 200. The reference, in the same run at
# each round trip: h2load with 8 connections of 1000 streams, sending the hub's requests as the gateway shapes them.
# WNS and Web Push go to each host over its own pool of HTTP/2 connections, as APNs and FCM (RichPushHubs/Outbound/
# EndpointPushes.swift); Web Push also encrypts every push for its browser, which h2load's fixed body does not.
#
# Each of ROUNDS rounds (5 unless set) starts the sink's worker afresh, then sends one notification through a gateway
# pointed at the sink next door and one through a gateway pointed at the far one, each timed from just before the POST
# until the status counts every push answered (what the marketer sees), between h2load runs at each round trip.
# Prints every round and the medians of two ratios: the far rate against the near one (goal 0.9×), and the far rate
# against h2load at the same round trip (goal 0.6×). Beside each rate, the CPU time a push cost the gateway and the
# sink: the two share the machine's cores, so a sink that spends more on a push at one round trip leaves the gateway
# less.
#
# Left out: the network itself (loopback has no bandwidth limit or loss, and the round trip is the sink's wait, the
# same for every stream), TLS session set-up costs at the hubs' scale, and the hubs' own limits (FCM's servers allow
# 100 streams a connection, the sink 1000).
#
# GATEWAY_FLAGS adds serve flags to both gateways (`--hub-max-connections 1` to see one connection's bound).
#
#   [HUB=apns|fcm|wns|webpush] [RTT_MS=n] [GONE_PERCENT=n] [ROUNDS=n] [GATEWAY_FLAGS=…] Benchmarks/hub-round-trip.sh [devices]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-50000}
hub=${HUB:-apns}
case "$hub" in apns | fcm | wns | webpush) ;; *) echo "HUB is apns, fcm, wns or webpush, not $hub" >&2; exit 64 ;; esac
rtt=${RTT_MS:-40}
gone_percent=${GONE_PERCENT:-2}
rounds=${ROUNDS:-5}
scripts/ensure-packages nginx-light libnginx-mod-http-echo nghttp2-client openssl curl python3 libpng-dev libturbojpeg0-dev \
    libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"
bench_start_round_trip_sinks 0 "$rtt"
sink_pid=${bench_pids[-1]}

admin=(-u admin:bench-admin-password)
bench_platform=$hub
bench_gone_every=0
[ "$hub" != fcm ] && [ "$gone_percent" -gt 0 ] && bench_gone_every=$((100 / gone_percent))
declare -A bases gateway_pids
for milliseconds in 0 "$rtt"; do
    port=$(bench_free_port)
    sink_port=${round_trip_ports[$milliseconds]}
    "bench_${hub}_gateway_flags"
    declare -n flags_of_hub="${hub}_flags"
    hub_flags=("${flags_of_hub[@]}")
    # shellcheck disable=SC2086
    bench_start_gateway "$port" "$bench_work/data-$milliseconds" "${hub_flags[@]}" ${GATEWAY_FLAGS:-}
    bases[$milliseconds]="http://127.0.0.1:$port"
    gateway_pids[$milliseconds]=${bench_pids[-1]}
    curl -sf "${admin[@]}" -d '{"username":"user1","password":"user-password-1","role":"member"}' \
        "${bases[$milliseconds]}/api/users" >/dev/null
done

# renew_sink: a fresh sink worker (nginx's reload), once the one before has closed its connections and gone, so that
# the stream records nginx 1.22 never frees on a connection kept busy at a round trip (see http2_streams_index_size in
# support/common.sh) do not pile up from round to round: each round begins as the first did, both gateways opening
# their connections anew.
renew_sink() {
    local old
    old=$(pgrep -P "$sink_pid")
    kill -HUP "$sink_pid"
    while pgrep -P "$sink_pid" | grep -qxF "$old"; do sleep 0.1; done
}

# fan_out MILLISECONDS: registers the installations anew (a device the sink called gone is then alive again, so every
# round has its share of 410s), then prints the seconds from the POST until every push of one notification is
# answered, how many were sent and how many failed, and the CPU ticks the gateway and the sink used meanwhile.
fan_out() {
    local base=${bases[$1]} timed gateway_ticks sink_ticks
    echo "registering $devices $hub installations for the ${1} ms sink…" >&2
    bench_sink_port=${round_trip_ports[$1]}
    bench_register_installations "$base" 0 "$devices" 1 "${admin[@]}"
    gateway_ticks=$(bench_ticks "${gateway_pids[$1]}") sink_ticks=$(bench_ticks "$sink_pid")
    timed=$(python3 Benchmarks/support/await_notification.py "$base" admin:bench-admin-password \
        '{"message":"Check this image out!","richType":"text","text":"x","audience":"topic:bench"}')
    gateway_ticks=$(($(bench_ticks "${gateway_pids[$1]}") - gateway_ticks)) sink_ticks=$(($(bench_ticks "$sink_pid") - sink_ticks))
    python3 - "$devices" "$timed" "$gateway_ticks" "$sink_ticks" <<'PY'
import json, sys
devices, timed = int(sys.argv[1]), json.loads(sys.argv[2])
status = timed["status"]
if status["sent"] + status["failed"] != devices or status["pending"]:
    sys.exit(f"not every push was answered: {status}")
print(timed["finished"] - timed["posted"], status["failed"], sys.argv[3], sys.argv[4])
PY
}

for round in $(seq 1 "$rounds"); do
    echo "round $round…" >&2
    renew_sink
    near_h2load=$("bench_h2load_$hub" "$devices" 8 1000 "${round_trip_ports[0]}")
    near=$(fan_out 0)
    far_h2load=$("bench_h2load_$hub" "$devices" 8 1000 "${round_trip_ports[$rtt]}")
    far=$(fan_out "$rtt")
    echo "$near $near_h2load $far $far_h2load" >>"$bench_work/rounds"
done

python3 - "$devices" "$rtt" "$((bench_gone_every > 0 ? gone_percent : 0))" "$bench_work/rounds" "$(getconf CLK_TCK)" "$hub" <<'PY'
import sys
devices, rtt, gone, ticks, hub = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5]), sys.argv[6]
per_push = lambda count: count / ticks / devices * 1e6
print(f"{dict(apns='APNs', fcm='FCM', wns='WNS', webpush='Web Push')[hub]} fan-out to {devices} installations ({gone}% answered 410), nginx HTTP/2 over TLS"
      " (1 worker, 1000 streams), from the POST")
print(f"  round  0 ms pushes/s  h2load 0 ms  {rtt} ms pushes/s  h2load {rtt} ms  {rtt} ms / 0 ms  {rtt} ms / h2load"
      f"  CPU µs/push 0 ms: gateway  sink  {rtt} ms: gateway  sink  failed")
far_near, far_h2load = [], []
for number, line in enumerate(open(sys.argv[4]), 1):
    (near_s, near_failed, near_gateway, near_sink, near_ref,
     far_s, far_failed, far_gateway, far_sink, far_ref) = (float(v) for v in line.split())
    near, far = devices / near_s, devices / far_s
    far_near.append(far / near)
    far_h2load.append(far / far_ref)
    print(f"  {number:5}  {near:13.0f}  {near_ref:11.0f}  {far:14.0f}  {far_ref:12.0f}  {far / near:12.2f}x  {far / far_ref:14.2f}x"
          f"  {per_push(near_gateway):24.1f}  {per_push(near_sink):4.1f}  {per_push(far_gateway):12.1f}  {per_push(far_sink):4.1f}"
          f"  {int(near_failed)}, {int(far_failed)}")
median = lambda values: sorted(values)[len(values) // 2]
print(f"  median {rtt} ms / 0 ms: {median(far_near):.2f}x (goal 0.9x)   median {rtt} ms / h2load at {rtt} ms:"
      f" {median(far_h2load):.2f}x (goal 0.6x)")
PY
