"""Checks every webhook request a test received with PyPI's standardwebhooks, the reference implementation.

Reads WEBHOOK_SECRET and a JSON file (argument 1) of [{"headers": {...}, "body": "..."}]; verifies each request's
signature and timestamp, and that the same request with one byte of its body changed is refused; prints the event
types each verified request carried, one request a line, and exits 1 on the first failure.
"""

import json
import os
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

webhook = Webhook(os.environ["WEBHOOK_SECRET"])
with open(sys.argv[1]) as file:
    requests = json.load(file)
for request in requests:
    headers = {name.lower(): value for name, value in request["headers"].items()}
    body = request["body"]
    try:
        payload = webhook.verify(body, headers)
    except WebhookVerificationError as error:
        print(f"refused {headers.get('webhook-id')}: {error}")
        sys.exit(1)
    tampered = body.replace("notificationId", "notificationID", 1)
    try:
        webhook.verify(tampered, headers)
        print(f"a changed body of {headers['webhook-id']} passed")
        sys.exit(1)
    except WebhookVerificationError:
        pass
    events = payload["events"] if payload["type"] == "batch" else [payload]
    print("verified " + " ".join(event["type"] for event in events))
