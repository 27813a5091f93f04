"""Writes a deterministic PNG of RGB noise whose file size is close to the requested number of bytes.

Noise barely compresses, so the file size follows the pixel count: benchmarks get a realistic photo-sized payload
without a binary in the repository.
"""
import random
import struct
import sys
import zlib


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def noise_png(target_bytes: int, seed: int = 42) -> bytes:
    rng = random.Random(seed)
    side = max(1, int((target_bytes / 3) ** 0.5))
    rows = b"".join(b"\x00" + rng.randbytes(side * 3) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    target, path = int(sys.argv[1]), sys.argv[2]
    with open(path, "wb") as out:
        out.write(noise_png(target))
