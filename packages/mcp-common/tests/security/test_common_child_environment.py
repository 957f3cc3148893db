"""The one allow-list untrusted children run with: what is kept, and that any secret,
whatever its name, is left out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from mcp_common.child_environment import BASE_VARIABLES, child_environment

SERVER = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "TMPDIR": "/tmp",
    "PYTHONPATH": "/opt/lib",
    "GH_TOKEN": "ghp_secret",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "EXAMPLE_SERVER_AUTH_TOKEN": "bearer-secret",
    "https_proxy": "http://proxy.local:3128",
    "HTTP_PROXY": "http://user:pass@proxy.local:3128",
}


def test_the_base_list_and_the_locale_are_kept_and_nothing_else() -> None:
    assert child_environment(SERVER) == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/me",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "TMPDIR": "/tmp",
    }


def test_a_caller_adds_names_and_proxies_without_credentials() -> None:
    kept = child_environment(SERVER, {"PYTHONPATH"}, proxies=True)
    assert kept["PYTHONPATH"] == "/opt/lib"
    assert kept["https_proxy"] == "http://proxy.local:3128"
    assert "HTTP_PROXY" not in kept  # it carries a password


@given(st.text(st.characters(codec="ascii", exclude_characters="=\x00"), min_size=1))
def test_no_other_name_gets_through(name: str) -> None:
    kept = child_environment({name: "secret"}, {"PYTHONPATH"}, proxies=True)
    allowed = (
        name in BASE_VARIABLES
        or name == "PYTHONPATH"
        or name.startswith("LC_")
        or name.lower() in {"http_proxy", "https_proxy", "no_proxy", "all_proxy"}
    )
    assert (name in kept) == allowed
