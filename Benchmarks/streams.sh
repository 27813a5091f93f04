#!/usr/bin/env bash
# Open streams on one process: COUNT direct streams of one user (10,000 unless given), held open from a separate
# process, then a notification to that user timed from just before its POST until the last stream has its `rich`
# event, in three rounds. Prints the gateway's memory per open stream (RSS with the streams open less RSS with one,
# divided by COUNT) and each round's time to the last and the median stream. The goals: at most 16 KiB a stream and
# the last stream reached within 1 s.
#
#   Benchmarks/streams.sh [count…]      e.g. Benchmarks/streams.sh 10000 20000
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-10000}")
scripts/ensure-packages curl python3 libpng-dev libturbojpeg0-dev libwebp-dev pkg-config
source Benchmarks/support/common.sh
bench_build_gateway
largest=$(printf '%s\n' "${counts[@]}" | sort -n | tail -1)
# Each stream is a descriptor in the gateway and one in the client; a machine whose hard limit is lower (some
# sandboxes allow 20,000) holds fewer, which the gateway's refusals would show.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt $((largest + 200)) ]; then
    echo "the hard limit of open files is $hard: at most $((hard - 200)) streams fit" >&2
    exit 1
fi
ulimit -n "$([ "$hard" = unlimited ] && echo $((largest + 4096)) || echo "$hard")"

for count in "${counts[@]}"; do
    gateway_port=$(bench_free_port)
    bench_start_gateway "$gateway_port" "$bench_work/data-$count" --max-streams-per-user "$count" \
        --max-unauthenticated-connections-per-address $((count + 100))
    gateway_pid=${bench_pids[-1]}
    base="http://127.0.0.1:$gateway_port"
    curl -sf -u admin:bench-admin-password -d '{"username":"alice","password":"alice-password","role":"member"}' "$base/api/users" >/dev/null
    curl -sf -u alice:alice-password -X PUT -d '{"platform":"direct","pushChannel":"desktop"}' "$base/api/installations/desktop" >/dev/null
    echo "$count streams of one user…" >&2
    python3 Benchmarks/support/stream_clients.py "$gateway_port" alice alice-password "$count" "$gateway_pid" 3 | sed "s/^/$count /"
    kill "$gateway_pid"
    wait "$gateway_pid" 2>/dev/null || true
done
