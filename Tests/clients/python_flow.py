#!/usr/bin/env python3
"""The tutorial's flow and a campaign, driven only through a client that openapi-python-client (PyPI) generates from
the /openapi.yaml a running gateway serves.

    BASE=http://127.0.0.1:8080 ADMIN_PASSWORD=… LOGO=img/logo.png python3 Tests/clients/python_flow.py

The generator is given Tests/clients/openapi-python-client.yaml, which tells it to carry image bodies as bytes. Each
step checks what a programmer using the client would see, as typed models; the first mismatch ends the script with
its reason (exit 1).
"""

import base64
import importlib
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import urllib.request

BASE = os.environ["BASE"]
ADMIN_PASSWORD = os.environ["ADMIN_PASSWORD"]
LOGO = pathlib.Path(os.environ["LOGO"]).read_bytes()
CONFIG = pathlib.Path(__file__).with_name("openapi-python-client.yaml")


def generate(work: pathlib.Path) -> None:
    document = work / "openapi.yaml"
    document.write_bytes(urllib.request.urlopen(f"{BASE}/openapi.yaml").read())
    subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document), "--meta", "none", "--output-path",
         str(work / "richpush_client"), "--config", str(CONFIG)],
        check=True, capture_output=True, text=True)
    sys.path.insert(0, str(work))


def expect(condition: bool, what: str) -> None:
    if not condition:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        generate(pathlib.Path(work))
        client = importlib.import_module("richpush_client")
        api = lambda name: importlib.import_module(f"richpush_client.api.{name}")  # noqa: E731
        models = importlib.import_module("richpush_client.models")
        types = importlib.import_module("richpush_client.types")

        def signed_in(username: str, password: str):
            token = base64.b64encode(f"{username}:{password}".encode()).decode()
            return client.AuthenticatedClient(base_url=BASE, token=token, prefix="Basic")

        admin = signed_in("admin", ADMIN_PASSWORD)
        for username, role in [("mark", "marketer"), ("alice", "member")]:
            user = api("users.create_user").sync(
                client=admin, body=models.NewUser(username=username, password=f"{username}-password", role=models.Role(role)))
            expect(isinstance(user, models.User) and user.username == username, f"createUser {username}: {user}")
        mark = signed_in("mark", "mark-password")
        alice = signed_in("alice", "alice-password")

        laptop = api("installations.put_installation").sync(
            "alice-laptop", client=alice,
            body=models.NewInstallation(platform=models.Platform("direct"), push_channel="alice-laptop", tags=["topic:sale"]))
        expect(isinstance(laptop, models.Installation) and laptop.installation_id == "alice-laptop", f"putInstallation: {laptop}")

        # The tutorial: a POST without a body sends the bundled logo to the caller.
        tutorial = api("notifications.create_notification").sync(client=alice)
        expect(isinstance(tutorial, models.Notification) and tutorial.rich_type == models.RichType("img"),
               f"the tutorial's createNotification: {tutorial}")

        image = api("images.upload_image").sync(
            client=mark, body=types.File(payload=LOGO, file_name="logo.png", mime_type="image/png"))
        expect(isinstance(image, models.Image) and image.bytes_ == len(LOGO) and image.content_type == "image/png",
               f"uploadImage as image/png: {image}")

        campaign = api("notifications.create_notification").sync(
            client=mark,
            body=models.NewNotification(
                message="Winter sale: 30% off", rich_type=models.RichType("img"), image_id=image.id, audience="topic:sale"))
        expect(isinstance(campaign, models.Notification) and campaign.audience == "topic:sale", f"createNotification: {campaign}")

        status = None
        for _ in range(100):
            status = api("notifications.get_notification_status").sync(campaign.id, client=mark)
            if isinstance(status, models.Status) and status.targeted == 1 and status.sent == 1:
                break
            time.sleep(0.1)
        expect(isinstance(status, models.Status) and status.sent == 1, f"getNotificationStatus: {status}")

        deliveries = api("results.list_notification_deliveries").sync(campaign.id, client=mark)
        expect([item.installation_id for item in deliveries.items] == ["alice-laptop"], f"listNotificationDeliveries: {deliveries}")

        feed = api("feed.get_feed").sync(client=alice)
        expect({item.id for item in feed.items} >= {campaign.id, tutorial.id}, f"getFeed: {feed}")

        read = api("feed.patch_feed_item").sync(
            campaign.id, client=alice, body=models.PatchFeedItemBody(read_state=models.ReadState("read")))
        expect(isinstance(read, models.FeedItem) and read.read_state == models.ReadState("read"), f"patchFeedItem: {read}")

        payload = api("notifications.get_payload").sync(campaign.id, client=alice)
        expect(isinstance(payload, types.File) and payload.payload.read() == LOGO, f"getPayload: {payload}")

        refused = api("notifications.create_notification").sync(
            client=alice, body=models.NewNotification(message="m", rich_type=models.RichType("text"), audience="topic:sale"))
        expect(isinstance(refused, models.Error) and refused.error.status == 403, f"a member addressing others: {refused}")
    print("the generated client drove the tutorial and a campaign")


if __name__ == "__main__":
    main()
