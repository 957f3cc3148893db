"""What ``claude-adopt`` does: the batch command line over the adoption pipeline (the entry
point, :mod:`adopt_server.cli`, imports this once the line asks for more than help).

Exit status: 0 every repository succeeded, 1 at least one failed, 2 bad usage or input
(refused before anything is cloned or written).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_common import mask_credentials, package_version
from mcp_common.usage import UsageParser

from adopt_server import DISTRIBUTION
from adopt_server.guards.budget import DEFAULT_MAX_LINES, LINE_BUDGET_RANGE
from adopt_server.pipeline import (
    AdoptionOptions,
    OptionsError,
    batch_json,
    check_repositories,
    default_workspace,
    prepare_workspace,
    validate_options,
)
from adopt_server.pipeline.campaign import (
    MAX_PRS_PER_HOUR,
    CampaignControls,
    CampaignError,
    CampaignState,
    list_org_repositories,
    read_url_list,
    run_campaign,
)
from adopt_server.pipeline.options import (
    DEFAULT_BODY,
    DEFAULT_BRANCH,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_MINUTES,
    DEFAULT_TITLE,
    MAX_PARALLEL,
    MAX_RETRIES,
    MAX_TIMEOUT_MINUTES,
)
from adopt_server.pipeline.runner import CommandRunner
from adopt_server.pipeline.status import adoption_status
from adopt_server.pipeline.urls import RepositoryUrlError, parse_repository_url

_log = logging.getLogger("claude-adopt")

EXAMPLES = """\
examples:
  claude-adopt https://github.com/owner/repo.git
  claude-adopt https://github.com/o/a.git git@github.com:o/b.git --parallel 4
  claude-adopt --repos repos.txt --workspace ~/adoptions --report report.json --dry-run
  claude-adopt --org my-org --canary 3 --max-prs-per-hour 20 --state campaign.json
  claude-adopt --status --state campaign.json
  claude-adopt --verify-only --repos repos.txt
  claude-adopt --reviewer alice --label claude --draft https://github.com/owner/repo.git

Every positional argument is a repository URL. The older form URL WORKSPACE [BRANCH] is
still read when the later words are not repositories (a URL or an existing git repository).
--repos FILE holds one URL a line; blank lines and lines starting with # are skipped.
--state FILE records each repository as it finishes; run the same command again to resume
(repositories already adopted are skipped). --status lists, per repository, whether the
branch is pushed and the state of its pull request and checks (via git and gh).
Credentials in URLs are masked in every log line, error and report, and never written to
.git/config. Exit status: 0 all adopted, 1 some failed, 2 bad usage.
"""


def _bounded(name: str, unit: str, minimum: int, maximum: int, default: int) -> Any:
    def parse(value: str) -> int:
        text = value.strip()
        if not text:
            return default
        digits = text[1:] if text[:1] in "+-" else text
        if not digits.isdigit() or not digits.isascii() or len(digits) > 9:
            raise argparse.ArgumentTypeError(f"{name} takes a whole number of {unit}, not {text!r}")
        number = int(text)
        if not minimum <= number <= maximum:
            raise argparse.ArgumentTypeError(
                f"{name} must be between {minimum} and {maximum} {unit} but was {number}"
            )
        return number

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The ``claude-adopt`` argument parser."""
    parser = UsageParser(
        prog="claude-adopt",
        description="Adopt Claude Code into repositories: clone, branch, generate and conform "
        "CLAUDE.md, wire a CLAUDE.md guard into the build, verify, push and open a pull "
        "request.",
        epilog=EXAMPLES,
    )
    parser.add_argument(
        "positionals",
        nargs="*",
        metavar="URL",
        help="repository URLs to adopt (or the older URL WORKSPACE [BRANCH])",
    )
    parser.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="URL",
        help="a repository to adopt (repeatable)",
    )
    parser.add_argument(
        "--repos",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of repository URLs, one a line (repeatable)",
    )
    parser.add_argument(
        "--org",
        action="append",
        default=[],
        metavar="OWNER",
        help="adopt every repository of a GitHub user or organisation that is neither "
        "archived nor a fork, as `gh repo list` sees them (repeatable)",
    )
    parser.add_argument(
        "--canary",
        type=_bounded("--canary", "repositories", 1, 10_000, 0),
        default=0,
        metavar="N",
        help="adopt the first N repositories first and stop unless every one succeeds",
    )
    parser.add_argument(
        "--max-prs-per-hour",
        type=_bounded("--max-prs-per-hour", "pull requests", 1, MAX_PRS_PER_HOUR, 0),
        default=None,
        metavar="N",
        help="open at most N pull requests an hour, evenly spaced",
    )
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="campaign state file: written as repositories finish, read to resume",
    )
    parser.add_argument(
        "--close-stale",
        action="store_true",
        help="close the branch's open pull request when nothing is left to change",
    )
    parser.add_argument(
        "--status",
        action="store_true",
        help="only list each repository's adoption status (branch, pull request, checks)",
    )
    parser.add_argument(
        "--workspace",
        metavar="DIR",
        help="directory to clone into (default: a new claude-adopt-* temp dir)",
    )
    parser.add_argument("--branch", help=f"feature branch (default {DEFAULT_BRANCH})")
    parser.add_argument("--title", help=f"pull request title (default {DEFAULT_TITLE!r})")
    parser.add_argument("--body", help="pull request body")
    parser.add_argument(
        "--reviewer",
        action="append",
        default=[],
        metavar="USER",
        help="pull request reviewer (repeatable)",
    )
    parser.add_argument(
        "--label", action="append", default=[], help="pull request label (repeatable)"
    )
    parser.add_argument(
        "--assignee",
        action="append",
        default=[],
        metavar="USER",
        help="pull request assignee (repeatable)",
    )
    parser.add_argument("--draft", action="store_true", help="open a draft pull request")
    parser.add_argument(
        "--assets", action="store_true", help="also add starter Claude Code assets where absent"
    )
    parser.add_argument(
        "--rule-version",
        metavar="VERSION",
        help="released claude-code-enforcer version pinned into a Maven POM",
    )
    parser.add_argument(
        "--rules",
        default="project",
        metavar="{minimal,project}",
        help="CLAUDE.md rule set the guard enforces (default project)",
    )
    parser.add_argument(
        "--section",
        action="append",
        default=None,
        metavar="HEADING",
        help="CLAUDE.md heading the guard requires, e.g. '## Testing' "
        "(repeatable; default: the build system's own)",
    )
    parser.add_argument(
        "--max-lines",
        metavar="N",
        default=DEFAULT_MAX_LINES,
        type=_bounded("--max-lines", "lines", *LINE_BUDGET_RANGE, DEFAULT_MAX_LINES),
        help="line budget of CLAUDE.md and AGENTS.md, "
        f"{LINE_BUDGET_RANGE[0]}..{LINE_BUDGET_RANGE[1]} (default {DEFAULT_MAX_LINES})",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="do everything but push and open the pull request"
    )
    parser.add_argument(
        "--verify-only",
        action="store_true",
        help="only verify that the repositories are adopted (reads only)",
    )
    parser.add_argument(
        "--keep-workspace",
        action="store_true",
        help="keep successful checkouts (failed ones are always kept)",
    )
    parser.add_argument(
        "--parallel",
        type=_bounded("--parallel", "repositories", 1, MAX_PARALLEL, 1),
        default=1,
        metavar="N",
        help=f"repositories at once, 1..{MAX_PARALLEL}",
    )
    parser.add_argument(
        "--timeout",
        metavar="MINUTES",
        default=DEFAULT_TIMEOUT_MINUTES,
        type=_bounded("--timeout", "minutes", 1, MAX_TIMEOUT_MINUTES, DEFAULT_TIMEOUT_MINUTES),
        help=f"timeout per external command (default {DEFAULT_TIMEOUT_MINUTES})",
    )
    parser.add_argument(
        "--retries",
        metavar="N",
        default=DEFAULT_RETRIES,
        type=_bounded("--retries", "attempts", 0, MAX_RETRIES, DEFAULT_RETRIES),
        help=f"retries of transient git/gh failures (default {DEFAULT_RETRIES})",
    )
    parser.add_argument(
        "--report", metavar="FILE", help="write the JSON report here (also when something failed)"
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")
    parser.add_argument(
        "--version", action="version", version=f"claude-adopt {package_version(DISTRIBUTION)}"
    )
    return parser


def _read_repos_file(parser: argparse.ArgumentParser, name: str) -> list[str]:
    if not name.strip():
        parser.error("--repos must not be blank")
    try:
        text = Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        parser.error(f"Could not read the repository URL list: {name}")
    try:
        return read_url_list(text, name)
    except CampaignError as error:
        parser.error(str(error))


def _has_owner(text: str) -> bool:
    try:
        return parse_repository_url(text).slug is not None
    except RepositoryUrlError:
        return False


def _is_repository(text: str) -> bool:
    """Whether a positional word names a repository: a remote URL, or a local path that is a
    git repository (a work tree or a bare one)."""
    try:
        url = parse_repository_url(text)
    except RepositoryUrlError:
        return False
    if url.kind != "local":
        return True
    path = Path(text).expanduser()
    return (path / ".git").exists() or (path / "HEAD").is_file()


def _split_positionals(
    parser: argparse.ArgumentParser, positionals: list[str]
) -> tuple[list[str], str | None, str | None]:
    """The repositories, the workspace and the branch the positional words name."""
    if len(positionals) <= 1:
        return positionals, None, None
    repository = [_is_repository(word) for word in positionals]
    if all(repository):
        return positionals, None, None
    if len(positionals) <= 3 and repository[0] and not any(repository[1:]):
        rest = positionals[1:]
        return positionals[:1], rest[0], rest[1] if len(rest) > 1 else None
    others = [w for w, is_repo in zip(positionals, repository, strict=True) if not is_repo]
    parser.error(
        f"unrecognized arguments: {' '.join(others)} (every positional argument is a "
        "repository URL, and these are neither URLs nor git repositories; name the workspace "
        "with --workspace and the branch with --branch)"
    )


def _repositories(
    parser: argparse.ArgumentParser, args: argparse.Namespace, runner: CommandRunner
) -> list[str]:
    positionals: list[str] = args.positionals
    named = [r for r in args.repo if r.strip()]
    for name in args.repos:
        named += _read_repos_file(parser, name)
    if positionals and named and not _has_owner(positionals[0]) and len(positionals) == 1:
        parser.error(
            f"The first argument is read as a repository URL, but {positionals[0]} names no "
            "repository owner. Name the workspace with --workspace, or the repository with --repo."
        )
    for owner in args.org:
        try:
            named += list_org_repositories(owner.strip(), runner, Path.cwd())
        except CampaignError as error:
            parser.error(str(error))
    urls: list[str] = [*args.urls, *named]
    if not [u for u in urls if u.strip()]:
        parser.error("name at least one repository (a URL, --repo, --repos or --org)")
    return urls


def _options(args: argparse.Namespace) -> AdoptionOptions:
    branch = args.branch if args.branch is not None else args.positional_branch
    sections = None if args.section is None else tuple(args.section)
    return AdoptionOptions(
        branch=(branch or "").strip() or DEFAULT_BRANCH,
        title=(args.title or "").strip() or DEFAULT_TITLE,
        body=(args.body or "").strip() or DEFAULT_BODY,
        reviewers=tuple(v.strip() for v in args.reviewer if v.strip()),
        labels=tuple(v.strip() for v in args.label if v.strip()),
        assignees=tuple(v.strip() for v in args.assignee if v.strip()),
        draft=args.draft,
        assets=args.assets,
        rule_version=args.rule_version.strip() or None if args.rule_version else None,
        rules=args.rules,
        sections=sections,
        dry_run=args.dry_run,
        verify_only=args.verify_only,
        keep_workspace=args.keep_workspace,
        parallel=args.parallel,
        timeout_seconds=60.0 * args.timeout,
        retries=args.retries,
        close_stale=args.close_stale,
        max_lines=args.max_lines,
    )


def _write_report(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    _log.info("Wrote the adoption report to %s", path)


def _asks_for_help(parser: argparse.ArgumentParser, words: Sequence[str]) -> bool:
    """``-h``/``--help`` anywhere except the value slot of an option wins over every other
    problem on the line (``--title -h`` is a title, not a request for help)."""
    takes_value = {
        flag
        for action in parser._actions
        if action.option_strings and action.nargs is None
        for flag in action.option_strings
    }
    for index, word in enumerate(words):
        if word == "--":
            return False
        if word in ("-h", "--help") and (index == 0 or words[index - 1] not in takes_value):
            return True
    return False


def _load_state(parser: argparse.ArgumentParser, name: str | None) -> CampaignState | None:
    if name is None:
        return None
    if not name.strip():
        parser.error("--state must not be blank")
    try:
        return CampaignState.load(Path(name).expanduser())
    except CampaignError as error:
        parser.error(str(error))


def _state_urls(parser: argparse.ArgumentParser, state: CampaignState) -> list[str]:
    """The repositories a state file records; it keeps masked URLs, so git and gh get them
    without the masked user part."""
    urls: list[str] = []
    for number, entry in enumerate(state.document.repositories):
        try:
            urls.append(parse_repository_url(entry.repository_url).credential_free)
        except RepositoryUrlError as error:
            parser.error(f"The campaign state {state.path}: repositories.{number}: {error}")
    return urls


def _print_status(urls: Sequence[str], options: AdoptionOptions) -> int:
    outcome = adoption_status(urls, options)
    print(json.dumps(outcome.to_wire(), indent=2))
    troubled = [s for s in outcome.repositories if s.problems]
    for status in troubled:
        _log.error("%s: %s", status.repository_url, "; ".join(status.problems))
    return 1 if troubled else 0


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, adopt, write the report; return the exit status."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if _asks_for_help(parser, words):
        parser.print_help()
        return 0
    args = parser.parse_intermixed_args(words)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        stream=sys.stderr,
        format="%(levelname)s %(message)s",
    )
    args.urls, workspace_word, args.positional_branch = _split_positionals(parser, args.positionals)
    state = _load_state(parser, args.state)
    runner = CommandRunner(timeout_seconds=60.0 * args.timeout, retries=args.retries)
    if args.status and state is not None and not (args.urls or args.repo or args.repos or args.org):
        urls = _state_urls(parser, state)
    else:
        urls = _repositories(parser, args, runner)
    workspace_text = args.workspace if args.workspace is not None else workspace_word
    try:
        options = validate_options(_options(args))
        if args.status:
            return _print_status(urls, options)
        workspace = (
            Path(workspace_text).expanduser() if workspace_text and workspace_text.strip() else None
        )
        check_repositories(urls, (workspace or Path.cwd()).absolute())
        controls = CampaignControls(
            canary=args.canary, max_prs_per_hour=args.max_prs_per_hour, state=state
        )
        workspace = prepare_workspace(workspace) if workspace else default_workspace()
    except (OptionsError, ValueError) as error:
        parser.error(str(error))
    reports = run_campaign(urls, workspace, options, controls)
    document = batch_json(reports)
    if args.report and args.report.strip():
        try:
            _write_report(Path(args.report), document)
        except OSError as error:
            _log.error("Could not write the adoption report: %s (%s)", args.report, error.strerror)
            return 1
    print(json.dumps(document, indent=2))
    failed = [r for r in reports if not r.succeeded]
    if failed:
        details = "; ".join(f"{mask_credentials(r.repository_url)}: {r.failure}" for r in failed)
        _log.error(
            "Adoption failed for %d of %d repositories: %s", len(failed), len(reports), details
        )
        return 1
    return 0
