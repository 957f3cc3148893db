"""Masking: what a client reads loses credentials and absolute paths; logs lose credentials only."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_common import FailureMessage, mask_arguments, mask_credentials, redact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postgresql://user:p@ss@db.example:5432/app", "postgresql://***@db.example:5432/app"),
        ("https://x-token:ghs_abc@github.com/org/repo.git", "https://***@github.com/org/repo.git"),
        ("redis://:secret@localhost:6379/0", "redis://***@localhost:6379/0"),
        ("git@github.com:org/repo.git", "git@github.com:org/repo.git"),
        ("see https://example.com/a/b/c.html", "see https://example.com/a/b/c.html"),
        ("cannot open C:\\a\\b\\file.txt", "cannot open ...\\file.txt"),
        ("cannot open /etc", "cannot open /etc"),
        ("relative a/b/c.txt stays", "relative a/b/c.txt stays"),
        ("'/srv/secrets/project/report.csv'", "'.../report.csv'"),
        (
            "(/srv/a/b.csv), /srv/a/c.csv; [/srv/a/d.csv] /srv/a/e.csv,",
            "(.../b.csv), .../c.csv; [.../d.csv] .../e.csv,",
        ),
        ("directory /srv/code/", "directory .../code"),
        ("file:///srv/data/private.csv", "file://.../private.csv"),
        ("postgresql://u:p@/db?host=/var/run/pg", "postgresql://***@/db?host=.../pg"),
        ("password=hunter2&user=x", "password=***&user=x"),
        ("env PGPASSWORD=hunter2 GITHUB_TOKEN=abc", "env PGPASSWORD=*** GITHUB_TOKEN=***"),
        (
            '{"dbPassword": "s3cr3t", "tokenizer": "cl100k"}',
            '{"dbPassword": "***", "tokenizer": "cl100k"}',
        ),
        ("tokenizer=cl100k", "tokenizer=cl100k"),
        ("Authorization: Bearer abcdefgh12345678", "Authorization: Bearer ***"),
        ("token ghp_" + "a" * 36, "token ***"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_log_masking_keeps_paths_but_not_credentials() -> None:
    text = "cloning https://bot:s3cret@git.example/org/repo into /srv/work/repo"
    assert mask_credentials(text) == "cloning https://***@git.example/org/repo into /srv/work/repo"


def test_mask_arguments_masks_secret_keys_and_urls_recursively() -> None:
    masked = mask_arguments(
        {
            "path": "/srv/data/file.csv",
            "apiKey": "k",
            "nested": [{"url": "https://u:pw@h/x", "password": "p", "authToken": "t"}],
            "count": 3,
            "tokenizer": "cl100k",
            "tokenBudget": 500,
        }
    )
    assert masked == {
        "path": "/srv/data/file.csv",
        "apiKey": "***",
        "nested": [{"url": "https://***@h/x", "password": "***", "authToken": "***"}],
        "count": 3,
        "tokenizer": "cl100k",
        "tokenBudget": 500,
    }


def test_failure_message_names_the_tool_and_redacts() -> None:
    error = RuntimeError("cannot read /srv/secret/data.csv via https://u:pw@h/x")
    assert FailureMessage.for_client("list_columns", error) == (
        "list_columns failed: cannot read .../data.csv via https://***@h/x"
    )
    assert FailureMessage.for_client("t", KeyError()) == "t failed: KeyError"
    assert FailureMessage.for_client("t", "plain /a/b/c") == "t failed: plain .../c"


def test_failure_messages_are_cut_after_masking() -> None:
    message = FailureMessage.for_client("t", "x" * 5000 + " https://u:secret@h/x")
    assert message == "t failed: " + "x" * 4000 + "… (1016 more characters cut)"
    assert "secret" not in message


# RFC 3986 user-info characters, plus '@' (masking runs to the last '@' before the host)
_USERINFO = st.text(
    alphabet=st.sampled_from(
        "abcXYZ019-._~!$&'()*+,;=%:@",
    ),
    min_size=1,
    max_size=20,
)
_PASSWORD = st.text(alphabet=st.sampled_from("QWERTZ789"), min_size=6, max_size=12)
_NOISE = st.text(alphabet=st.sampled_from("ab /\\:@.,;()[]'\"\n"), max_size=15)


@given(_NOISE, _USERINFO, _PASSWORD, _USERINFO, _NOISE)
def test_redact_never_leaks_a_url_password(
    before: str, user: str, password: str, extra: str, after: str
) -> None:
    url = f"https://{user}:{password}{extra}@host.example/path"
    assert password not in redact(f"{before}{url} {after}")
    assert password not in mask_credentials(f"{before}{url} {after}")


@given(st.text(alphabet=st.sampled_from("ab/\\:@.,;()[]~-_ 'C\n=&?"), max_size=40))
def test_redact_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@given(st.text(alphabet=st.sampled_from("ab:@/=\"' &;pasword_TOKEN"), max_size=40))
def test_log_masking_is_idempotent(text: str) -> None:
    once = mask_credentials(text)
    assert mask_credentials(once) == once
