"""Guards are plugins: a build system is one module implementing ``BuildGuard`` and one line
in the registry, and no code outside the guard package names one."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import adopt_server
import pytest
from adopt_server.conformance import claude_md_importing_agents_md, rules_for
from adopt_server.guards import (
    BuildCommand,
    build_command,
    builds,
    detect_build,
    guard_gaps,
    guard_notes,
    guard_paths,
    guard_summary,
    install_guard,
    is_guard_installed,
    written_paths,
)
from adopt_server.guards.check_config import CONFIG
from adopt_server.guards.checker_script import SCRIPT
from adopt_server.pipeline import AdoptionOptions, adopt_repositories
from adopt_testkit import GOOD_AGENTS_MD, git, make_bare_repository
from conftest import AdoptEnv
from sbt_guard import GUARD as SBT
from sbt_guard import TASK

SOURCES = Path(adopt_server.__file__).parent
GUARD_PACKAGE = SOURCES / "guards"


@pytest.fixture
def sbt_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    # the one registry line: before the fallback, which applies to every checkout
    monkeypatch.setattr(builds, "GUARDS", (*builds.GUARDS[:-1], SBT, builds.GUARDS[-1]))


@pytest.mark.usefixtures("sbt_registered")
def test_a_registered_guard_is_detected_installed_and_checked(tmp_path: Path) -> None:
    (tmp_path / "build.sbt").write_text('name := "sample"\n', encoding="utf-8")
    assert detect_build(tmp_path) == "sbt"
    assert guard_paths("sbt") == [TASK, SCRIPT, CONFIG, ".gitignore"]
    assert TASK in written_paths()
    assert rules_for("project", "sbt").sections == ("## sbt",)
    assert guard_summary("sbt") == SBT.summary
    assert build_command(tmp_path, "sbt") == BuildCommand("sbt test", ("sbt",))
    assert guard_gaps(tmp_path, "sbt") == [f"there is no {TASK}", f"{SCRIPT} is missing"]
    assert install_guard(tmp_path, "sbt", rules_for("project", "sbt"), None) == [
        TASK,
        SCRIPT,
        CONFIG,
    ]
    assert is_guard_installed(tmp_path, "sbt")
    assert install_guard(tmp_path, "sbt", rules_for("project", "sbt"), None) == []
    assert guard_notes(tmp_path, "sbt") == [f"{TASK} runs only under sbt 1.x"]
    (tmp_path / "pom.xml").write_text("<project/>\n", encoding="utf-8")
    assert detect_build(tmp_path) == "maven", "registry order is detection order"


def test_an_unregistered_guard_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "build.sbt").write_text('name := "sample"\n', encoding="utf-8")
    assert detect_build(tmp_path) == "github-actions"
    with pytest.raises(ValueError, match="Unknown build system 'sbt'"):
        guard_paths("sbt")
    assert TASK not in written_paths()


@pytest.mark.usefixtures("sbt_registered")
def test_verification_runs_through_a_registered_guard(adopt_env: AdoptEnv) -> None:
    files = {
        "build.sbt": 'name := "sample"\n',
        "AGENTS.md": GOOD_AGENTS_MD,
        "CLAUDE.md": claude_md_importing_agents_md() + "\n## sbt\n\nRun `sbt test`.\n",
    }
    remote = make_bare_repository(adopt_env.remotes, "scala", files)
    options = AdoptionOptions(verify_only=True, backoff_unit=0.001, timeout_seconds=60.0)
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, options)
    assert report.build == "sbt"
    assert report.failure is not None
    assert report.failure.endswith(
        f"is not adopted: its sbt guard: there is no {TASK}; its sbt guard: {SCRIPT} is missing."
        " Adopt it again to add what is missing (an adoption keeps what is there and adds only "
        "the missing parts)."
    )
    work = adopt_env.root / "scala-work"
    git(adopt_env.root, "clone", "-q", str(remote), str(work))
    install_guard(work, "sbt", rules_for("project", "sbt"), None)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "wire the sbt guard in")
    git(work, "push", "-q", "origin", "HEAD:refs/heads/main")
    shutil.rmtree(adopt_env.workspace / "scala")  # verify a fresh clone of the new main
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, options)
    assert report.failure is None


def _names_a_guard(path: Path, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and node.value in names:
            found.append(f"{path.name}:{node.lineno} {node.value!r}")
        imported = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            imported = [node.module or ""]
        found += [
            f"{path.name}:{node.lineno} imports {module}"
            for module in imported
            if module.startswith("adopt_server.guards.builds")
        ]
    return found


def test_no_code_outside_the_guard_package_names_a_guard() -> None:
    # the pipeline, the tools, the CLI and the rule sets ask the registry; a build name
    # compared or a guard module imported there would be a switch the registry cannot extend
    names = {guard.name for guard in builds.GUARDS}
    outside = [p for p in SOURCES.rglob("*.py") if GUARD_PACKAGE not in p.parents]
    assert len(outside) > 20
    assert [hit for path in outside for hit in _names_a_guard(path, names)] == []
