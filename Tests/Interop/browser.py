"""A headless Chromium driven by Selenium, and the long-polling page it loads.

The page is served from its own `http.server` on another port than Hearth's, so that, as for an
app, Hearth is a different origin. Import the fixtures into a test module to use them:
`from browser import browser, long_poll_page, pages_url`. Scripts outside pytest (the benchmarks)
use the plain functions the fixtures are built on: `serve_pages`, `start_chromium`,
`load_long_poll_page`.
"""

import functools
import http.server
import os
import re
import tempfile
import threading
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves `pages/` without caching and without logging every request."""

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format, *args):
        pass


def serve_pages(directory=PAGES):
    """Serves `directory` on a free 127.0.0.1 port from a background thread; returns the server
    (end it with `server.shutdown(); server.server_close()`) and its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def start_chromium(script_timeout=30, arguments=(), log_network=False):
    """A headless Chromium, with the system's driver (Selenium Manager is never asked) and any
    further command-line `arguments`; end it with `driver.quit()`. With `log_network`, the
    DevTools network events can be read with `driver.get_log("performance")`."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    if log_network:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,800", *arguments):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(script_timeout)
    return driver


@pytest.fixture(scope="session")
def pages_url():
    """The base URL of `pages/`, served on a free 127.0.0.1 port."""
    server, url = serve_pages()
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium, with the system's driver (Selenium Manager is never asked)."""
    driver = start_chromium()
    yield driver
    driver.quit()


class LongPollPage:
    """The page's `window.lp` API, called through Selenium."""

    def __init__(self, driver):
        self.driver = driver

    def call(self, function, *args):
        return self.driver.execute_script(f"return window.lp.{function}.apply(null, arguments);", *args)

    def open(self, name, hearth_url, namespace):
        return self.call("open", name, hearth_url, namespace)

    def send(self, name, message):
        return self.call("send", name, message)

    def messages(self, name, start=0):
        return self.call("messages", name, start)

    def state(self, name):
        return self.call("state", name)

    def close(self, name):
        self.call("close", name)

    def errors(self):
        return self.call("errors")

    def wait_for(self, condition, what, timeout=10):
        """Calls `condition` until it returns something truthy, which it returns; fails after
        `timeout` seconds, saying `what` was awaited and what the last call returned."""
        deadline = time.time() + timeout
        while True:
            result = condition()
            if result:
                return result
            if time.time() > deadline:
                raise AssertionError(f"{what}: not within {timeout} s (last: {result!r}; page errors: {self.errors()})")
            time.sleep(0.05)

    def screenshot(self, name):
        """Saves a screenshot of the page in the temporary directory; returns its path."""
        path = os.path.join(tempfile.gettempdir(), f"hearth-{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.png")
        self.driver.save_screenshot(path)
        return path


def load_long_poll_page(driver, pages_url):
    """Loads `long_poll.html` (served at `pages_url`) afresh; returns its `LongPollPage`."""
    driver.get(f"{pages_url}/long_poll.html")
    page = LongPollPage(driver)
    page.wait_for(lambda: driver.execute_script("return !!window.lp;"), "the page's script loaded")
    return page


@pytest.fixture
def long_poll_page(browser, pages_url, request):
    """A fresh load of `long_poll.html`; leaving it at the end ends its connections. When the
    test fails, a screenshot is saved; when it passes, the page must have seen no script error."""
    failures = request.session.testsfailed
    page = load_long_poll_page(browser, pages_url)
    yield page
    if request.session.testsfailed > failures:
        reporter = request.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"{request.node.nodeid}: screenshot saved to {page.screenshot(request.node.name)}")
        errors = []
    else:
        errors = page.errors()
    browser.get("about:blank")
    assert errors == [], errors
