"""A token given in a URL never lands in .git/config, FETCH_HEAD, a log line, the report or an
error; option injection is refused; bad options are refused before anything runs."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from pathlib import Path

import pytest
from adopt_server.pipeline import (
    AdoptionOptions,
    OptionsError,
    adopt_repositories,
    batch_json,
    prepare_workspace,
    validate_options,
)
from adopt_server.pipeline.context import CredentialHelper
from adopt_server.pipeline.urls import parse_repository_url
from conftest import AdoptEnv

TOKEN = "ghs_TESTTOKEN1234567890abcdefXYZ"


def _everything_under(folder: Path) -> str:
    texts = []
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            texts.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(texts)


def test_token_in_url_never_lands_anywhere(
    adopt_env: AdoptEnv, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    adopt_env.remote("maven", "repo")
    adopt_env.git_config(f'[url "{adopt_env.remotes}/"]\n\tinsteadOf = https://github.com/owner/\n')
    url = f"https://x-access-token:{TOKEN}@github.com/owner/repo.git"
    options = AdoptionOptions(keep_workspace=True, backoff_unit=0.001)
    first = adopt_repositories([url], adopt_env.workspace, options)
    assert first[0].succeeded, first[0].failure
    second = adopt_repositories([url], adopt_env.workspace, options)  # the reuse + fetch path
    assert second[0].succeeded, second[0].failure
    failed = adopt_repositories(
        [f"https://x-access-token:{TOKEN}@github.com/owner/missing.git"],
        adopt_env.workspace,
        options,
    )
    assert not failed[0].succeeded
    checkout = adopt_env.workspace / "repo"
    assert "https://github.com/owner/repo.git" in (checkout / ".git" / "config").read_text()
    places = {
        ".git of the checkout": _everything_under(checkout / ".git"),
        "the remote": _everything_under(adopt_env.remotes),
        "HOME": _everything_under(adopt_env.home),
        "reports": json.dumps([batch_json(r) for r in (first, second, failed)]),
        "failure": failed[0].failure or "",
        "logs": caplog.text,
        "fake program argv": adopt_env.log.read_text(),
    }
    for where, text in places.items():
        assert TOKEN not in text, f"the token leaked into {where}"
    assert "gh\t" in adopt_env.log.read_text()
    assert "api -- repos/owner/repo" in adopt_env.log.read_text()
    assert first[0].to_json()["repositoryUrl"] == "https://***@github.com/owner/repo.git"


def test_git_reads_the_credential_from_the_helper_not_from_argv(tmp_path: Path) -> None:
    url = parse_repository_url(f"https://x-access-token:{TOKEN}@github.com/owner/repo.git")
    with CredentialHelper() as helper:
        env = {**os.environ, **helper.environment(url), "GIT_CONFIG_NOSYSTEM": "1"}
        env["GIT_CONFIG_GLOBAL"] = os.devnull
        answer = subprocess.run(
            ["git", "-c", "credential.helper=", "credential", "fill"],
            input="protocol=https\nhost=github.com\npath=owner/repo.git\n\n",
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        script = helper.path
        assert TOKEN not in script.read_text()
    assert f"password={TOKEN}" in answer
    assert "username=x-access-token" in answer
    assert not script.exists(), "the helper is removed after the run"


def test_a_bare_token_as_user_name_is_sent_as_password() -> None:
    url = parse_repository_url(f"https://{TOKEN}@github.com/owner/repo.git")
    with CredentialHelper() as helper:
        env = helper.environment(url)
    assert env["CLAUDE_ADOPT_GIT_PASSWORD"] == TOKEN
    assert helper.environment(parse_repository_url("git@github.com:o/r.git")) == {}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (AdoptionOptions(branch="--upload-pack=touch x"), "not a valid branch name"),
        (AdoptionOptions(branch="-b"), "not a valid branch name"),
        (AdoptionOptions(branch="a..b"), "not a valid branch name"),
        (AdoptionOptions(branch="@{-1}"), "not a valid branch name"),
        (AdoptionOptions(branch="with space"), "not a valid branch name"),
        (AdoptionOptions(branch="refs/heads/main"), "also names another ref to git"),
        (AdoptionOptions(branch="heads/main"), "also names another ref to git"),
        (AdoptionOptions(branch="refs/remotes/origin/main"), "also names another ref"),
        (AdoptionOptions(branch="origin/main"), "also names another ref to git"),
        (AdoptionOptions(branch="tags/v1"), "also names another ref to git"),
        (AdoptionOptions(reviewers=("--admin",)), "reviewers entries must not start with '-'"),
        (AdoptionOptions(rules="strict"), "Unknown rule set 'strict'"),
        (AdoptionOptions(sections=("Build",)), "is not a Markdown heading"),
        (AdoptionOptions(rule_version="1.0-SNAPSHOT"), "released version"),
        (AdoptionOptions(rule_version=" "), "must not be blank"),
        (AdoptionOptions(parallel=9), "parallel must be between 1 and 8 but was 9"),
        (AdoptionOptions(parallel=0), "parallel must be between 1 and 8"),
        (AdoptionOptions(retries=11), "retries must be between 0 and 10"),
        (AdoptionOptions(timeout_seconds=0), "timeout must be between 1 and 1440 minutes"),
    ],
)
def test_bad_options_are_refused(options: AdoptionOptions, message: str) -> None:
    with pytest.raises(OptionsError, match=message.replace("(", r"\(")):
        validate_options(options)


def test_bad_options_refused_before_anything_is_cloned(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    with pytest.raises(OptionsError):
        adopt_repositories([str(remote)], adopt_env.workspace, AdoptionOptions(branch="-x"))
    assert list(adopt_env.workspace.iterdir()) == []
    assert not adopt_env.log.exists(), "no program ran"


def test_options_are_canonicalised() -> None:
    checked = validate_options(AdoptionOptions(rules=" MINIMAL ", sections=("##  Testing", " ")))
    assert checked.rules == "minimal"
    assert checked.sections == ("## Testing",)


def test_unwritable_workspace_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OptionsError, match="cannot be created or written"):
        prepare_workspace(blocker / "ws")
