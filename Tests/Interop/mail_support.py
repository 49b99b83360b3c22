"""An aiosmtpd server for the tests of Authentication's emails: it keeps every message it accepts,
with the SMTP credentials the servers under test are given."""

import email
import email.policy
import re
import threading
import time
from dataclasses import dataclass

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from conftest import free_port

SMTP_USER = "user"
SMTP_PASSWORD = "secret"
LINK = re.compile(r"https?://\S+")


@dataclass
class Delivered:
    mail_from: str
    rcpt_tos: list
    authenticated: bool
    message: email.message.EmailMessage

    @property
    def text(self):
        return self.message.get_body(preferencelist=("plain",)).get_content()

    @property
    def html(self):
        part = self.message.get_body(preferencelist=("html",))
        return part.get_content() if part is not None else None

    def link(self):
        """The one action link in the text body."""
        links = LINK.findall(self.text)
        assert len(links) == 1, self.text
        return links[0]


class Mailbox:
    """aiosmtpd handler that keeps every message it accepts."""

    def __init__(self):
        self.lock = threading.Lock()
        self.delivered = []
        self.port = None

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.delivered.append(Delivered(envelope.mail_from, list(envelope.rcpt_tos), session.authenticated, message))
        return "250 Message accepted for delivery"

    def messages_to(self, address):
        with self.lock:
            return [item for item in self.delivered if address in item.rcpt_tos]

    def message_to(self, address, timeout=10):
        """The one message delivered to `address` (waiting for it a little)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = self.messages_to(address)
            if found:
                assert len(found) == 1, [item.message["Subject"] for item in found]
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"no email to {address}")


def authenticate(server, session, envelope, mechanism, auth_data):
    valid = auth_data.login == SMTP_USER.encode() and auth_data.password == SMTP_PASSWORD.encode()
    # handled=False: aiosmtpd itself answers 535 to a failed attempt.
    return AuthResult(success=valid, handled=False)


@pytest.fixture(scope="module")
def mailbox():
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port(), authenticator=authenticate,
                            auth_require_tls=False)
    controller.start()
    box.port = controller.port
    yield box
    controller.stop()


def smtp_url(mailbox, password=SMTP_PASSWORD):
    return f"smtp://{SMTP_USER}:{password}@127.0.0.1:{mailbox.port}"
