"""Creates one notification and waits until its status no longer says `sending`, from a single process over one
kept-alive connection, as a marketer's console would: started before the clock is, it costs the measured run no
process start-up. A look started with curl (and Python for the id) every 50 ms cost the two cores the gateway and the
sink share about 5% of a fan-out's CPU.

    await_notification.py BASE_URL USER:PASSWORD BODY [POLL_SECONDS]

Prints one JSON line: `posted` (just before the POST), `accepted` (its answer) and `finished` (the first status that
is no longer sending), in seconds since the epoch, and that `status` document.
"""

import base64
import http.client
import json
import sys
import time
import urllib.parse


def main() -> None:
    base, credentials, body = sys.argv[1:4]
    poll_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port)
    headers = {"Authorization": "Basic " + base64.b64encode(credentials.encode()).decode(), "Content-Type": "application/json"}

    def call(method: str, path: str, payload: str | None = None) -> dict:
        connection.request(method, path, body=payload, headers=headers)
        answer = connection.getresponse()
        document = answer.read()
        if answer.status >= 300:
            sys.exit(f"{method} {path}: {answer.status} {document.decode(errors='replace')}")
        return json.loads(document)

    posted = time.time()
    created = call("POST", "/api/notifications", body)
    accepted = time.time()
    while True:
        status = call("GET", f"/api/notifications/{created['id']}/status")
        if status["state"] != "sending":
            break
        time.sleep(poll_seconds)
    finished = time.time()
    print(json.dumps({"posted": posted, "accepted": accepted, "finished": finished, "status": status}))


main()
