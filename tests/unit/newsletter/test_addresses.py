"""Which addresses a sign-up accepts (and what it makes of them), and the per-network rate-limit key."""

from __future__ import annotations

import pytest

from app.newsletter.addresses import address_key, normalise_address
from app.ratelimit import client_network


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Ada@Example.COM", "ada@example.com"),
        ("  ada@example.com\t", "ada@example.com"),
        ("ada+news@mail.example.org", "ada+news@mail.example.org"),
        ("ada@bücher.example", "ada@xn--bcher-kva.example"),  # IDNA, so any relay can route it
    ],
)
def test_valid_addresses_are_normalised(typed: str, stored: str) -> None:
    assert normalise_address(typed) == stored


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "ada",
        "ada@",
        "@example.com",
        "ada@example",
        "ada@@example.com",
        "ada@localhost",
        "Ada <ada@example.com>",  # a display name
        "ada@example.com\r\nBcc: victim@example.org",  # header injection
        "ada@example.com\nBcc: victim@example.org",
        "ada@example.com,victim@example.org",  # a second recipient
        "ada@example.com victim@example.org",
        "아다@example.com",  # needs SMTPUTF8
        "a" * 65 + "@example.com",  # local part over 64
        "a@" + ("b" * 60 + ".") * 5 + "com",  # over 254 in all
        "x" * 2000,
    ],
)
def test_addresses_mail_cannot_go_to_are_refused(typed: str) -> None:
    assert normalise_address(typed) is None


def test_the_address_key_holds_no_address() -> None:
    key = address_key("ada@example.com")
    assert "ada" not in key
    assert "example" not in key
    assert key == address_key("ada@example.com") != address_key("bob@example.com")


@pytest.mark.parametrize(
    ("client", "network"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),  # an IPv4 client on a dual-stack socket
        ("testclient", "testclient"),
    ],
)
def test_client_networks_are_ipv4_32_and_ipv6_64(client: str, network: str) -> None:
    assert client_network(client) == network


def test_neighbouring_ipv6_networks_are_different_keys() -> None:
    assert client_network("2001:db8:1:2::1") != client_network("2001:db8:1:3::1")
    assert client_network("203.0.113.7") != client_network("203.0.113.8")
