"""A loopback Web Push service (RFC 8030) for the gateway's tests, written apart from the gateway on purpose.

Each push is checked as a push service and a browser would: the VAPID authorization (RFC 8292: an ES256 JWT
verified with the `k` key, `aud` this service's origin, `exp` at most 24 hours ahead, a mailto: or https: `sub`),
the `TTL`, `Urgency`, `Topic` and `Content-Encoding: aes128gcm` headers, and the body is decrypted with http_ece
(PyPI), an independent implementation of RFC 8291 and RFC 8188, using the subscription's private key.

Pushes arrive over TLS on one port; the test drives the service over plain HTTP on another:
  POST /subscribe             -> a new subscription (a fresh P-256 key and auth secret), as PushSubscription.toJSON()
  POST /script/<id>           -> {"status": 410, "retryAfter": "0"}: the next push to <id> gets that answer
  GET  /received, /violations -> what arrived (decrypted) and what broke the rules

Usage: push_service.py --cert C --key K --ports-file F
"""
import argparse
import base64
import json
import os
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

lock = threading.Lock()
subscriptions = {}  # id -> (private key, auth secret)
scripted = {}  # id -> [answers]
received = []
violations = []
push_origin = ""


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_problem(header):
    match = re.fullmatch(r"vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)", header or "")
    if not match:
        return "Authorization is not 'vapid t=…, k=…'"
    token, key = match.groups()
    try:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    except ValueError:
        return "k is not an uncompressed P-256 point"
    parts = token.split(".")
    if len(parts) != 3:
        return "t is not a JWT"
    head, claims = (json.loads(unb64url(p)) for p in parts[:2])
    if head.get("alg") != "ES256":
        return "the JWT is not ES256"
    signature = unb64url(parts[2])
    if len(signature) != 64:
        return "an ES256 signature is 64 bytes"
    der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "the JWT's signature does not verify with k"
    now = time.time()
    if claims.get("aud") != push_origin:
        return f"aud is {claims.get('aud')!r}, not {push_origin!r}"
    if not isinstance(claims.get("exp"), int) or not now < claims["exp"] <= now + 86400:
        return "exp must be within the next 24 hours"
    if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
        return "sub must be a mailto: or https: URL"
    return None


class PushHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, headers=None, body=b""):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def refuse(self, problem):
        with lock:
            violations.append(problem)
        self.answer(400, body=problem.encode())

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        match = re.fullmatch(r"/push/([0-9a-f]+)", self.path)
        if not match or match.group(1) not in subscriptions:
            return self.answer(404)
        sub_id = match.group(1)
        problem = vapid_problem(self.headers.get("Authorization"))
        if problem:
            return self.refuse(problem)
        if self.headers.get("Content-Encoding") != "aes128gcm":
            return self.refuse("Content-Encoding must be aes128gcm")
        ttl = self.headers.get("TTL", "")
        if not ttl.isdigit():
            return self.refuse("TTL must be whole seconds")
        urgency = self.headers.get("Urgency", "normal")
        if urgency not in ("very-low", "low", "normal", "high"):
            return self.refuse("Urgency is not very-low, low, normal or high")
        topic = self.headers.get("Topic")
        if topic is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", topic):
            return self.refuse("Topic must be 1 to 32 URL-safe base64 characters")
        if len(body) > 4096:
            return self.answer(413)
        with lock:
            queue = scripted.get(sub_id) or []
            next_answer = queue.pop(0) if queue else None
        if next_answer:
            headers = {"Retry-After": next_answer["retryAfter"]} if next_answer.get("retryAfter") else {}
            return self.answer(next_answer["status"], headers)
        private_key, auth = subscriptions[sub_id]
        try:
            plaintext = http_ece.decrypt(body, private_key=private_key, auth_secret=auth, version="aes128gcm")
        except Exception as error:  # noqa: BLE001 - any failure to decrypt is the finding
            return self.refuse(f"the body does not decrypt: {error}")
        with lock:
            received.append({"subscription": sub_id, "plaintext": plaintext.decode(), "ttl": int(ttl), "urgency": urgency, "topic": topic})
        self.answer(201, {"Location": f"{push_origin}/message/{len(received)}"})


class ControlHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, value):
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with lock:
            self.reply(received if self.path == "/received" else violations)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/subscribe":
            private_key = ec.generate_private_key(ec.SECP256R1())
            auth = os.urandom(16)
            sub_id = os.urandom(8).hex()
            with lock:
                subscriptions[sub_id] = (private_key, auth)
            point = private_key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            return self.reply({"endpoint": f"{push_origin}/push/{sub_id}", "keys": {"p256dh": b64url(point), "auth": b64url(auth)}})
        match = re.fullmatch(r"/script/([0-9a-f]+)", self.path)
        if match:
            with lock:
                scripted.setdefault(match.group(1), []).append(json.loads(body))
            return self.reply({})
        self.send_response(404)
        self.end_headers()


def main():
    global push_origin
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--ports-file", required=True)
    args = parser.parse_args()
    push = ThreadingHTTPServer(("127.0.0.1", 0), PushHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    push.socket = context.wrap_socket(push.socket, server_side=True)
    control = ThreadingHTTPServer(("127.0.0.1", 0), ControlHandler)
    push_origin = f"https://127.0.0.1:{push.server_address[1]}"
    threading.Thread(target=push.serve_forever, daemon=True).start()
    with open(args.ports_file + ".tmp", "w") as ports:
        json.dump({"push": push.server_address[1], "control": control.server_address[1]}, ports)
    os.rename(args.ports_file + ".tmp", args.ports_file)
    control.serve_forever()


if __name__ == "__main__":
    main()
