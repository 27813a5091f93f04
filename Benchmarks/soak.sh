#!/usr/bin/env bash
# Soak (not in CI): MINUTES (30 unless given) of what a busy gateway lives through at once, on its SQLite default:
#   - payload fetches at half the rate payload-fetch.sh measures here (SOAK_FETCH_RATE, 9000 a second unless set),
#     from h2load over HTTP/1.1 with 16 keep-alive connections;
#   - 1,000 open streams (100 members with 10 each, the per-user limit), held by a separate process that counts the
#     events they receive and reconnects any that drop (each drop is an error);
#   - a campaign a minute to every member's direct device.
# Prints the gateway's RSS and the counts every minute, the errors of each load at the end, and whether the last
# minute's RSS is within 10% of minute 5's (the goal: no growth once warm).
# Draws the RSS minute by minute into docs/img/soak.png (support/chart.py).
#
#   Benchmarks/soak.sh [minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
rate=${SOAK_FETCH_RATE:-9000}
scripts/ensure-packages nghttp2-client curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
gateway_port=$(bench_free_port)
bench_start_gateway "$gateway_port" "$bench_work/data"
gateway_pid=${bench_pids[-1]}
base="http://127.0.0.1:$gateway_port"
admin=(-u admin:bench-admin-password)

echo "preparing 100 members, their devices and a payload…" >&2
for n in $(seq 0 99); do
    curl -sf "${admin[@]}" -d "{\"username\":\"m$n\",\"password\":\"member-password\",\"role\":\"member\"}" "$base/api/users" >/dev/null
    curl -sf -u "m$n:member-password" -X PUT -H 'Content-Type: application/json' \
        -d "{\"platform\":\"direct\",\"pushChannel\":\"m$n-desktop\"}" "$base/api/installations/m$n-desktop" >/dev/null
done
python3 Benchmarks/support/noise_png.py 112000 "$bench_work/payload.png"
image=$(curl -sf "${admin[@]}" -H 'Content-Type: image/png' --data-binary "@$bench_work/payload.png" "$base/api/images" | bench_json id)
payload=$(curl -sf "${admin[@]}" -d "{\"message\":\"Soak\",\"richType\":\"img\",\"imageId\":$image,\"audience\":\"username:m0\"}" \
    "$base/api/notifications" | bench_json id)

python3 - "$gateway_port" "$bench_work/streams" <<'PY' &
import base64, socket, sys, threading, time
port, report = int(sys.argv[1]), sys.argv[2]
lock = threading.Lock()
counts = {"open": 0, "events": 0, "errors": 0}

def hold(user):
    credentials = base64.b64encode(f"{user}:member-password".encode()).decode()
    while True:
        try:
            connection = socket.create_connection(("127.0.0.1", port))
            connection.sendall(f"GET /api/me/stream HTTP/1.1\r\nHost: soak\r\nAuthorization: Basic {credentials}\r\n\r\n".encode())
            with lock:
                counts["open"] += 1
            buffer = b""
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    raise ConnectionError("closed")
                buffer = (buffer + chunk)[-4096:]
                with lock:
                    counts["events"] += chunk.count(b"event: rich")
        except OSError:
            with lock:
                counts["open"] -= 1
                counts["errors"] += 1
            time.sleep(1)

for n in range(100):
    for _ in range(10):
        threading.Thread(target=hold, args=(f"m{n}",), daemon=True, name=f"m{n}").start()
while True:
    time.sleep(5)
    with lock:
        line = f"{counts['open']} {counts['events']} {counts['errors']}\n"
    with open(report + ".tmp", "w") as out:
        out.write(line)
    import os
    os.replace(report + ".tmp", report)
PY
bench_pids+=($!)

authorization="Authorization: Basic $(printf 'm0:member-password' | base64)"
h2load --h1 -c 16 --rps $((rate / 16)) -D $((minutes * 60)) -H "$authorization" "$base/api/notifications/$payload" \
    >"$bench_work/h2load.out" 2>&1 &
fetcher=$!

rss() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$gateway_pid/status"; }
campaigns=0
campaign_errors=0
declare -a figures
for minute in $(seq 1 "$minutes"); do
    if curl -sf "${admin[@]}" -d "{\"message\":\"Minute $minute\",\"richType\":\"text\",\"text\":\"t\",\"audience\":\"platform:direct\"}" \
        "$base/api/notifications" >/dev/null; then
        campaigns=$((campaigns + 1))
    else
        campaign_errors=$((campaign_errors + 1))
    fi
    sleep 60
    read -r open events stream_errors <"$bench_work/streams" || true
    figures[$minute]=$(rss)
    echo "$minute ${figures[$minute]}" >>"$bench_work/memory"
    echo "minute $minute: RSS ${figures[$minute]} MB, $open streams open, $events rich events received, $stream_errors stream errors, $campaigns campaigns"
done
wait "$fetcher" || true
echo "payload fetches (h2load, $rate a second asked):"
grep -E "^requests:|^status codes:|^finished in" "$bench_work/h2load.out" | sed 's/^/  /'
echo "campaign errors: $campaign_errors"
if [ "$minutes" -ge 5 ]; then
    python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'RSS at minute {sys.argv[3]} / minute 5: {b / a:.3f} (goal: within 10%)')" \
        "${figures[5]}" "${figures[$minutes]}" "$minutes"
fi
bench_chart memory soak "The gateway's memory over a $minutes-minute soak ($rate fetches a second asked, 1,000 streams)" "$bench_work/memory"
