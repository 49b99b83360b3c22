"""One reading of credentials and one admin decision for every product: the same `Authorization`
header (`Bearer` or `Firebase`, the scheme in any case) and the same admin credentials (`owner`
in development, a database secret, a service account's token) act the same on the database's
REST API, Authentication's admin endpoints and Storage."""

import uuid

import pytest
import requests

from conftest import PROJECT, HearthProcess, database_secret, set_rules

BUCKET = f"{PROJECT}.appspot.com"
ACCOUNTS_QUERY = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:query"
CLOSED = '{"rules": {".read": false, ".write": false}}'


def closed_namespace(server):
    namespace = f"closed-{uuid.uuid4().hex[:12]}"
    set_rules(server, CLOSED, namespace=namespace)
    return namespace


def database_read(server, namespace, headers=None, params=None):
    return requests.get(f"{server.url}/secret.json", params={"ns": namespace, **(params or {})}, headers=headers, timeout=10)


def accounts_query(server, headers=None):
    return requests.post(f"{server.url}{ACCOUNTS_QUERY}", json={}, headers=headers, timeout=10)


def upload(server, headers=None):
    return requests.post(
        f"{server.url}/v0/b/{BUCKET}/o", params={"name": f"admin/{uuid.uuid4().hex}.txt"}, data=b"hello",
        headers={"Content-Type": "text/plain", **(headers or {})}, timeout=10)


@pytest.mark.parametrize("header", ["Bearer owner", "bearer owner", "BEARER Owner", "Firebase OWNER"])
def test_owner_in_any_spelling_is_admin_of_the_database_and_of_authentication(hearth, header):
    namespace = closed_namespace(hearth)
    assert database_read(hearth, namespace).status_code == 401
    assert database_read(hearth, namespace, headers={"Authorization": header}).status_code == 200
    assert accounts_query(hearth, headers={"Authorization": header}).status_code == 200


def test_a_credential_that_is_not_admin_is_refused_alike(hearth):
    namespace = closed_namespace(hearth)
    for header in ("Bearer nobody", "Firebase nobody"):
        assert database_read(hearth, namespace, headers={"Authorization": header}).status_code == 401
        assert accounts_query(hearth, headers={"Authorization": header}).status_code == 401
    # A scheme Hearth does not read carries no credential: a signed-out caller.
    assert database_read(hearth, namespace, headers={"Authorization": "Basic b3duZXI6"}).status_code == 401
    assert database_read(hearth, namespace, headers={"Authorization": "Basic b3duZXI6"}).json() == {
        "error": "Permission denied"}


@pytest.fixture(scope="module")
def production():
    server = HearthProcess(extra_args=["--production", "--api-key", "credentials-key"]).start()
    yield server
    server.stop()
    server.remove_data()


def test_a_database_secret_is_admin_of_every_product(production):
    secret = database_secret(production.data_dir)
    namespace = f"{PROJECT}-default-rtdb"
    assert database_read(production, namespace).status_code == 401
    assert database_read(production, namespace, params={"auth": secret}).status_code == 200
    assert database_read(production, namespace, headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    assert accounts_query(production).status_code in (400, 401, 403)
    assert accounts_query(production, headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    # Storage's production default rules want a signed-in user; an admin skips them.
    assert upload(production).status_code == 403
    assert upload(production, headers={"Authorization": f"Firebase {secret}"}).status_code == 200


def test_owner_is_admin_of_no_product_in_production(production):
    headers = {"Authorization": "Bearer owner"}
    assert database_read(production, f"{PROJECT}-default-rtdb", headers=headers).status_code == 401
    assert accounts_query(production, headers=headers).status_code == 401
    assert upload(production, headers={"Authorization": "Firebase owner"}).status_code == 401
