#!/usr/bin/env bash
# The device's request: an authorized `GET /api/notifications/{id}` of a ~110 KB PNG, measured with wrk
# (64 keep-alive connections) against the release gateway and, in the same run, against nginx serving the same
# file behind `auth_basic` with a {SHA} htpasswd. Prints both rates and p99 latencies and their ratios. The same
# fetch with an API token (`Authorization: Bearer rp_…`) is measured in each round too, against the remembered
# password: a token check must cost no more than a cached password's. With `https`, both serve HTTPS (TLS 1.3, the
# same P-256 certificate, wrk's connections kept alive, so a handshake per connection and then the record layer).
#
#   Benchmarks/payload-fetch.sh [seconds per round] [rounds] [http|https]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
rounds=${2:-3}
bench_scheme=${3:-http}
case "$bench_scheme" in http | https) ;; *) echo "the third argument is http or https, not $bench_scheme" >&2; exit 64 ;; esac
scripts/ensure-packages wrk nginx-light curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"

python3 Benchmarks/support/noise_png.py 112000 "$bench_work/payload.png"
chmod 644 "$bench_work/payload.png"
gateway_port=$(bench_free_port)
tls_flags=()
listen_ssl=""
nginx_tls=""
if [ "$bench_scheme" = https ]; then
    bench_issue_certificate
    tls_flags=(--tls-cert-file "$tls/server.pem" --tls-key-file "$tls/server.key")
    listen_ssl=" ssl"
    nginx_tls="ssl_certificate $tls/server.pem; ssl_certificate_key $tls/server.key;"
    export CURL_CA_BUNDLE="$tls/ca.pem"
fi
bench_start_gateway "$gateway_port" "$bench_work/data" "${tls_flags[@]}"
base="$bench_scheme://127.0.0.1:$gateway_port"
admin=(-u admin:bench-admin-password)
curl -sf "${admin[@]}" -d '{"username":"alice","password":"alice-password","role":"member"}' "$base/api/users" >/dev/null
image=$(curl -sf "${admin[@]}" -H 'Content-Type: image/png' --data-binary "@$bench_work/payload.png" "$base/api/images" | bench_json id)
id=$(curl -sf "${admin[@]}" -d "{\"message\":\"Benchmark\",\"richType\":\"img\",\"imageId\":$image,\"audience\":\"username:alice\"}" \
    "$base/api/notifications" | bench_json id)
curl -sf -u alice:alice-password -o "$bench_work/fetched.png" "$base/api/notifications/$id"
cmp -s "$bench_work/fetched.png" "$bench_work/payload.png" || { echo "the gateway served other bytes" >&2; exit 1; }

token=$(curl -sf -u alice:alice-password -d '{"name":"benchmark"}' "$base/api/tokens" | bench_json token)
curl -sf -H "Authorization: Bearer $token" -o /dev/null "$base/api/notifications/$id"

nginx_port=$(bench_free_port)
printf 'alice:{SHA}%s\n' "$(printf 'alice-password' | openssl dgst -sha1 -binary | base64)" >"$bench_work/htpasswd"
chmod 644 "$bench_work/htpasswd"
bench_start_nginx auto <<CONF
    sendfile on;
    tcp_nopush on;
    keepalive_requests 10000000;
    server {
        listen 127.0.0.1:$nginx_port$listen_ssl;
        $nginx_tls
        location = /api/notifications/$id {
            auth_basic "richpush";
            auth_basic_user_file $bench_work/htpasswd;
            default_type image/png;
            alias $bench_work/payload.png;
        }
    }
CONF
bench_wait_for "$bench_scheme://alice:alice-password@127.0.0.1:$nginx_port/api/notifications/$id"

authorization="Authorization: Basic $(printf 'alice:alice-password' | base64)"
wrk_flags=(-t2 -c64 -H "$authorization")
gateway_url="$base/api/notifications/$id"
nginx_url="$bench_scheme://127.0.0.1:$nginx_port/api/notifications/$id"

# What the figures depend on, printed so two runs of this or of another harness can be compared.
{
    echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "nginx: $(nginx -v 2>&1 | sed "s/^nginx version: //"), workers: auto ($(pgrep -c -P "$(cat "$bench_work/nginx/nginx.pid")") running), sendfile on, auth_basic {SHA}"
    echo "payload: $(stat -c %s "$bench_work/payload.png") bytes; wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2) -t2 -c64 on the same cores, ${seconds} s a round"
    echo "gateway: $richpush_binary"
} >&2

# The server's CPU ticks and the machine's stolen ticks: a rate moves with the CPU the machine gives, the CPU a
# request costs does not.
gateway_pid=${bench_pids[0]}
nginx_pid=$(cat "$bench_work/nginx/nginx.pid")
stolen_ticks() { awk '/^cpu / {print $9}' /proc/stat; }
# measure NAME PID URL [wrk flags…]: bench_wrk's line, then the server's CPU µs per request and the stolen share.
measure() {
    local name=$1 pid=$2 url=$3 before stolen line
    shift 3
    before=$(bench_ticks "$pid") stolen=$(stolen_ticks)
    line=$(bench_wrk "$name" "$url" "$@")
    echo "$line $(($(bench_ticks "$pid") - before)) $(($(stolen_ticks) - stolen)) $(getconf CLK_TCK)"
}

results="$bench_work/results"
# A first round with no warm-up, as a harness that starts measuring at once sees it; it is printed, not counted.
echo "cold round…" >&2
measure cold-richpush "$gateway_pid" "$gateway_url" "${wrk_flags[@]}" -d"${seconds}s" >>"$results"
measure cold-nginx "$nginx_pid" "$nginx_url" "${wrk_flags[@]}" -d"${seconds}s" >>"$results"
echo "warming up…" >&2
wrk -t2 -c64 -d3s -H "$authorization" "$gateway_url" >/dev/null
wrk -t2 -c64 -d3s -H "$authorization" "$nginx_url" >/dev/null
wrk -t2 -c64 -d3s -H "Authorization: Bearer $token" "$gateway_url" >/dev/null

# Rounds alternate who goes first, so neither side always runs on a machine the other just warmed or heated.
for round in $(seq 1 "$rounds"); do
    echo "round $round of $rounds…" >&2
    if [ $((round % 2)) -eq 1 ]; then
        measure nginx "$nginx_pid" "$nginx_url" "${wrk_flags[@]}" -d"${seconds}s" >>"$results"
        measure richpush "$gateway_pid" "$gateway_url" "${wrk_flags[@]}" -d"${seconds}s" >>"$results"
    else
        measure richpush "$gateway_pid" "$gateway_url" "${wrk_flags[@]}" -d"${seconds}s" >>"$results"
        measure nginx "$nginx_pid" "$nginx_url" "${wrk_flags[@]}" -d"${seconds}s" >>"$results"
    fi
    measure richpush-token "$gateway_pid" "$gateway_url" -t2 -c64 -H "Authorization: Bearer $token" -d"${seconds}s" >>"$results"
done

python3 - "$results" "$seconds" "$rounds" "$bench_scheme" <<'PY'
import statistics, sys
seconds = float(sys.argv[2])
rows = [line.split() for line in open(sys.argv[1])]
def picked(name):
    return [(float(rate), float(p99), float(ticks), float(stolen), float(hz)) for who, rate, p99, ticks, stolen, hz in rows if who == name]
def figures(name):
    values = picked(name)
    cpu = statistics.median(ticks / hz / (rate * seconds) * 1e6 for rate, _, ticks, _, hz in values)
    return statistics.median(v[0] for v in values), statistics.median(v[1] for v in values), cpu
nginx_rate, nginx_p99, nginx_cpu = figures("nginx")
gateway_rate, gateway_p99, gateway_cpu = figures("richpush")
token_rate, token_p99, token_cpu = figures("richpush-token")
cold_gateway, cold_nginx = picked("cold-richpush")[0][0], picked("cold-nginx")[0][0]
rounds = [g[0] / n[0] for g, n in zip(picked("richpush"), picked("nginx"))]
stolen = sum(v[3] for name in ("nginx", "richpush", "richpush-token") for v in picked(name))
elapsed = sum(seconds * v[4] for name in ("nginx", "richpush", "richpush-token") for v in picked(name))
print(f"payload fetch over {sys.argv[4]}, ~110 KB PNG, wrk -t2 -c64, {sys.argv[3]} rounds of {sys.argv[2]} s, medians")
print(f"  nginx auth_basic   {nginx_rate:10.0f} req/s   p99 {nginx_p99:7.2f} ms   {nginx_cpu:5.1f} µs CPU a request")
print(f"  richpush gateway   {gateway_rate:10.0f} req/s   p99 {gateway_p99:7.2f} ms   {gateway_cpu:5.1f} µs CPU a request")
print(f"  richpush, token    {token_rate:10.0f} req/s   p99 {token_p99:7.2f} ms   {token_cpu:5.1f} µs CPU a request")
print(f"  ratio (richpush / nginx): throughput {gateway_rate / nginx_rate:.2f}x   p99 {gateway_p99 / nginx_p99:.2f}x   CPU a request {gateway_cpu / nginx_cpu:.2f}x")
print(f"  each round's throughput ratio: {', '.join(f'{ratio:.2f}x' for ratio in rounds)}")
print(f"  cold round, before any warm-up: richpush {cold_gateway:.0f} req/s, nginx {cold_nginx:.0f} req/s, {cold_gateway / cold_nginx:.2f}x")
print(f"  ratio (token / password): throughput {token_rate / gateway_rate:.2f}x   p99 {token_p99 / gateway_p99:.2f}x")
print(f"  CPU time the machine's host took (steal) during the rounds: {stolen / elapsed * 100:.1f}% of one core")
PY
