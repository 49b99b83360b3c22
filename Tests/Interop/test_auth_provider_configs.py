"""OIDC and SAML provider configurations (`/v2/projects/{p}/oauthIdpConfigs`, `/inboundSamlConfigs`) managed
with the Python Admin SDK's `firebase_admin.auth` through FIREBASE_AUTH_EMULATOR_HOST: create, get, update,
delete and paged listing of both kinds, the SDK's exceptions for unknown and taken ids, the server's own checks
for raw REST callers, the admin-only rule and durability across a restart. Also action links' `linkDomain`:
a domain the project does not host is `INVALID_HOSTING_LINK_DOMAIN`, a hosted one becomes the link's host."""

import signal
import urllib.parse
import uuid

import pytest
from firebase_admin import auth, exceptions

from auth_client import IDENTITY_TOOLKIT, admin_auth_app, api, error_message, legacy, ok, request, unique_email
from conftest import OWNER, PROJECT, HearthProcess

V2 = f"{IDENTITY_TOOLKIT}/v2/projects/{PROJECT}"
LINK_DOMAIN = "links.example.com"
CERTIFICATE = "-----BEGIN CERTIFICATE-----\nMIIC4jCCAcqgAwIBAgIQ\n-----END CERTIFICATE-----"
OTHER_CERTIFICATE = "-----BEGIN CERTIFICATE-----\nMIIC5zCCAc+gAwIBAgIQ\n-----END CERTIFICATE-----"
HOSTING_LINK_DOMAIN_ERROR = (
    "INVALID_HOSTING_LINK_DOMAIN : The provided hosting link domain is not configured in Firebase Hosting or is not "
    "owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com).")


@pytest.fixture(scope="module")
def server():
    """A server of this module's own, so that listings see only the configurations made here."""
    hearth = HearthProcess(extra_args=["--authorized-domain", LINK_DOMAIN]).start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


@pytest.fixture(scope="module")
def app(server):
    with admin_auth_app(server, "provider-configs") as auth_app:
        yield auth_app


def unique_id(kind):
    return f"{kind}.test-{uuid.uuid4().hex[:10]}"


def create_oidc(app, provider_id=None, **fields):
    fields = {"client_id": "client-1", "issuer": "https://issuer.example.com", **fields}
    return auth.create_oidc_provider_config(provider_id or unique_id("oidc"), app=app, **fields)


def create_saml(app, provider_id=None, **fields):
    fields = {"idp_entity_id": "idp-entity", "sso_url": "https://idp.example.com/sso",
              "x509_certificates": [CERTIFICATE], "rp_entity_id": "rp-entity",
              "callback_url": "https://project.example.com/__/auth/handler", **fields}
    return auth.create_saml_provider_config(provider_id or unique_id("saml"), app=app, **fields)


def rest(server, method, path, body=None, params=None, headers=OWNER, key=None):
    """A raw v2 request on `/v2/projects/{PROJECT}{path}`, as an admin unless told otherwise."""
    return request(server, method, f"{V2}{path}", key=key, body=body, params=params, headers=headers)


def test_an_oidc_configuration_is_created_read_updated_and_deleted(app):
    provider_id = unique_id("oidc")
    created = create_oidc(app, provider_id, display_name="Corporate", enabled=True)
    for config in (created, auth.get_oidc_provider_config(provider_id, app=app)):
        assert config.provider_id == provider_id
        assert config.client_id == "client-1" and config.issuer == "https://issuer.example.com"
        assert config.display_name == "Corporate" and config.enabled is True
        assert config.id_token_response_type is True and config.code_response_type is False
        assert config.client_secret is None
    updated = auth.update_oidc_provider_config(
        provider_id, display_name=auth.DELETE_ATTRIBUTE, enabled=False, client_id="client-2",
        issuer="https://other-issuer.example.com", id_token_response_type=False, code_response_type=True,
        client_secret="s3cret", app=app)
    for config in (updated, auth.get_oidc_provider_config(provider_id, app=app)):
        assert config.display_name is None and config.enabled is False
        assert config.client_id == "client-2" and config.issuer == "https://other-issuer.example.com"
        assert config.id_token_response_type is False and config.code_response_type is True
        # Firebase answers the client secret to admins.
        assert config.client_secret == "s3cret"
    auth.delete_oidc_provider_config(provider_id, app=app)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config(provider_id, app=app)


def test_a_saml_configuration_is_created_read_updated_and_deleted(app):
    provider_id = unique_id("saml")
    created = create_saml(app, provider_id, display_name="Okta", enabled=True)
    for config in (created, auth.get_saml_provider_config(provider_id, app=app)):
        assert config.provider_id == provider_id
        assert config.idp_entity_id == "idp-entity" and config.sso_url == "https://idp.example.com/sso"
        assert config.x509_certificates == [CERTIFICATE]
        assert config.rp_entity_id == "rp-entity"
        assert config.callback_url == "https://project.example.com/__/auth/handler"
        assert config.display_name == "Okta" and config.enabled is True
    updated = auth.update_saml_provider_config(
        provider_id, x509_certificates=[CERTIFICATE, OTHER_CERTIFICATE], sso_url="https://idp.example.com/sso2",
        rp_entity_id="rp-entity-2", enabled=False, app=app)
    for config in (updated, auth.get_saml_provider_config(provider_id, app=app)):
        assert config.x509_certificates == [CERTIFICATE, OTHER_CERTIFICATE]
        assert config.sso_url == "https://idp.example.com/sso2" and config.rp_entity_id == "rp-entity-2"
        assert config.idp_entity_id == "idp-entity"
        assert config.callback_url == "https://project.example.com/__/auth/handler"
        assert config.display_name == "Okta" and config.enabled is False
    auth.delete_saml_provider_config(provider_id, app=app)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_saml_provider_config(provider_id, app=app)


def test_unknown_ids_are_configuration_not_found(server, app):
    operations = {
        "oidc": (auth.get_oidc_provider_config, auth.update_oidc_provider_config, auth.delete_oidc_provider_config),
        "saml": (auth.get_saml_provider_config, auth.update_saml_provider_config, auth.delete_saml_provider_config),
    }
    for kind, (get, update, delete) in operations.items():
        missing = unique_id(kind)
        with pytest.raises(auth.ConfigurationNotFoundError):
            get(missing, app=app)
        with pytest.raises(auth.ConfigurationNotFoundError):
            update(missing, enabled=True, app=app)
        with pytest.raises(auth.ConfigurationNotFoundError):
            delete(missing, app=app)
    response = rest(server, "GET", f"/oauthIdpConfigs/{unique_id('oidc')}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "CONFIGURATION_NOT_FOUND"
    assert response.json()["error"]["status"] == "NOT_FOUND"


def test_an_id_is_taken_once_per_kind(server, app):
    provider_id = unique_id("oidc")
    create_oidc(app, provider_id)
    with pytest.raises(exceptions.ConflictError) as raised:
        create_oidc(app, provider_id, client_id="someone-else")
    assert "CONFIGURATION_EXISTS" in str(raised.value)
    assert auth.get_oidc_provider_config(provider_id, app=app).client_id == "client-1"
    saml_id = unique_id("saml")
    create_saml(app, saml_id)
    taken = rest(server, "POST", "/inboundSamlConfigs", params={"inboundSamlConfigId": saml_id}, body={
        "idpConfig": {"idpEntityId": "x", "ssoUrl": "https://x.example.com", "idpCertificates": [
            {"x509Certificate": CERTIFICATE}]},
        "spConfig": {"spEntityId": "y", "callbackUri": "https://y.example.com"}})
    assert (taken.status_code, error_message(taken)) == (409, "CONFIGURATION_EXISTS")


def test_listing_pages_through_every_configuration_of_a_kind(app):
    made = sorted(create_oidc(app).provider_id for _ in range(5))
    create_saml(app)
    everything = [config.provider_id for config in auth.list_oidc_provider_configs(app=app).iterate_all()]
    assert everything == sorted(everything) and len(set(everything)) == len(everything)
    assert set(made) <= set(everything)
    assert all(provider_id.startswith("oidc.") for provider_id in everything)
    pages = []
    page = auth.list_oidc_provider_configs(max_results=2, app=app)
    while page is not None:
        assert 1 <= len(page.provider_configs) <= 2
        pages.append([config.provider_id for config in page.provider_configs])
        page = page.get_next_page()
    assert [provider_id for page_ids in pages for provider_id in page_ids] == everything
    assert len(pages) == (len(everything) + 1) // 2
    saml_ids = [config.provider_id for config in auth.list_saml_provider_configs(app=app).iterate_all()]
    assert saml_ids and all(provider_id.startswith("saml.") for provider_id in saml_ids)


VALID_OIDC = {"clientId": "client-1", "issuer": "https://issuer.example.com"}
VALID_SAML = {
    "idpConfig": {"idpEntityId": "idp", "ssoUrl": "https://idp.example.com/sso",
                  "idpCertificates": [{"x509Certificate": CERTIFICATE}]},
    "spConfig": {"spEntityId": "sp", "callbackUri": "https://project.example.com/__/auth/handler"},
}


def with_members(document, **changes):
    """`document` with some members replaced; a dotted name (`idpConfig.ssoUrl`) reaches inside."""
    result = {name: dict(value) if isinstance(value, dict) else value for name, value in document.items()}
    for name, value in changes.items():
        outer, _, inner = name.replace("__", ".").partition(".")
        if inner:
            result[outer][inner] = value
        else:
            result[outer] = value
    return result


@pytest.mark.parametrize("collection, id_parameter, provider_id, body, expected", [
    ("oauthIdpConfigs", "oauthIdpConfigId", "acme", VALID_OIDC, "INVALID_PROVIDER_ID"),
    ("oauthIdpConfigs", "oauthIdpConfigId", None, VALID_OIDC, "INVALID_PROVIDER_ID"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "saml.acme", VALID_OIDC, "INVALID_PROVIDER_ID"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.", VALID_OIDC, "INVALID_PROVIDER_ID"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.a/b", VALID_OIDC, "INVALID_PROVIDER_ID"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x", {"issuer": "https://issuer.example.com"},
     "INVALID_OAUTH_CLIENT_ID"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x", with_members(VALID_OIDC, issuer="not a url"), "INVALID_CONFIG"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x", {"clientId": "client-1"}, "INVALID_CONFIG"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x",
     with_members(VALID_OIDC, responseType={"idToken": False, "code": False}), "INVALID_CONFIG"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x",
     with_members(VALID_OIDC, responseType={"code": True}), "INVALID_CONFIG"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x",
     with_members(VALID_OIDC, responseType={"idToken": True, "code": True}, clientSecret="s"), "INVALID_CONFIG"),
    ("oauthIdpConfigs", "oauthIdpConfigId", "oidc.x", with_members(VALID_OIDC, displayName="n" * 257),
     "INVALID_CONFIG"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "oidc.acme", VALID_SAML, "INVALID_PROVIDER_ID"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "saml.x", with_members(VALID_SAML, idpConfig__idpEntityId=""),
     "INVALID_CONFIG"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "saml.x", with_members(VALID_SAML, idpConfig__ssoUrl="/sso"),
     "INVALID_CONFIG"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "saml.x", with_members(VALID_SAML, idpConfig__idpCertificates=[]),
     "INVALID_CONFIG"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "saml.x",
     with_members(VALID_SAML, idpConfig__idpCertificates=[{"x509Certificate": ""}]), "INVALID_CONFIG"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "saml.x", with_members(VALID_SAML, spConfig__spEntityId=""),
     "INVALID_CONFIG"),
    ("inboundSamlConfigs", "inboundSamlConfigId", "saml.x", with_members(VALID_SAML, spConfig__callbackUri="x"),
     "INVALID_CONFIG"),
])
def test_the_server_refuses_what_the_sdk_would_refuse(server, collection, id_parameter, provider_id, body, expected):
    params = {id_parameter: provider_id} if provider_id is not None else None
    refused = rest(server, "POST", f"/{collection}", body=body, params=params)
    assert refused.status_code == 400, refused.text
    assert error_message(refused).split(" : ")[0] == expected
    if provider_id and "/" not in provider_id:
        assert rest(server, "GET", f"/{collection}/{provider_id}").status_code in (400, 404)


def test_a_patch_changes_its_mask_only_and_must_leave_a_valid_configuration(server, app):
    provider_id = unique_id("oidc")
    create_oidc(app, provider_id, display_name="Before")
    path = f"/oauthIdpConfigs/{provider_id}"
    patched = ok(rest(server, "PATCH", path, params={"updateMask": "displayName"},
                      body={"displayName": "After", "issuer": "https://ignored.example.com"}))
    assert patched["displayName"] == "After" and patched["issuer"] == "https://issuer.example.com"
    assert patched["name"] == f"projects/{PROJECT}/oauthIdpConfigs/{provider_id}"
    # A masked member absent from the body is cleared, and a cleared issuer is no configuration.
    refused = rest(server, "PATCH", path, params={"updateMask": "issuer,displayName"}, body={})
    assert (refused.status_code, error_message(refused).split(" : ")[0]) == (400, "INVALID_CONFIG")
    assert ok(rest(server, "GET", path)) == patched
    cleared = ok(rest(server, "PATCH", path, params={"updateMask": "displayName"}, body={}))
    assert "displayName" not in cleared


def test_only_admins_manage_provider_configurations(server, app):
    provider_id = unique_id("oidc")
    body = {"clientId": "c", "issuer": "https://issuer.example.com"}
    params = {"oauthIdpConfigId": provider_id}
    no_credential = rest(server, "POST", "/oauthIdpConfigs", body=body, params=params, headers=None)
    assert (no_credential.status_code, no_credential.json()["error"]["status"]) == (403, "PERMISSION_DENIED")
    bad_credential = rest(server, "GET", "/oauthIdpConfigs", headers={"Authorization": "Bearer not-a-token"})
    assert (bad_credential.status_code, bad_credential.json()["error"]["status"]) == (401, "UNAUTHENTICATED")
    api_key_only = rest(server, "POST", "/oauthIdpConfigs", body=body, params=params, headers=None, key="test-key")
    assert api_key_only.status_code == 400 and error_message(api_key_only).startswith("INSUFFICIENT_PERMISSION")
    for method, path in (("GET", "/inboundSamlConfigs"), ("GET", f"/oauthIdpConfigs/{provider_id}"),
                         ("DELETE", f"/oauthIdpConfigs/{provider_id}")):
        assert rest(server, method, path, headers=None, key="test-key").status_code == 400
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config(provider_id, app=app)


def test_provider_configurations_start_empty_and_survive_a_kill_9():
    first = HearthProcess().start()
    restarted = None
    try:
        # A kind without configurations answers `{}`, as Identity Toolkit does (no empty array, no token).
        assert ok(request(first, "GET", f"{V2}/oauthIdpConfigs", key=None, headers=OWNER)) == {}
        made = ok(request(first, "POST", f"{V2}/oauthIdpConfigs", key=None, headers=OWNER,
                          params={"oauthIdpConfigId": "oidc.durable"},
                          body={"clientId": "c", "issuer": "https://issuer.example.com", "clientSecret": "s",
                                "responseType": {"code": True}, "enabled": True, "displayName": "Durable"}))
        saml = ok(request(first, "POST", f"{V2}/inboundSamlConfigs", key=None, headers=OWNER,
                          params={"inboundSamlConfigId": "saml.durable"}, body=VALID_SAML))
        first.stop(signal.SIGKILL)
        restarted = HearthProcess(data_dir=first.data_dir).start()
        assert ok(request(restarted, "GET", f"{V2}/oauthIdpConfigs/oidc.durable", key=None, headers=OWNER)) == made
        assert ok(request(restarted, "GET", f"{V2}/inboundSamlConfigs/saml.durable", key=None, headers=OWNER)) == saml
    finally:
        if restarted:
            restarted.stop()
        first.stop()
        first.remove_data()


def link_query(link):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))


@pytest.mark.parametrize("domain", ["evil.example.com", f"{PROJECT}.firebaseapp.com", f"{PROJECT}.web.app",
                                    "localhost"])
def test_a_link_domain_the_project_does_not_host_is_refused(server, app, domain):
    settings = auth.ActionCodeSettings(url="http://localhost/done", handle_code_in_app=True, link_domain=domain)
    with pytest.raises(auth.InvalidHostingLinkDomainError):
        auth.generate_sign_in_with_email_link(unique_email(), settings, app=app)
    refused = api(server, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": unique_email(),
                                          "continueUrl": "http://localhost/done", "canHandleCodeInApp": True,
                                          "linkDomain": domain})
    assert (refused.status_code, error_message(refused)) == (400, HOSTING_LINK_DOMAIN_ERROR)


def test_a_hosted_link_domain_becomes_the_host_of_the_link(server, app):
    email = unique_email()
    settings = auth.ActionCodeSettings(url="http://localhost/done", handle_code_in_app=True,
                                       link_domain=LINK_DOMAIN.upper())
    link = auth.generate_sign_in_with_email_link(email, settings, app=app)
    parts = urllib.parse.urlsplit(link)
    assert (parts.scheme, parts.netloc) == ("https", LINK_DOMAIN)
    query = link_query(link)
    assert query["mode"] == "signIn" and query["continueUrl"] == "http://localhost/done"
    signed_in = ok(legacy(server, "emailLinkSignin", {"email": email, "oobCode": query["oobCode"]}))
    assert signed_in["email"] == email
    # The public URL's host is a hosted domain too: the link keeps the public URL's scheme and port.
    reset_email = unique_email()
    auth.create_user(email=reset_email, app=app)
    own = auth.generate_password_reset_link(
        reset_email, auth.ActionCodeSettings(url="http://localhost/done", link_domain="127.0.0.1"), app=app)
    assert urllib.parse.urlsplit(own).netloc == server.host
