"""`accounts:query` as Identity Platform documents it: filters by uid, email or phone number,
sorting by five fields in both orders, `offset` and `limit` paging, and counts only."""

import pytest

from auth_client import admin, error_message, import_users, ok
from conftest import HearthProcess

USERS = [
    {"localId": "u3", "email": "Carol@Example.com", "displayName": "Carol", "createdAt": "3000",
     "lastLoginAt": "9000", "phoneNumber": "+15550000003"},
    {"localId": "u1", "email": "alice@example.com", "displayName": "Alice", "createdAt": "1000", "lastLoginAt": "7000"},
    {"localId": "u2", "email": "bob@example.com", "createdAt": "2000"},
    {"localId": "u4", "displayName": "Dave", "createdAt": "4000", "lastLoginAt": "8000"},
]


@pytest.fixture(scope="module")
def server():
    hearth = HearthProcess().start()
    ok(import_users(hearth, USERS))
    yield hearth
    hearth.stop()
    hearth.remove_data()


def query(server, **body):
    return ok(admin(server, "/accounts:query", body))


def uids(answer):
    return [user["localId"] for user in answer.get("userInfo", [])]


@pytest.mark.parametrize("sort, order, expected", [
    ("USER_ID", "ASC", ["u1", "u2", "u3", "u4"]),
    ("USER_ID", "DESC", ["u4", "u3", "u2", "u1"]),
    ("NAME", "ASC", ["u2", "u1", "u3", "u4"]),
    ("USER_EMAIL", "ASC", ["u4", "u1", "u2", "u3"]),
    ("CREATED_AT", "DESC", ["u4", "u3", "u2", "u1"]),
    ("LAST_LOGIN_AT", "ASC", ["u2", "u1", "u4", "u3"]),
])
def test_sorts_by_each_field_in_both_orders(server, sort, order, expected):
    answer = query(server, sortBy=sort, order=order)
    assert uids(answer) == expected
    assert answer["recordsCount"] == "4"


def test_offset_and_limit_page_and_records_count_counts_the_page(server):
    page = query(server, sortBy="CREATED_AT", order="ASC", offset="1", limit="2")
    assert uids(page) == ["u2", "u3"] and page["recordsCount"] == "2"
    assert uids(query(server, sortBy="CREATED_AT", offset="3", limit="10")) == ["u4"]
    past = query(server, offset="10")
    assert past == {"recordsCount": "0"}


def test_count_only_counts_every_match(server):
    assert query(server, returnUserInfo=False) == {"recordsCount": "4"}
    assert query(server, returnUserInfo=False, expression=[{"email": "nobody@example.com"}]) == {"recordsCount": "0"}


def test_expressions_match_exactly_and_only_the_first_counts(server):
    assert uids(query(server, expression=[{"email": "CAROL@example.COM"}])) == ["u3"]
    assert uids(query(server, expression=[{"userId": "u2"}])) == ["u2"]
    assert uids(query(server, expression=[{"phoneNumber": "+15550000003"}])) == ["u3"]
    assert uids(query(server, expression=[{"userId": "u"}])) == []
    assert uids(query(server, expression=[{"userId": "u1"}, {"userId": "u2"}])) == ["u1"]


@pytest.mark.parametrize("body", [
    {"limit": "-1"}, {"offset": "-5"}, {"sortBy": "AGE"}, {"order": "SIDEWAYS"}, {"limit": "many"},
])
def test_bad_parameters_are_refused(server, body):
    response = admin(server, "/accounts:query", body)
    assert response.status_code == 400
    assert response.json()["error"]["status"] == "INVALID_ARGUMENT", error_message(response)


def test_a_limit_above_500_reads_as_500(server):
    assert len(uids(query(server, limit="100000"))) == 4
