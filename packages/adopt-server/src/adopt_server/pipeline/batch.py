"""Adopting many repositories: checkout claims, parallelism, retention, reports in order."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from mcp_common import mask_credentials

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


class CheckoutClaims:
    """Reserves checkout directories so two repositories of one run never share one.

    Claims are made in input order before any repository runs (see :func:`claim_all`), so
    parallel workers never race for a directory and the later of two colliders loses.
    """

    def __init__(self) -> None:
        self._owners: dict[Path, RepositoryUrl] = {}

    def claim(self, checkout: Path, url: RepositoryUrl) -> None:
        """Reserve ``checkout`` for ``url``; raise ValueError if another URL holds it."""
        owner = self._owners.setdefault(checkout, url)
        if owner is not url:
            raise ValueError(
                f"Cannot adopt {url.masked} and {owner.masked} in one run: both would clone "
                f"into {checkout}. Adopt them in separate runs, or into separate workspaces."
            )


def unique_urls(urls: Sequence[str]) -> list[str]:
    """URLs stripped, blanks dropped, duplicates (by exact text) adopted once."""
    seen: dict[str, None] = {}
    for url in urls:
        text = url.strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def check_repositories(urls: Sequence[str], workspace: Path) -> list[RepositoryUrl]:
    """Parse every URL and detect checkout collisions up front, so an entry point can refuse
    a bad batch before anything is cloned; raises ValueError naming every problem."""
    claimed = claim_all(unique_urls(urls), workspace)
    if not claimed:
        raise ValueError("Missing required argument: give at least one repository URL")
    problems = [c for c in claimed if isinstance(c, str)]
    if problems:
        raise ValueError("; ".join(problems))
    return [c for c in claimed if not isinstance(c, str)]


def adopt_repositories(
    urls: Sequence[str],
    workspace: Path,
    options: AdoptionOptions,
    observer: Observer | None = None,
) -> list[RepositoryReport]:
    """Adopt (or verify) every repository into ``workspace``; one report each, input order.

    One repository's failure never stops the others. ``workspace`` is created if missing.
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
                index, texts[index], claimed[index], workspace, options, runner, helper, watcher
            )

        if options.parallel == 1 or len(texts) <= 1:
            reports = [adopt(i) for i in range(len(texts))]
        else:
            with ThreadPoolExecutor(max_workers=options.parallel) as pool:
                reports = list(pool.map(adopt, range(len(texts))))
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


def claim_all(texts: Sequence[str], workspace: Path) -> list[RepositoryUrl | str]:
    """Each URL parsed and its checkout claimed, in input order before anything runs, so the
    later of two colliding repositories is always the one refused; a refusal is kept as its
    message and becomes that repository's failure."""
    claims = CheckoutClaims()
    claimed: list[RepositoryUrl | str] = []
    for text in texts:
        try:
            url = parse_repository_url(text)
            claims.claim(workspace / url.name, url)
            claimed.append(url)
        except ValueError as error:
            claimed.append(str(error))
    return claimed


def _adopt_one(
    index: int,
    text: str,
    claimed: RepositoryUrl | str,
    workspace: Path,
    options: AdoptionOptions,
    runner: CommandRunner,
    helper: CredentialHelper,
    observer: Observer,
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
        url = claimed
        checkout = workspace / url.name
        if checkout.is_symlink():
            # the workspace is a real path, so only the last component can lead elsewhere
            report.fail(
                f"clone: {url.name} in the workspace is a symlink; symlink leads outside the "
                "checkout, and the adoption never works through one"
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
        if step.name == "build-toolchain":
            report.build = detect_build(ctx.checkout)
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
