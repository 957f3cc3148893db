"""The Markdown summary and structured report a client reads, with no server path in them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcp_common import AllowedPaths, guard_output, markdown_table, redact

from adopt_server.pipeline import BatchOutcome, RepositoryOutcome, RepositoryReport


def _for_client(outcome: RepositoryOutcome, root: AllowedPaths) -> RepositoryOutcome:
    checkout = outcome.checkout
    return outcome.model_copy(
        update={
            "checkout": root.display(Path(checkout)) if checkout is not None else None,
            "repository_url": redact(outcome.repository_url),
            "failure": redact(outcome.failure) if outcome.failure is not None else None,
            "warnings": [redact(w) for w in outcome.warnings],
        }
    )


def client_report(reports: Sequence[RepositoryReport], root: AllowedPaths) -> BatchOutcome:
    """The structured report with checkouts relative to the workspace root and every
    message redacted (credentials masked, absolute paths shortened)."""
    batch = BatchOutcome.of(reports)
    return batch.model_copy(
        update={"repositories": [_for_client(r, root) for r in batch.repositories]}
    )


def markdown_summary(document: BatchOutcome, *, verify: bool, dry_run: bool = False) -> str:
    """A heading, a one-line count and one table row per repository."""
    repositories = document.repositories
    done = sum(1 for r in repositories if r.succeeded)
    mode = " (dry run: nothing pushed, no pull request)" if dry_run else ""
    rows = [
        [
            r.repository_url,
            "ok" if r.succeeded else "failed",
            r.build or "",
            r.checkout or "",
            r.pull_request_url or "",
            r.failure or r.skipped or ", ".join(r.completed_steps[-1:]),
        ]
        for r in repositories
    ]
    table = markdown_table(
        ["Repository", "Result", "Build", "Checkout", "Pull request", "Failure / last step"],
        rows,
    )
    title, outcome = ("Verification", "verified") if verify else ("Adoption", "adopted")
    text = f"# {title} report\n\n{done} of {len(repositories)} repositories {outcome}"
    notes = [f"- {r.repository_url}: {warning}" for r in repositories for warning in r.warnings] + [
        f"- {r.repository_url}: closed the stale pull request {r.closed_pull_request_url}"
        for r in repositories
        if r.closed_pull_request_url
    ]
    warnings = "\n## Warnings\n\n" + "\n".join(notes) + "\n" if notes else ""
    return guard_output(
        f"{text}{mode}.\n\n{table}\n{warnings}", levers="fewer repositories per call"
    )
