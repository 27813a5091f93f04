#!/usr/bin/env bash
# The Debian package as an operator gets it, made by `scripts/release --debug` from the tests' debug build: its files,
# both systemd units as systemd reads them, lintian without errors, and the packaged gateway, started from the
# unpacked tree with the packaged config file, passing the README's curl walkthrough.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/ensure-packages lintian systemd curl python3 man-db prometheus
work=$(mktemp -d)
trap 'kill -TERM $(jobs -p) 2>/dev/null || true; wait; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

deb=$(scripts/release --debug "$work/out" | tail -1)
version=$(.build/debug/richpush --version)
[ "$(basename "$deb")" = "richpush_${version}_$(dpkg --print-architecture).deb" ] || fail "the package is named $(basename "$deb")"
[ -x "$work/out/richpush" ] && [ -x "$work/out/richpushd" ] || fail "the binaries are not beside the package"

echo "the package's files…" >&2
dpkg-deb -c "$deb" | awk '{print $1, $2, $NF}' >"$work/contents"
for expected in \
    "-rwxr-xr-x root/root ./usr/bin/richpush" \
    "-rwxr-xr-x root/root ./usr/bin/richpushd" \
    "-rw-r--r-- root/root ./usr/lib/systemd/system/richpush.service" \
    "-rw-r--r-- root/root ./usr/lib/systemd/user/richpushd.service" \
    "-rw-r--r-- root/root ./usr/lib/sysusers.d/richpush.conf" \
    "-rw-r--r-- root/root ./etc/richpush/richpush.conf" \
    "-rw-r--r-- root/root ./usr/share/richpush/Public/index.html" \
    "-rw-r--r-- root/root ./usr/share/richpush/Public/openapi.yaml" \
    "-rw-r--r-- root/root ./usr/share/richpush/img/logo.png" \
    "-rw-r--r-- root/root ./usr/share/man/man1/richpush.1.gz" \
    "-rw-r--r-- root/root ./usr/share/man/man1/richpush.serve.1.gz" \
    "-rw-r--r-- root/root ./usr/share/man/man1/richpush.send.1.gz" \
    "-rw-r--r-- root/root ./usr/share/man/man1/richpushd.1.gz" \
    "-rw-r--r-- root/root ./usr/share/bash-completion/completions/richpush" \
    "-rw-r--r-- root/root ./usr/share/zsh/vendor-completions/_richpushd" \
    "-rw-r--r-- root/root ./usr/share/fish/vendor_completions.d/richpush.fish" \
    "-rw-r--r-- root/root ./usr/share/doc/richpush/copyright"; do
    grep -qxF -- "$expected" "$work/contents" || fail "the package lacks '$expected'; it holds:
$(cat "$work/contents")"
done
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "the package's version is not the binary's $version"
[ "$(dpkg-deb -I "$deb" conffiles)" = /etc/richpush/richpush.conf ] || fail "the config file is not a conffile"

root="$work/root"
dpkg-deb -x "$deb" "$root"
# The man pages read as man pages: the serve page names its flags.
MANWIDTH=100 man -l "$root/usr/share/man/man1/richpush.serve.1.gz" 2>/dev/null | grep -q -- "--data-dir" ||
    fail "richpush.serve(1) does not name --data-dir"
bash -n "$root/usr/share/bash-completion/completions/richpush" || fail "the bash completion is not bash"
grep -q "serve" "$root/usr/share/bash-completion/completions/richpush" || fail "the bash completion does not complete serve"

echo "the units as systemd reads them…" >&2
# A machine's own units beside the package's, as on a machine it is installed on: verify resolves each unit's
# dependencies and ExecStart= in the tree it is given. --user takes no --root (systemd 252), so the daemon's user unit is
# read from the system's directory: its directives and its ExecStart= are what can be wrong in it. Any word from
# verify fails the check: a directive it ignores is a warning, not an error, to it.
units="$work/units"
cp -a "$root" "$units"
cp -an /usr/lib/systemd/system/. "$units/usr/lib/systemd/system/"
install -D -m 0644 "$units/usr/lib/systemd/user/richpushd.service" "$units/etc/systemd/system/richpushd.service"
for unit in usr/lib/systemd/system/richpush.service etc/systemd/system/richpushd.service; do
    said=$(systemd-analyze verify --man=no --root="$units" "$units/$unit" 2>&1) || fail "systemd-analyze verify refused $unit: $said"
    [ -z "$said" ] || fail "systemd-analyze verify found problems in $unit: $said"
done
exposure=$(systemd-analyze security --offline=yes --root="$units" "$units/usr/lib/systemd/system/richpush.service" 2>/dev/null |
    sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
echo "systemd-analyze security: the gateway's unit's exposure is $exposure (0 safest, 10 least safe)" >&2
python3 -c "import sys; sys.exit(0 if float('$exposure') <= 2.0 else 1)" || fail "the gateway's unit is exposed at $exposure, above 2.0"

echo "lintian…" >&2
lintian --fail-on error --tag-display-limit 0 "$deb" >"$work/lintian" 2>&1 || fail "lintian found errors:
$(cat "$work/lintian")"
cat "$work/lintian" >&2

echo "the packaged gateway…" >&2
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
password=packaged-admin-password
# The system unit's working directory and config file; the store where this check can write, the address its own. The
# debug build, unlike a release's, needs the toolchain's Swift runtime, which the package does not name.
runtime=$(swift -print-target-info | python3 -c 'import json, sys; print(":".join(json.load(sys.stdin)["paths"]["runtimeLibraryPaths"]))')
(cd "$root/usr/share/richpush" && export LD_LIBRARY_PATH="$runtime" &&
    RICHPUSH_DATA_DIR="$work/data" RICHPUSH_PORT="$port" RICHPUSH_HOSTNAME=127.0.0.1 RICHPUSH_ADMIN_PASSWORD="$password" \
        exec "$root/usr/bin/richpush" serve --config "$root/etc/richpush/richpush.conf") >"$work/gateway.log" 2>&1 &
for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/health/ready" && break
    sleep 0.1
done
curl -sf -o /dev/null "http://127.0.0.1:$port/health/ready" || fail "the packaged gateway did not start: $(cat "$work/gateway.log")"
curl -sf -o /dev/null "http://127.0.0.1:$port/console/" || curl -sf -o /dev/null "http://127.0.0.1:$port/" ||
    fail "the packaged gateway does not serve the console's files"
BASE="http://127.0.0.1:$port" ADMIN_PASSWORD="$password" FIXTURES="$PWD/Tests/Fixtures" LOGO="$root/usr/share/richpush/img/logo.png" \
    bash Tests/qa/walkthrough.sh || fail "the walkthrough failed against the packaged gateway: $(tail -20 "$work/gateway.log")"

echo "the metrics as Prometheus reads them…" >&2
curl -sf "http://127.0.0.1:$port/metrics" >"$work/metrics" || fail "no /metrics"
promtool check metrics <"$work/metrics" || fail "promtool check metrics refused /metrics:
$(cat "$work/metrics")"
# The dashboard's queries name families the gateway exposes (a family whose series come with their first event, as the
# fallbacks', is declared in the metrics' source), and every family has a panel.
python3 Tests/packaging/check_dashboard.py "$work/metrics" dist/grafana/richpush.json Sources/RichPushServer/Operations/GatewayMetrics.swift ||
    fail "the Grafana dashboard does not match the gateway's metrics"
echo "the package passed" >&2
