"""Passwords are masked in every URL a message shows (foundation.env.redact_url, redact)."""

from __future__ import annotations

import pytest

from foundation.env import redact, redact_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("amqp://guest:s3cret@mq:5672//", "amqp://guest:***@mq:5672//"),
        ("redis://:s3cret@cache:6379/1", "redis://:***@cache:6379/1"),
        ("postgres://app:p@ss@db:5432/x", "postgres://app:***@db:5432/x"),  # "@" unencoded
        ("postgres://app:pa/ss@db/x", "postgres://app:***@db/x"),  # "/" unencoded
        ("postgres://app:pw@db/x?options=a@b", "postgres://app:***@db/x?options=a@b"),
        ("redis://cache:6379/0", "redis://cache:6379/0"),  # no password: unchanged
        ("redis://user@cache/0", "redis://user@cache/0"),
        ("sqlite:////srv/var/a@b.sqlite3", "sqlite:////srv/var/a@b.sqlite3"),
        ("filesystem://", "filesystem://"),
    ],
)
def test_a_url_is_shown_with_its_password_masked(url, shown):
    assert redact_url(url) == shown


def test_every_url_in_a_message_is_masked_and_a_known_password_wherever_it_appears():
    broker = "amqp://codeopt:hunter22/x@mq//"
    text = (
        "cannot connect to 'redis://:alpha-secret@cache:6379/0' or "
        f"\"{broker}\": port could not be cast to integer value as 'hunter22'"
    )
    masked = redact(text, broker, None)
    assert "alpha-secret" not in masked and "hunter22" not in masked
    assert "'redis://:***@cache:6379/0'" in masked and "amqp://codeopt:***@mq//" in masked
