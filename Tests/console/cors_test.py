"""A web app on another origin, in headless Chromium: a page served from PAGE_PORT calls the gateway at BASE with
credentials, and signs in once for a session cookie that fetch and EventSource then carry, as the web client of docs/api.md
does. The gateway allows http://127.0.0.1:PAGE_PORT (`--cors-origins`);
the same page reached as http://localhost:PAGE_PORT is another origin, and the browser must refuse it the answers.

Environment: BASE (the gateway's URL), ADMIN_PASSWORD (of its first admin), PAGE_PORT (a free port for the page).
"""
import http.server
import os
import threading
import unittest
import urllib.parse

import chromium  # Debian's Chromium and driver, Selenium kept offline
from selenium.webdriver.support.ui import WebDriverWait

BASE = os.environ["BASE"].rstrip("/")
ADMIN_PASSWORD = os.environ["ADMIN_PASSWORD"]
PAGE_PORT = int(os.environ["PAGE_PORT"])

# The web app: a read, and a JSON POST (which a browser preflights), each with Basic credentials; the outcome goes
# into the title.
PAGE = """<!doctype html><title>waiting</title><script>
const query = new URLSearchParams(location.search);
const gateway = query.get("gateway");
const headers = {Authorization: "Basic " + btoa("admin:" + query.get("password"))};
(async () => {
  try {
    const me = await (await fetch(gateway + "/api/users/me", {headers})).json();
    const created = await fetch(gateway + "/api/notifications", {
      method: "POST", headers: {...headers, "Content-Type": "application/json"},
      body: JSON.stringify({message: "from another origin", richType: "text", text: "hello"})});
    document.title = "ok " + me.username + " " + created.status + " " + (created.headers.get("Location") || "no-location");
  } catch (error) {
    document.title = "refused " + error.name;
  }
})();
</script>"""


# The web client of docs/api.md: a session signed in once, then only the cookie and the session's CSRF value; the direct
# stream through EventSource. The title tells what came of it.
SESSION_PAGE = """<!doctype html><title>waiting</title><script>
const query = new URLSearchParams(location.search);
const gateway = query.get("gateway");
const withCookie = (method, path, csrf, body) => fetch(gateway + path, {method, credentials: "include",
  headers: {"Content-Type": "application/json", ...(csrf ? {"X-Richpush-CSRF": csrf} : {})}, body: JSON.stringify(body)});
(async () => {
  try {
    const signIn = await fetch(gateway + "/api/session", {method: "POST", credentials: "include",
      headers: {Authorization: "Basic " + btoa("admin:" + query.get("password"))}});
    const csrf = signIn.headers.get("X-Richpush-CSRF");
    const forged = await withCookie("PUT", "/api/installations/browser-1", null, {platform: "direct", pushChannel: "browser-1"});
    const registered = await withCookie("PUT", "/api/installations/browser-1", csrf, {platform: "direct", pushChannel: "browser-1"});
    const events = new EventSource(gateway + "/api/me/stream?installationId=browser-1", {withCredentials: true});
    events.addEventListener("rich", (event) => {
      document.title = "event " + JSON.parse(event.data).richId + " " + forged.status + " " + registered.status;
      events.close();
    });
    events.onopen = () => withCookie("POST", "/api/notifications", csrf, {message: "to the browser", richType: "text", text: "hi"});
  } catch (error) {
    document.title = "refused " + error.name;
  }
})();
</script>"""


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = (SESSION_PAGE if self.path.startswith("/session.html") else PAGE).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


class CrossOrigin(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", PAGE_PORT), Page)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.browser = chromium.start()

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.shutdown()

    def outcome(self, host, page="app.html"):
        query = urllib.parse.urlencode({"gateway": BASE, "password": ADMIN_PASSWORD})
        self.browser.get(f"http://{host}:{PAGE_PORT}/{page}?{query}")
        WebDriverWait(self.browser, 20).until(lambda browser: browser.title != "waiting")
        return self.browser.title

    def test_a_page_of_an_allowed_origin_reads_and_writes_with_credentials(self):
        title = self.outcome("127.0.0.1")
        self.assertRegex(title, r"^ok admin 201 /api/notifications/\d+$")

    def test_a_session_cookie_signs_in_fetch_and_event_source_and_changes_need_its_csrf_value(self):
        # 403 without the CSRF value, 201 with it, and the notification arrives on the stream.
        self.assertRegex(self.outcome("127.0.0.1", "session.html"), r"^event \d+ 403 201$")

    def test_a_page_of_another_origin_is_refused_the_answers(self):
        self.assertEqual(self.outcome("localhost"), "refused TypeError")


if __name__ == "__main__":
    unittest.main(verbosity=2)
