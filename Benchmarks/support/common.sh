# Shared by the benchmark scripts: a release build, free ports, a gateway on a temporary store, wrk figures.
# Source it from a script that has `set -euo pipefail` and has changed to the repository root.

bench_work=$(mktemp -d /tmp/richpush-bench.XXXXXX)
bench_pids=()
bench_cleanup() {
    for pid in "${bench_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${bench_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$bench_work"
}
trap bench_cleanup EXIT

# The release binary of the gateway, built in its own folder so the debug build of the tests stays intact, and with
# the Swift runtime linked in as richpushd is, so one build serves every benchmark.
bench_build_gateway() {
    # A binary built elsewhere, to compare two versions on one machine: RICHPUSH_BENCH_BINARY=path.
    if [ -n "${RICHPUSH_BENCH_BINARY:-}" ]; then
        richpush_binary=$RICHPUSH_BENCH_BINARY
        return
    fi
    echo "building richpush (release)…" >&2
    source scripts/release-configuration
    swift build "${release_configuration[@]}" --product richpush >&2
    richpush_binary="$(swift build "${release_configuration[@]}" --show-bin-path)/richpush"
}

# bench_machine: the CPU model and the cores the figures were measured on. Every benchmark prints it first on its
# standard output, where its figures follow: the next machine may be another CPU.
bench_machine() {
    echo "machine: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores"
}
bench_machine

# bench_start_nginx WORKERS: runs nginx from $bench_work/nginx with WORKERS worker processes; standard input is what goes
# in its http block besides the logs and temporary paths every benchmark's nginx shares. $bench_nginx_modules names
# dynamic modules to load (nginx's echo module: ngx_http_echo_module).
bench_start_nginx() {
    mkdir -p "$bench_work/nginx/logs"
    local http module modules=""
    http=$(cat)
    for module in ${bench_nginx_modules:-}; do modules+="load_module /usr/lib/nginx/modules/$module.so;"$'\n'; done
    cat >"$bench_work/nginx/nginx.conf" <<CONF
$modules
worker_processes $1;
pid $bench_work/nginx/nginx.pid;
error_log $bench_work/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $bench_work/nginx/body;
    proxy_temp_path $bench_work/nginx/proxy;
    fastcgi_temp_path $bench_work/nginx/fastcgi;
    uwsgi_temp_path $bench_work/nginx/uwsgi;
    scgi_temp_path $bench_work/nginx/scgi;
$http
}
CONF
    nginx -p "$bench_work/nginx" -c "$bench_work/nginx/nginx.conf" -g 'daemon off;' &
    bench_pids+=($!)
}

bench_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# bench_start_gateway PORT DATA_DIR [extra serve flags…]: starts `richpush serve` and waits until /health answers,
# over https when $bench_scheme says so.
# The rate limits are off: a benchmark's own polling and sending are the load generator, not a client to slow down.
bench_start_gateway() {
    local port=$1 data=$2
    shift 2
    RICHPUSH_ADMIN_PASSWORD=bench-admin-password "$richpush_binary" serve --hostname 127.0.0.1 --port "$port" \
        --data-dir "$data" --public-dir Public --image-dir img --log-level warning --rate-limit 0 --send-rate-limit 0 "$@" >>"$bench_work/gateway.log" 2>&1 &
    bench_pids+=($!)
    bench_wait_for "${bench_scheme:-http}://127.0.0.1:$port/health"
}

# bench_wait_for URL: waits until URL answers; an https one is not checked for its certificate.
bench_wait_for() {
    for _ in $(seq 1 300); do
        curl -sfk -o /dev/null "$1" && return 0
        sleep 0.1
    done
    echo "$1 never answered; gateway log:" >&2
    cat "$bench_work/gateway.log" >&2
    exit 1
}

# bench_import_installations BASE_URL COUNT USERS [admin curl flags…]: creates the members user1…userUSERS, then
# registers COUNT installations over them as bench_register_installations does, from desk-0.
bench_import_installations() {
    local base=$1 count=$2 users=$3
    shift 3
    for user in $(seq 1 "$users"); do
        curl -sf "$@" -d "{\"username\":\"user$user\",\"password\":\"user-password-$user\",\"role\":\"member\"}" \
            "$base/api/users" >/dev/null
    done
    bench_register_installations "$base" 0 "$count" "$users" "$@"
}

# bench_register_installations BASE_URL FIRST END USERS [admin curl flags…]: registers the installations desk-FIRST up
# to desk-END (not included), tagged topic:bench, spread over the existing members user1…userUSERS, ten thousand per
# import request. They are direct installations unless $bench_platform names a remote hub: an APNs device token of
# 64 digits, an FCM token, a WNS channel URI or a Web Push subscription on the round-trip sink of
# $bench_sink_port (with the key $bench_webpush_p256dh) each device's own. With $bench_gone_every n, every n-th APNs
# token, WNS channel or Web Push endpoint starts with `dead`, which bench_start_round_trip_sinks answers 410.
bench_register_installations() {
    local base=$1 from=$2 end=$3 users=$4
    shift 4
    for first in $(seq "$from" 10000 $((end - 1))); do
        python3 - "$first" "$end" "$users" "${bench_platform:-direct}" "${bench_gone_every:-0}" "${bench_sink_port:-0}" \
            "${bench_webpush_p256dh:-}" >"$bench_work/import.json" <<'PY'
import json, sys
first, end, users = (int(a) for a in sys.argv[1:4])
platform, gone_every, sink_port, p256dh = sys.argv[4], int(sys.argv[5]), sys.argv[6], sys.argv[7]
def channel(i):
    gone = "dead" if gone_every and i % gone_every == 0 else ""
    if platform == "apns":
        return f"{gone}{i:0{64 - len(gone)}x}"
    if platform == "wns":
        return f"https://localhost:{sink_port}/wns/{gone}{i}?token=AwYAAAB{i}"
    if platform == "webpush":
        return json.dumps({"endpoint": f"https://localhost:{sink_port}/webpush/{gone}{i}",
                           "keys": {"p256dh": p256dh, "auth": "c2lnbmF0dXJlLWF1dGgxMg"}})
    return f"desk-{i}"
entries = [{"installationId": f"desk-{i}", "owner": f"user{i % users + 1}", "platform": platform,
            "pushChannel": channel(i), "tags": ["topic:bench"]}
           for i in range(first, min(first + 10000, end))]
json.dump({"installations": entries}, sys.stdout)
PY
        curl -sf "$@" -H 'Content-Type: application/json' --data-binary "@$bench_work/import.json" \
            "$base/api/installations/import" >/dev/null
    done
}

# bench_new_database: creates an empty database on the private PostgreSQL server of scripts/with-postgres and prints
# its URL.
bench_new_database() {
    local name="bench_$(date +%s%N)"
    psql "$RICHPUSH_TEST_DATABASE_URL" -q -c "CREATE DATABASE $name" >&2
    python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
        "$RICHPUSH_TEST_DATABASE_URL" "$name"
}

# bench_json FIELD: reads a JSON document on stdin and prints one top-level field.
bench_json() {
    python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"
}

# bench_await_status STATUS_URL [curl flags…]: polls a notification's status until it is no longer sending and prints
# the last status document. The state is matched in bash: a Python start-up per poll would take a good part of one of
# the two cores from the gateway being measured. A look every $bench_poll_seconds (0.05 unless set): the figure it
# ends is read within that time of the last push.
bench_await_status() {
    local url=$1 status
    shift
    while true; do
        status=$(curl -sf "$@" "$url")
        [[ $status =~ \"state\":\"sending\" ]] || break
        sleep "${bench_poll_seconds:-0.05}"
    done
    printf '%s\n' "$status"
}

# bench_ticks PID…: the CPU ticks (user and system) the processes given and their children have used so far.
bench_ticks() {
    local pid process
    for pid in "$@"; do
        for process in "$pid" $(pgrep -P "$pid"); do awk '{print $14 + $15}' "/proc/$process/stat" 2>/dev/null || true; done
    done | awk '{sum += $1} END {print sum + 0}'
}

# bench_last_sent DELIVERIES_URL [curl flags…]: the time the last delivery of a notification was sent, in seconds
# since the epoch, from its deliveries' CSV export (the gateway's clock, to the millisecond).
bench_last_sent() {
    local url=$1
    shift
    curl -sf "$@" "$url?format=csv" | python3 -c '
import csv, sys, datetime
sent = [row["sentAt"] for row in csv.DictReader(sys.stdin) if row["sentAt"]]
print(max(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() for t in sent))'
}

# bench_wrk NAME URL [wrk flags…]: runs wrk and prints "NAME req_per_s p99_ms".
bench_wrk() {
    local name=$1 url=$2
    shift 2
    local out
    out=$(wrk --latency "$@" "$url")
    local rate p99
    rate=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    if grep -q 'Non-2xx' <<<"$out"; then
        echo "$name answered errors:" >&2
        echo "$out" >&2
        exit 1
    fi
    echo "$name $rate $(bench_milliseconds "$p99")"
}

# wrk prints latencies as 812.00us, 1.20ms or 1.01s.
bench_milliseconds() {
    python3 -c "
import sys
text = sys.argv[1]
for suffix, scale in (('us', 0.001), ('ms', 1.0), ('s', 1000.0)):
    if text.endswith(suffix):
        print(round(float(text[: -len(suffix)]) * scale, 3))
        break
" "$1"
}

# bench_issue_certificate: a throwaway CA ($tls/ca.pem) and a certificate it issued for localhost and 127.0.0.1
# ($tls/server.pem, key $tls/server.key).
bench_issue_certificate() {
    tls="$bench_work/tls"
    mkdir -p "$tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "/CN=richpush bench CA" \
        -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
        -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 1 \
        -extfile "$tls/ext" -out "$tls/server.pem" 2>/dev/null
    chmod 644 "$tls"/*
}

# bench_start_apns_sink [log file]: a certificate from bench_issue_certificate (trusted by the gateway through
# --tls-ca-file $tls/ca.pem) and an APNs key ($tls/AuthKey.p8), then nginx shaped like APNs on $sink_port: one
# worker, HTTP/2 over TLS, `return 200` with the apns-id echoed. With a log file, each push is logged there as its
# time, its apns-collapse-id and its path.
bench_start_apns_sink() {
    bench_apns_credentials
    sink_port=$(bench_free_port)
    local log="access_log off;"
    [ -n "${1:-}" ] && log="access_log $1 pushes;"
    bench_start_nginx 1 <<CONF
    log_format pushes '\$msec \$http_apns_collapse_id \$uri';
    keepalive_requests 100000000;
    http2_max_concurrent_streams 1000;
    server {
        listen 127.0.0.1:$sink_port ssl http2;
        ssl_certificate $tls/server.pem;
        ssl_certificate_key $tls/server.key;
        $log
        location /3/device/ {
            client_body_buffer_size 8k;
            add_header apns-id \$http_apns_id always;
            return 200;
        }
    }
CONF
    bench_await_sink "$sink_port"
    bench_sink="nginx on loopback, answering each push at once"
    echo "hub sink: $bench_sink (no round trip beyond loopback's)"
}

# bench_apns_credentials: a certificate from bench_issue_certificate and an APNs key ($tls/AuthKey.p8).
bench_apns_credentials() {
    bench_issue_certificate
    openssl ecparam -genkey -name prime256v1 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$tls/AuthKey.p8"
    chmod 644 "$tls"/*
}

# bench_await_sink PORT: waits until the APNs sink on PORT answers. A fan-out against no sink would retry for ever: a
# sink that never answers ends the benchmark here.
bench_await_sink() {
    for _ in $(seq 1 100); do
        curl -s -o /dev/null --cacert "$tls/ca.pem" -X POST "https://localhost:$1/3/device/00" && return 0
        sleep 0.1
    done
    echo "the APNs sink (nginx on port $1) did not answer in 10 s: $(tail -n 3 "$bench_work/nginx/error.log" 2>/dev/null)" >&2
    exit 1
}

# bench_start_round_trip_sinks MILLISECONDS…: bench_apns_credentials, then one nginx worker shaped like a hub far away,
# with a server for each round trip given, on the port ${round_trip_ports[MILLISECONDS]}: HTTP/2 over TLS, 1000
# streams a connection as APNs advertises, each push answered MILLISECONDS after it arrived (nginx's echo module). An
# APNs push (`/3/device/…`) is answered 200 with the apns-id echoed, or 410 Unregistered for a device token that
# starts with `dead`; an FCM message (`/v1/projects/…/messages:send`) 200 with a message name; a WNS raw notification
# (`/wns/…`) 200 received and a Web Push message (`/webpush/…`) 201, each 410 where its path goes on with `dead`; and
# the OAuth token endpoint (`/token`, FCM's and WNS's) at once with an access token. Every answer comes after the
# push's body has arrived, as the hubs read a push before judging it. Answered before their bodies (the echo module's
# default), 2% of them with 410, WNS and Web Push pushes through async-http-client stopped going out after a few
# thousand, each waiting for its 30 s timeout, while the connection stood idle (see docs/hubs.md); and a body left
# unread waits in a buffer of 64 KB that nginx gives its stream (`http2_body_preread_size`), which at a round trip
# of 40 ms, 2,000 pushes and more held at once, made the far sink fault in 128 MB and more.
declare -A round_trip_ports
bench_start_round_trip_sinks() {
    bench_apns_credentials
    local milliseconds servers="" answer gone unregistered='{"reason":"Unregistered","timestamp":1764633600000}'
    for milliseconds in "$@"; do
        round_trip_ports[$milliseconds]=$(bench_free_port)
        # Every round trip answers through the echo module, so nginx spends the same CPU on a push at each and the
        # rates differ by the wait alone; the module answers only after an output command of its own.
        answer="echo -n '';"
        [ "$milliseconds" -gt 0 ] && answer="echo_sleep $(python3 -c "print($milliseconds / 1000)"); $answer"
        answer="echo_read_request_body; $answer"
        gone="${answer%echo -n ''*} echo_status 410; echo -n '$unregistered';"
        servers+="
    server {
        listen 127.0.0.1:${round_trip_ports[$milliseconds]} ssl http2;
        ssl_certificate $tls/server.pem;
        ssl_certificate_key $tls/server.key;
        location ~ ^/3/device/dead {
            add_header apns-id \$http_apns_id always;
            default_type application/json;
            $gone
        }
        location /3/device/ {
            client_body_buffer_size 8k;
            add_header apns-id \$http_apns_id always;
            $answer
        }
        location ~ ^/(wns|webpush)/dead {
            $gone
        }
        location /wns/ {
            client_body_buffer_size 8k;
            add_header x-wns-status received always;
            $answer
        }
        location /webpush/ {
            client_body_buffer_size 8k;
            ${answer%echo -n ''*} echo_status 201; echo -n '';
        }
        location /v1/projects/ {
            client_body_buffer_size 8k;
            default_type application/json;
            ${answer%echo -n ''*} echo -n '{\"name\":\"projects/richpush-bench/messages/0:1764633600000000%0\"}';
        }
        location = /token {
            default_type application/json;
            return 200 '{\"access_token\":\"bench-access-token\",\"expires_in\":3599,\"token_type\":\"Bearer\"}';
        }
    }"
    done
    bench_nginx_modules=ngx_http_echo_module bench_start_nginx 1 <<CONF
    keepalive_requests 100000000;
    http2_max_concurrent_streams 1000;
    # nginx finds a frame's stream in a table of 32 lists unless told otherwise, and the lists keep what its closed
    # streams leave: nginx 1.22 counts a connection's closed streams in eight bits, and answering after a round trip
    # closes them in waves of up to 1000, so the count wraps and nearly every stream's record stays. With 1024 lists
    # the walk was a tenth of the far sink's CPU by the end of one fan-out and a quarter by the fifth on the same
    # connections; a list for each stream a connection carries in a round keeps each walk short.
    http2_streams_index_size 65536;
$servers
CONF
    for milliseconds in "$@"; do bench_await_sink "${round_trip_ports[$milliseconds]}"; done
    local round_trips="$*"
    bench_sink="nginx on loopback, answering each push ${round_trips// / or } ms after it arrived"
    echo "hub sinks: $bench_sink"
}

# bench_h2load_apns REQUESTS CONNECTIONS STREAMS PORT: h2load sending REQUESTS pushes shaped as the gateway's (path,
# headers and body) to the sink on PORT, over CONNECTIONS connections of STREAMS streams in flight; prints its
# requests a second, and fails unless every request succeeded.
bench_h2load_apns() {
    local body="$bench_work/h2load-body.json"
    printf '%s' '{"aps":{"content-available":1,"sound":""},"richId":"1","richMessage":"Check this image out!","richType":"text"}' >"$body"
    bench_h2load "$1" "$2" "$3" "$body" "https://localhost:$4/3/device/$(printf '%064x' 7)" \
        -H 'authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIS0VZMDEiLCJ0eXAiOiJKV1QifQ.eyJpYXQiOjE4MDAwMDAwMDAsImlzcyI6IkJFTkNIVEVBTTEifQ.c2lnbmF0dXJlLW9mLXRoZS1iZW5jaG1hcmstdG9rZW4tcGFkZGVkLXRvLTY0LWJ5dGVzLi4uLi4uLi4uLi4' \
        -H 'apns-topic: com.example.richpush' -H 'apns-push-type: background' -H 'apns-priority: 5' \
        -H 'apns-id: 7b4e1f0c-3d8a-8b2e-9c1f-0a4b6d8e2f13' -H 'apns-collapse-id: richpush-1' -H 'content-type: application/json'
}

# bench_h2load_fcm REQUESTS CONNECTIONS STREAMS PORT: as bench_h2load_apns, with FCM HTTP v1 messages shaped as the
# gateway's.
bench_h2load_fcm() {
    local body="$bench_work/h2load-fcm-body.json"
    printf '%s' '{"message":{"android":{"priority":"HIGH"},"data":{"richId":"1","richMessage":"Check this image out!","richType":"text"},"token":"desk-7"}}' >"$body"
    bench_h2load "$1" "$2" "$3" "$body" "https://localhost:$4/v1/projects/richpush-bench/messages:send" \
        -H 'authorization: Bearer bench-access-token' -H 'content-type: application/json; charset=utf-8'
}

# bench_h2load_wns REQUESTS CONNECTIONS STREAMS PORT: as bench_h2load_apns, with WNS raw notifications shaped as the
# gateway's.
bench_h2load_wns() {
    local body="$bench_work/h2load-wns-body.json"
    printf '%s' '{"richId":"1","richMessage":"Check this image out!","richType":"text"}' >"$body"
    bench_h2load "$1" "$2" "$3" "$body" "https://localhost:$4/wns/7?token=AwYAAAB7" \
        -H 'authorization: Bearer bench-access-token' -H 'x-wns-type: wns/raw' -H 'content-type: application/octet-stream'
}

# bench_h2load_webpush REQUESTS CONNECTIONS STREAMS PORT: as bench_h2load_apns, with Web Push messages shaped as the
# gateway's: its headers, a VAPID authorization of a real token's length and a body of an encrypted push's size. The
# encryption of each push for its browser (an ECDH and two HKDFs) is the gateway's alone: h2load sends one body.
bench_h2load_webpush() {
    local body="$bench_work/h2load-webpush-body"
    head -c 300 /dev/urandom >"$body"
    bench_h2load "$1" "$2" "$3" "$body" "https://localhost:$4/webpush/7" \
        -H "authorization: vapid t=$(head -c 180 /dev/zero | tr '\0' 'a').$(head -c 120 /dev/zero | tr '\0' 'b').$(head -c 86 /dev/zero | tr '\0' 'c'), k=$bench_webpush_p256dh" \
        -H 'content-encoding: aes128gcm' -H 'content-type: application/octet-stream' -H 'ttl: 2419200' -H 'urgency: normal' \
        -H 'topic: rich-1'
}

# bench_h2load REQUESTS CONNECTIONS STREAMS BODY_FILE URL [h2load flags…]: the h2load run of the ones above.
bench_h2load() {
    local out requests=$1 connections=$2 streams=$3 body=$4 url=$5
    shift 5
    out=$(h2load -n "$requests" -c "$connections" -t 1 -m "$streams" -d "$body" "$@" "$url")
    grep -q " 0 failed, 0 errored, 0 timeout" <<<"$(grep "^requests:" <<<"$out")" || { echo "$out" >&2; exit 1; }
    awk '/^finished in/ {gsub(",", "", $4); print $4}' <<<"$out"
}

# bench_apns_gateway_flags: the serve flags that point the gateway at the sink of bench_start_apns_sink.
bench_apns_gateway_flags() {
    apns_flags=(--apns-key-file "$tls/AuthKey.p8" --apns-key-id BENCHKEY01 --apns-team-id BENCHTEAM1
        --apns-topic com.example.richpush --apns-endpoint "https://localhost:$sink_port" --tls-ca-file "$tls/ca.pem")
}

# bench_fcm_gateway_flags: the serve flags that point the gateway at the round-trip sink on $sink_port as FCM, with a
# service account of a fresh RSA key whose token endpoint is that sink's.
bench_fcm_gateway_flags() {
    local account="$bench_work/service-account-$sink_port.json"
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$bench_work/service-account-$sink_port.key" 2>/dev/null
    python3 - "$bench_work/service-account-$sink_port.key" "https://localhost:$sink_port/token" >"$account" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "richpush-bench", "private_key_id": "0123456789abcdef",
                  "private_key": open(sys.argv[1]).read(), "client_email": "bench@richpush-bench.iam.gserviceaccount.com",
                  "client_id": "1", "token_uri": sys.argv[2]}))
PY
    fcm_flags=(--fcm-service-account-file "$account" --fcm-endpoint "https://localhost:$sink_port" --tls-ca-file "$tls/ca.pem")
}

# bench_wns_gateway_flags: the serve flags that point the gateway's WNS at the round-trip sink on $sink_port, as its
# token endpoint and the one host its channels may name.
bench_wns_gateway_flags() {
    wns_flags=(--wns-client-id ms-app://s-1-15-2-bench --wns-client-secret bench-secret --wns-token-endpoint "https://localhost:$sink_port/token"
        --wns-channel-hosts localhost --allow-private-push-endpoints --tls-ca-file "$tls/ca.pem")
}

# bench_webpush_gateway_flags: the serve flags that turn the gateway's Web Push on with a fresh VAPID key, trusting the
# round-trip sink, and a browser's P-256 public key in $bench_webpush_p256dh for the subscriptions to name.
bench_webpush_gateway_flags() {
    openssl ecparam -name prime256v1 -genkey -noout -out "$bench_work/vapid-$sink_port.pem" 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl ec -pubout -outform DER 2>/dev/null | tail -c 65 \
        >"$bench_work/browser.key"
    bench_webpush_p256dh=$(basenc --base64url -w0 <"$bench_work/browser.key" | tr -d '=')
    webpush_flags=(--vapid-key-file "$bench_work/vapid-$sink_port.pem" --vapid-subject mailto:bench@example.com --allow-private-push-endpoints
        --tls-ca-file "$tls/ca.pem")
}

# bench_chart KIND NAME TITLE ARGS…: draws the chart NAME.png of this run into $BENCH_CHART_DIR (docs/img unless set),
# where docs/performance.md shows it, under the machine and, where a hub sink was started, the sink's round trip; see
# support/chart.py for the kinds and their arguments.
bench_chart() {
    local kind=$1 name=$2 title=$3
    shift 3
    python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install --quiet --break-system-packages matplotlib >&2
    python3 Benchmarks/support/chart.py "$kind" "${BENCH_CHART_DIR:-docs/img}/$name.png" "$title" ${bench_sink:+--sink "$bench_sink"} "$@"
}
