#!/usr/bin/env python3
"""Apprise (PyPI) sending through its own ntfy:// or ntfys:// scheme to a running gateway, unchanged: the message must
arrive as a notification to the topic's devices.

    BASE=http://127.0.0.1:8080 ADMIN_PASSWORD=… [CA_FILE=ca.pem] python3 Tests/clients/apprise_ntfy.py

With an https BASE the scheme is ntfys://, verified against CA_FILE. Exit 1 with the reason on the first mismatch.
"""

import base64
import json
import os
import ssl
import sys
import urllib.parse
import urllib.request

BASE = os.environ["BASE"].rstrip("/")
ADMIN = ("admin", os.environ["ADMIN_PASSWORD"])
CA_FILE = os.environ.get("CA_FILE")
if CA_FILE:
    os.environ["REQUESTS_CA_BUNDLE"] = CA_FILE  # what Apprise's requests verifies the gateway against

import apprise  # noqa: E402

CONTEXT = ssl.create_default_context(cafile=CA_FILE) if CA_FILE else None


def api(method, path, user, body=None):
    request = urllib.request.Request(BASE + path, data=json.dumps(body).encode() if body else None, method=method)
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode())
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10, context=CONTEXT) as response:
        return json.loads(response.read())


def main():
    api("POST", "/api/users", ADMIN, {"username": "mark", "password": "mark-password", "role": "marketer"})
    url = urllib.parse.urlsplit(BASE)
    scheme = "ntfys" if url.scheme == "https" else "ntfy"
    sender = apprise.Apprise()
    if not sender.add(f"{scheme}://mark:mark-password@{url.hostname}:{url.port}/sale?priority=high&tags=tada"):
        sys.exit(f"FAIL: Apprise did not take the {scheme}:// URL")
    if not sender.notify(title="Sale", body="Winter sale: 30% off"):
        sys.exit(f"FAIL: Apprise's {scheme}:// send was not accepted")
    items = api("GET", "/api/notifications", ADMIN)["items"]
    sent = [item for item in items if item["audience"] == "topic:sale"]
    if len(sent) != 1 or sent[0]["message"] != "Winter sale: 30% off" or sent[0].get("title") != "Sale":
        sys.exit(f"FAIL: the notifications after Apprise's send: {items}")
    if sent[0].get("data") != {"ntfyPriority": "4", "ntfyTags": "tada"}:
        sys.exit(f"FAIL: the priority and tags Apprise sent: {sent[0].get('data')}")
    print(f"Apprise's {scheme}:// reached topic:sale")


if __name__ == "__main__":
    main()
