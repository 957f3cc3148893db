"""The adoption report: one object per repository, a batch object for two or more."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_common import StructuredResult, mask_credentials
from pydantic import Field


@dataclass(slots=True)
class RepositoryReport:
    """What happened to one repository; filled in as its steps run."""

    repository_url: str
    branch: str
    checkout: str | None = None
    pull_request_url: str | None = None
    failure: str | None = None
    completed_steps: list[str] = field(default_factory=list)
    build: str | None = None
    elapsed_seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    skipped: str | None = None
    closed_pull_request_url: str | None = None

    @property
    def succeeded(self) -> bool:
        """Whether every step completed."""
        return self.failure is None

    def fail(self, message: str) -> None:
        """Record the first failure (later ones never overwrite it); credentials masked."""
        if self.failure is None:
            self.failure = mask_credentials(message.strip() or "failed")

    def warn(self, message: str) -> None:
        """Record something the user should look at although the step went on (masked)."""
        text = mask_credentials(message.strip())
        if text and text not in self.warnings:
            self.warnings.append(text)

    def to_json(self) -> dict[str, Any]:
        """The report object, keys in their documented order."""
        return RepositoryOutcome.of(self).to_wire()


class RepositoryOutcome(StructuredResult):
    """The report of one repository, as MCP clients and claude-adopt --json read it."""

    repository_url: str = Field(description="The URL, credentials masked.")
    branch: str = Field(description="The feature branch used.")
    checkout: str | None = Field(
        description="The checkout directory; null when the run stopped before cloning."
    )
    pull_request_url: str | None = Field(description="The pull request.")
    succeeded: bool = Field(description="Whether every step completed.")
    failure: str | None = Field(description="'<step>: <message>' of the first failure, or null.")
    completed_steps: list[str] = Field(description="Step names that completed, in order.")
    build: str | None = Field(
        description="Detected build system: maven, gradle, python or github-actions."
    )
    elapsed_seconds: float = Field(description="Wall time for this repository.")
    warnings: list[str] = Field(
        description="Things to review although the run went on: a formatter the change was "
        "not run through, an enforcer that is skipped, a stale pull request left open."
    )
    skipped: str | None = Field(
        description="Why the repository was not run (done in an earlier run of the campaign, "
        "or the canary failed); null when it ran."
    )
    closed_pull_request_url: str | None = Field(
        description="The stale pull request this run closed because nothing was left to change."
    )

    @classmethod
    def of(cls, report: RepositoryReport) -> RepositoryOutcome:
        """The outcome of one repository's run (its URL's credentials masked)."""
        return cls(
            repository_url=mask_credentials(report.repository_url),
            branch=report.branch,
            checkout=report.checkout,
            pull_request_url=report.pull_request_url,
            succeeded=report.succeeded,
            failure=report.failure,
            completed_steps=list(report.completed_steps),
            build=report.build,
            elapsed_seconds=round(report.elapsed_seconds, 3),
            warnings=list(report.warnings),
            skipped=report.skipped,
            closed_pull_request_url=report.closed_pull_request_url,
        )


class BatchOutcome(StructuredResult):
    """The report of a run: every repository's outcome, in input order."""

    succeeded: bool = Field(description="Whether every repository succeeded.")
    repositories: list[RepositoryOutcome] = Field(
        description="One report per repository, in input order."
    )

    @classmethod
    def of(cls, reports: Sequence[RepositoryReport]) -> BatchOutcome:
        """The batch report of a run (what the MCP tools return, whatever the count)."""
        return cls(
            succeeded=all(r.succeeded for r in reports),
            repositories=[RepositoryOutcome.of(r) for r in reports],
        )


def batch_json(reports: Sequence[RepositoryReport]) -> dict[str, Any]:
    """The report of a run: the repository object for one repository, else a batch object."""
    if len(reports) == 1:
        return reports[0].to_json()
    return BatchOutcome.of(reports).to_wire()
