"""Masking: what a client reads loses credentials and absolute paths; logs lose credentials only."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from mcp_common import FailureMessage, mask_arguments, mask_credentials, redact
from mcp_common.masking import mask_structured


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key AKIAIOSFODNN7EXAMPLE used", "key *** used"),
        ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfi", "aws_secret_access_key=***"),
        ("AWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI/K7MDENG", "AWS_SECRET_ACCESS_KEY = ***"),
        ("password: hunter2", "password: ***"),
        ("  password: correct horse battery", "  password: ***"),
        ("password = hunter2", "password = ***"),
        ('"password": "hunter2"', '"password": "***"'),
        ("{'password': 'hunter2', 'user': 'x'}", "{'password': '***', 'user': 'x'}"),
        ('password="a \\"quoted\\" one"', 'password="***"'),
        ("passphrase=hunter2", "passphrase=***"),
        ("pass=hunter2 db_pass=hunter2", "pass=*** db_pass=***"),
        ("private_key=hunter2", "private_key=***"),
        ("credentials=hunter2", "credentials=***"),
        ("auth=hunter2&x=1", "auth=***&x=1"),
        ("x-api-key: hunter2", "x-api-key: ***"),
        ("Authorization: Token hunter2abc", "Authorization: Token ***"),
        ("authorization=hunter2abc", "authorization=***"),
        ("postgresql://admin:pass word@db.example/app", "postgresql://***@db.example/app"),
        ("postgresql://admin:pa/ss@db.example/app", "postgresql://***@db.example/app"),
        ("prefix_ghp_" + "a" * 36, "prefix_***"),
        ("CI_AKIAIOSFODNN7EXAMPLE", "CI_***"),
        ("xoxb-123456789012-abcdefghij", "***"),
        ("sk-proj-abcdefghijklmnopqrstuvwx", "***"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3", "jwt ***"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEab+c/d=\n-----END RSA PRIVATE KEY----- then",
            "-----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY----- then",
        ),
        ("sqlite:////srv/secret/shop.db", "sqlite:///.../shop.db"),
        ("open ~/work/acme/data.csv", "open .../data.csv"),
        ("open ~bob/work/data.csv", "open .../data.csv"),
        ("C:\\Users\\bob\\x.txt", "...\\x.txt"),
        ("C:/Users/bob/x.txt", ".../x.txt"),
        ("C:\\Program Files\\Acme Tool\\x.txt", "...\\x.txt"),
        ("\\\\server\\share\\dir\\f.txt", "...\\f.txt"),
        ("read /srv/my data/secret dir/x.csv now", "read .../x.csv now"),
        # what must stay: prose, ports, keys that name no secret, relative paths
        ("tests pass: 5 of 5; bypass=1; author=Ann", "tests pass: 5 of 5; bypass=1; author=Ann"),
        ("token budget 500, tokens: 12, key=id", "token budget 500, tokens: 12, key=id"),
        ("http://example.com:8080/a/b and a@b.org", "http://example.com:8080/a/b and a@b.org"),
        ("read /srv/a/b.csv or c/d", "read .../b.csv or c/d"),
    ],
)
def test_redact_catches_the_shapes_issue_9_found(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected
    assert mask_credentials(mask_credentials(text)) == mask_credentials(text)


def test_a_yaml_parse_error_quoting_a_password_line_is_masked() -> None:
    # the parser's message quotes the offending line; masking, not the caller, must hide it
    with pytest.raises(yaml.YAMLError) as caught:
        yaml.safe_load('rows:\n  - id: 1\n password: "Hunter2Secret"\n   x: [')
    message = str(caught.value)
    assert "Hunter2Secret" in message
    assert "Hunter2Secret" not in redact(message)
    assert "Hunter2Secret" not in mask_credentials(message)


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


def test_mask_arguments_masks_every_secret_key_shape() -> None:
    keys = ["passphrase", "db_pass", "dbPass", "private_key", "credentials", "auth", "x-api-key"]
    keys += ["aws_secret_access_key", "Authorization", "clientSecret"]
    masked = mask_arguments({key: "v" for key in keys} | {"author": "Ann", "bypass": 1})
    assert masked == {key: "***" for key in keys} | {"author": "Ann", "bypass": 1}


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


_SECRET = st.text(alphabet=st.sampled_from("QWERTZ789qwz+/"), min_size=8, max_size=24)
_SEPARATOR = st.sampled_from([" ", "\n", "\t", ", ", "; ", "(", ")", "[", "]", "{", "}", "|", "_"])
_TEXT = st.text(max_size=30)
_KEYS = st.sampled_from(
    ["password", "DB_PASSWORD", "passphrase", "pwd", "secret", "client_secret", "token",
     "GITHUB_TOKEN", "api_key", "apiKey", "x-api-key", "private_key", "credentials",
     "aws_secret_access_key", "AccessKey"]
)  # fmt: skip


def _assignments(key: str, secret: str) -> list[str]:
    return [
        f"{key}={secret}",
        f"{key} = {secret}",
        f"{key}: {secret}",
        f'{key}: "{secret}"',
        f'"{key}": "{secret}"',
        f"'{key}': '{secret}'",
        f"{{'{key}': '{secret}'}}",
    ]


@given(_TEXT, _SEPARATOR, _KEYS, _SECRET, _SEPARATOR, _TEXT, st.integers(0, 6))
def test_generated_secret_assignments_never_survive(
    before: str, sep1: str, key: str, secret: str, sep2: str, after: str, shape: int
) -> None:
    text = f"{before}{sep1}{_assignments(key, secret)[shape]}{sep2}{after}"
    if secret in before or secret in after:
        return
    assert secret not in redact(text)
    assert secret not in mask_credentials(text)


def _token(prefix: str, alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.builds(lambda body: prefix + body, st.text(alphabet, min_size=size, max_size=size))


_TOKENS = st.one_of(
    _token("AKIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    *(_token(f"gh{kind}_", "abcXYZ019", 36) for kind in "pousr"),
    _token("github_pat_", "abcXYZ019_", 60),
    _token("glpat-", "abcXYZ019_-", 20),
    _token("xoxb-", "abcXYZ019-", 24),
    _token("sk_live_", "abcXYZ019", 24),
    _token("AIza", "abcXYZ019_-", 35),
)


@given(_TEXT, _SEPARATOR, _TOKENS, _SEPARATOR, _TEXT)
def test_generated_token_shapes_never_survive(
    before: str, sep1: str, token: str, sep2: str, after: str
) -> None:
    text = f"{before}{sep1}{token}{sep2}{after}"
    assert token not in redact(text)
    assert token not in mask_credentials(text)


@given(
    _TEXT,
    st.sampled_from(["https", "postgresql", "redis", "sqlite+x"]),
    st.text(alphabet="abcXYZ019-._", min_size=1, max_size=10),
    st.text(alphabet="QWERTZ789 /!$&*+,;=", min_size=6, max_size=20).filter(
        lambda p: p.strip() and not p[0].isdigit()
    ),
    _TEXT,
)
def test_generated_url_passwords_with_spaces_and_slashes_never_survive(
    before: str, scheme: str, user: str, password: str, after: str
) -> None:
    text = f"{before} {scheme}://{user}:{password}@db.example:5432/app {after}"
    leaked = [part for part in password.split() if len(part) >= 4 and part not in before + after]
    for part in leaked:
        assert part not in redact(text)
        assert part not in mask_credentials(text)


@given(st.text(alphabet=st.sampled_from("ab/\\:@.,;()[]~-_ 'C\n=&?"), max_size=40))
def test_redact_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@given(st.text(alphabet=st.sampled_from("ab:@/=\"' &;pasword_TOKEN"), max_size=40))
def test_log_masking_is_idempotent(text: str) -> None:
    once = mask_credentials(text)
    assert mask_credentials(once) == once


def _mask_each_string(value: object) -> object:
    """The reference: every string masked on its own."""
    if isinstance(value, str):
        return mask_credentials(value)
    if isinstance(value, dict):
        return {key: _mask_each_string(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_each_string(item) for item in value]
    return value


# pieces of every shape the patterns look for, so that strings start, end or break inside a
# credential, a key, a URL or a private key
_PIECES = st.sampled_from(
    [
        "password", "=", ": ", "token", "Bearer ", "authorization: ", "https://", "u:p",
        "@host", "@", "ghp_", "abcXYZ0123456789abcXYZ0123456789abcd", "AKIA", "ABCDEFGH23456789",
        "-----BEGIN PRIVATE KEY-----", "MIIEv", "-----END PRIVATE KEY-----", "***", " ", "\n",
        "\t", "'", '"', "secret", "pass=", "x", "/srv/a", "8080", ",", ";", "}", "sk-",
    ]
)  # fmt: skip
_PIECE_STRINGS = st.lists(_PIECES, max_size=6).map("".join)
_STRUCTURES = st.recursive(
    st.one_of(_PIECE_STRINGS, st.text(max_size=12), st.integers(), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.sampled_from(["path", "name", "token", "x"]), children, max_size=4),
    ),
    max_leaves=30,
)


@given(_STRUCTURES)
def test_structured_answers_are_masked_string_by_string(value: object) -> None:
    """Masking all strings at once is only a shortcut: the result is every string masked."""
    assert mask_structured(value) == _mask_each_string(value)


def test_a_structured_answer_without_credentials_comes_back_as_it_is() -> None:
    value = {"nodes": [{"path": f"src/a/F{n}.java", "dependencies": ["src/b/G.java"]}
                       for n in range(100)], "count": 100}  # fmt: skip
    assert mask_structured(value) is value
    secret = {"nodes": [{"path": "a"}, {"path": "password=hunter22"}]}
    assert mask_structured(secret) == {"nodes": [{"path": "a"}, {"path": "password=***"}]}
