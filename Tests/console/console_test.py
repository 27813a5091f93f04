"""The web console in a real browser: headless Chromium driven by Selenium against a running gateway.

Environment: BASE (the gateway's URL), ADMIN_PASSWORD (of its first admin), FIXTURES (Tests/Fixtures), LOGO
(img/logo.png) and OUTPUT (a folder for the screenshots of each screen).
"""
import base64
import json
import os
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not try to download a driver: Debian's is used.

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

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


class Console(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        for user, role in ((MARK, "marketer"), (ALICE, "member"), (BOB, "member")):
            status, body = api("POST", "/api/users", ADMIN, {"username": user[0], "password": user[1], "role": role})
            assert status == 201, (status, body)
        status, body = api("PUT", "/api/installations/alice-laptop", ALICE, {"platform": "direct", "pushChannel": "alice-laptop", "tags": ["topic:sale"]})
        assert status == 201, (status, body)
        # An iPhone: no APNs hub is configured in the test, so its deliveries fail with a reason.
        status, body = api("PUT", "/api/installations/bob-phone", BOB, {"platform": "apns", "pushChannel": "b0b70ce5" * 8})
        assert status == 201, (status, body)
        # The device: curl holding alice's direct stream open, as the Linux daemon would.
        cls.stream_file = tempfile.NamedTemporaryFile(prefix="richpush-stream-", delete=False)
        cls.stream = subprocess.Popen(
            ["curl", "-sN", "-u", f"{ALICE[0]}:{ALICE[1]}", f"{BASE}/api/me/stream?installationId=alice-laptop"],
            stdout=cls.stream_file, stderr=subprocess.DEVNULL)
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,960", "--lang=en-US"):
            options.add_argument(argument)
        cls.browser = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        cls.browser.set_page_load_timeout(30)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.stream.kill()
        cls.stream.wait()
        os.unlink(cls.stream_file.name)

    def setUp(self):
        self.browser.set_window_size(1280, 960)
        self.browser.get(BASE + "/#/sign-in")
        self.browser.execute_script("sessionStorage.clear()")
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

    def fits_width(self, width):
        overflow = self.browser.execute_script("return document.documentElement.scrollWidth")
        self.assertLessEqual(overflow, width, "the page scrolls sideways")

    # Behaviours

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

    def test_dropping_an_image_on_the_drop_zone_stores_it(self):
        self.sign_in(MARK)
        self.find("#drop-zone")
        # What a drag from the file manager delivers: a drop event whose DataTransfer holds the file.
        self.browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch('logo.png').then((response) => response.blob()).then((blob) => {
                const transfer = new DataTransfer();
                transfer.items.add(new File([blob], 'dropped.png', { type: 'image/png' }));
                const zone = document.getElementById('drop-zone');
                zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                done();
            });
        """)
        self.wait_for_text("#image-state", "dropped.png · 512×512")
        self.find(".alert-media canvas")

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

    def test_a_marketer_has_no_devices_tab(self):
        self.sign_in(MARK)
        self.assertFalse(self.browser.find_element(By.ID, "devices-tab").is_displayed())

    def test_signing_in_and_composing_work_from_the_keyboard_alone(self):
        username = self.find("#username")
        self.assertEqual(self.browser.switch_to.active_element, username)
        username.send_keys(MARK[0], Keys.TAB)
        self.browser.switch_to.active_element.send_keys(MARK[1], Keys.ENTER)
        self.find("#sign-out")
        self.assertEqual(self.browser.switch_to.active_element.tag_name, "h1")
        # Every control of the compose screen has a name a screen reader can announce.
        unnamed = self.browser.execute_script("""
            return [...document.querySelectorAll('main input, main textarea, main select, main button')].filter((control) => {
                const labelled = control.labels && control.labels.length > 0;
                return !labelled && !control.getAttribute('aria-label') && !control.getAttribute('aria-labelledby')
                    && !(control.tagName === 'BUTTON' && control.textContent.trim());
            }).map((control) => control.outerHTML);
        """)
        self.assertEqual(unnamed, [])
        # The image can be picked from the keyboard: the file input takes focus inside the drop zone.
        self.browser.execute_script("document.getElementById('image-file').focus()")
        self.assertEqual(self.browser.switch_to.active_element.get_attribute("id"), "image-file")

    def test_every_screen_fits_a_360_pixel_wide_phone(self):
        self.browser.set_window_size(360, 800)
        self.sign_in(ADMIN)
        width = self.browser.execute_script("return window.innerWidth")
        self.find("#message")
        self.fits_width(width)
        self.screenshot("compose-360")
        self.browser.get(BASE + "/#/campaigns")
        self.find("#campaigns-title")
        self.fits_width(width)
        self.screenshot("campaigns-360")
        self.browser.get(BASE + "/#/devices")
        self.wait_for_text("#device-table tbody", "alice-laptop")
        self.fits_width(width)
        self.screenshot("devices-360")


if __name__ == "__main__":
    unittest.main(verbosity=2)
