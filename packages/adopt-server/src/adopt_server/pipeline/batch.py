"""Adopting many repositories: checkout claims, parallelism, retention, reports in order."""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mcp_common import ToolError, mask_credentials

from adopt_server.guards import detect_build
from adopt_server.pipeline.context import CredentialHelper, RepoContext
from adopt_server.pipeline.options import AdoptionOptions, prepare_workspace, validate_options
from adopt_server.pipeline.report import RepositoryReport
from adopt_server.pipeline.runner import CommandRunner
from adopt_server.pipeline.steps import steps_for
from adopt_server.pipeline.trust import ProjectTrust
from adopt_server.pipeline.urls import RepositoryUrl, parse_repository_url

_log = logging.getLogger(__name__)


class Observer(Protocol):
    """Hears about progress and may ask the run to stop (checked between steps)."""

    def step_started(self, repository: int, url: str, step: str, index: int, count: int) -> None:
        """Step ``index`` (1-based) of ``count`` starts for repository number ``repository``."""

    def repository_finished(self, repository: int, report: RepositoryReport) -> None:
        """A repository is done (succeeded or not)."""

    def cancelled(self) -> bool:
        """Whether the caller wants the run to stop."""


class SilentObserver:
    """An observer that listens to nothing and never cancels."""

    def step_started(self, repository: int, url: str, step: str, index: int, count: int) -> None:
        """Ignore progress."""

    def repository_finished(self, repository: int, report: RepositoryReport) -> None:
        """Ignore completion."""

    def cancelled(self) -> bool:
        """Never cancel."""
        return False


@dataclass(frozen=True, slots=True)
class Claim:
    """A repository of the run and the checkout directory reserved for it."""

    url: RepositoryUrl
    checkout: Path


class CheckoutClaims:
    """Gives every repository of one run its own checkout directory.

    Claims are made in input order before any repository runs (see :func:`claim_all`), so
    parallel workers never race for a directory. The first repository called ``name`` clones
    into ``name``; a later one with the same name (``alice/tools`` after ``bob/tools``) into
    ``name-<8 hex digits of its identity>`` (``-2``, ``-3``... after it if a repository of
    the run is called that), stable from run to run so a re-run resumes it.
    The same repository named twice (https and ssh URLs, say) is refused: both would push
    one branch.
    """

    def __init__(self, workspace: Path) -> None:
        self._workspace = workspace
        self._owners: dict[Path, RepositoryUrl] = {}
        self._identities: dict[str, RepositoryUrl] = {}

    def claim(self, url: RepositoryUrl) -> Claim:
        """Reserve a checkout for ``url``; raise ValueError if the repository is already in."""
        same = self._identities.setdefault(url.identity, url)
        if same is not url:
            raise ValueError(
                f"Cannot adopt {url.masked} and {same.masked} in one run: both name the same "
                "repository, and both would push one branch. Name it once."
            )
        checkout = self._workspace / url.name
        if checkout in self._owners:
            digest = hashlib.sha256(url.identity.encode("utf-8")).hexdigest()[:8]
            checkout = self._workspace / f"{url.name}-{digest}"
            # anyone can name a repository ``tools-<that digest>`` (the digest of a known
            # URL is no secret): a name already claimed gets a counter, never a shared checkout
            counter = 1
            while checkout in self._owners:
                counter += 1
                checkout = self._workspace / f"{url.name}-{digest}-{counter}"
        self._owners[checkout] = url
        return Claim(url, checkout)


def unique_urls(urls: Sequence[str]) -> list[str]:
    """URLs stripped, blanks dropped, duplicates (by exact text) adopted once."""
    seen: dict[str, None] = {}
    for url in urls:
        text = url.strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def check_repositories(urls: Sequence[str], workspace: Path) -> list[RepositoryUrl]:
    """Parse every URL and detect repositories named twice up front, so an entry point can
    refuse a bad batch before anything is cloned; raises ValueError naming every problem."""
    claimed = claim_all(unique_urls(urls), workspace)
    if not claimed:
        raise ValueError("Missing required argument: give at least one repository URL")
    problems = [c for c in claimed if isinstance(c, str)]
    if problems:
        raise ValueError("; ".join(problems))
    return [c.url for c in claimed if isinstance(c, Claim)]


def adopt_repositories(
    urls: Sequence[str],
    workspace: Path,
    options: AdoptionOptions,
    observer: Observer | None = None,
    pull_request_gate: Callable[[], None] | None = None,
    only: Collection[str] | None = None,
) -> list[RepositoryReport]:
    """Adopt (or verify) every repository into ``workspace``; one report each, input order.

    One repository's failure never stops the others. ``workspace`` is created if missing.
    ``pull_request_gate`` is called before each pull request is opened (a campaign's rate
    limit blocks there). With ``only``, checkouts are still assigned over all of ``urls`` (so
    every repository keeps its directory from run to run) but only the URLs in ``only`` run
    and are reported.
    """
    options = validate_options(options)
    workspace = prepare_workspace(workspace)
    watcher = observer or SilentObserver()
    texts = unique_urls(urls)
    claimed = claim_all(texts, workspace)
    runner = CommandRunner(
        timeout_seconds=options.timeout_seconds,
        retries=options.retries,
        backoff_unit=options.backoff_unit,
    )
    started = time.monotonic()
    with CredentialHelper() as helper:

        def adopt(index: int) -> RepositoryReport:
            return _adopt_one(
                index,
                texts[index],
                claimed[index],
                workspace,
                options,
                runner,
                helper,
                watcher,
                pull_request_gate or _open,
            )

        chosen = [i for i, text in enumerate(texts) if only is None or text in only]
        if options.parallel == 1 or len(chosen) <= 1:
            reports = [adopt(i) for i in chosen]
        else:
            with ThreadPoolExecutor(max_workers=options.parallel) as pool:
                reports = list(pool.map(adopt, chosen))
    failed = [r for r in reports if not r.succeeded]
    _log.info(
        "Adopted %d of %d repositories in %.1fs",
        len(reports) - len(failed),
        len(reports),
        time.monotonic() - started,
    )
    if failed:
        _log.warning("failed: %s", ", ".join(mask_credentials(r.repository_url) for r in failed))
    return reports


def _open() -> None:
    """The gate of a run without a rate limit: never waits."""


def claim_all(texts: Sequence[str], workspace: Path) -> list[Claim | str]:
    """Each URL parsed and its checkout claimed, in input order before anything runs, so the
    later of two URLs of one repository is always the one refused; a refusal is kept as its
    message and becomes that repository's failure."""
    claims = CheckoutClaims(workspace)
    claimed: list[Claim | str] = []
    for text in texts:
        try:
            claimed.append(claims.claim(parse_repository_url(text)))
        except ValueError as error:
            claimed.append(str(error))
    return claimed


def _adopt_one(
    index: int,
    text: str,
    claimed: Claim | str,
    workspace: Path,
    options: AdoptionOptions,
    runner: CommandRunner,
    helper: CredentialHelper,
    observer: Observer,
    gate: Callable[[], None],
) -> RepositoryReport:
    report = RepositoryReport(repository_url=text, branch=options.branch)
    masked = mask_credentials(text)
    started = time.monotonic()
    try:
        if observer.cancelled():
            report.fail("cancelled before it started")
            return report
        if isinstance(claimed, str):
            report.fail(claimed)
            return report
        url, checkout = claimed.url, claimed.checkout
        if checkout.is_symlink():
            # the workspace is a real path, so only the last component can lead elsewhere
            report.fail(
                f"clone: {checkout.name} in the workspace is a symlink; symlink leads outside "
                "the checkout, and the adoption never works through one"
            )
            return report
        ctx = RepoContext(
            url=url,
            workspace=workspace,
            checkout=checkout,
            reused=(checkout / ".git").exists(),
            options=options,
            runner=runner,
            trust=ProjectTrust(checkout),
            git_env=helper.environment(url),
            log=lambda message: _log.info("%s: %s", masked, mask_credentials(message)),
            warn=report.warn,
            pull_request_gate=gate,
            closed=lambda pr: setattr(report, "closed_pull_request_url", pr),
            cancelled=observer.cancelled,
        )
        try:
            _run_steps(index, ctx, report, observer)
        finally:
            _revoke_trust(ctx)
        _retain(ctx, report)
        return report
    finally:
        report.elapsed_seconds = time.monotonic() - started
        observer.repository_finished(index, report)


def _run_steps(index: int, ctx: RepoContext, report: RepositoryReport, observer: Observer) -> None:
    steps = steps_for(ctx.options)
    masked = ctx.url.masked
    for number, step in enumerate(steps, start=1):
        if observer.cancelled():
            report.fail(f"{step.name}: cancelled")
            return
        observer.step_started(index, masked, step.name, number, len(steps))
        _log.info("%s: Step %d/%d: %s", masked, number, len(steps), step.name)
        if step.name == "clone":
            report.checkout = str(ctx.checkout)
        try:
            outcome = step.action(ctx)
        except Exception as error:  # one step's failure is the repository's, never the batch's
            message = str(error).strip() or type(error).__name__
            report.fail(f"{step.name}: {message}")
            _log.warning("%s: %s", masked, report.failure)
            return
        if outcome is not None:
            report.pull_request_url = outcome
        if step.name == "clone":
            report.build = _build_of(ctx)
        report.completed_steps.append(step.name)


def _revoke_trust(ctx: RepoContext) -> None:
    try:
        ctx.trust.revoke()
    except Exception as error:  # the run's outcome stands; the user must hear of the leftover
        _log.warning(
            "%s: the trust given to %s could not be taken back: %s",
            ctx.url.masked,
            ctx.checkout,
            mask_credentials(str(error)),
        )


def _build_of(ctx: RepoContext) -> str | None:
    """The build system, known as soon as the checkout exists so a later failure still
    reports it; ``None`` when a build file cannot be read (a symlink leading out of the
    checkout), which the ``build-toolchain`` step then reports as the failure."""
    try:
        return detect_build(ctx.checkout)
    except (ToolError, OSError):
        return None


def _retain(ctx: RepoContext, report: RepositoryReport) -> None:
    # a checkout that existed before the run is the user's: never delete it
    if not report.succeeded or ctx.options.keeps_checkouts or ctx.reused:
        return
    try:
        shutil.rmtree(ctx.checkout)
    except FileNotFoundError:
        pass
    except OSError as error:
        _log.warning("could not remove %s: %s", ctx.checkout, error)
