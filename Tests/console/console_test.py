"""The web console in a real browser: headless Chromium driven by Selenium against a running gateway.

Environment: BASE (the gateway's URL), ADMIN_PASSWORD (of its first admin), FIXTURES (Tests/Fixtures), LOGO
(img/logo.png) and OUTPUT (a folder for the screenshots of each screen). Each run needs a gateway with a fresh data
directory: the test creates its users and templates.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import chromium  # Debian's Chromium and driver, Selenium kept offline
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE = os.environ["BASE"].rstrip("/")
ADMIN = ("admin", os.environ["ADMIN_PASSWORD"])
MARK = ("mark", "mark-password")
ALICE = ("alice", "alice-password")
BOB = ("bob", "bob-password")
FIXTURES = os.environ["FIXTURES"]
LOGO = os.environ["LOGO"]
OUTPUT = os.environ["OUTPUT"]


def api(method, path, user, body=None):
    """One API call as `user`; returns (status, parsed JSON or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode())
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, (json.loads(text) if text and response.headers.get_content_type() == "application/json" else None)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def bearer(path, token):
    """A GET with `Authorization: Bearer token`, as a script holding an API token sends it; returns (status, JSON)."""
    request = urllib.request.Request(BASE + path)
    request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Console(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        for user, role in ((MARK, "marketer"), (ALICE, "member"), (BOB, "member")):
            status, body = api("POST", "/api/users", ADMIN, {"username": user[0], "password": user[1], "role": role})
            assert status == 201, (status, body)
        # Alice's laptop reports the device fields that audiences can name: language:de, timezone:…, appVersion.
        status, body = api("PUT", "/api/installations/alice-laptop", ALICE, {
            "platform": "direct", "pushChannel": "alice-laptop", "tags": ["topic:sale"],
            "language": "de-DE", "timeZone": "Europe/Berlin", "appVersion": "2.3.1"})
        assert status == 201, (status, body)
        # An iPhone: no APNs hub is configured in the test, so its deliveries fail with a reason.
        status, body = api("PUT", "/api/installations/bob-phone", BOB, {"platform": "apns", "pushChannel": "b0b70ce5" * 8})
        assert status == 201, (status, body)
        # The device: curl holding alice's direct stream open, as the Linux daemon would.
        cls.stream_file = tempfile.NamedTemporaryFile(prefix="richpush-stream-", delete=False)
        cls.stream = subprocess.Popen(
            ["curl", "-sN", "-u", f"{ALICE[0]}:{ALICE[1]}", f"{BASE}/api/me/stream?installationId=alice-laptop"],
            stdout=cls.stream_file, stderr=subprocess.DEVNULL)
        cls.downloads = tempfile.mkdtemp(prefix="richpush-downloads-")
        cls.browser = chromium.start(
            ("--window-size=1280,960", "--lang=en-US"),
            prefs={"download.default_directory": cls.downloads, "download.prompt_for_download": False}, console_log=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.stream.kill()
        cls.stream.wait()
        os.unlink(cls.stream_file.name)
        shutil.rmtree(cls.downloads, ignore_errors=True)

    def setUp(self):
        self.browser.set_window_size(1280, 960)
        self.browser.get(BASE + "/#/sign-in")
        self.browser.execute_script("sessionStorage.clear()")
        self.browser.delete_all_cookies()
        self.browser.refresh()
        self.wait = WebDriverWait(self.browser, 15)

    def tearDown(self):
        # The gateway's Content-Security-Policy (default-src 'self') must never have to refuse what the console does.
        refused = [entry["message"] for entry in self.browser.get_log("browser") if "Content Security Policy" in entry["message"]]
        self.assertEqual(refused, [])

    # Helpers

    def find(self, css):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def wait_for_text(self, css, text):
        self.wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
        return self.browser.find_element(By.CSS_SELECTOR, css)

    def screenshot(self, name):
        self.browser.save_screenshot(os.path.join(OUTPUT, name + ".png"))

    def sign_in(self, user):
        self.find("#username").send_keys(user[0])
        self.find("#password").send_keys(user[1])
        self.find("#sign-in").click()
        self.find("#sign-out")

    def wait_for_state(self, campaign_id, state):
        badge = f"#campaign-{campaign_id} .badge"
        self.wait.until(EC.text_to_be_present_in_element_attribute((By.CSS_SELECTOR, badge), "data-state", state))

    def choose(self, group, value):
        """Clicks the visible label of a radio button, as a person would."""
        self.browser.find_element(By.ID, f"{group}-{value}").find_element(By.XPATH, "..").click()

    def stream_text(self):
        with open(self.stream_file.name, encoding="utf-8") as file:
            return file.read()

    def wait_for_stream(self, text, seconds=10):
        deadline = time.monotonic() + seconds
        while text not in self.stream_text():
            self.assertLess(time.monotonic(), deadline, f"the device's stream never carried {text}: {self.stream_text()}")
            time.sleep(0.1)

    def fresh_campaign_id(self):
        """The id of the campaign compose just created, once the campaigns screen shows it."""
        self.wait.until(EC.url_contains("#/campaigns"))
        return self.find(".campaign.fresh").get_attribute("id").removeprefix("campaign-")

    def press(self, css):
        """Clicks the element in the middle of the window, where the sticky bar at the top cannot cover it."""
        element = self.find(css)
        self.browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def set_value(self, element, value):
        """Sets an input the way its picker would (a date picker's segments depend on the locale) and tells the page."""
        self.browser.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', { bubbles: true }));", element, value)

    def latest_campaign_id(self):
        status, page = api("GET", "/api/notifications?limit=1", ADMIN)
        self.assertEqual(status, 200)
        return page["items"][0]["id"] if page["items"] else None

    def wait_for_download(self, name, seconds=15):
        path = os.path.join(self.downloads, name)
        deadline = time.monotonic() + seconds
        while not os.path.exists(path):
            self.assertLess(time.monotonic(), deadline, f"{name} was never downloaded: {os.listdir(self.downloads)}")
            time.sleep(0.1)
        return path

    def put_segments(self, username, segments):
        """Puts `username` in exactly `segments` through the API, and in none again once the test is over."""
        status, body = api("PUT", f"/api/users/{username}/segments", MARK, {"segments": segments})
        self.assertEqual(status, 200, body)
        self.addCleanup(api, "PUT", f"/api/users/{username}/segments", MARK, {"segments": []})

    def segments_of(self, username):
        status, body = api("GET", f"/api/users/{username}/segments", MARK)
        self.assertEqual(status, 200, body)
        return body["segments"]

    def audience_size(self, expression):
        """How many devices `expression` reaches now, as the gateway counts them."""
        status, body = api("GET", "/api/audiences/count?expression=" + urllib.parse.quote(expression), MARK)
        self.assertEqual(status, 200, body)
        return body["installations"]

    def unnamed_controls(self):
        """The controls of the shown screen that have no name a screen reader can announce."""
        return self.browser.execute_script("""
            // A closed dialog is out of reach (its buttons are named when it asks its question).
            return [...document.querySelectorAll('main input, main textarea, main select, main button')].filter((control) => {
                if (control.closest('dialog:not([open])')) return false;
                const labelled = control.labels && control.labels.length > 0;
                return !labelled && !control.getAttribute('aria-label') && !control.getAttribute('aria-labelledby')
                    && !(control.tagName === 'BUTTON' && control.textContent.trim());
            }).map((control) => control.outerHTML);
        """)

    def tokens_of(self, user, sessions=False):
        """The user's API tokens; the console's own sign-ins (browser sessions) too when `sessions`."""
        status, body = api("GET", "/api/tokens", user)
        self.assertEqual(status, 200, body)
        return [token for token in body["items"] if sessions or not token["name"].startswith("browser session")]

    def token_named(self, user, name):
        return next(token for token in self.tokens_of(user) if token["name"] == name)

    def create_token(self, user, name, **fields):
        """A token of `user` made through the API, revoked once the test is over if the test has not revoked it."""
        status, token = api("POST", "/api/tokens", user, {"name": name, **fields})
        self.assertEqual(status, 201, token)
        self.addCleanup(api, "DELETE", f"/api/tokens/{token['id']}", user)
        return token

    def audit_events(self):
        status, page = api("GET", "/api/audit?limit=1000", ADMIN)
        self.assertEqual(status, 200, page)
        return page["items"]

    def fits_width(self, width):
        overflow = self.browser.execute_script("return document.documentElement.scrollWidth")
        self.assertLessEqual(overflow, width, "the page scrolls sideways")

    # Behaviours

    def test_signing_in_holds_an_httponly_session_cookie_and_no_password_and_signing_out_ends_it(self):
        before = {token["id"] for token in self.tokens_of(MARK, sessions=True)}
        self.sign_in(MARK)
        cookie = self.browser.get_cookie("richpush_session")
        self.assertIsNotNone(cookie)
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie.get("sameSite"), "Strict")
        self.assertNotIn("richpush_session", self.browser.execute_script("return document.cookie"))
        stored = self.browser.execute_script("return JSON.stringify(Object.assign({}, sessionStorage))")
        self.assertNotIn(MARK[1], stored)
        self.assertNotIn("Basic", stored)
        [session] = [token for token in self.tokens_of(MARK, sessions=True) if token["id"] not in before]
        self.assertEqual(session["name"], "browser session")
        self.find("#sign-out").click()
        self.find("#username")
        deadline = time.monotonic() + 10
        while self.browser.get_cookie("richpush_session") and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertIsNone(self.browser.get_cookie("richpush_session"))
        self.assertNotIn(session["id"], [token["id"] for token in self.tokens_of(MARK, sessions=True)])

    def test_a_wrong_password_shows_the_gateways_sentence(self):
        self.find("#username").send_keys("mark")
        self.find("#password").send_keys("not-the-password")
        self.find("#sign-in").click()
        error = self.wait_for_text("#sign-in-error", "The username or password is wrong.")
        self.assertEqual(error.get_attribute("role"), "alert")
        self.assertTrue(self.find("#username").is_displayed())
        self.screenshot("sign-in-wrong-password")

    def test_a_member_is_told_the_console_is_for_marketers_and_admins(self):
        self.find("#username").send_keys(ALICE[0])
        self.find("#password").send_keys(ALICE[1], Keys.ENTER)
        self.wait_for_text("#sign-in-error", "This console is for marketers and admins; alice is a member.")
        self.assertFalse(self.browser.find_element(By.ID, "topbar").is_displayed())

    def test_a_corrupt_image_shows_its_error(self):
        self.sign_in(MARK)
        self.browser.find_element(By.ID, "image-file").send_keys(os.path.join(FIXTURES, "bad-crc-idat.png"))
        error = self.wait_for_text("#image-error", "The PNG image does not decode")
        self.assertTrue(error.is_displayed())
        self.screenshot("compose-corrupt-image")

    def test_an_invalid_tag_expression_shows_its_error(self):
        self.sign_in(MARK)
        self.find("#audience").send_keys("topic:sale &&")
        self.wait_for_text(
            "#audience-reach",
            "The audience is not a valid tag expression: expected a tag, '!' or '(' but the expression ended at character 14.")
        self.assertEqual(self.find("#audience").get_attribute("aria-invalid"), "true")
        self.screenshot("compose-invalid-audience")

    def test_a_marketer_sends_an_image_to_a_device_sees_it_delivered_and_recalls_it(self):
        self.sign_in(MARK)
        self.browser.find_element(By.ID, "image-file").send_keys(LOGO)
        self.wait_for_text("#image-state", "512×512")
        self.find("#message").send_keys("Winter sale: 30% off everything")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device of 1 person (direct 1).")
        self.wait_for_text(".alert-body", "Winter sale: 30% off everything")
        self.wait_for_text("#send", "Send now to 1 device")
        self.browser.execute_script("window.scrollTo(0, 0)")
        self.screenshot("compose")
        self.find("#send").click()

        self.wait.until(EC.url_contains("#/campaigns"))
        card = self.find(".campaign")
        campaign_id = card.get_attribute("id").removeprefix("campaign-")
        self.wait_for_state(campaign_id, "delivered")
        self.wait_for_stream(f'"richId":"{campaign_id}"')
        # The device fetches the image and shows it; the funnel fills in without a reload.
        status, _ = api("GET", f"/api/notifications/{campaign_id}", ALICE)
        self.assertEqual(status, 200)
        status, _ = api("POST", f"/api/me/notifications/{campaign_id}/receipts", ALICE, {"installationId": "alice-laptop", "event": "displayed"})
        self.assertEqual(status, 201)
        self.wait_for_text(f"#campaign-{campaign_id} [data-step='fetched']", "1")
        self.wait_for_text(f"#campaign-{campaign_id} [data-step='displayed']", "1")
        self.assertEqual(self.find(f"#campaign-{campaign_id} [data-step='targeted']").text, "1")
        self.assertEqual(self.find(f"#campaign-{campaign_id} [data-step='sent']").text, "1")
        self.screenshot("campaigns")

        self.find(f"#campaign-{campaign_id} .campaign-actions button").click()
        self.wait_for_text("#confirm-title", f"Recall campaign {campaign_id}?")
        self.screenshot("campaigns-recall")
        self.find("#confirm-yes").click()
        self.wait_for_state(campaign_id, "recalled")
        self.wait_for_stream('event: deleted')
        status, _ = api("GET", f"/api/notifications/{campaign_id}", ALICE)
        self.assertEqual(status, 410)

    def test_a_campaign_with_title_sound_badge_data_and_a_french_variant_is_previewed_per_language_and_sent(self):
        self.sign_in(MARK)
        self.browser.find_element(By.ID, "image-file").send_keys(os.path.join(FIXTURES, "valid.jpg"))
        self.wait_for_text("#image-state", "valid.jpg · 64×48")
        self.find("#message").send_keys("Winter sale: 30% off")
        self.find("#title").send_keys("Winter sale")
        self.wait_for_text("#preview-title", "Winter sale")
        self.choose("pushStyle", "alert")
        Select(self.find("#sound")).select_by_value("default")
        Select(self.find("#badge")).select_by_value("unread")
        self.find("#add-data").click()
        self.find(".data-row .data-key").send_keys("deepLink")
        self.find(".data-row .data-value").send_keys("shop://sale")
        self.find("#new-language").send_keys("fr-FR", Keys.ENTER)
        self.find("#localized-message").send_keys("Soldes : -30 %")
        self.find("#localized-title").send_keys("Soldes d’hiver")
        # The preview is the alert of the language whose tab is open.
        self.wait_for_text("#preview-title", "Soldes d’hiver")
        self.wait_for_text(".alert-body", "Soldes : -30 %")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.browser.execute_script("window.scrollTo(0, 0)")
        self.screenshot("compose-content-french")
        self.find("#language-tab-default").click()
        self.wait_for_text("#preview-title", "Winter sale")
        self.wait_for_text(".alert-body", "Winter sale: 30% off")
        self.find("#send").click()
        self.wait.until(EC.url_contains("#/campaigns"))
        campaign_id = self.find(".campaign").get_attribute("id").removeprefix("campaign-")
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual(info["title"], "Winter sale")
        self.assertEqual(info["sound"], "default")
        self.assertEqual(info["badge"], "unread")
        self.assertEqual(info["data"], {"deepLink": "shop://sale"})
        self.assertEqual(info["localizations"], {"fr-FR": {"message": "Soldes : -30 %", "title": "Soldes d’hiver"}})
        self.wait_for_stream(f'"richId":"{campaign_id}"')

    def test_a_language_that_is_not_a_tag_is_refused_in_place(self):
        self.sign_in(MARK)
        self.find("#new-language").send_keys("French", Keys.ENTER)
        self.find("#new-language").clear()
        self.find("#new-language").send_keys("fr_FR", Keys.ENTER)
        self.wait_for_text("#language-error", "“fr_FR” is not a language tag such as fr or pt-BR.")

    def test_a_scheduled_campaign_can_be_canceled_before_it_is_sent(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#text").send_keys("Doors open at nine.")
        self.find("#message").send_keys("Tomorrow's event")
        self.find("#audience").send_keys("topic:sale")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.choose("when", "later")
        self.wait_for_text("#send", "Schedule to 1 device")
        self.find("#send").click()
        self.wait.until(EC.url_contains("#/campaigns"))
        card = self.find(".campaign.fresh")
        campaign_id = card.get_attribute("id").removeprefix("campaign-")
        self.wait_for_state(campaign_id, "scheduled")
        self.find(f"#campaign-{campaign_id} .campaign-actions button").click()
        self.wait_for_text("#confirm-title", f"Cancel campaign {campaign_id}?")
        self.find("#confirm-yes").click()
        self.wait_for_state(campaign_id, "canceled")

    def test_a_failed_delivery_shows_the_device_and_the_reason(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#text").send_keys("Your order shipped.")
        self.find("#message").send_keys("Shipping update")
        self.find("#audience").send_keys("username:bob")
        self.wait_for_text("#audience-reach", "Reaches 1 device of 1 person (apns 1).")
        self.find("#send").click()
        self.wait.until(EC.url_contains("#/campaigns"))
        campaign_id = self.find(".campaign.fresh").get_attribute("id").removeprefix("campaign-")
        self.wait_for_state(campaign_id, "failed")
        self.find(f"#campaign-{campaign_id} .delivery-errors summary").click()
        errors = self.wait_for_text(f"#campaign-{campaign_id} .delivery-errors", "1 delivery error")
        self.assertIn("bob-phone (apns) hub.notConfigured: no hub is configured for platform apns", errors.text)
        self.screenshot("campaigns-delivery-error")

    def test_a_campaign_shows_the_state_pushes_to_other_devices_apart_from_its_funnel(self):
        status, created = api("POST", "/api/notifications", MARK,
                              {"message": "Order shipped", "richType": "text", "text": "t", "audience": "username:bob"})
        self.assertEqual(status, 201)
        campaign_id = created["id"]
        # Bob reads it on a device the gateway does not know: his phone is owed a state push, which fails here
        # since no APNs hub is configured.
        self.assertEqual(api("PATCH", f"/api/me/notifications/{campaign_id}", BOB, {"readState": "read"})[0], 200)
        self.sign_in(MARK)
        self.find('a[data-route="campaigns"]').click()
        note = self.wait_for_text(f"#campaign-{campaign_id} .state-push-note", "1 failed")
        self.assertIn("State pushes to other devices (read, dismissed, recalled): 0 sent, 1 failed. Not part of the funnel above.", note.text)
        self.screenshot("campaigns-state-pushes")

    def drop_file(self, path, name, media_type):
        """What a drag from the file manager delivers: a drop event whose DataTransfer holds the file."""
        with open(path, "rb") as file:
            encoded = base64.b64encode(file.read()).decode("ascii")
        self.browser.execute_script("""
            const [encoded, name, type] = arguments;
            const bytes = Uint8Array.from(atob(encoded), (character) => character.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type }));
            const zone = document.getElementById('drop-zone');
            zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
            zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        """, encoded, name, media_type)

    def test_dropping_an_image_on_the_drop_zone_stores_it(self):
        self.sign_in(MARK)
        self.find("#drop-zone")
        self.drop_file(LOGO, "dropped.png", "image/png")
        self.wait_for_text("#image-state", "dropped.png · 512×512")
        self.find(".alert-media canvas")

    def test_a_dropped_jpeg_or_webp_is_stored_and_previewed(self):
        self.sign_in(MARK)
        self.find("#drop-zone")
        for name, media_type, size in [("valid.jpg", "image/jpeg", "64×48"), ("valid.webp", "image/webp", "64×48")]:
            self.drop_file(os.path.join(FIXTURES, name), "dropped-" + name, media_type)
            self.wait_for_text("#image-state", f"dropped-{name} · {size}")
            self.find(".alert-media canvas")
        self.screenshot("dropped-webp")

    def test_an_admin_sees_every_installation(self):
        self.sign_in(ADMIN)
        self.find("#devices-tab").click()
        row = self.wait_for_text("#device-table tbody", "alice-laptop")
        self.assertIn("alice", row.text)
        self.assertIn("topic:sale", row.text)
        self.assertIn("bob-phone", self.find("#device-table tbody").text)
        self.find("#device-filter").send_keys("apns")
        self.wait_for_text("#device-summary", "1 installation of 2 match.")
        self.assertNotIn("alice-laptop", self.find("#device-table tbody").text)
        self.find("#device-filter").clear()
        self.find("#device-filter").send_keys(" ")
        self.screenshot("devices")

    def test_the_devices_view_shows_windows_and_browser_devices(self):
        carol = ("carol", "carol-password")
        self.assertEqual(api("POST", "/api/users", ADMIN, {"username": "carol", "password": carol[1]})[0], 201)
        try:
            self.assertEqual(api("PUT", "/api/installations/carol-laptop", carol, {
                "platform": "wns", "pushChannel": "https://db5p.notify.windows.com/w/?token=AwYAAAB"})[0], 201)
            self.assertEqual(api("PUT", "/api/installations/carol-browser", carol, {
                "platform": "webpush", "pushChannel": {
                    "endpoint": "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA",
                    "keys": {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                             "auth": "BTBZMqHH6r4Tts7J_aSIgg"}}})[0], 201)
            self.sign_in(ADMIN)
            self.find("#devices-tab").click()
            self.wait_for_text("#device-table tbody", "carol-browser")
            self.find("#device-filter").send_keys("carol")
            self.wait_for_text("#device-summary", "2 installations of 4 match.")
            rows = self.find("#device-table tbody").text
            self.assertIn("wns", rows)
            self.assertIn("webpush", rows)
            self.screenshot("devices-windows-and-browser")
        finally:
            api("DELETE", "/api/users/carol", ADMIN)

    def test_a_marketer_has_no_devices_tab(self):
        self.sign_in(MARK)
        self.assertFalse(self.browser.find_element(By.ID, "devices-tab").is_displayed())

    def test_a_marketer_puts_a_user_in_a_segment_and_its_audience_reaches_their_device(self):
        self.put_segments("alice", [])
        self.assertEqual(self.audience_size("segment:vip"), 0)
        self.sign_in(MARK)
        self.find("#users-tab").click()
        self.find("#find-user").send_keys("alice", Keys.ENTER)
        self.wait.until(EC.url_contains("#/users/alice"))
        self.wait_for_text("#user-title", "alice")
        self.wait_for_text("#segments-summary", "alice is in no segment yet.")
        # The name alone will do: the console puts segment: in front.
        self.find("#new-segment").send_keys("vip", Keys.ENTER)
        self.wait_for_text("#segment-list li[data-segment='segment:vip'] .segment-reach", "Reaches 1 device of 1 person")
        self.wait_for_text("#segments-summary", "alice is in 1 segment.")
        self.assertEqual(self.segments_of("alice"), ["segment:vip"])
        self.assertEqual(self.audience_size("segment:vip"), 1)
        # Ready for the next one: the field is empty and keeps the focus.
        self.assertEqual(self.find("#new-segment").get_attribute("value"), "")
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "new-segment")
        self.screenshot("user-segments")

    def test_removing_a_users_only_segment_leaves_them_in_none(self):
        self.put_segments("alice", ["segment:vip"])
        self.sign_in(MARK)
        self.browser.get(BASE + "/#/users/alice")
        self.wait_for_text("#segment-list li[data-segment='segment:vip'] .segment-reach", "Reaches 1 device of 1 person")
        self.find("#segment-list button[aria-label='Remove alice from segment:vip']").click()
        self.wait_for_text("#segments-summary", "alice is in no segment yet.")
        self.assertEqual(self.browser.find_elements(By.CSS_SELECTOR, "#segment-list li"), [])
        self.assertEqual(self.segments_of("alice"), [])
        self.assertEqual(self.audience_size("segment:vip"), 0)
        # The button went with the segment: the focus moved to where segments are added, not to the page's start.
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "new-segment")

    def test_an_invalid_segment_name_shows_the_gateways_sentence_and_changes_nothing(self):
        self.put_segments("alice", ["segment:vip"])
        self.sign_in(MARK)
        self.browser.get(BASE + "/#/users/alice")
        self.find("#segment-list li[data-segment='segment:vip']")
        self.find("#new-segment").send_keys("big spender", Keys.ENTER)
        error = self.wait_for_text("#segments-error", "'segment:big spender' is not a segment: a tag starting with segment: and a name.")
        self.assertEqual(error.get_attribute("role"), "alert")
        self.assertEqual(self.find("#new-segment").get_attribute("aria-invalid"), "true")
        self.assertEqual(self.find("#new-segment").get_attribute("value"), "big spender")
        shown = [item.get_attribute("data-segment") for item in self.browser.find_elements(By.CSS_SELECTOR, "#segment-list li")]
        self.assertEqual(shown, ["segment:vip"])
        self.assertEqual(self.segments_of("alice"), ["segment:vip"])
        self.screenshot("user-segments-invalid")

    def test_finding_a_user_who_does_not_exist_says_so(self):
        self.sign_in(MARK)
        self.find("#users-tab").click()
        self.find("#find-user").send_keys("nobody", Keys.ENTER)
        self.wait_for_text("#segments-error", "There is no user nobody.")
        self.assertFalse(self.browser.find_element(By.ID, "add-segment-form").is_displayed())

    def test_every_control_of_the_user_screen_has_a_name(self):
        self.put_segments("alice", ["segment:vip"])
        self.sign_in(MARK)
        self.browser.get(BASE + "/#/users/alice")
        self.find("#segment-list li[data-segment='segment:vip']")
        self.assertEqual(self.unnamed_controls(), [])

    def test_the_devices_view_shows_an_owners_segment_on_their_installation_apart_from_its_own_tags(self):
        self.put_segments("alice", ["segment:vip"])
        self.sign_in(ADMIN)
        self.find("#devices-tab").click()
        row = "#device-table tr[data-installation='alice-laptop']"
        self.wait_for_text(f"{row} td[data-label='Segments'] .tag.segment-tag", "segment:vip")
        tags = self.find(f"{row} td[data-label='Tags']").text
        self.assertIn("topic:sale", tags)
        self.assertNotIn("segment:vip", tags)
        self.assertEqual(self.find("#device-table tr[data-installation='bob-phone'] td[data-label='Segments']").text, "none")
        self.screenshot("devices-segments")

    def test_an_admin_opens_an_installations_owner_from_the_devices_view(self):
        self.sign_in(ADMIN)
        self.find("#devices-tab").click()
        self.find("#device-table tr[data-installation='bob-phone'] td[data-label='Owner'] a").click()
        self.wait.until(EC.url_contains("#/users/bob"))
        self.wait_for_text("#segments-summary", "bob is in no segment yet.")
        self.assertEqual(self.browser.title, "bob · Users · richpush")
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "user-title")

    def test_signing_in_and_composing_work_from_the_keyboard_alone(self):
        username = self.find("#username")
        self.assertEqual(self.browser.switch_to.active_element, username)
        username.send_keys(MARK[0], Keys.TAB)
        self.browser.switch_to.active_element.send_keys(MARK[1], Keys.ENTER)
        self.find("#sign-out")
        self.assertEqual(self.browser.switch_to.active_element.tag_name, "h1")
        # Every control of the compose screen has a name a screen reader can announce.
        self.assertEqual(self.unnamed_controls(), [])
        # The image can be picked from the keyboard: the file input takes focus inside the drop zone.
        self.browser.execute_script("document.getElementById('image-file').focus()")
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "image-file")

    def test_every_screen_fits_a_360_pixel_wide_phone(self):
        # An A/B test with results, so the campaigns screen shows its widest parts: the variant rows and the chart.
        status, created = api("POST", "/api/notifications", ADMIN, {
            "message": "Phone-sized results", "richType": "text", "audience": "username:alice",
            "variants": [{"name": "A", "weight": 50}, {"name": "B", "weight": 50, "message": "Phone-sized results, take two"}]})
        self.assertEqual(status, 201, created)
        status, body = api("POST", "/api/templates", ADMIN, {
            "name": "phone-sized", "description": "A template with a long description that has to wrap on a narrow phone screen",
            "message": "Hello {{firstName}}, your {{product}} is back in stock", "richType": "text", "audience": "topic:sale"})
        self.assertEqual(status, 201, body)
        # Segments on alice's laptop and a long one to wrap, so the devices and user screens show their widest parts.
        self.put_segments("alice", ["segment:vip", "segment:early-adopters.of.the.winter.collection"])
        self.browser.set_window_size(360, 800)
        self.sign_in(ADMIN)
        width = self.browser.execute_script("return window.innerWidth")
        self.find("#message")
        self.find("#ab-test").click()
        self.find(".audience-helper summary").click()
        self.choose("when", "local")
        self.fits_width(width)
        self.screenshot("compose-360")
        self.browser.get(BASE + "/#/campaigns")
        self.find("#campaigns-title")
        self.find(f"#campaign-{created['id']}-results summary").click()
        self.wait_for_text(f"#campaign-{created['id']}-timeline .chart-legend", "Sent")
        self.fits_width(width)
        self.browser.execute_script("arguments[0].scrollIntoView()", self.find(f"#campaign-{created['id']} .variant-funnel"))
        self.screenshot("campaigns-360")
        self.browser.get(BASE + "/#/templates")
        self.find("#template-phone-sized")
        self.find("#new-template").click()
        self.find("#template-name")
        self.fits_width(width)
        self.screenshot("templates-360")
        self.browser.get(BASE + "/#/compose/template/phone-sized")
        self.find("#variable-firstName")
        self.fits_width(width)
        self.screenshot("compose-from-template-360")
        self.browser.get(BASE + "/#/devices")
        self.wait_for_text("#device-table tbody", "alice-laptop")
        self.find("#device-table tr[data-installation='alice-laptop'] .tag.segment-tag")
        self.fits_width(width)
        self.screenshot("devices-360")
        self.browser.get(BASE + "/#/users")
        self.find("#find-user")
        self.fits_width(width)
        self.screenshot("users-360")
        self.browser.get(BASE + "/#/users/alice")
        self.wait_for_text("#segment-list li[data-segment='segment:vip'] .segment-reach", "Reaches 1 device")
        self.fits_width(width)
        self.screenshot("user-360")
        # A token of mark's, so the admin's table has an owner column and two rows; the admin's own, made here, shows its secret.
        self.create_token(MARK, "nightly-export-from-the-reporting-server", role="member", expiresAt="2031-01-01T00:00:00Z")
        self.browser.get(BASE + "/#/tokens")
        self.wait_for_text("#token-table tbody", "nightly-export-from-the-reporting-server")
        self.find("#token-name").send_keys("phone-sized-token")
        self.find("#create-token").click()
        self.find("#token-secret")
        self.addCleanup(lambda: api("DELETE", f"/api/tokens/{self.token_named(ADMIN, 'phone-sized-token')['id']}", ADMIN))
        self.wait_for_text("#token-table tbody", "phone-sized-token")
        self.fits_width(width)
        self.browser.execute_script("window.scrollTo(0, 0)")
        self.screenshot("tokens-360")
        self.browser.get(BASE + "/#/audit")
        self.wait_for_text("#audit-table tbody", "token.created")
        self.fits_width(width)
        self.screenshot("audit-360")
        status, webhook = api("POST", "/api/webhooks", ADMIN, {
            "url": "https://hooks.example.com/a/rather/long/path/for/the/crm/that/has/to/wrap/on/a/phone", "events": ["notification.opened"]})
        self.assertEqual(status, 201, webhook)
        self.addCleanup(lambda: api("DELETE", f"/api/webhooks/{webhook['id']}", ADMIN))
        self.browser.get(BASE + "/#/webhooks")
        self.find(f"#webhook-{webhook['id']}")
        self.fits_width(width)
        self.screenshot("webhooks-360")

    def test_a_template_is_created_and_a_campaign_started_from_it_fills_in_its_placeholder(self):
        self.sign_in(MARK)
        self.find("#templates-tab").click()
        self.find("#new-template").click()
        self.find("#template-name").send_keys("winter-sale")
        self.find("#template-description").send_keys("The seasonal sale; say how much is off")
        self.choose("template-richType", "text")
        self.find("#template-text").send_keys("Everything in the shop is {{percent}}% off until Sunday.")
        self.find("#template-message").send_keys("Winter sale: {{percent}}% off")
        self.wait_for_text("#template-placeholders", "Placeholders: {{percent}}")
        self.find("#template-title").send_keys("Winter sale")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        Select(self.find("#template-expires")).select_by_value("1d")
        self.screenshot("template-new")
        self.find("#save-template").click()
        card = self.wait_for_text("#template-winter-sale", "Winter sale: {{percent}}% off")
        self.assertIn("v1", card.text)
        self.screenshot("templates")

        self.find("#template-winter-sale .use").click()
        self.wait.until(EC.url_contains("#/compose/template/winter-sale"))
        self.find("#variable-percent").send_keys("30")
        # The preview shows the alert as devices will get it, the placeholder filled in.
        self.wait_for_text(".alert-body", "Winter sale: 30% off")
        self.wait_for_text("#send", "Send now to 1 device")
        self.browser.execute_script("window.scrollTo(0, 0)")
        self.screenshot("compose-from-template")
        self.find("#send").click()
        campaign_id = self.fresh_campaign_id()
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual(info["message"], "Winter sale: 30% off")
        self.assertEqual(info["title"], "Winter sale")
        self.assertEqual(info["template"], {"name": "winter-sale", "version": 1})
        self.assertIsNotNone(info["expiresAt"], "the template's lifetime (1d) applies")
        self.wait_for_stream(f'"richId":"{campaign_id}"')

    def test_a_campaign_from_a_template_asks_for_each_placeholder_before_it_is_sent(self):
        status, body = api("POST", "/api/templates", MARK, {
            "name": "welcome-code", "message": "Welcome! Your code is {{code}}", "richType": "text", "audience": "username:alice"})
        self.assertEqual(status, 201, body)
        before = self.latest_campaign_id()
        self.sign_in(MARK)
        self.browser.get(BASE + "/#/compose/template/welcome-code")
        self.find("#variable-code")
        self.wait_for_text("#send", "Send now to 1 device")
        self.find("#send").click()
        self.wait_for_text("#compose-error", "Fill in the placeholder {{code}}.")
        self.assertEqual(self.latest_campaign_id(), before)

    def test_changing_a_template_stores_its_next_version(self):
        status, body = api("POST", "/api/templates", MARK, {
            "name": "spring-sale", "message": "Spring: {{percent}}% off", "richType": "text", "data": {"deepLink": "shop://spring"}})
        self.assertEqual(status, 201, body)
        self.sign_in(MARK)
        self.find("#templates-tab").click()
        self.find("#template-spring-sale button[aria-label='Change template spring-sale']").click()
        message = self.find("#template-message")
        message.clear()
        message.send_keys("Spring sale: {{percent}}% off, today only")
        self.find("#save-template").click()
        card = self.wait_for_text("#template-spring-sale", "Spring sale: {{percent}}% off, today only")
        self.assertIn("v2", card.text)
        status, latest = api("GET", "/api/templates/spring-sale", MARK)
        self.assertEqual((status, latest["version"], latest["message"]), (200, 2, "Spring sale: {{percent}}% off, today only"))
        # What the form does not show stays as it was.
        self.assertEqual(latest["data"], {"deepLink": "shop://spring"})
        status, first = api("GET", "/api/templates/spring-sale?version=1", MARK)
        self.assertEqual((status, first["message"]), (200, "Spring: {{percent}}% off"))

    def test_a_template_is_deleted_once_confirmed(self):
        status, body = api("POST", "/api/templates", MARK, {"name": "old-sale", "message": "Last year's sale", "richType": "text"})
        self.assertEqual(status, 201, body)
        self.sign_in(MARK)
        self.find("#templates-tab").click()
        self.find("#template-old-sale button[aria-label='Delete template old-sale']").click()
        self.wait_for_text("#confirm-title", "Delete template old-sale?")
        self.find("#confirm-yes").click()
        self.wait.until(EC.invisibility_of_element_located((By.ID, "template-old-sale")))
        status, _ = api("GET", "/api/templates/old-sale", MARK)
        self.assertEqual(status, 404)

    def test_a_campaign_scheduled_at_a_local_time_is_sent_with_its_wall_clock_time(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Breakfast deals, at nine wherever you are")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.choose("when", "local")
        self.set_value(self.find("#deliver-at-local"), "2030-12-01T09:00")
        self.assertIn("in its own time zone", self.find("#deliver-at-local-hint").text)
        self.wait_for_text("#send", "Schedule to 1 device")
        self.browser.execute_script("document.getElementById('delivery-title').scrollIntoView()")
        self.screenshot("compose-local-time")
        self.find("#send").click()
        campaign_id = self.fresh_campaign_id()
        self.wait_for_state(campaign_id, "scheduled")
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual(info["deliverAtLocal"], "2030-12-01T09:00:00")
        self.wait_for_text(f"#campaign-{campaign_id} .meta", "on each device’s clock")
        # Alice's laptop is in Berlin: 09:00 there is 08:00 UTC.
        self.wait_for_text(f"#campaign-{campaign_id} .next-due", "Next devices due")
        status, progress = api("GET", f"/api/notifications/{campaign_id}/status", MARK)
        self.assertTrue(progress["nextDueAt"].startswith("2030-12-01T08:00:00"), progress)

    def test_a_silent_campaign_sent_with_a_fallback_carries_its_fetch_deadline(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Last day of the sale")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.choose("pushStyle", "alert")
        self.assertFalse(self.browser.find_element(By.ID, "fallback-field").is_displayed())
        self.choose("pushStyle", "silent")
        Select(self.find("#fallback")).select_by_value("PT10M")
        self.assertIn("gets one visible alert instead", self.find("#fallback-hint").text)
        self.browser.execute_script("document.getElementById('fallback').scrollIntoView()")
        self.screenshot("compose-fallback")
        self.find("#send").click()
        campaign_id = self.fresh_campaign_id()
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual(info["fallback"], {"after": "PT10M", "style": "alert"})

    def test_buttons_typed_in_the_editor_show_in_the_preview_and_go_out_with_the_interruption_level(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Winter sale")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.press("#add-action")
        rows = self.browser.find_elements(By.CSS_SELECTOR, ".action-row")
        rows[0].find_element(By.CSS_SELECTOR, ".action-label").send_keys("Shop now")
        rows[0].find_element(By.CSS_SELECTOR, ".action-url").send_keys("https://shop.example/sale")
        self.press("#add-action")
        rows = self.browser.find_elements(By.CSS_SELECTOR, ".action-row")
        rows[1].find_element(By.CSS_SELECTOR, ".action-label").send_keys("Remind me")
        Select(rows[1].find_element(By.CSS_SELECTOR, ".action-kind")).select_by_value("http")
        rows[1].find_element(By.CSS_SELECTOR, ".action-url").send_keys("https://api.example/remind")
        rows[1].find_element(By.CSS_SELECTOR, ".action-body").send_keys('{"in":"1d"}')
        self.press("#add-action")
        rows = self.browser.find_elements(By.CSS_SELECTOR, ".action-row")
        rows[2].find_element(By.CSS_SELECTOR, ".action-label").send_keys("Not now")
        Select(rows[2].find_element(By.CSS_SELECTOR, ".action-kind")).select_by_value("dismiss")
        self.assertFalse(rows[2].find_element(By.CSS_SELECTOR, ".action-url").is_displayed())
        self.assertFalse(self.find("#add-action").is_enabled())
        self.assertEqual([button.text for button in self.browser.find_elements(By.CSS_SELECTOR, "#preview-buttons .alert-button")],
                         ["Shop now", "Remind me", "Not now"])
        Select(self.find("#interruption-level")).select_by_value("time-sensitive")
        self.assertEqual([option.get_attribute("value") for option in Select(self.find("#interruption-level")).options],
                         ["", "passive", "active", "time-sensitive"])
        self.find("#new-language").send_keys("fr")
        self.press("#add-language")
        self.find("#localized-action-0").send_keys("Acheter")
        self.assertEqual([button.text for button in self.browser.find_elements(By.CSS_SELECTOR, "#preview-buttons .alert-button")],
                         ["Acheter", "Remind me", "Not now"])
        self.press("#language-tab-default")
        self.browser.execute_script("document.getElementById('action-rows').scrollIntoView()")
        self.screenshot("compose-buttons")
        self.find("#send").click()
        campaign_id = self.fresh_campaign_id()
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual(info["actions"], [
            {"id": "shop-now", "label": "Shop now", "kind": "open", "url": "https://shop.example/sale"},
            {"id": "remind-me", "label": "Remind me", "kind": "http", "url": "https://api.example/remind", "method": "POST", "body": '{"in":"1d"}'},
            {"id": "not-now", "label": "Not now", "kind": "dismiss"},
        ])
        self.assertEqual(info["interruptionLevel"], "time-sensitive")
        self.assertEqual(info["localizations"]["fr"]["actions"], [{"id": "shop-now", "label": "Acheter"}])

    def test_a_button_without_an_https_link_is_refused_in_place(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Sale")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.press("#add-action")
        row = self.browser.find_element(By.CSS_SELECTOR, ".action-row")
        row.find_element(By.CSS_SELECTOR, ".action-label").send_keys("Shop")
        row.find_element(By.CSS_SELECTOR, ".action-url").send_keys("http://shop.example/")
        self.find("#send").click()
        self.wait_for_text("#compose-error", "needs an https link")

    def test_a_campaign_sent_at_a_delivery_rate_carries_it_and_a_rate_below_sixty_is_refused_in_place(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Paced sale")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.find("#delivery-rate").send_keys("30")
        self.find("#send").click()
        self.wait_for_text("#compose-error", "at least 60")
        self.find("#delivery-rate").clear()
        self.find("#delivery-rate").send_keys("6000")
        self.assertIn("a hundred a second", self.find("#delivery-rate-hint").text)
        self.find("#send").click()
        campaign_id = self.fresh_campaign_id()
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual(info["deliveryRate"], 6000)

    def test_a_campaign_shows_how_many_devices_it_reached_and_how_soon_they_fetched_it(self):
        status, created = api("POST", "/api/notifications", MARK, {"message": "Reach", "richType": "text", "text": "t", "audience": "username:alice"})
        self.assertEqual(status, 201, created)
        campaign_id = created["id"]
        self.wait_for_stream(f'"richId":"{campaign_id}"')
        status, _ = api("GET", f"/api/notifications/{campaign_id}?installationId=alice-laptop", ALICE)
        self.assertEqual(status, 200)
        self.sign_in(MARK)
        self.find("a[data-route='campaigns']").click()
        self.wait_for_text(f"#campaign-{campaign_id} .reach-total", "1 of 1 device reached (100%).")
        self.assertTrue(self.find(f"#campaign-{campaign_id} [data-reach='fetchedWithin1m'] .reach-value").text.startswith("1 · 100%"))
        self.assertTrue(self.find(f"#campaign-{campaign_id} [data-reach='notReached'] .reach-value").text.startswith("0 · 0%"))
        self.assertIn("Half of the devices that fetched it did within", self.find(f"#campaign-{campaign_id} .reach-speed").text)
        width = self.browser.execute_script(
            "return document.querySelector(arguments[0]).getBoundingClientRect().width",
            f"#campaign-{campaign_id} [data-reach='fetchedWithin1m'] .reach-track span")
        self.assertGreater(width, 0)
        self.browser.execute_script("arguments[0].scrollIntoView()", self.find(f"#campaign-{campaign_id}"))
        self.screenshot("campaign-reach")

    def test_an_ab_test_sent_from_compose_shows_a_funnel_row_per_variant(self):
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Spring sale")
        self.find("#title").send_keys("Spring")
        self.find("#ab-test").click()
        self.find("#variant-1-message").send_keys("Spring sale: 20% off everything")
        self.find("#variant-2-message").send_keys("Spring sale: free shipping this week")
        self.find("#variant-2-title").send_keys("Free shipping")
        self.wait_for_text("#variant-total", "The weights add up to 100%.")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.browser.execute_script("document.getElementById('ab-title').scrollIntoView()")
        self.screenshot("compose-ab-test")
        self.find("#send").click()
        campaign_id = self.fresh_campaign_id()
        rows = f"#campaign-{campaign_id} .variant-row"
        self.wait.until(lambda browser: len(browser.find_elements(By.CSS_SELECTOR, rows)) == 2)
        self.assertEqual([row.get_attribute("data-variant") for row in self.browser.find_elements(By.CSS_SELECTOR, rows)], ["A", "B"])
        # Alice is one person: she is in exactly one of the two variants.
        self.wait.until(lambda browser: sorted(cell.text for cell in browser.find_elements(By.CSS_SELECTOR, f"{rows} [data-step='sent']")) == ["0", "1"])
        self.assertEqual([cell.text for cell in self.browser.find_elements(By.CSS_SELECTOR, f"{rows} [data-step='reached']")], ["0", "0"])
        self.screenshot("campaigns-ab-test")
        status, info = api("GET", f"/api/notifications/{campaign_id}/info", MARK)
        self.assertEqual(status, 200)
        self.assertEqual([(variant["name"], variant["weight"], variant["message"]) for variant in info["variants"]], [
            ("A", 50, "Spring sale: 20% off everything"), ("B", 50, "Spring sale: free shipping this week")])
        self.assertEqual(info["variants"][1]["title"], "Free shipping")

    def test_an_ab_test_has_two_to_five_variants_sharing_the_audience_evenly(self):
        self.sign_in(MARK)
        self.find("#ab-test").click()
        self.assertEqual(self.browser.find_elements(By.CSS_SELECTOR, "#variants button[aria-label^='Remove']"), [])
        for _ in range(3):
            self.find("#add-variant").click()
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "variant-5-name")
        weights = [self.find(f"#variant-{number}-weight").get_attribute("value") for number in range(1, 6)]
        self.assertEqual(weights, ["20", "20", "20", "20", "20"])
        self.assertEqual([self.find(f"#variant-{number}-name").get_attribute("value") for number in range(1, 6)], ["A", "B", "C", "D", "E"])
        self.assertFalse(self.browser.find_element(By.ID, "add-variant").is_displayed())
        self.find("#variants button[aria-label='Remove variant C']").click()
        self.assertEqual([self.find(f"#variant-{number}-name").get_attribute("value") for number in range(1, 5)], ["A", "B", "D", "E"])
        self.assertEqual(self.find("#variant-4-weight").get_attribute("value"), "25")
        self.wait_for_text("#variant-total", "The weights add up to 100%.")
        self.assertTrue(self.find("#add-variant").is_displayed())

    def test_variant_weights_that_do_not_add_up_to_100_show_the_gateways_error_and_create_nothing(self):
        before = self.latest_campaign_id()
        self.sign_in(MARK)
        self.choose("richType", "text")
        self.find("#message").send_keys("Which one works better?")
        self.find("#audience").send_keys("username:alice")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.find("#ab-test").click()
        weight = self.find("#variant-2-weight")
        weight.clear()
        weight.send_keys("40")
        self.wait_for_text("#variant-total", "The weights add up to 90%; they must add up to 100%.")
        self.find("#send").click()
        self.wait_for_text("#compose-error", "The variants' weights add up to 90; they must add up to 100.")
        self.assertIn("#/compose", self.browser.current_url)
        self.assertEqual(self.latest_campaign_id(), before)
        self.screenshot("compose-ab-test-weights")

    def test_the_audience_helper_adds_device_fields_and_the_count_follows(self):
        self.sign_in(MARK)
        audience = self.find("#audience")
        audience.send_keys("topic:sale")
        self.wait_for_text("#audience-reach", "Reaches 1 device")
        self.find(".audience-helper summary").click()
        self.find("#helper-language").send_keys("DE")
        self.find("#helper-timezone").send_keys("europe/berlin")
        self.find("#helper-version").send_keys("2.3")
        self.find("#helper-add").click()
        # Written as the gateway tags devices: the language lower-cased, the zone as IANA spells it.
        self.assertEqual(audience.get_attribute("value"), "topic:sale && language:de && timezone:Europe/Berlin && appVersion >= 2.3")
        self.wait_for_text("#audience-reach", "Reaches 1 device of 1 person (direct 1).")
        self.screenshot("compose-audience-helper")
        self.find("#helper-language").send_keys("fr", Keys.ENTER)
        self.assertEqual(audience.get_attribute("value"), "topic:sale && language:de && timezone:Europe/Berlin && appVersion >= 2.3 && language:fr")
        self.wait_for_text("#audience-reach", "Reaches 0 devices of 0 people right now.")
        # Enter in the helper adds the field; it never sends the campaign.
        self.assertIn("#/compose", self.browser.current_url)

    def test_the_results_of_a_campaign_chart_its_timeline_and_download_its_deliveries_as_csv(self):
        status, created = api("POST", "/api/notifications", MARK, {"message": "Results inside", "richType": "text", "audience": "username:alice"})
        self.assertEqual(status, 201, created)
        campaign_id = created["id"]
        self.wait_for_stream(f'"richId":"{campaign_id}"')
        status, _ = api("POST", f"/api/me/notifications/{campaign_id}/receipts", ALICE, {"installationId": "alice-laptop", "event": "displayed"})
        self.assertEqual(status, 201)
        self.sign_in(MARK)
        self.find("a[data-route='campaigns']").click()
        self.wait_for_state(campaign_id, "delivered")
        self.find(f"#campaign-{campaign_id}-results summary").click()
        self.wait_for_text(f"#campaign-{campaign_id}-timeline .chart-legend", "Sent 1")
        summary = self.browser.find_element(By.ID, f"campaign-{campaign_id}-timeline-summary")
        self.assertIn("1 sent", summary.get_attribute("textContent"))
        # The chart is drawn in the page: the canvas has pixels, some of them in the colour of the "sent" line.
        width, painted, sent = self.browser.execute_script("""
            const canvas = document.querySelector(arguments[0]);
            const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            const [r, g, b] = getComputedStyle(canvas).getPropertyValue('--chart-sent').trim().match(/[0-9a-f]{2}/gi).map((hex) => parseInt(hex, 16));
            let painted = 0, sent = 0;
            for (let i = 0; i < pixels.length; i += 4) {
                if (pixels[i + 3] === 0) continue;
                painted += 1;
                if (Math.abs(pixels[i] - r) < 40 && Math.abs(pixels[i + 1] - g) < 40 && Math.abs(pixels[i + 2] - b) < 40 && pixels[i + 3] > 128) sent += 1;
            }
            return [canvas.width, painted, sent];
        """, f"#campaign-{campaign_id}-timeline canvas")
        self.assertGreater(width, 0)
        self.assertGreater(painted, 500)
        self.assertGreater(sent, 20)
        self.browser.execute_script("arguments[0].scrollIntoView()", self.find(f"#campaign-{campaign_id}"))
        self.screenshot("campaign-results")
        self.find(f"#campaign-{campaign_id}-csv").click()
        path = self.wait_for_download(f"notification-{campaign_id}-deliveries.csv")
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
        self.assertTrue(lines[0].startswith("installationId,owner,platform"), lines[0])
        self.assertTrue(lines[1].startswith("alice-laptop,alice,direct"), lines)

    def test_an_admin_sees_each_webhook_with_its_latest_attempts_and_enables_a_disabled_one_again(self):
        # The first posts to a loopback port nobody listens on: its attempts fail and are retried.
        status, failing = api("POST", "/api/webhooks", ADMIN, {"url": "http://127.0.0.1:9/richpush", "events": ["delivery.sent"]})
        self.assertEqual(status, 201, failing)
        self.addCleanup(lambda: api("DELETE", f"/api/webhooks/{failing['id']}", ADMIN))
        status, stopped = api("POST", "/api/webhooks", ADMIN, {"url": "https://hooks.example.com/opened", "events": ["notification.opened"]})
        self.assertEqual(status, 201, stopped)
        self.addCleanup(lambda: api("DELETE", f"/api/webhooks/{stopped['id']}", ADMIN))
        status, body = api("PATCH", f"/api/webhooks/{stopped['id']}", ADMIN, {"enabled": False})
        self.assertEqual(status, 200, body)
        status, body = api("POST", "/api/notifications", MARK, {"message": "Hooked", "richType": "text", "text": "x", "audience": "username:alice"})
        self.assertEqual(status, 201, body)
        attempts = []
        deadline = time.monotonic() + 15
        while not attempts and time.monotonic() < deadline:
            time.sleep(0.2)
            attempts = api("GET", f"/api/webhooks/{failing['id']}/attempts", ADMIN)[1]["items"]
        self.assertTrue(attempts, "the failing webhook was never attempted")

        self.sign_in(ADMIN)
        self.find("#webhooks-tab").click()
        table = self.wait_for_text(f"#webhook-{failing['id']}-attempts tbody", attempts[-1]["messageId"])
        self.assertIn(attempts[-1]["error"][:40], table.text)
        self.assertIn("delivery.sent", self.find(f"#webhook-{failing['id']}").text)
        self.wait_for_text(f"#webhook-{stopped['id']}-reason", "Disabled by admin.")
        self.assertEqual(self.unnamed_controls(), [])
        self.screenshot("webhooks")
        self.find(f"#webhook-{stopped['id']}-toggle").click()
        self.wait_for_text(f"#webhook-{stopped['id']}-toggle", "Disable")
        self.assertEqual(self.browser.find_elements(By.ID, f"webhook-{stopped['id']}-reason"), [])
        self.assertTrue(api("GET", f"/api/webhooks/{stopped['id']}", ADMIN)[1]["enabled"])

    def test_a_marketer_has_no_webhooks_tab(self):
        self.sign_in(MARK)
        self.find("#message")
        self.assertFalse(self.browser.find_element(By.ID, "webhooks-tab").is_displayed())

    def test_a_token_is_created_its_secret_shown_once_works_as_a_bearer_and_is_gone_once_revoked(self):
        self.sign_in(MARK)
        # In New York, 09:00 on 1 December 2030 is 14:00 UTC: the expiry is typed in the browser's time zone.
        self.browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "America/New_York"})
        self.addCleanup(self.browser.execute_cdp_cmd, "Emulation.setTimezoneOverride", {"timezoneId": ""})
        self.browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": BASE, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        self.find("#tokens-tab").click()
        self.wait_for_text("#token-summary", "No tokens yet.")
        self.assertEqual(self.unnamed_controls(), [])
        self.find("#token-name").send_keys("ci-deploy")
        Select(self.find("#token-role")).select_by_value("member")
        self.set_value(self.find("#token-expires"), "2030-12-01T09:00")
        self.find("#create-token").click()
        box = self.find("#token-secret-box")
        secret = self.find("#token-secret").text
        self.assertTrue(secret.startswith("rp_"), secret)
        self.assertIn("it will not be shown again", box.text)
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "token-secret-title")
        self.find("#copy-token").click()
        copied = self.browser.execute_async_script("navigator.clipboard.readText().then(arguments[0], (error) => arguments[0](String(error)))")
        self.assertEqual(copied, secret)
        row = self.wait_for_text("#token-table tbody", "ci-deploy")
        self.assertNotIn("Owner", self.find("#token-table thead").get_attribute("textContent"), "a marketer sees only their own tokens: no owner column")
        self.screenshot("tokens-created")
        [token] = self.tokens_of(MARK)
        self.assertNotIn("token", token)
        self.assertEqual((token["name"], token["role"]), ("ci-deploy", "member"))
        self.assertTrue(token["expiresAt"].startswith("2030-12-01T14:00:00"), token)
        cells = {cell.get_attribute("data-label"): cell.text for cell in row.find_elements(By.CSS_SELECTOR, f"#token-{token['id']} [data-label]")}
        self.assertEqual((cells["Name"], cells["Role"], cells["Last used"]), ("ci-deploy", "member", "never"))

        # Shown once: the screen opened again lists the token, never its secret.
        self.find("a[data-route='compose']").click()
        self.find("#message")
        self.find("#tokens-tab").click()
        self.wait_for_text(f"#token-{token['id']}", "ci-deploy")
        self.assertEqual(self.browser.find_elements(By.ID, "token-secret-box"), [])
        self.assertNotIn(secret, self.browser.page_source)

        # The secret stands for mark with the token's role.
        status, me = bearer("/api/users/me", secret)
        self.assertEqual(status, 200, me)
        self.assertEqual(me["username"], "mark")

        self.find(f"#token-{token['id']} button[aria-label='Revoke token ci-deploy']").click()
        self.wait_for_text("#confirm-title", "Revoke token ci-deploy?")
        self.screenshot("tokens-revoke")
        self.find("#confirm-yes").click()
        self.wait.until(EC.invisibility_of_element_located((By.ID, f"token-{token['id']}")))
        self.wait_for_text("#token-summary", "No tokens yet.")
        self.assertEqual(self.tokens_of(MARK), [])
        status, _ = bearer("/api/users/me", secret)
        self.assertEqual(status, 401)

    def test_a_token_that_would_expire_in_the_past_shows_the_gateways_sentence_and_is_not_made(self):
        self.sign_in(MARK)
        self.find("#tokens-tab").click()
        self.find("#token-name").send_keys("too-late")
        self.set_value(self.find("#token-expires"), "2001-01-01T00:00")
        self.find("#create-token").click()
        error = self.wait_for_text("#token-form-error", "expiresAt must be an RFC 3339 time with a zone, in the future.")
        self.assertEqual(error.get_attribute("role"), "alert")
        self.assertEqual(self.find("#token-expires").get_attribute("aria-invalid"), "true")
        self.assertEqual(self.browser.find_elements(By.ID, "token-secret-box"), [])
        self.assertEqual(self.tokens_of(MARK), [])
        self.screenshot("tokens-invalid-expiry")

    def test_a_marketer_has_no_audit_tab_and_gives_tokens_no_role_above_their_own(self):
        self.sign_in(MARK)
        self.assertFalse(self.browser.find_element(By.ID, "audit-tab").is_displayed())
        self.find("#tokens-tab").click()
        options = [option.get_attribute("value") for option in Select(self.find("#token-role")).options]
        self.assertEqual(options, ["marketer", "member"])
        self.assertEqual(Select(self.find("#token-role")).first_selected_option.get_attribute("value"), "marketer")
        # Members cannot sign in to the console (it tells them so): the choice it would give one is member alone.
        offered = self.browser.execute_async_script(
            "import('./console/roles.js').then((roles) => arguments[0](roles.rolesUpTo('member')))")
        self.assertEqual(offered, ["member"])
        # A role the page never offers is refused by the gateway, in its own words.
        self.browser.execute_script("""
            const select = document.getElementById('token-role');
            select.append(new Option('admin', 'admin'));
            select.value = 'admin';
        """)
        self.find("#token-name").send_keys("sneaky")
        self.find("#create-token").click()
        self.wait_for_text("#token-form-error", "A marketer may create tokens of its own role or a lesser one, not admin.")
        self.assertEqual(self.tokens_of(MARK), [])
        # The audit trail's address shows compose to anyone but an admin.
        self.browser.get(BASE + "/#/audit")
        self.wait.until(EC.url_contains("#/compose"))
        self.find("#message")
        self.assertEqual(self.browser.find_elements(By.ID, "audit-table"), [])

    def test_an_admin_sees_everyones_tokens_with_their_owners(self):
        token = self.create_token(MARK, "mark-laptop", role="member")
        self.sign_in(ADMIN)
        self.find("#tokens-tab").click()
        row = self.wait_for_text(f"#token-{token['id']}", "mark-laptop")
        self.assertIn("Owner", self.find("#token-table thead").get_attribute("textContent"))
        self.assertEqual(row.find_element(By.CSS_SELECTOR, "[data-label='Owner']").text, "mark")
        options = [option.get_attribute("value") for option in Select(self.find("#token-role")).options]
        self.assertEqual(options, ["admin", "marketer", "member"])
        self.find(f"#token-{token['id']} button[aria-label='Revoke token mark-laptop']").click()
        self.wait_for_text("#confirm-title", "Revoke token mark-laptop of mark?")
        self.find("#confirm-no").click()
        self.assertTrue(self.find(f"#token-{token['id']}").is_displayed())
        self.assertEqual([item["id"] for item in self.tokens_of(MARK)], [token["id"]])

    def test_the_audit_trail_shows_a_token_created_then_revoked_newest_first_and_pages_back_to_the_start(self):
        # More events than one page of 50 holds, so "Older events" has something to show.
        while len(self.audit_events()) < 60:
            filler = self.create_token(ADMIN, "filler")
            self.assertEqual(api("DELETE", f"/api/tokens/{filler['id']}", ADMIN)[0], 204)
        self.sign_in(ADMIN)
        self.assertTrue(self.find("#audit-tab").is_displayed())
        self.find("#tokens-tab").click()
        self.find("#token-name").send_keys("audited")
        self.find("#create-token").click()
        self.find("#token-secret")
        token = self.token_named(ADMIN, "audited")
        self.find(f"#token-{token['id']} button[aria-label='Revoke token audited']").click()
        self.find("#confirm-yes").click()
        self.wait.until(EC.invisibility_of_element_located((By.ID, f"token-{token['id']}")))

        self.find("#audit-tab").click()
        self.wait_for_text("#audit-summary", "50 events, newest first.")
        rows = self.browser.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")
        cells = lambda row: {cell.get_attribute("data-label"): cell.text for cell in row.find_elements(By.CSS_SELECTOR, "[data-label]")}
        newest = [cells(row) for row in rows[:2]]
        self.assertEqual([(event["Action"], event["Target"], event["Actor"]) for event in newest], [
            ("token.revoked", token["id"], "admin"), ("token.created", token["id"], "admin")])
        # The console acts through its browser session, which the trail names.
        self.assertTrue(newest[0]["Details"].startswith("audited of admin; in browser session "), newest[0]["Details"])
        self.assertTrue(newest[1]["Details"].startswith("audited, admin; in browser session "), newest[1]["Details"])
        # The time is the browser's: the gateway's instant, shown in the browser's zone and language.
        at = rows[0].find_element(By.TAG_NAME, "time")
        shown = self.browser.execute_script(
            "return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(arguments[0]))",
            at.get_attribute("datetime"))
        self.assertEqual(at.text, shown)
        self.screenshot("audit")

        while self.browser.find_element(By.ID, "audit-older").is_displayed():
            count = len(self.browser.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr"))
            self.find("#audit-older").click()
            self.wait.until(lambda browser: len(browser.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")) > count)
        self.wait_for_text("#audit-summary", "that is all of them")
        ids = [int(row.get_attribute("data-event")) for row in self.browser.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")]
        self.assertEqual(ids, sorted(set(ids), reverse=True), "newest first, each event once")
        self.assertEqual(ids, [event["id"] for event in self.audit_events()])
        first = cells(self.browser.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")[-1])
        self.assertEqual((first["Actor"], first["Action"], first["Target"]), ("bootstrap", "user.created", "admin"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
