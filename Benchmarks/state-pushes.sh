#!/usr/bin/env bash
# Universal dismiss on phones: a user with DEVICES iPhones (5 unless set) has NOTIFICATIONS notifications (1,000 unless
# set) and dismisses every one of them in a burst from one of the phones, 8 requests at a time. Each dismissal owes
# the user's other phones a state push; the gateway sends at most one per phone and notification every 10 s, so a
# burst never costs more than NOTIFICATIONS × DEVICES pushes. Prints how many state pushes reached the loopback APNs
# sink (nginx, HTTP/2 over TLS, logging each push's collapse id and device), how many phone and notification pairs
# got one, and the time from the first PATCH until the sink accepted the last push, over ROUNDS rounds (3 unless set).
#
# What the figure leaves out: the phones themselves (the sink answers at once), and a second change to the same
# notification within 10 s, which would wait out the interval.
#
#   [ROUNDS=n] Benchmarks/state-pushes.sh [notifications] [devices]
set -euo pipefail
cd "$(dirname "$0")/.."
notifications=${1:-1000}
devices=${2:-5}
rounds=${ROUNDS:-3}
scripts/ensure-packages nginx-light openssl curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
chmod 755 "$bench_work"
sink_log="$bench_work/sink.log"
bench_start_apns_sink "$sink_log"

for round in $(seq 1 "$rounds"); do
    gateway_port=$(bench_free_port)
    bench_apns_gateway_flags
    bench_start_gateway "$gateway_port" "$bench_work/data-$round" "${apns_flags[@]}"
    base="http://127.0.0.1:$gateway_port"
    admin=(-u admin:bench-admin-password)
    user="alice$round"
    curl -sf "${admin[@]}" -d "{\"username\":\"$user\",\"password\":\"alice-password\",\"role\":\"member\"}" "$base/api/users" >/dev/null
    for device in $(seq 0 $((devices - 1))); do
        curl -sf -u "$user:alice-password" -X PUT -H 'Content-Type: application/json' \
            -d "{\"platform\":\"apns\",\"pushChannel\":\"$(printf '%02x%062x' "$round" "$device")\"}" \
            "$base/api/installations/$user-phone-$device" >/dev/null
    done
    python3 - "$base" "$user" "$notifications" "$devices" "$sink_log" "$round" <<'PY'
import base64, concurrent.futures, http.client, json, sys, time, urllib.parse
base, user, count, devices, sink_log, round_number = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
host = urllib.parse.urlsplit(base)
admin = "Basic " + base64.b64encode(b"admin:bench-admin-password").decode()
member = "Basic " + base64.b64encode(f"{user}:alice-password".encode()).decode()

def pushes(prefix):
    with open(sink_log) as log:
        return [line.split() for line in log if len(line.split()) == 3 and line.split()[1].startswith(prefix)
                and line.split()[2].startswith(f"/3/device/{int(round_number):02x}")]

connection = http.client.HTTPConnection(host.hostname, host.port)
ids = []
for n in range(count):
    connection.request("POST", "/api/notifications", json.dumps(
        {"message": f"Note {n}", "richType": "text", "text": "t", "audience": f"username:{user}"}),
        {"Authorization": admin, "Content-Type": "application/json"})
    response = connection.getresponse()
    ids.append(json.loads(response.read())["id"])
deadline = time.time() + 300
while len(pushes("richpush-")) < count * devices and time.time() < deadline:
    time.sleep(0.2)

def dismiss(chunk):
    local = http.client.HTTPConnection(host.hostname, host.port)
    for notification in chunk:
        local.request("PATCH", f"/api/me/notifications/{notification}", json.dumps(
            {"userActionState": "dismissed", "installationId": f"{user}-phone-0"}),
            {"Authorization": member, "Content-Type": "application/json"})
        assert local.getresponse().read() is not None
    local.close()

start = time.time()
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    list(pool.map(dismiss, [ids[i::8] for i in range(8)]))
patched = time.time()
expected = count * (devices - 1)
deadline = time.time() + 300
while len(pushes("state-")) < expected and time.time() < deadline:
    time.sleep(0.2)
time.sleep(2)  # anything more would be a push too many: let it land before counting
state = pushes("state-")
pairs = {(line[1], line[2]) for line in state}
last = max(float(line[0]) for line in state) if state else float("nan")
print(f"round {round_number}: {len(state)} state pushes (bound {count * devices}), {len(pairs)} of {expected} phone and "
      f"notification pairs, burst of {count} PATCHes took {patched - start:.2f} s, last push accepted "
      f"{last - start:.2f} s after the first PATCH")
PY
    kill "${bench_pids[-1]}"
    wait "${bench_pids[-1]}" 2>/dev/null || true
    unset 'bench_pids[-1]'
done
