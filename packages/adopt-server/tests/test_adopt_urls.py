"""Repository URL acceptance, names, slugs and identities (reference edge cases 1-8)."""

from __future__ import annotations

import os

import pytest
from adopt_server.pipeline.urls import RepositoryUrlError, parse_repository_url, same_repository


@pytest.mark.parametrize(
    ("url", "name", "slug"),
    [
        ("https://github.com/owner/repo.git", "repo", "owner/repo"),
        ("https://github.com/owner/repo/", "repo", "owner/repo"),
        ("https://github.com/owner/repo.GIT", "repo", "owner/repo"),
        ("git@github.com:repo.git", "repo", None),
        ("git@github.com:owner/my.tool.git", "my.tool", "owner/my.tool"),
        ("git@github.com:2222/tools", "tools", "2222/tools"),
        ("ssh://git@github.com/owner/repo.git", "repo", "owner/repo"),
        ("https://ghe.example.com:8443/o/r.git", "r", "o/r"),
        ("https://host:8443/r.git", "r", None),
        ("https://gitlab.example.com/group/sub/repo", "repo", None),
        ("file:///tmp/remotes/owner/repo.git", "repo", None),
        ("/tmp/checkouts/repo", "repo", None),
        ("relative/foo@bar", "foo@bar", None),
        ("  https://github.com/o/r  ", "r", "o/r"),
    ],
)
def test_accepted_urls(url: str, name: str, slug: str | None) -> None:
    parsed = parse_repository_url(url)
    assert (parsed.name, parsed.slug) == (name, slug)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "must not be blank"),
        ("   ", "must not be blank"),
        ("--upload-pack=touch /tmp/pwned", "must not start with '-'"),
        ("-oProxyCommand=x", "must not start with '-'"),
        ("https://token@", "must end in a repository name"),
        ("git@", "must end in a repository name"),
        ("https://github.com/owner//", "must end in a repository name"),
        ("https://github.com/owner/.git", "must end in a repository name"),
        ("https://github.com/owner/..", "must end in a repository name"),
        ("C:\\repos\\tools", "must end in a repository name"),
        ("a\\..\\..\\evil", "must end in a repository name"),
        ("http://github.com/o/r.git", "scheme 'http' is not accepted"),
        ("git://github.com/o/r.git", "scheme 'git' is not accepted"),
        ("ext::sh -c touch% /tmp/pwned", "must not contain whitespace"),
        ("ext::sh", "remote-helper syntax"),
        ("https://github.com/o/r\n--foo", "must not contain whitespace"),
    ],
)
def test_refused_urls(url: str, message: str) -> None:
    with pytest.raises(RepositoryUrlError, match=message.replace("(", r"\(")):
        parse_repository_url(url)


def test_refusal_masks_the_token() -> None:
    with pytest.raises(RepositoryUrlError) as caught:
        parse_repository_url("http://user:p@ss@github.com/o/r.git")
    assert "p@ss" not in str(caught.value)
    assert "http://***@github.com/o/r.git" in str(caught.value)


def test_credentials_are_split_off_https_only() -> None:
    url = parse_repository_url("HTTPS://x-access-token:s3cr%40t@github.com/owner/repo.git")
    assert url.credential_free == "HTTPS://github.com/owner/repo.git"
    assert (url.username, url.password) == ("x-access-token", "s3cr@t")
    assert url.masked == "HTTPS://***@github.com/owner/repo.git"
    ssh = parse_repository_url("ssh://git@github.com/owner/repo.git")
    assert ssh.credential_free == ssh.text
    assert not ssh.has_credentials


def test_last_at_masks_the_whole_userinfo() -> None:
    url = parse_repository_url("https://user:p@ss@host.example.com/o/r.git")
    assert url.masked == "https://***@host.example.com/o/r.git"
    assert url.password == "p@ss"
    assert url.credential_free == "https://host.example.com/o/r.git"


def test_local_paths_become_absolute() -> None:
    url = parse_repository_url("some/dir/repo")
    assert url.credential_free == os.path.abspath("some/dir/repo")


def test_identity_ignores_scheme_credentials_suffix_and_case() -> None:
    same = [
        "https://github.com/Owner/Repo.git",
        "git@github.com:owner/repo",
        "ssh://git@github.com/owner/repo/",
        "https://tok@github.com/owner/repo",
    ]
    identities = {parse_repository_url(u).identity for u in same}
    assert len(identities) == 1
    assert same_repository("git@github.com:owner/repo.git", parse_repository_url(same[0]))


def test_two_ports_are_two_servers() -> None:
    a = parse_repository_url("https://host.example.com:8443/o/r")
    b = parse_repository_url("https://host.example.com:9443/o/r")
    assert a.identity != b.identity
    assert not same_repository("not a url at all -", a)
