#!/usr/bin/env python3
"""richpushd end to end: latency from `POST /api/notifications` returning to the daemon's `Notify` call returning,
and the daemon's resident memory when idle.

Every alert stays (dunst without a timeout), each with a message of its own (dunst stacks identical ones into one), as
a busy desktop's do: dunst shows DUNST_LIMIT of them (20 unless set) and keeps the rest waiting for room, in order.
With Debian's `notification_limit = 0` (all on screen) dunst itself slows by about 4 ms a Notify for every alert on
screen and stops answering at about the 170th, whatever the client (notify-send alone does the same): richpushd
then keeps what it sent waiting, in order, and prints none; this benchmark would measure dunst. After the
one-at-a-time run, a burst of the same count goes out 100 ms apart without waiting for each: its figures are POST
returned to the daemon's `Notify` on the bus ("alert sent"; at most 16 wait unanswered, the rest wait in the daemon)
and to dunst's answer; then how many alerts dunst holds, how many went to standard output, and the daemon's memory
after the burst and a minute of idling.

Runs the release builds of the gateway and the daemon against a private session bus and dunst under Xvfb, sends
notifications with a ~110 KB PNG one at a time, and reads the moment each `Notify` returned from the daemon's verbose
log ("alert shown", written right after the call returns), timestamped as it arrives on a pipe. Then it lets the
daemon idle through an hour's worth of heartbeats (the gateway sends one per second here instead of one per 15 s)
and reads its memory from /proc. Prints the figures and their ratio to the issue's targets, and beside them the memory
of two reference programs idling in the same run: a C program with the same C libraries (libcurl, libdbus, libpng)
and a static Swift program with FoundationEssentials' JSON, what richpushd is built from before any code of its own.
"""
import argparse
import base64
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def draw_latencies(series):
    """The latency distributions of this run, drawn into docs/img/richpushd.png by support/chart.py (matplotlib)."""
    if subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--break-system-packages", "matplotlib"], check=True)
    with tempfile.TemporaryDirectory() as folder:
        arguments = []
        for number, (label, values) in enumerate(series.items()):
            path = os.path.join(folder, f"{number}.txt")
            with open(path, "w") as file:
                file.write("\n".join(f"{value:.3f}" for value in values) + "\n")
            arguments.append(f"{label}={path}")
        chart_dir = os.environ.get("BENCH_CHART_DIR", os.path.join(ROOT, "docs", "img"))
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "support", "chart.py"), "latency", f"{chart_dir}/richpushd.png",
                        "richpushd: from the POST to the desktop's Notify", *arguments], check=True)


TARGETS = {"p50_ms": 10.0, "p99_ms": 50.0, "idle_rss_mb": 12.0, "burst_rss_mb": 22.0}


def png_with_noise(target_bytes):
    """A 512x384 RGB gradient with sparse noise, tuned to about `target_bytes` as a PNG."""
    def encode(probability):
        rnd = random.Random(42)
        width, height = 512, 384
        raw = bytearray()
        for y in range(height):
            row = bytearray()
            for x in range(width):
                noise = rnd.randrange(16) if rnd.random() < probability else 0
                row += bytes([(x * 255 // width + noise) & 255, (y * 255 // height + noise) & 255, ((x + y) * 255 // (width + height)) & 255])
            filtered = bytearray(row)
            for i in range(len(row) - 1, 2, -1):
                filtered[i] = (row[i] - row[i - 3]) & 255
            raw += b"\x01" + filtered

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")

    low, high = 0.0, 1.0
    for _ in range(12):
        middle = (low + high) / 2
        if len(encode(middle)) < target_bytes:
            low = middle
        else:
            high = middle
    return encode((low + high) / 2)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def memory(pid):
    status = open(f"/proc/{pid}/status").read()
    fields = dict(re.findall(r"^(\w+):\s+(\d+) kB", status, re.M))
    rollup = open(f"/proc/{pid}/smaps_rollup").read()
    pss = int(re.search(r"^Pss:\s+(\d+) kB", rollup, re.M).group(1))
    return {"rss": int(fields["VmRSS"]), "anon": int(fields["RssAnon"]), "file": int(fields["RssFile"]), "pss": pss}


class Gateway:
    def __init__(self, base, user, password):
        self.base, self.auth = base, "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def call(self, method, path, body=None, content_type="application/json"):
        request = urllib.request.Request(self.base + path, data=body, method=method)
        request.add_header("Authorization", self.auth)
        if body is not None:
            request.add_header("Content-Type", content_type)
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read() or b"null")


def build_floors(work):
    """Builds the two reference programs of Benchmarks/support that show what richpushd's parts cost on their own."""
    support = os.path.join(ROOT, "Benchmarks", "support")
    library, swift = os.path.join(work, "library-floor"), os.path.join(work, "swift-floor")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libcurl", "dbus-1", "libpng"], check=True,
                           capture_output=True, text=True).stdout.split()
    subprocess.run(["gcc", "-O2", os.path.join(support, "library-floor.c"), "-o", library, *flags], check=True)
    subprocess.run(["swiftc", "-O", "-static-stdlib", os.path.join(support, "swift-floor.swift"), "-o", swift], check=True)
    return {"library": library, "swift": swift}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--idle-heartbeats", type=int, default=240, help="240 = one hour at the default 15 s interval")
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build-release", "release"))
    args = parser.parse_args()
    richpush, richpushd = os.path.join(args.bin, "richpush"), os.path.join(args.bin, "richpushd")
    work = tempfile.mkdtemp(prefix="richpushd-bench-")
    processes = []
    floors = build_floors(work)

    def start(command, **options):
        process = subprocess.Popen(command, **options)
        processes.append(process)
        return process

    try:
        xvfb = start(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        display = ":" + xvfb.stdout.readline().decode().strip()
        # A session bus without service activation: only the dunst started here may own the notification name.
        with open(os.path.join(work, "bus.conf"), "w") as config:
            config.write('<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen><auth>EXTERNAL</auth>'
                         '<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>'
                         '<allow own="*"/></policy></busconfig>')
        bus = start(["dbus-daemon", "--config-file", os.path.join(work, "bus.conf"), "--nofork", "--nopidfile", "--print-address=1"],
                    stdout=subprocess.PIPE)
        bus_address = bus.stdout.readline().decode().strip()
        desktop = dict(os.environ, DISPLAY=display, DBUS_SESSION_BUS_ADDRESS=bus_address, HOME=work)
        with open(os.path.join(work, "dunstrc"), "w") as config:
            config.write(f"[global]\n    notification_limit = {os.environ.get('DUNST_LIMIT', '20')}\n    stack_duplicates = false\n"
                         "[urgency_normal]\n    timeout = 0\n")
        start(["dunst", "-config", os.path.join(work, "dunstrc")], env=desktop, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if subprocess.run(["dunstctl", "debug"], env=desktop, capture_output=True).returncode == 0:
                break
            time.sleep(0.05)

        port = free_port()
        start(
            [richpush, "serve", "--hostname", "127.0.0.1", "--port", str(port), "--data-dir", os.path.join(work, "data"),
             "--public-dir", os.path.join(ROOT, "Public"), "--image-dir", os.path.join(ROOT, "img"), "--heartbeat-interval", "1",
             "--log-level", "warning", "--send-rate-limit", "0"],
            env=dict(os.environ, RICHPUSH_ADMIN_PASSWORD="admin-secret-1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/health").read()
                break
            except OSError:
                time.sleep(0.05)
        admin = Gateway(base, "admin", "admin-secret-1")
        admin.call("POST", "/api/users", json.dumps({"username": "alice", "password": "alice-password", "role": "member"}).encode())
        image = png_with_noise(110 * 1024)
        image_id = admin.call("POST", "/api/images", image, "image/png")["id"]
        with open(os.path.join(work, "password"), "w") as password:
            password.write("alice-password\n")
        os.chmod(os.path.join(work, "password"), 0o600)

        printed = open(os.path.join(work, "printed"), "w+")
        daemon = start(
            [richpushd, "--server", base, "--user", "alice", "--password-file", os.path.join(work, "password"), "--verbose",
             "--heartbeat-timeout", "5", "--open-command", "true"],
            env=desktop, stdout=printed, stderr=subprocess.PIPE)
        shown, received, sent, phases, connected, lock = {}, {}, {}, [], threading.Event(), threading.Condition()

        def read_log():
            for line in daemon.stderr:
                now = time.monotonic_ns()
                text = line.decode(errors="replace")
                if "stream connected" in text:
                    connected.set()
                event = re.search(r"event received .*\"richId\":\"(\d+)\".*event=rich", text)
                if event:
                    received[int(event.group(1))] = now
                dispatched = re.search(r"alert sent .*\bid=(\d+)", text)
                if dispatched:
                    with lock:
                        sent[int(dispatched.group(1))] = now
                        lock.notify_all()
                match = re.search(r"alert shown .*\bid=(\d+)", text)
                if match:
                    phases.append(tuple(float(v) for v in re.search(r"fetchMs=([\d.]+) id=\d+ prepareMs=([\d.]+) showMs=([\d.]+)", text).groups()))
                    with lock:
                        shown[int(match.group(1))] = now
                        lock.notify_all()

        threading.Thread(target=read_log, daemon=True).start()
        if not connected.wait(30):
            sys.exit("richpushd did not connect")
        sequence = iter(range(1, 1_000_000))

        def body():
            # Each its own message: dunst stacks identical alerts into one, which a desktop of real campaigns never sees.
            return json.dumps({"message": f"Check this image out! ({next(sequence)})", "richType": "img", "imageId": image_id,
                               "audience": "username:alice"}).encode()

        def send_and_wait():
            notification = admin.call("POST", "/api/notifications", body())
            returned = time.monotonic_ns()
            with lock:
                if not lock.wait_for(lambda: notification["id"] in shown, timeout=10):
                    sys.exit(f"notification {notification['id']} was not shown")
                identifier = notification["id"]
                return (shown[identifier] - returned) / 1e6, (received[identifier] - returned) / 1e6

        load_before = os.getloadavg()[0]
        for _ in range(10):
            send_and_wait()
        measured = [send_and_wait() for _ in range(args.count)]
        load_after = os.getloadavg()[0]
        latencies = [total for total, _ in measured]
        arrivals = [arrival for _, arrival in measured]
        after_load = memory(daemon.pid)
        # The burst: 100 ms apart, nobody waiting, every alert left on screen.
        burst = []
        next_slot = time.monotonic()
        for _ in range(args.count):
            notification = admin.call("POST", "/api/notifications", body())
            burst.append((notification["id"], time.monotonic_ns()))
            next_slot += 0.1
            time.sleep(max(0, next_slot - time.monotonic()))
        last_post = burst[-1][1] / 1e9
        with lock:
            # However slow the notification server gets with hundreds of alerts on screen, every one must reach it.
            if not lock.wait_for(lambda: all(identifier in sent and identifier in shown for identifier, _ in burst), timeout=600):
                print(f"the burst's alerts were not all answered 600 s after the last POST: {sum(i in sent for i, _ in burst)} sent, "
                      f"{sum(i in shown for i, _ in burst)} answered")
                sys.exit(1)
            answered_after = max(shown[identifier] for identifier, _ in burst) / 1e9 - last_post
            burst_sent = [(sent[identifier] - returned) / 1e6 for identifier, returned in burst]
            burst_shown = [(shown[identifier] - returned) / 1e6 for identifier, returned in burst]

        def dunst_count(kind):
            return int(subprocess.run(["dunstctl", "count", kind], env=desktop, capture_output=True, text=True).stdout.strip() or -1)

        on_desktop = dunst_count("displayed") + dunst_count("waiting")
        printed.seek(0)
        printed_lines = len(printed.read().splitlines())
        time.sleep(60)
        after_burst = memory(daemon.pid)
        # The references idle beside the daemon: the same C libraries alone, and a static Swift program alone.
        library_floor = start([floors["library"], base + "/health", "alice:alice-password", str(args.idle_heartbeats + 30)],
                              env=desktop, stdout=subprocess.PIPE)
        swift_floor = start([floors["swift"], str(args.idle_heartbeats + 30)], stdout=subprocess.PIPE)
        library_floor.stdout.readline(), swift_floor.stdout.readline()
        time.sleep(args.idle_heartbeats)
        idle = memory(daemon.pid)
        floor_figures = {"library": memory(library_floor.pid), "swift": memory(swift_floor.pid)}

        p50, p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
        print(f"richpushd, {args.count} notifications with a {len(image) / 1024:.0f} KB PNG ({image_id=}), release build, "
              f"{os.cpu_count()} cores, load average {load_before:.1f} before and {load_after:.1f} after the run")
        print(f"  POST returned -> Notify returned   p50 {p50:6.2f} ms   p90 {percentile(latencies, 0.9):6.2f} ms   "
              f"p99 {p99:6.2f} ms   max {max(latencies):6.2f} ms   mean {sum(latencies) / len(latencies):6.2f} ms")
        print(f"    of which: POST -> event read     p50 {percentile(arrivals, 0.5):6.2f} ms   p99 {percentile(arrivals, 0.99):6.2f} ms (gateway dispatch, stream)")
        daemon_part = [total - arrival for total, arrival in measured]
        print(f"    of which: event -> Notify done   p50 {percentile(daemon_part, 0.5):6.2f} ms   p99 {percentile(daemon_part, 0.99):6.2f} ms (fetch, decode, scale, D-Bus)")
        measured_phases = phases[-args.count:]
        fetch = [f for f, _, _ in measured_phases]
        work = [p - f for f, p, _ in measured_phases]
        notify = [n for _, _, n in measured_phases]
        print(f"      payload GET (gateway)          p50 {percentile(fetch, 0.5):6.2f} ms   p99 {percentile(fetch, 0.99):6.2f} ms")
        print(f"      decode, scale, cache           p50 {percentile(work, 0.5):6.2f} ms   p99 {percentile(work, 0.99):6.2f} ms")
        print(f"      Notify call                    p50 {percentile(notify, 0.5):6.2f} ms   p99 {percentile(notify, 0.99):6.2f} ms")
        print(f"  target                             p50 {TARGETS['p50_ms']:6.2f} ms   p99 {TARGETS['p99_ms']:6.2f} ms")
        print(f"  ratio to target                    p50 {p50 / TARGETS['p50_ms']:6.2f}      p99 {p99 / TARGETS['p99_ms']:6.2f}")
        print(f"  burst of {args.count}, 100 ms apart, all left on screen:")
        print(f"    POST returned -> Notify sent     p50 {percentile(burst_sent, 0.5):6.2f} ms   p99 {percentile(burst_sent, 0.99):6.2f} ms   "
              f"max {max(burst_sent):6.2f} ms   (target p50 {TARGETS['p50_ms']:.0f}, p99 {TARGETS['p99_ms']:.0f}; ratios "
              f"{percentile(burst_sent, 0.5) / TARGETS['p50_ms']:.2f}, {percentile(burst_sent, 0.99) / TARGETS['p99_ms']:.2f})")
        print(f"    POST returned -> Notify answered p50 {percentile(burst_shown, 0.5):6.2f} ms   p99 {percentile(burst_shown, 0.99):6.2f} ms   "
              f"max {max(burst_shown):6.2f} ms   (the notification server's pace)")
        print(f"    the last answer came {answered_after * 1000:.1f} ms after the last POST returned")
        print(f"    on the desktop: {on_desktop} of the {10 + 2 * args.count} alerts sent in all (dunst's displayed and waiting); "
              f"printed to standard output instead: {printed_lines}")
        print(f"    memory after the burst and 60 s idle: RSS {after_burst['rss'] / 1024:5.1f} MB (target {TARGETS['burst_rss_mb']:.0f} MB, "
              f"ratio {after_burst['rss'] / 1024 / TARGETS['burst_rss_mb']:.2f})")
        for label, figures in [(f"after the {args.count}", after_load), (f"idle after {args.idle_heartbeats} heartbeats", idle)]:
            print(f"  memory {label:<28} RSS {figures['rss'] / 1024:5.1f} MB (anonymous {figures['anon'] / 1024:4.1f}, "
                  f"shared libraries and binary {figures['file'] / 1024:4.1f})   PSS {figures['pss'] / 1024:5.1f} MB")
        print(f"  idle RSS ratio to the {TARGETS['idle_rss_mb']:.0f} MB target: {idle['rss'] / 1024 / TARGETS['idle_rss_mb']:.2f}")
        draw_latencies({"one at a time, POST -> Notify returned": latencies, "burst, POST -> Notify sent": burst_sent,
                        "burst, POST -> Notify answered": burst_shown})
        library, swift = floor_figures["library"], floor_figures["swift"]
        print(f"  reference: C program with libcurl, libdbus, libpng, one GET, idle   RSS {library['rss'] / 1024:5.1f} MB "
              f"(anonymous {library['anon'] / 1024:4.1f})")
        print(f"  reference: static Swift program with FoundationEssentials JSON, idle RSS {swift['rss'] / 1024:5.1f} MB "
              f"(anonymous {swift['anon'] / 1024:4.1f})")
        print(f"  idle RSS ratio to the sum of the two references: {idle['rss'] / (library['rss'] + swift['rss']):.2f}")
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
