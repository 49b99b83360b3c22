"""The console driven through Selenium: waiting for what it shows, axe-core checks and
screenshots. Screenshots go to `HEARTH_CONSOLE_SCREENSHOTS` when it is set (docs/console/
keeps those of a run), else to the temporary directory."""

import os
import tempfile
import time

import pytest
from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

SCREENSHOTS = os.environ.get("HEARTH_CONSOLE_SCREENSHOTS") or tempfile.gettempdir()


class ConsolePage:
    def __init__(self, driver, base_url):
        self.driver = driver
        self.base_url = base_url

    def open(self, path, ready_selector):
        self.driver.get(self.base_url + path)
        return self.wait_for_element(ready_selector)

    def wait_for(self, condition, what, timeout=10):
        """Calls `condition` until it returns something truthy, which it returns."""
        deadline = time.time() + timeout
        while True:
            try:
                result = condition()
            except Exception:  # the element went away while the view redrew
                result = None
            if result:
                return result
            if time.time() > deadline:
                self.screenshot("failure")
                raise AssertionError(f"{what}: not within {timeout} s")
            time.sleep(0.05)

    def wait_for_element(self, selector, timeout=10):
        return self.wait_for(lambda: self.driver.find_element(By.CSS_SELECTOR, selector), selector, timeout)

    def wait_for_text(self, selector, text, timeout=10):
        return self.wait_for(
            lambda: any(text in element.text for element in self.driver.find_elements(By.CSS_SELECTOR, selector)),
            f"{text!r} in {selector}", timeout)

    def row(self, path):
        """The data view's row of location `path` (`/a/b`)."""
        return self.wait_for_element(f'.row[data-path="{path}"]')

    def click(self, selector, timeout=10):
        """Clicks the element `selector` names, finding it again if the view redrew it between
        finding and clicking."""
        def attempt():
            self.driver.find_element(By.CSS_SELECTOR, selector).click()
            return True
        self.wait_for(attempt, f"a click on {selector}", timeout)

    def set_theme(self, theme):
        self.driver.execute_script(
            "const p = document.getElementById('theme'); p.value = arguments[0];"
            "p.dispatchEvent(new Event('change'));", theme)

    def serious_violations(self):
        """axe-core's serious and critical violations on the page as it is now."""
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        return [(violation["id"], violation["help"], [node["target"] for node in violation["nodes"]][:3])
                for violation in results["violations"] if violation["impact"] in ("serious", "critical")]

    def screenshot(self, name):
        path = os.path.join(SCREENSHOTS, f"console-{name}.png")
        self.driver.save_screenshot(path)
        return path

    def errors(self):
        """Script errors in the browser's console. Answers the tests provoke on purpose (a wrong
        password's 400) are logged as failed loads, which are not script errors."""
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and "Failed to load resource" not in entry["message"]]


@pytest.fixture
def console(browser, console_hearth):
    """The console of the module's development server in the shared browser; the test fails if
    the page logged a script error. Import it with `browser` into a test module."""
    page = ConsolePage(browser, console_hearth.console_url)
    browser.get_log("browser")  # forget what earlier tests logged
    yield page
    errors = page.errors()
    browser.get("about:blank")
    assert errors == [], errors
