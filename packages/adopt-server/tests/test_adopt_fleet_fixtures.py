"""Adoptions of repositories shaped like real ones (a multi-module Maven build with an enforcer
already in it, a Gradle Kotlin-DSL library formatted by Spotless/ktfmt, a Groovy build with tabs
and CRLF, a Python project with pre-commit and prettier): the changes follow each file's own
style, and what cannot be made to (a formatter that runs only in the build, a skipped enforcer,
a wrapper that cannot download) is reported in words the user can act on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adopt_server.pipeline import AdoptionOptions, RepositoryReport, adopt_repositories
from adopt_server.pipeline.build import format_written
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.runner import CommandRunner
from adopt_server.pipeline.trust import ProjectTrust
from adopt_server.pipeline.urls import parse_repository_url
from adopt_testkit import git, make_bare_repository
from conftest import AdoptEnv

BRANCH = "claude/adopt-claude-code"

MODULE_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
    <modelVersion>4.0.0</modelVersion>
    <parent>
        <groupId>org.example.shop</groupId>
        <artifactId>shop-parent</artifactId>
        <version>2.3.0</version>
    </parent>
    <artifactId>{name}</artifactId>
</project>
"""


def parent_pom(enforcer_configuration: str = "", version_property: bool = True) -> str:
    properties = (
        "        <maven-enforcer-plugin.version>3.4.1</maven-enforcer-plugin.version>\n"
        if version_property
        else ""
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
    <modelVersion>4.0.0</modelVersion>
    <groupId>org.example.shop</groupId>
    <artifactId>shop-parent</artifactId>
    <version>2.3.0</version>
    <packaging>pom</packaging>

    <modules>
        <module>shop-core</module>
        <module>shop-api</module>
    </modules>

    <properties>
        <maven.compiler.release>17</maven.compiler.release>
{properties}    </properties>

    <build>
        <pluginManagement>
            <plugins>
                <plugin>
                    <groupId>org.apache.maven.plugins</groupId>
                    <artifactId>maven-enforcer-plugin</artifactId>
                    <version>${{maven-enforcer-plugin.version}}</version>
                </plugin>
            </plugins>
        </pluginManagement>
        <plugins>
            <!-- the build has enforced its Maven version for years -->
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-enforcer-plugin</artifactId>{enforcer_configuration}
                <executions>
                    <execution>
                        <id>enforce-maven</id>
                        <goals>
                            <goal>enforce</goal>
                        </goals>
                        <configuration>
                            <rules>
                                <requireMavenVersion>
                                    <version>3.6.3</version>
                                </requireMavenVersion>
                            </rules>
                        </configuration>
                    </execution>
                </executions>
            </plugin>
        </plugins>
    </build>
</project>
"""


def maven_project(**options: Any) -> dict[str, str]:
    return {
        "pom.xml": parent_pom(**options),
        "shop-core/pom.xml": MODULE_POM.format(name="shop-core"),
        "shop-api/pom.xml": MODULE_POM.format(name="shop-api"),
        "README.md": "# shop\n",
    }


SPOTLESS_KTS = """\
plugins {
  `java-library`
  id("com.diffplug.spotless") version "6.25.0"
}

repositories { mavenCentral() }

dependencies {
  testImplementation("org.junit.jupiter:junit-jupiter:5.10.2")
}

spotless {
  java { googleJavaFormat() }
  kotlinGradle { ktfmt() }
}
"""

GROOVY_TABS_CRLF = (
    "plugins {\r\n\tid 'java'\r\n}\r\n\r\n"
    "dependencies {\r\n\ttestImplementation 'junit:junit:4.13.2'\r\n}\r\n"
)

PRE_COMMIT = """\
# pre-commit's own documentation style
repos:
    -   repo: https://github.com/astral-sh/ruff-pre-commit
        rev: v0.6.9
        hooks:
            -   id: ruff
            -   id: ruff-format
    -   repo: https://github.com/pre-commit/mirrors-prettier
        rev: v3.1.0
        hooks:
            -   id: prettier
                types_or: [yaml, markdown]

ci:
    autofix_prs: false
"""

PYTHON_PROJECT = {
    "pyproject.toml": '[project]\nname = "tidy-cli"\nversion = "1.4.0"\n',
    "src/tidy_cli/__init__.py": '"""tidy-cli."""\n',
    ".pre-commit-config.yaml": PRE_COMMIT,
    "README.md": "# tidy-cli\n",
}

OFFLINE_GRADLEW = """\
#!/bin/sh
printf '\\033[1mDownloading https://services.gradle.org/distributions/gradle-8.10-bin.zip\\033[0m\\n'
printf '\\r.........10%%\\r\\n'
echo 'Exception in thread "main" java.net.UnknownHostException: services.gradle.org'
echo '	at java.base/sun.nio.ch.NioSocketImpl.connect(NioSocketImpl.java:592)'
exit 1
"""


def adopt(env: AdoptEnv, name: str, files: dict[str, str], **options: Any) -> RepositoryReport:
    bare = make_bare_repository(env.remotes, name, files)
    settings = AdoptionOptions(
        **{"backoff_unit": 0.001, "keep_workspace": True, "dry_run": True, **options}
    )
    [report] = adopt_repositories([str(bare)], env.workspace, settings)
    return report


def added_lines(env: AdoptEnv, name: str, path: str) -> list[str]:
    diff = git(env.workspace / name, "diff", "main", BRANCH, "--", path)
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and line[1:2] != "+"]


def test_multi_module_maven_with_an_enforcer_gains_only_the_rule(adopt_env: AdoptEnv) -> None:
    report = adopt(adopt_env, "shop", maven_project())
    assert report.succeeded, report.failure
    assert report.build == "maven"
    assert report.warnings == []
    added = added_lines(adopt_env, "shop", "pom.xml")
    assert "                <dependencies>" in added
    assert "                        <id>enforce-claude-md</id>" in added
    assert not any("<artifactId>maven-enforcer-plugin</artifactId>" in line for line in added)
    modules = git(adopt_env.workspace / "shop", "diff", "--stat", "main", BRANCH, "--", "shop-*")
    assert modules == ""


def test_an_enforcer_version_from_a_parent_is_reported(adopt_env: AdoptEnv) -> None:
    report = adopt(adopt_env, "shop", maven_project(version_property=False))
    assert report.succeeded, report.failure
    [warning] = report.warnings
    assert "takes its version from ${maven-enforcer-plugin.version}" in warning
    assert "3.1.0 or later" in warning


def test_a_skipped_enforcer_is_reported_not_counted_as_installed(adopt_env: AdoptEnv) -> None:
    skip = (
        "\n                <configuration>"
        "\n                    <skip>true</skip>"
        "\n                </configuration>"
    )
    report = adopt(adopt_env, "shop", maven_project(enforcer_configuration=skip))
    assert report.failure is not None
    assert report.failure.startswith("enforcer: enforcer failed: The maven-enforcer-plugin")
    assert "is switched off (<skip>true</skip>)" in report.failure
    assert report.build == "maven"


def test_gradle_kotlin_dsl_with_spotless_is_indented_like_the_file_and_warned(
    adopt_env: AdoptEnv,
) -> None:
    files = {"build.gradle.kts": SPOTLESS_KTS, "settings.gradle.kts": 'rootProject.name = "lib"\n'}
    report = adopt(adopt_env, "lib", files)
    assert report.succeeded, report.failure
    added = added_lines(adopt_env, "lib", "build.gradle.kts")
    assert '  group = "verification"' in added
    assert "    doLast {" not in added
    assert not any(line.startswith("    ") and not line.startswith("      ") for line in added[:8])
    [warning] = report.warnings
    assert "build.gradle.kts is checked by Spotless (kotlinGradle with ktfmt)" in warning
    assert "'gradle spotlessApply'" in warning


def test_a_groovy_build_with_tabs_and_crlf_keeps_both(adopt_env: AdoptEnv) -> None:
    report = adopt(adopt_env, "legacy", {"build.gradle": GROOVY_TABS_CRLF})
    assert report.succeeded, report.failure
    script = (adopt_env.workspace / "legacy" / "build.gradle").read_bytes()
    assert script.startswith(GROOVY_TABS_CRLF.encode())
    appended = script[len(GROOVY_TABS_CRLF) :]
    assert b"\n" not in appended.replace(b"\r\n", b"")
    assert b"\tgroup = 'verification'\r\n" in appended
    assert b"    " not in appended
    assert report.warnings == []


def test_pre_commit_hook_follows_the_config_layout_and_prettier_is_reported(
    adopt_env: AdoptEnv,
) -> None:
    report = adopt(adopt_env, "tidy", PYTHON_PROJECT)
    assert report.succeeded, report.failure
    config = (adopt_env.workspace / "tidy" / ".pre-commit-config.yaml").read_text()
    assert config.startswith(PRE_COMMIT.split("\nci:")[0])
    assert "    -   repo: local\n        hooks:\n            -   id: claude-md-check\n" in config
    assert "                name: Claude Code configuration (agent-config-check)\n" in config
    assert config.endswith("ci:\n    autofix_prs: false\n")
    prettier = [w for w in report.warnings if "prettier" in w]
    assert prettier, report.warnings
    assert all("is not on the PATH here" in w for w in prettier)
    assert any(".pre-commit-config.yaml is formatted by prettier" in w for w in prettier)


def test_an_offline_gradle_wrapper_shows_its_own_output_and_what_to_do(
    adopt_env: AdoptEnv,
) -> None:
    files = {"build.gradle.kts": SPOTLESS_KTS, "gradlew": OFFLINE_GRADLEW}
    report = adopt(adopt_env, "offline", files)
    assert report.failure is not None
    assert report.build == "gradle"
    assert report.completed_steps == ["toolchain", "clone"]
    failure = report.failure
    assert "\x1b" not in failure
    assert "Downloading https://services.gradle.org/distributions/gradle-8.10-bin.zip" in failure
    assert "java.net.UnknownHostException: services.gradle.org" in failure
    assert "10%" not in failure.split("Downloading")[0]
    assert "cached under ~/.gradle/wrapper/dists" in failure
    assert "distributionUrl" in failure


def _context(checkout: Path, warnings: list[str]) -> RepoContext:
    return RepoContext(
        url=parse_repository_url(str(checkout)),
        workspace=checkout.parent,
        checkout=checkout,
        reused=True,
        options=AdoptionOptions(),
        runner=CommandRunner(timeout_seconds=60.0, retries=0),
        trust=ProjectTrust(checkout, checkout.parent / "claude.json"),
        warn=warnings.append,
    )


def test_a_declared_formatter_on_the_path_formats_the_written_file(tmp_path: Path) -> None:
    checkout = tmp_path / "tool"
    checkout.mkdir()
    git(checkout, "init", "-q")  # an adoption's checkout is a clone
    (checkout / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: https://github.com/astral-sh/ruff-pre-commit\n  hooks:\n"
        "  - id: ruff-format\n"
    )
    (checkout / "pyproject.toml").write_text("[tool.ruff]\nline-length = 60\n")
    (checkout / "check.py").write_text("def check( a,b ):\n    return {'a':a,'b':b}\n")
    warnings: list[str] = []
    format_written(_context(checkout, warnings), ["check.py"])
    assert warnings == []
    assert (checkout / "check.py").read_text() == (
        'def check(a, b):\n    return {"a": a, "b": b}\n'
    )


def test_a_declared_formatter_missing_from_the_path_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "tool"
    checkout.mkdir()
    (checkout / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: https://github.com/psf/black\n  hooks:\n  - id: black\n"
    )
    (checkout / "check.py").write_text("x=1\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    warnings: list[str] = []
    format_written(_context(checkout, warnings), ["check.py"])
    assert warnings == [
        "black is not on the PATH here. check.py is formatted by black (pre-commit): run "
        "'black check.py' on the branch before merging."
    ]
    assert (checkout / "check.py").read_text() == "x=1\n"
