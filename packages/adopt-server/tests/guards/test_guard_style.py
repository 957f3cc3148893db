"""The repository's own style: indentation detection, re-indentation of spliced blocks, the
layout of pre-commit entries, declared formatters, and Maven enforcers that do not run."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_server.conformance import rules_for
from adopt_server.guards import guard_notes, is_guard_installed
from adopt_server.guards.builds.maven import splice_guard
from adopt_server.guards.builds.python import splice_hook
from adopt_server.guards.checker_script import install_script
from adopt_server.guards.pom_xml import PomError
from adopt_server.guards.style import declared_formatters, indent_unit, reindent
from adopt_server.pipeline.runner import excerpt

RULES = rules_for("project", "maven", None)


@pytest.mark.parametrize(
    ("source", "unit"),
    [
        ("plugins {\n    java\n}\n", "    "),
        ('plugins {\n  java\n  id("x")\n}\nrepositories {\n  mavenCentral()\n}\n', "  "),
        ("plugins {\n\tid 'java'\n}\n", "\t"),
        ("/*\n * licence\n *   text\n */\nplugins {\n  java\n}\n", "  "),
        ('rootProject.name = "x"\n', "    "),
    ],
)
def test_indent_unit(source: str, unit: str) -> None:
    assert indent_unit(source) == unit


def test_reindent_keeps_odd_spaces_and_blank_lines() -> None:
    block = "a {\n    b {\n        c\n      d\n    }\n\n}"
    assert reindent(block, "\t") == "a {\n\tb {\n\t\tc\n\t  d\n\t}\n\n}"
    assert reindent(block, "    ") == block


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: y\n",
            "- repo: local\n  hooks:\n  - id: claude-md-check\n    name: Claude Code configuration",
        ),
        (
            "repos:\n  - repo: x\n    hooks:\n      - id: y\n",
            "  - repo: local\n    hooks:\n      - id: claude-md-check\n        name: Claude Code",
        ),
        (
            "repos:\n    -   repo: x\n        hooks:\n        -   id: y\n",
            "    -   repo: local\n        hooks:\n        -   id: claude-md-check\n"
            "            name: Claude Code",
        ),
    ],
)
def test_pre_commit_entries_follow_the_existing_layout(source: str, expected: str) -> None:
    edited = splice_hook(source, rules_for("project", "python", None))
    assert edited.startswith(source)
    assert expected in edited[len(source) :]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_declared_formatters(tmp_path: Path) -> None:
    checkout = _write(
        tmp_path,
        {
            "build.gradle": "plugins { id 'com.diffplug.spotless' }\n"
            "spotless { groovyGradle { greclipse() } }\n",
            "package.json": '{"devDependencies": {"prettier": "3.3.0"}}',
            ".pre-commit-config.yaml": "repos:\n- repo: r\n  hooks:\n  - id: black\n",
        },
    )
    found = declared_formatters(
        checkout, ["build.gradle", ".github/workflows/x.yml", "tools/check.py", "notes.txt"]
    )
    assert [(f.name, f.path, f.command) for f in found] == [
        ("Spotless (greclipse)", "build.gradle", None),
        (
            "prettier",
            ".github/workflows/x.yml",
            ("prettier", "--write", "--", ".github/workflows/x.yml"),
        ),
        ("black", "tools/check.py", ("black", "--quiet", "--", "tools/check.py")),
    ]
    (checkout / "package.json").write_text("{not json")
    assert [f.name for f in declared_formatters(checkout, ["a.yml"])] == []


def test_spotless_without_gradle_script_formatting_is_not_reported(tmp_path: Path) -> None:
    checkout = _write(
        tmp_path, {"build.gradle.kts": "spotless {\n  java { googleJavaFormat() }\n}\n"}
    )
    assert declared_formatters(checkout, ["build.gradle.kts"]) == []


POM = """<project>
  <properties>
    <enforcer.version>{version}</enforcer.version>{extra}
  </properties>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-enforcer-plugin</artifactId>
        <version>${{enforcer.version}}</version>{configuration}
      </plugin>
    </plugins>
  </build>
</project>
"""


def pom(version: str = "3.5.0", extra: str = "", configuration: str = "") -> str:
    return POM.format(version=version, extra=extra, configuration=configuration)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (
            pom(configuration="\n        <configuration><skip>true</skip></configuration>"),
            "<skip>true</skip>",
        ),
        (
            pom(
                extra="\n    <skip.checks>true</skip.checks>",
                configuration="\n        <configuration><skip>${skip.checks}</skip>"
                "</configuration>",
            ),
            "<skip>${skip.checks}</skip> with skip.checks=true",
        ),
        (pom(extra="\n    <enforcer.skip>true</enforcer.skip>"), "the property enforcer.skip=true"),
    ],
)
def test_a_switched_off_enforcer_is_refused_with_its_reason(source: str, reason: str) -> None:
    with pytest.raises(PomError, match="is switched off") as caught:
        splice_guard(source, RULES, "1.2.0")
    assert f"({reason})" in str(caught.value)


def test_an_explicit_skip_false_wins_over_the_property() -> None:
    source = pom(
        extra="\n    <enforcer.skip>true</enforcer.skip>",
        configuration="\n        <configuration><skip>false</skip></configuration>",
    )
    assert "enforce-claude-md" in splice_guard(source, RULES, "1.2.0")


@pytest.mark.parametrize(
    ("skip", "plugin"),
    [("enforcer.skip", "maven-enforcer-plugin"), ("exec.skip", "exec-maven-plugin")],
)
def test_an_installed_but_skipped_guard_is_not_installed(
    tmp_path: Path, skip: str, plugin: str
) -> None:
    guarded = splice_guard(pom(), RULES, "1.2.0")
    (tmp_path / "pom.xml").write_text(guarded)
    assert not is_guard_installed(tmp_path, "maven"), "the checker script the build runs is missing"
    install_script(tmp_path)
    assert is_guard_installed(tmp_path, "maven")
    skipped = guarded.replace("<properties>", f"<properties>\n    <{skip}>true</{skip}>", 1)
    (tmp_path / "pom.xml").write_text(skipped)
    assert not is_guard_installed(tmp_path, "maven")
    with pytest.raises(PomError, match=f"{plugin} in build/plugins is switched off"):
        splice_guard(skipped, RULES, "1.2.0")


def test_an_enforcer_version_property_is_resolved(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"version 3\.0\.0 \(from \$\{enforcer.version\}\)"):
        splice_guard(pom(version="3.0.0"), RULES, "1.2.0")
    (tmp_path / "pom.xml").write_text(pom())
    assert guard_notes(tmp_path, "maven") == []
    (tmp_path / "pom.xml").write_text(
        pom().replace("<enforcer.version>3.5.0</enforcer.version>", "")
    )
    [note] = guard_notes(tmp_path, "maven")
    assert "${enforcer.version}, which pom.xml does not define" in note
    assert guard_notes(tmp_path, "gradle") == []


def test_excerpt_strips_ansi_and_keeps_the_end() -> None:
    output = "\x1b[31mred\x1b[0m\n" + "".join(f"line {i}\n" for i in range(40)) + "50%\r100%\r\n"
    shown = excerpt(output + "https://u:s3cret@host/x\n", lines=5)
    assert shown.startswith("[... 38 earlier lines omitted ...]\n")
    assert "\x1b" not in shown
    assert shown.splitlines()[-2:] == ["100%", "https://***@host/x"]
    assert excerpt("\x1b]0;title\x07ok") == "ok"


def test_formatter_declarations_behind_outside_symlinks_are_ignored(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "package.json").write_text('{"prettier": {}}')
    (outside / "build.gradle").write_text("spotless { groovyGradle { greclipse() } }\n")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".prettierrc").symlink_to(outside / "package.json")
    (checkout / "package.json").symlink_to(outside / "package.json")
    (checkout / "build.gradle").symlink_to(outside / "build.gradle")
    assert declared_formatters(checkout, ["build.gradle", "a.yml"]) == []
