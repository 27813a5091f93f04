"""Debian's headless Chromium and its driver through Selenium, as every browser test starts it."""
import os

os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not try to download a driver: Debian's is used.

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


def start(arguments=(), prefs=None, console_log=False):
    """A headless Chromium with `arguments` beside the ones every test needs; `prefs` its preferences, and with
    `console_log` the page's console kept for the test to read."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if prefs:
        options.add_experimental_option("prefs", prefs)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", *arguments):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    browser.set_page_load_timeout(30)
    return browser
