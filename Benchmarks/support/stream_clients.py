"""Holds COUNT open `/api/me/stream` connections of one user from this one process, then sends that user a
notification and times its arrival on every stream.

    python3 stream_clients.py PORT USER PASSWORD COUNT GATEWAY_PID [ROUNDS]

Prints, as `name value` lines: the gateway's RSS before and with the streams open, the memory per stream, and for
each round the time from just before the POST until the last stream received its `rich` event (and the median
stream). asyncio's protocols keep the client's own cost per event small; the figure still includes the time this
one Python process takes to read COUNT events, which a fleet of real devices would read in parallel.
"""

import asyncio
import base64
import json
import resource
import statistics
import sys
import time


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Stream(asyncio.Protocol):
    def __init__(self, request: bytes, opened: asyncio.Future):
        self.request = request
        self.opened = opened
        self.buffer = b""
        self.waiting_for: bytes | None = None
        self.arrived: asyncio.Future | None = None

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes):
        self.buffer = (self.buffer + data)[-8192:]
        if not self.opened.done() and b"retry:" in self.buffer:
            self.opened.set_result(None)
        if self.waiting_for is not None and self.waiting_for in self.buffer and not self.arrived.done():
            self.arrived.set_result(time.monotonic())

    def expect(self, marker: bytes) -> asyncio.Future:
        self.waiting_for = marker
        self.arrived = asyncio.get_running_loop().create_future()
        if marker in self.buffer:
            self.arrived.set_result(time.monotonic())
        return self.arrived

    def connection_lost(self, exc):
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed before it opened"))
        if self.arrived is not None and not self.arrived.done():
            self.arrived.set_exception(ConnectionError("closed"))


async def post(port: int, credentials: str, body: dict) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps(body).encode()
    writer.write(
        f"POST /api/notifications HTTP/1.1\r\nHost: bench\r\nAuthorization: Basic {credentials}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)
    answer = await reader.read()
    writer.close()
    status = int(answer.split(b" ", 2)[1])
    if status != 201:
        raise RuntimeError(f"the notification was refused: {answer[:300]!r}")
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])["id"]


async def main():
    port, user, password, count, pid = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    wanted = count + 1024 if hard == resource.RLIM_INFINITY else min(count + 1024, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    credentials = base64.b64encode(f"{user}:{password}".encode()).decode()
    request = f"GET /api/me/stream HTTP/1.1\r\nHost: bench\r\nAuthorization: Basic {credentials}\r\n\r\n".encode()
    loop = asyncio.get_running_loop()

    # One stream first, so what the first request allocates once (caches, pools) is not counted per stream.
    first = loop.create_future()
    await loop.create_connection(lambda: Stream(request, first), "127.0.0.1", port)
    await first
    await asyncio.sleep(1)
    before = rss_kib(pid)

    streams = []
    started = time.monotonic()
    for batch in range(0, count, 500):
        futures = []
        for _ in range(min(500, count - batch)):
            opened = loop.create_future()
            _, stream = await loop.create_connection(lambda opened=opened: Stream(request, opened), "127.0.0.1", port)
            streams.append(stream)
            futures.append(opened)
        await asyncio.gather(*futures)
    print(f"open_seconds {time.monotonic() - started:.2f}", flush=True)
    await asyncio.sleep(2)
    after = rss_kib(pid)
    print(f"rss_before_mib {before / 1024:.1f}")
    print(f"rss_open_mib {after / 1024:.1f}")
    print(f"kib_per_stream {(after - before) / count:.2f}", flush=True)

    for round_number in range(1, rounds + 1):
        marker = f"round {round_number} {time.time()}"
        arrivals = [stream.expect(marker.encode()) for stream in streams]
        sent = time.monotonic()
        await post(port, credentials, {"message": marker, "richType": "text", "text": "t", "audience": f"username:{user}"})
        times = await asyncio.wait_for(asyncio.gather(*arrivals), timeout=120)
        last = max(times) - sent
        median = statistics.median(times) - sent
        print(f"broadcast_round_{round_number}_last_s {last:.3f}")
        print(f"broadcast_round_{round_number}_median_s {median:.3f}", flush=True)
        await asyncio.sleep(1)
    print(f"rss_after_broadcasts_mib {rss_kib(pid) / 1024:.1f}")


asyncio.run(main())
