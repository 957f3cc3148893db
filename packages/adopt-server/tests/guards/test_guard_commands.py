"""The build and test command an adoption names to claude and checks the guidance for: read
from the checkout's files (nothing is run), ``None`` when the repository shows none."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_server.guards import build_command


def checkout(tmp_path: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("build", "files", "command"),
    [
        ("maven", {"pom.xml": "<project/>", "mvnw": "#!/bin/sh\n"}, "./mvnw verify"),
        ("maven", {"pom.xml": "<project/>"}, "mvn verify"),
        ("gradle", {"build.gradle": "", "gradlew": "#!/bin/sh\n"}, "./gradlew build"),
        ("gradle", {"build.gradle.kts": ""}, "gradle build"),
        ("python", {"pyproject.toml": "", "noxfile.py": ""}, "nox"),
        ("python", {"pyproject.toml": "", "tox.ini": ""}, "tox"),
        ("python", {"pyproject.toml": "", "Makefile": "test:\n\tpytest\n"}, "make test"),
        ("python", {"pyproject.toml": "", "uv.lock": "", "tests/test_x.py": ""}, "uv run pytest"),
        ("python", {"pyproject.toml": "[tool.pytest.ini_options]\n"}, "python -m pytest"),
        ("python", {"setup.py": "", "test_core.py": ""}, "python -m pytest"),
        ("python", {"pyproject.toml": "[project]\nname = 'x'\n"}, "python -m pip install ."),
        ("github-actions", {"Makefile": "check: lint\n"}, "make test"),
        ("github-actions", {"package.json": '{"scripts": {"test": "jest"}}'}, "npm test"),
        ("github-actions", {"Cargo.toml": ""}, "cargo test"),
        ("github-actions", {"go.mod": ""}, "go test ./..."),
    ],
)
def test_the_command_the_repository_really_has(
    tmp_path: Path, build: str, files: dict[str, str], command: str
) -> None:
    found = build_command(checkout(tmp_path, files), build)
    assert found is not None
    assert found.command == command


@pytest.mark.parametrize(
    "files",
    [
        {"README.md": "# notes\n"},
        {"Makefile": "test := yes\nbuild:\n\tcc x.c\n"},  # a variable, not a test target
        {"package.json": '["not", "an", "object"]'},
        {"package.json": "{not json"},
        {"package.json": '{"scripts": {"test": 1}}'},
    ],
)
def test_no_command_when_the_repository_shows_none(tmp_path: Path, files: dict[str, str]) -> None:
    assert build_command(checkout(tmp_path, files), "github-actions") is None


def test_a_build_file_leading_outside_the_checkout_shows_no_command(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Makefile").write_text("test:\n\ttrue\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Makefile").symlink_to(outside / "Makefile")
    assert build_command(repo, "github-actions") is None
