"""The console's Storage browser in a real headless Chromium: uploads with progress, folders,
previews fetched from the main port, metadata, download tokens, moves and deletes."""

import os
import struct
import tempfile
import time
import uuid
import zlib

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import browser  # noqa: F401 (fixture)
from conftest import OWNER, PROJECT
from console_page import ConsolePage, console  # noqa: F401 (fixture)

BUCKET = f"{PROJECT}.appspot.com"
TIMEOUT = 30


def png(width=4, height=3):
    """A small valid PNG of red pixels."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def metadata(server, name):
    response = requests.get(f"{server.url}/storage/v1/b/{BUCKET}/o/{requests.utils.quote(name, safe='')}",
                            headers=OWNER, timeout=TIMEOUT)
    return response.json() if response.ok else None


def put_object(server, name, data, content_type):
    response = requests.post(f"{server.url}/v0/b/{BUCKET}/o", params={"name": name}, data=data,
                             headers={**OWNER, "Content-Type": content_type}, timeout=TIMEOUT)
    assert response.ok, response.text


@pytest.fixture
def folder():
    return f"console-{uuid.uuid4().hex[:8]}"


def row(console, name):
    return console.wait_for_element(f'tr[data-name="{name}"]')


def test_upload_preview_and_download_url(console, console_hearth, folder):
    directory = tempfile.mkdtemp()
    image = os.path.join(directory, "red.png")
    text = os.path.join(directory, "notes.txt")
    with open(image, "wb") as file:
        file.write(png())
    with open(text, "w") as file:
        file.write("hello from the console\n")
    console.open(f"/storage/{BUCKET}/{folder}", "#listing table")
    console.driver.find_element(By.CSS_SELECTOR, "#upload-files").send_keys(f"{image}\n{text}")
    row(console, f"{folder}/red.png")
    row(console, f"{folder}/notes.txt")
    assert metadata(console_hearth, f"{folder}/red.png")["contentType"] == "image/png"
    assert metadata(console_hearth, f"{folder}/notes.txt")["size"] == "23"
    # An image previews as a blob: image fetched from the main port.
    console.click(f'tr[data-name="{folder}/red.png"] button.link')
    preview = console.wait_for_element("#preview img")
    console.wait_for(lambda: console.driver.execute_script("return arguments[0].naturalWidth", preview) == 4,
                     "the decoded preview")
    assert preview.get_attribute("src").startswith("blob:")
    # Opening it made a download token; the copied URL works without any credential.
    token = metadata(console_hearth, f"{folder}/red.png")["metadata"]["firebaseStorageDownloadTokens"]
    direct = requests.get(f"{console_hearth.url}/v0/b/{BUCKET}/o/{folder}%2Fred.png",
                          params={"alt": "media", "token": token}, timeout=TIMEOUT)
    assert direct.content == png()
    # Text previews as text.
    console.click(f'tr[data-name="{folder}/notes.txt"] button.link')
    console.wait_for_text("#preview pre", "hello from the console")


def test_metadata_tokens_move_and_delete(console, console_hearth, folder):
    name = f"{folder}/doc.txt"
    put_object(console_hearth, name, b"some text", "text/plain")
    console.open(f"/storage/{BUCKET}/{folder}", f'tr[data-name="{name}"]')
    console.click(f'tr[data-name="{name}"] button.link')
    content_type = console.wait_for_element("#meta-content-type")
    content_type.clear()
    content_type.send_keys("text/markdown")
    custom = console.driver.find_element(By.CSS_SELECTOR, "#meta-custom")
    custom.clear()
    custom.send_keys('{"reviewed": "yes"}')
    console.click("#save-metadata")
    console.wait_for(lambda: metadata(console_hearth, name)["contentType"] == "text/markdown"
                     and metadata(console_hearth, name)["metadata"].get("reviewed") == "yes", "the saved metadata")
    # A second token, then revoking the first leaves only the second.
    first = metadata(console_hearth, name)["metadata"]["firebaseStorageDownloadTokens"]
    console.click("#create-token")
    console.wait_for(lambda: "," in metadata(console_hearth, name)["metadata"]["firebaseStorageDownloadTokens"],
                     "a second token")
    console.click(f'[aria-label="Revoke token {first[:8]}"]')
    console.wait_for(lambda: first not in metadata(console_hearth, name)["metadata"]["firebaseStorageDownloadTokens"],
                     "the first token revoked")
    console.wait_for(lambda: not console.driver.find_elements(By.CSS_SELECTOR, f'[aria-label="Revoke token {first[:8]}"]'),
                     "the panel redrawn without the revoked token")
    # Move renames it.
    target = f"{folder}/moved/doc.txt"
    move = console.wait_for_element("#move-to")
    move.clear()
    move.send_keys(target)
    console.click("#move")
    console.wait_for(lambda: metadata(console_hearth, target) is not None and metadata(console_hearth, name) is None,
                     "the moved file")
    # The folder it went into is listed and opens.
    console.click(f'a[href="/storage/{BUCKET}/{folder}/moved"]')
    row(console, target)


def test_bulk_delete_asks_first(console, console_hearth, folder):
    names = [f"{folder}/a.txt", f"{folder}/b.txt", f"{folder}/c.txt"]
    for name in names:
        put_object(console_hearth, name, b"x", "text/plain")
    console.open(f"/storage/{BUCKET}/{folder}", f'tr[data-name="{names[2]}"]')
    for name in names[:2]:
        console.click(f'tr[data-name="{name}"] input[type=checkbox]')
    console.click("#delete-selected")
    console.click("#confirm-cancel")
    assert all(metadata(console_hearth, name) for name in names)
    console.click("#delete-selected")
    console.click("#confirm-ok")
    console.wait_for(lambda: metadata(console_hearth, names[0]) is None and metadata(console_hearth, names[1]) is None,
                     "the selected files deleted")
    assert metadata(console_hearth, names[2]) is not None
    console.wait_for(lambda: not console.driver.find_elements(By.CSS_SELECTOR, f'tr[data-name="{names[0]}"]'),
                     "the deleted rows gone")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_storage_view_has_no_serious_accessibility_violations(console, console_hearth, theme):
    put_object(console_hearth, "a11y/photo.png", png(160, 100), "image/png")
    put_object(console_hearth, "a11y/readme.txt", b"Files of the project.", "text/plain")
    console.open(f"/storage/{BUCKET}/a11y", 'tr[data-name="a11y/photo.png"]')
    console.click('tr[data-name="a11y/photo.png"] button.link')
    console.wait_for_element("#preview img")
    assert "null" not in console.driver.find_element(By.CSS_SELECTOR, "#listing").text
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.driver.execute_script("window.scrollTo(0, 0)")
    console.screenshot(f"storage-{theme}")
