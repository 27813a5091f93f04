#!/usr/bin/env bash
# Fan-out of one notification to 100,000 APNs installations against a loopback HTTP/2-over-TLS sink shaped like
# APNs (nginx: one worker, `return 200` with the apns-id echoed), compared in the same run with h2load sending the
# same number of requests with the same headers and body to the same sink. Prints both rates, their ratio and the
# gateway's peak RSS.
#
#   Benchmarks/apns-fanout.sh [installations]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-100000}
scripts/ensure-packages nginx-light nghttp2-client openssl curl python3 libpng-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"

# A throwaway CA and a certificate for localhost, trusted by the gateway through --tls-ca-file.
tls="$bench_work/tls"
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "/CN=richpush bench CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
    -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 1 \
    -extfile "$tls/ext" -out "$tls/server.pem" 2>/dev/null
openssl ecparam -genkey -name prime256v1 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$tls/AuthKey.p8"
chmod 644 "$tls"/*

sink_port=$(bench_free_port)
bench_start_nginx 1 <<CONF
    keepalive_requests 100000000;
    http2_max_concurrent_streams 1000;
    server {
        listen 127.0.0.1:$sink_port ssl http2;
        ssl_certificate $tls/server.pem;
        ssl_certificate_key $tls/server.key;
        location /3/device/ {
            client_body_buffer_size 8k;
            add_header apns-id \$http_apns_id always;
            return 200;
        }
    }
CONF
for _ in $(seq 1 100); do curl -sf -o /dev/null --cacert "$tls/ca.pem" -X POST "https://localhost:$sink_port/3/device/00" && break; sleep 0.1; done

gateway_port=$(bench_free_port)
bench_start_gateway "$gateway_port" "$bench_work/data" --apns-key-file "$tls/AuthKey.p8" --apns-key-id BENCHKEY01 \
    --apns-team-id BENCHTEAM1 --apns-topic com.example.richpush --apns-endpoint "https://localhost:$sink_port" \
    --tls-ca-file "$tls/ca.pem"
gateway_pid=${bench_pids[-1]}
base="http://127.0.0.1:$gateway_port"
admin=(-u admin:bench-admin-password)
curl -sf "${admin[@]}" -d '{"username":"alice","password":"alice-password","role":"member"}' "$base/api/users" >/dev/null
echo "registering $devices APNs installations…" >&2
python3 - "$devices" "$bench_work/import" <<'PY'
import json, sys
count, prefix = int(sys.argv[1]), sys.argv[2]
for part, first in enumerate(range(0, count, 10000)):
    entries = [{"installationId": f"phone-{i}", "owner": "alice", "platform": "apns", "pushChannel": f"{i:064x}",
                "tags": ["topic:bench"]} for i in range(first, min(first + 10000, count))]
    with open(f"{prefix}-{part:03d}.json", "w") as out:
        json.dump({"installations": entries}, out)
PY
for file in "$bench_work"/import-*.json; do
    curl -sf "${admin[@]}" -H 'Content-Type: application/json' --data-binary "@$file" "$base/api/installations/import" >/dev/null
done

echo "sending one notification to all of them…" >&2
start=$(date +%s.%N)
id=$(curl -sf "${admin[@]}" -d '{"message":"Check this image out!","richType":"text","text":"x","audience":"topic:bench"}' \
    "$base/api/notifications" | bench_json id)
accepted=$(date +%s.%N)
status=$(bench_await_status "$base/api/notifications/$id/status" "${admin[@]}")
finished=$(date +%s.%N)
state=$(bench_json state <<<"$status")
sent=$(bench_json sent <<<"$status")
peak_rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$gateway_pid/status")
[ "$sent" = "$devices" ] || { echo "only $sent of $devices sent ($state): $status" >&2; exit 1; }

# The same requests from h2load: same path shape, headers and body, as many streams in flight as the gateway allows.
body="$bench_work/body.json"
printf '%s' '{"aps":{"content-available":1,"sound":""},"richId":"1","richMessage":"Check this image out!","richType":"text"}' >"$body"
h2load_out=$(h2load -n "$devices" -c 1 -t 1 -m 256 -d "$body" \
    -H 'authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIS0VZMDEiLCJ0eXAiOiJKV1QifQ.eyJpYXQiOjE4MDAwMDAwMDAsImlzcyI6IkJFTkNIVEVBTTEifQ.c2lnbmF0dXJlLW9mLXRoZS1iZW5jaG1hcmstdG9rZW4tcGFkZGVkLXRvLTY0LWJ5dGVzLi4uLi4uLi4uLi4' \
    -H 'apns-topic: com.example.richpush' -H 'apns-push-type: background' -H 'apns-priority: 5' \
    -H 'apns-id: 7b4e1f0c-3d8a-8b2e-9c1f-0a4b6d8e2f13' -H 'apns-collapse-id: richpush-1' -H 'content-type: application/json' \
    "https://localhost:$sink_port/3/device/$(printf '%064x' 7)")
h2load_rate=$(awk '/^finished in/ {gsub(",", "", $4); print $4}' <<<"$h2load_out")
grep -q " 0 failed, 0 errored, 0 timeout" <<<"$(grep "^requests:" <<<"$h2load_out")" || { echo "$h2load_out" >&2; exit 1; }

python3 - "$devices" "$start" "$accepted" "$finished" "$h2load_rate" "$peak_rss_kb" <<'PY'
import sys
devices = int(sys.argv[1])
start, accepted, finished, h2load, rss = (float(v) for v in sys.argv[2:])
dispatch = devices / (finished - accepted)
end_to_end = devices / (finished - start)
print(f"APNs fan-out to {devices} installations, loopback nginx HTTP/2 over TLS (1 worker)")
print(f"  notification accepted (outbox written) in {accepted - start:6.2f} s")
print(f"  richpush dispatch         {dispatch:10.0f} pushes/s   ({finished - accepted:.2f} s)")
print(f"  richpush end to end       {end_to_end:10.0f} pushes/s   (POST to delivered)")
print(f"  h2load, same requests     {h2load:10.0f} requests/s")
print(f"  ratio (dispatch / h2load) {dispatch / h2load:10.2f}x")
print(f"  gateway peak RSS          {rss / 1024:10.1f} MiB")
PY
