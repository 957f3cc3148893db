"""The guidance is asked for, section by section, and only real guidance lands (issue 25).

Real git against local bare repositories; the fake ``claude`` on the PATH behaves like the real
one: headless ``/init`` writes a CLAUDE.md with its own headings, only with an edit permission
mode, and a later prompt naming a file and headings is followed by writing those headings with
real-looking content (or, by mode, ignored, half followed, or answered badly).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from adopt_server.guards.builds.maven import JAVA_SECTIONS
from adopt_server.pipeline import AdoptionOptions, RepositoryReport, adopt_repositories
from adopt_testkit import FAKES, GOOD_AGENTS_MD, git, log_lines, make_bare_repository
from agent_config_check.document_format import section_lines, unwritten_sections
from agent_config_check.rule_sets import AGENTS_MD_SECTIONS
from conftest import AdoptEnv, isolated_env

BRANCH = "claude/adopt-claude-code"
CHECKER = Path(sys.executable).parent / "claude-md-check"
BUILD = "## Build, test, and run"
# what each kind of repository builds and tests with, as the adoption detects it
COMMANDS = {
    "maven": "mvn verify",
    "gradle": "gradle build",
    "python": "python -m pip install .",
    "plain": None,
}
PLACEHOLDER = re.compile(r"Not documented yet|replace this line|^\s*(?:TODO|TBD)\b", re.M)


def fast(**overrides: Any) -> AdoptionOptions:
    return AdoptionOptions(**{"backoff_unit": 0.001, "timeout_seconds": 60.0, **overrides})


def adopt(env: AdoptEnv, remote: Path, **overrides: Any) -> RepositoryReport:
    [report] = adopt_repositories([str(remote)], env.workspace, fast(**overrides))
    return report


def prompts(env: AdoptEnv) -> list[str]:
    """Every prompt but /init the fake claude received, in order."""
    folder = env.state / "prompts"
    return [p.read_text("utf-8") for p in sorted(folder.glob("*.txt"))] if folder.is_dir() else []


def headings_of(prompt: str, file: str) -> list[str]:
    """The heading lines a prompt lists for ``file`` (its block starts with ``<file>:``)."""
    found: list[str] = []
    current = None
    for line in prompt.splitlines():
        match = re.match(r"^([\w.-]+\.md):", line)
        if match:
            current = match[1]
        elif current == file and re.match(r"^#{2,6} \S", line):
            found.append(line)
    return found


def required(kind: str) -> dict[str, tuple[str, ...]]:
    files = {"AGENTS.md": AGENTS_MD_SECTIONS}
    if kind == "maven":
        files["CLAUDE.md"] = JAVA_SECTIONS
    return files


def checker_passes(env: AdoptEnv, remote: Path, kind: str) -> subprocess.CompletedProcess[str]:
    """``claude-md-check`` (the installed command) on a fresh clone of the pushed branch."""
    clone = env.root / f"check-{kind}"
    git(env.root, "clone", "-q", "--branch", BRANCH, str(remote), str(clone))
    sections = [arg for s in required(kind).get("CLAUDE.md", ()) for arg in ("--section", s)]
    return subprocess.run(
        [str(CHECKER), *sections], cwd=clone, capture_output=True, text=True, check=False
    )


def test_the_fake_claude_writes_like_the_real_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "pom.xml").write_text("<project/>\n")
    claude = str(FAKES / "bin" / "claude")
    environment = {**os.environ, "FAKE_STATE": str(tmp_path)}

    def run(*args: str, cwd: Path = repo) -> str:
        done = subprocess.run(
            [claude, *args], cwd=cwd, env=environment, capture_output=True, text=True, check=True
        )
        return done.stdout

    assert "permission" in run("-p", "/init"), "headless /init writes only with an edit mode"
    assert not (repo / "CLAUDE.md").exists()
    run("-p", "/init", "--permission-mode", "acceptEdits", cwd=repo / "src")
    written = (repo / "CLAUDE.md").read_text()
    assert not (repo / "src" / "CLAUDE.md").exists(), "written at the git root"
    assert [line for line in written.splitlines() if line.startswith("## ")] == [
        "## Project Overview",
        "## Common Commands",
        "## Architecture",
    ]
    prompt = (
        "NOTES.md: give it these sections:\n\n## Build, test, and run\n## Releasing\n\n"
        "Name the command `mvn verify`."
    )
    run("-p", prompt)
    assert not (repo / "NOTES.md").exists()
    run("-p", prompt, "--permission-mode", "acceptEdits")
    notes = (repo / "NOTES.md").read_text()
    assert unwritten_sections(notes, [BUILD, "## Releasing"]) == []
    assert "mvn verify" in "\n".join(section_lines(notes, BUILD))


@pytest.mark.parametrize("kind", ["maven", "gradle", "python", "plain"])
def test_guidance_is_asked_for_section_by_section_and_lands(adopt_env: AdoptEnv, kind: str) -> None:
    remote = adopt_env.remote(kind)
    report = adopt(adopt_env, remote)
    assert report.succeeded, report.failure
    assert "guidance" in report.completed_steps
    [prompt] = prompts(adopt_env)
    for file, sections in required(kind).items():
        # every required heading verbatim, on a line of its own, under the file's name
        assert headings_of(prompt, file) == list(sections)
        text = git(remote, "show", f"{BRANCH}:{file}")
        assert unwritten_sections(text, sections) == [], text
        assert not PLACEHOLDER.search(text), text
    assert "Build system: " in prompt
    assert "Guard: " in prompt
    command = COMMANDS[kind]
    agents = git(remote, "show", f"{BRANCH}:AGENTS.md")
    if command:
        assert f"Build and test command: `{command}`" in prompt
        assert command in "\n".join(section_lines(agents, BUILD))
    else:
        assert "Build and test command: none found" in prompt
    assert len(agents.encode()) <= 32 * 1024
    assert len(agents.splitlines()) <= 300
    claude_md = git(remote, "show", f"{BRANCH}:CLAUDE.md")
    assert not PLACEHOLDER.search(claude_md)
    checked = checker_passes(adopt_env, remote, kind)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("kind", ["maven", "gradle", "python", "plain"])
def test_claude_ignoring_the_request_fails_naming_every_section_and_pushes_nothing(
    adopt_env: AdoptEnv, kind: str
) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_PROMPTS="ignore")
    remote = adopt_env.remote(kind)
    report = adopt(adopt_env, remote)
    assert report.failure is not None
    assert report.failure.startswith("guidance: claude was asked twice but did not write")
    assert report.completed_steps[-1] == "conform"
    first, again = prompts(adopt_env)
    for file, sections in required(kind).items():
        text = (adopt_env.workspace / kind / file).read_text()
        unwritten = [gap.heading for gap in unwritten_sections(text, sections)]
        assert unwritten, f"{file}: /init covered every section?"
        for section in unwritten:
            assert f"{section} " in report.failure
        assert headings_of(first, file) == list(sections)
        assert headings_of(again, file) == unwritten, "the second request names only those"
    assert "Nothing was pushed and no pull request was opened" in report.failure
    assert f"--workspace {adopt_env.workspace}" in report.failure
    assert git(remote, "branch", "--list").split() == ["*", "main"], "nothing was pushed"
    assert not [c for c in log_lines(adopt_env.log, "gh") if c.startswith("pr ")]
    checkout = adopt_env.workspace / kind
    assert checkout.is_dir(), "the checkout is kept"

    # Continuing as the message says: write the sections in the kept checkout, adopt again.
    for file, sections in required(kind).items():
        text = (checkout / file).read_text()
        for section in sections:
            text = text.replace(
                f"{section}\n\n_Not documented yet — replace this line with the project's own "
                "guidance._",
                f"{section}\n\nWritten by hand: see `make check` and `{COMMANDS[kind] or 'git'}`.",
            )
        if file == "AGENTS.md" and COMMANDS[kind] and f"{BUILD}\n\nWritten" not in text:
            text = text.replace(f"{BUILD}\n", f"{BUILD}\n\nRun `{COMMANDS[kind]}`.\n", 1)
        (checkout / file).write_text(text)
    again_report = adopt(adopt_env, remote)
    assert again_report.succeeded, again_report.failure
    assert len(prompts(adopt_env)) == 2, "nothing was left to ask claude"
    assert "Written by hand" in git(remote, "show", f"{BRANCH}:AGENTS.md")


@pytest.mark.parametrize("kind", ["maven", "gradle", "python", "plain"])
def test_partly_written_guidance_is_asked_again_for_exactly_the_rest(
    adopt_env: AdoptEnv, kind: str
) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_PROMPTS="partial")
    remote = adopt_env.remote(kind)
    report = adopt(adopt_env, remote)
    assert report.succeeded, report.failure
    first, again = prompts(adopt_env)
    for file, sections in required(kind).items():
        assert headings_of(first, file) == list(sections)
        # the fake wrote the first three, left "TBD." under the fourth and skipped the rest
        assert headings_of(again, file) == list(sections[3:])
        assert unwritten_sections(git(remote, "show", f"{BRANCH}:{file}"), sections) == []
    assert f'"{sections[3]}" holds only placeholder text' in again


@pytest.mark.parametrize("kind", ["maven", "gradle", "python", "plain"])
def test_adopting_an_adopted_repository_again_changes_nothing(
    adopt_env: AdoptEnv, kind: str, tmp_path: Path
) -> None:
    remote = adopt_env.remote(kind)
    assert adopt(adopt_env, remote).succeeded
    tip = git(remote, "rev-parse", BRANCH)
    asked = len(log_lines(adopt_env.log, "claude"))
    [again] = adopt_repositories([str(remote)], tmp_path / "fresh", fast())
    assert again.succeeded, again.failure
    assert git(remote, "rev-parse", BRANCH) == tip
    calls = log_lines(adopt_env.log, "claude")[asked:]
    assert [c for c in calls if c.startswith("-p")] == [], "claude was not asked again"


BAD = {
    # FAKE_CLAUDE_MODE (/init) or FAKE_CLAUDE_PROMPTS (the guidance request): the failure
    "init:fail": "claude-init: claude-init failed (exit 1) running: claude -p /init",
    "init:elsewhere": "claude-init: claude changed files it was not asked to write: docs/CLAUDE.md",
    "init:symlink": "claude-init: ",
    "init:extra": "claude-init: claude changed files it was not asked to write: .mcp.json",
    "init:gitconfig": "claude-init: claude changed the checkout's git configuration or hooks",
    "prompts:extra": "guidance: claude changed files it was not asked to write: .mcp.json",
    "prompts:gitconfig": "guidance: claude changed the checkout's git configuration or hooks",
    "prompts:fail": "guidance: guidance failed (exit 1) running: claude -p <guidance prompt>",
    "prompts:ignore": "guidance: claude was asked twice but did not write",
    "prompts:elsewhere": "guidance: claude changed files it was not asked to write: docs/AGENTS.md",
    "prompts:symlink": "guidance: claude left AGENTS.md as a symlink",
}


@pytest.mark.parametrize("bad", list(BAD))
def test_a_misbehaving_claude_fails_only_its_repository(adopt_env: AdoptEnv, bad: str) -> None:
    which, mode = bad.split(":")
    variable = "FAKE_CLAUDE_MODE" if which == "init" else "FAKE_CLAUDE_PROMPTS"
    adopt_env.claude_env(**{variable: mode, "FAKE_CLAUDE_ONLY": "victim"})
    remotes = [
        adopt_env.remote("maven", "first"),
        adopt_env.remote("python", "victim"),
        adopt_env.remote("plain", "last"),
    ]
    reports = adopt_repositories([str(r) for r in remotes], adopt_env.workspace, fast(retries=0))
    assert [r.succeeded for r in reports] == [True, False, True], [r.failure for r in reports]
    failure = reports[1].failure or ""
    assert failure.startswith(BAD[bad]), failure
    assert "s3cret" not in failure
    if mode == "symlink":
        assert "outside" in failure or "symlink" in failure
    assert not list(adopt_env.root.rglob("fsmonitor-ran")), "git ran claude's command"
    assert git(remotes[1], "branch", "--list").split() == ["*", "main"], "nothing was pushed"
    for remote in (remotes[0], remotes[2]):
        assert BRANCH in git(remote, "branch", "--list")


GUARD_COMMANDS = {
    # how each project's own guard runs (the fake mvn/gradle do what the wired guard does)
    "maven": ["mvn", "-q", "-N", "validate"],
    "gradle": ["gradle", "-q", "enforceClaudeMd"],
    "python": [sys.executable, ".github/agent-config-check.py"],
    "plain": [sys.executable, ".github/agent-config-check.py"],
}
STUB = "_Not documented yet — replace this line with the project's own guidance._"
# what `claude-md-check` rejects as a placeholder section, the adoption's own stub and the rest
PLACEHOLDERS = {
    "stub": STUB,
    "todo": "TODO",
    "tbd": "TBD.",
    "todo-item": "- TODO: describe how releases are made",
    "fixme": "**FIXME**",
    "ellipsis": "...",
}
# real guidance that merely mentions placeholder words: no guard may reject it
REAL = (
    "Releases are cut from `main`; the test fixtures hold Lorem ipsum text, and a TODO or "
    "FIXME comment in the code is fine until the release."
)


@pytest.fixture(scope="session")
def adopted(
    tmp_path_factory: pytest.TempPathFactory, repository_templates: dict[str, Path]
) -> Callable[[str], Path]:
    """``adopted(kind)``: a bare repository of ``kind`` with its adoption pushed, made once per
    test process when first asked for (each test below would otherwise adopt the same
    repository again before changing its copy)."""
    made: dict[str, Path] = {}

    def adopted(kind: str) -> Path:
        if kind not in made:
            root = tmp_path_factory.mktemp(f"adopted-{kind}")
            with pytest.MonkeyPatch.context() as monkeypatch:
                env = isolated_env(root, monkeypatch, repository_templates)
                remote = env.remote(kind)
                report = adopt(env, remote)
            assert report.succeeded, report.failure
            made[kind] = remote
        return made[kind]

    return adopted


def adopted_clone(env: AdoptEnv, kind: str, adopted: Callable[[str], Path]) -> tuple[Path, Path]:
    """A copy of an adopted repository whose adoption is merged, and a clone of its default
    branch."""
    remote = env.remotes / f"{kind}.git"
    shutil.copytree(adopted(kind), remote)
    git(remote, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")  # "merge" it
    clone = env.root / "clone"
    git(env.root, "clone", "-q", str(remote), str(clone))
    return remote, clone


def run_guard(kind: str, clone: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        GUARD_COMMANDS[kind], cwd=clone, capture_output=True, text=True, check=False
    )


def with_releasing(clone: Path, text: str) -> None:
    agents = (clone / "AGENTS.md").read_text()
    body = "\n".join(section_lines(agents, "## Releasing"))
    (clone / "AGENTS.md").write_text(agents.replace(body, text, 1))


@pytest.mark.parametrize("placeholder", list(PLACEHOLDERS))
@pytest.mark.parametrize("kind", ["maven", "gradle", "python", "plain"])
def test_one_rule_for_every_guard_a_placeholder_fails_maven_too(
    adopt_env: AdoptEnv, adopted: Callable[[str], Path], kind: str, placeholder: str
) -> None:
    remote, clone = adopted_clone(adopt_env, kind, adopted)
    guard = run_guard(kind, clone)
    assert guard.returncode == 0, guard.stdout + guard.stderr
    with_releasing(clone, PLACEHOLDERS[placeholder])
    git(clone, "commit", "-qam", "someone left a placeholder")
    git(clone, "push", "-q", "origin", "HEAD:main")

    checker = subprocess.run([str(CHECKER)], cwd=clone, capture_output=True, text=True, check=False)
    assert checker.returncode == 1, "claude-md-check rejects the placeholder"
    [verified] = adopt_repositories(
        [str(remote)], adopt_env.root / "verify", fast(verify_only=True)
    )
    assert verified.failure is not None
    assert "AGENTS.md section '## Releasing' holds only placeholder text" in verified.failure
    guard = run_guard(kind, clone)
    assert guard.returncode == 1, f"the {kind} guard let the placeholder through"
    assert "AGENTS.md section '## Releasing' holds only placeholder text" in guard.stdout, (
        guard.stdout
    )


@pytest.mark.parametrize("kind", ["maven", "gradle", "python", "plain"])
def test_real_guidance_that_mentions_placeholder_words_passes_every_guard(
    adopt_env: AdoptEnv, adopted: Callable[[str], Path], kind: str
) -> None:
    _, clone = adopted_clone(adopt_env, kind, adopted)
    with_releasing(clone, REAL)
    checker = subprocess.run([str(CHECKER)], cwd=clone, capture_output=True, text=True, check=False)
    assert checker.returncode == 0, checker.stdout
    guard = run_guard(kind, clone)
    assert guard.returncode == 0, guard.stdout + guard.stderr


def test_the_line_budget_is_the_adoptions_option_held_by_every_part(adopt_env: AdoptEnv) -> None:
    """``--max-lines`` (``maxLines``): claude is asked to stay under it, the committed
    checker configuration holds it, so the guard rejects a longer AGENTS.md on the branch."""
    remote = adopt_env.remote("gradle")
    done = subprocess.run(
        [
            str(CHECKER.parent / "claude-adopt"),
            str(remote),
            "--workspace",
            str(adopt_env.workspace),
            "--max-lines",
            "60",
        ],
        cwd=adopt_env.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [prompt] = prompts(adopt_env)
    assert "under 60 lines" in prompt
    config = git(remote, "show", f"{BRANCH}:.claude/agent-config-check.json")
    assert '"maxLines": 60' in config
    git(remote, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")  # "merge" it
    clone = adopt_env.root / "clone"
    git(adopt_env.root, "clone", "-q", str(remote), str(clone))
    agents = (clone / "AGENTS.md").read_text()
    assert len(agents.splitlines()) <= 60
    grown = agents + "".join(f"- note {n}\n" for n in range(61 - len(agents.splitlines())))
    (clone / "AGENTS.md").write_text(grown)
    guard = run_guard("gradle", clone)
    assert guard.returncode == 1
    assert f"AGENTS.md has {len(grown.splitlines())} lines, over the 60-line budget" in guard.stdout


def test_guidance_over_the_line_budget_is_asked_again_then_fails_with_the_resume_command(
    adopt_env: AdoptEnv,
) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_PROMPTS="ignore")
    long = GOOD_AGENTS_MD + "".join(f"- a detail, {n}\n" for n in range(30))
    remote = make_bare_repository(
        adopt_env.remotes, "long", {"pyproject.toml": "[project]\nname = 'x'\n", "AGENTS.md": long}
    )
    report = adopt(adopt_env, remote, max_lines=40, sections=("## Usage",))
    assert report.failure is not None
    lines = len(long.splitlines())
    assert f"AGENTS.md: the file has {lines} lines and" in report.failure
    assert "over the budget of 40 lines" in report.failure
    first, again = prompts(adopt_env)
    assert "under 40 lines" in first
    assert f"it has {lines} lines" in again
    rerun = f"--workspace {adopt_env.workspace} --section '## Usage' --max-lines 40"
    assert rerun in report.failure
    assert git(remote, "branch", "--list").split() == ["*", "main"], "nothing was pushed"
