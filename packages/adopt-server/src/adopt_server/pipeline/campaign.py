"""Campaigns: adopting a fleet of repositories under control.

A campaign is a batch run with three controls on top of :func:`adopt_repositories`: a canary
(the first N repositories run alone, and the rest only if every one of them succeeded), a
rate limit on the pull requests it opens, and a state file that records each repository as it
finishes, so an interrupted campaign resumes where it stopped instead of starting over.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from mcp_common import mask_credentials
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from adopt_server.pipeline.batch import Observer, SilentObserver, adopt_repositories, unique_urls
from adopt_server.pipeline.options import AdoptionOptions
from adopt_server.pipeline.report import RepositoryReport
from adopt_server.pipeline.runner import CommandError, CommandRunner, excerpt
from adopt_server.pipeline.urls import RepositoryUrlError, one_line, parse_repository_url

MAX_PRS_PER_HOUR = 100_000
MAX_ORG_REPOSITORIES = 1000
MAX_STATE_BYTES = 16 * 1024 * 1024
"""The largest campaign state file read (a repository takes a few hundred bytes)."""
_CLOCK_SKEW_SECONDS = 300.0
_OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")


class CampaignError(ValueError):
    """Campaign input that cannot be used (a URL list, an org, a state file); raised before
    anything is cloned or pushed. The message names the file and line or the value."""


def read_url_list(text: str, source: str) -> list[str]:
    """The repository URLs of a list: one a line, blank lines and ``#`` comments skipped;
    a line that is not a repository URL is refused with its line number."""
    urls: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        try:
            parse_repository_url(entry)
        except RepositoryUrlError as error:
            raise CampaignError(f"{source} line {number}: {error}") from None
        urls.append(entry)
    return urls


def list_org_repositories(owner: str, runner: CommandRunner, cwd: Path) -> list[str]:
    """The URLs of ``owner``'s repositories that are neither archived nor forks, sorted, as
    ``gh repo list`` reports them; raises :class:`CampaignError` naming the owner."""
    if not _OWNER.fullmatch(owner):
        raise CampaignError(
            f"--org takes a GitHub user or organisation name, not {one_line(repr(owner))}: "
            "letters, digits and '-', starting with a letter or digit, at most 39"
        )
    argv = [
        "gh",
        "repo",
        "list",
        owner,
        "--no-archived",
        "--source",
        "--limit",
        str(MAX_ORG_REPOSITORIES),
        "--json",
        "url",
    ]
    try:
        result = runner.run(cwd, argv)
    except CommandError as error:
        raise CampaignError(f"--org {owner}: could not run gh: {error}") from None
    if not result.ok:
        raise CampaignError(
            f"--org {owner}: gh could not list its repositories (does the owner exist, and "
            f"can gh's login see it?). gh said:\n{excerpt(result.transcript, lines=5)}"
        )
    start = result.transcript.find("[")
    try:
        listed = json.loads(result.transcript[start:]) if start >= 0 else None
    except json.JSONDecodeError:
        listed = None
    if not isinstance(listed, list):
        raise CampaignError(f"--org {owner}: gh answered no repository list")
    urls = sorted(
        entry["url"]
        for entry in listed
        if isinstance(entry, dict) and isinstance(entry.get("url"), str)
    )
    foreign = [url for url in urls if not _owned_by(url, owner)]
    if foreign:
        raise CampaignError(
            f"--org {owner}: gh listed repositories that are not https URLs of {owner}'s "
            f"repositories, so none is adopted: {', '.join(one_line(u) for u in foreign[:5])}"
        )
    if not urls:
        raise CampaignError(
            f"--org {owner} has no repositories that are neither archived nor forks"
        )
    return urls


def _owned_by(url: str, owner: str) -> bool:
    try:
        parsed = parse_repository_url(url)
    except RepositoryUrlError:
        return False
    slug_owner = (parsed.slug or "").partition("/")[0]
    return parsed.kind == "https" and slug_owner.lower() == owner.lower()


class PullRequestRateLimit:
    """Spaces the pull requests a campaign opens evenly: at most ``per_hour`` an hour.

    Thread-safe; each caller reserves the next free slot under a lock and sleeps outside it.
    ``window_seconds`` is the hour (tests and benchmarks shrink it); ``not_before`` is the
    epoch second of the first free slot, so a resumed campaign keeps the spacing.
    """

    def __init__(
        self,
        per_hour: int,
        *,
        window_seconds: float = 3600.0,
        not_before: float = 0.0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        opened: Callable[[float], None] = lambda when: None,
    ) -> None:
        if not 1 <= per_hour <= MAX_PRS_PER_HOUR:
            raise CampaignError(
                f"--max-prs-per-hour must be between 1 and {MAX_PRS_PER_HOUR} but was {per_hour}"
            )
        self.interval = window_seconds / per_hour
        self._next = not_before
        self._clock = clock
        self._sleep = sleep
        self._opened = opened
        self._lock = threading.Lock()

    def acquire(self) -> None:
        """Block until one more pull request may be opened."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        if slot > now:
            self._sleep(slot - now)
        self._opened(slot)


RepositoryStatus = Literal["succeeded", "failed", "skipped"]


class StateEntry(BaseModel):
    """One repository's last outcome in a campaign. A state file is read back into runs,
    reports and logs, so every value that reaches them is checked: a repository URL the
    adoption accepts, a branch and a pull request URL without whitespace or control
    characters, a real timestamp."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    repository_url: str
    status: RepositoryStatus
    branch: Annotated[str, Field(pattern=r"^[^\s\x00-\x1f\x7f]+$", max_length=255)]
    mode: Literal["adopt", "dry-run", "verify"]
    pull_request_url: Annotated[
        str | None, Field(pattern=r"^https://[^\s\x00-\x1f\x7f]+$", max_length=2048)
    ] = None
    failure: str | None = None
    updated_at: AwareDatetime

    @field_validator("repository_url")
    @classmethod
    def _accepted_url(cls, value: str) -> str:
        try:
            parse_repository_url(value)
        except RepositoryUrlError as error:
            raise ValueError(str(error)) from None
        return value


class StateDocument(BaseModel):
    """The campaign state file (JSON)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    version: Literal[1]
    last_pull_request_at: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] = 0.0
    repositories: list[StateEntry]

    @field_validator("last_pull_request_at")
    @classmethod
    def _not_in_the_future(cls, value: float) -> float:
        # a resumed campaign waits until this moment plus one interval before its next pull
        # request: a time in the future would stall it for as long
        if value > time.time() + _CLOCK_SKEW_SECONDS:
            raise ValueError("lies in the future; a resumed campaign would wait until then")
        return value


def _mode(options: AdoptionOptions) -> Literal["adopt", "dry-run", "verify"]:
    if options.verify_only:
        return "verify"
    return "dry-run" if options.dry_run else "adopt"


@dataclass
class CampaignState:
    """The state file of a campaign: loaded before the run, saved after every repository.

    Entries are keyed by the masked URL, so no credential is ever written to disk. Saves go
    through a temporary file and a rename, so an interrupted run leaves the last good state.
    """

    path: Path
    document: StateDocument = field(
        default_factory=lambda: StateDocument(version=1, repositories=[])
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def load(cls, path: Path) -> CampaignState:
        """Read ``path`` (a missing file is a new campaign); :class:`CampaignError` names the
        file and what is wrong with it."""
        try:
            text = _read_state(path)
        except FileNotFoundError:
            return cls(path)
        except (OSError, UnicodeDecodeError) as error:
            raise CampaignError(f"Could not read the campaign state {path}: {error}") from None
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise CampaignError(
                f"The campaign state {path} is not JSON (line {error.lineno}, column "
                f"{error.colno}: {error.msg}). Fix it, or remove it to start the campaign over."
            ) from None
        except RecursionError:
            raise CampaignError(
                f"The campaign state {path} nests its JSON too deeply to be a claude-adopt "
                "state file. Fix it, or remove it to start the campaign over."
            ) from None
        except ValueError as error:  # an integer of more digits than Python converts
            raise CampaignError(
                f"The campaign state {path} is not a claude-adopt state file: "
                f"{one_line(str(error))}. Fix it, or remove it to start the campaign over."
            ) from None
        try:
            # a lone surrogate (``"\ud800"``) is valid JSON but no text: the first save
            # would fail after the repository ran, and the campaign with it
            json.dumps(raw, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise CampaignError(
                f"The campaign state {path} is not a claude-adopt state file: it holds a "
                "string that is not valid Unicode (a lone surrogate escape). Fix it, or remove "
                "it to start the campaign over."
            ) from None
        try:
            document = StateDocument.model_validate(raw, by_alias=True)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the document"
            raise CampaignError(
                f"The campaign state {path} is not a claude-adopt state file: {where}: "
                f"{one_line(first['msg'])}. Fix it, or remove it to start the campaign over."
            ) from None
        return cls(path, document)

    def finished(self, url: str, options: AdoptionOptions) -> StateEntry | None:
        """The entry of a repository this campaign already adopted in the same mode and on
        the same branch (with its pull request, unless it was a dry run or verification)."""
        key = mask_credentials(url)
        mode = _mode(options)
        for entry in self.document.repositories:
            if (
                entry.repository_url == key
                and entry.status == "succeeded"
                and entry.branch == options.branch
                and entry.mode == mode
                and (mode != "adopt" or entry.pull_request_url is not None)
            ):
                return entry
        return None

    def record(self, report: RepositoryReport, options: AdoptionOptions) -> None:
        """Store ``report``'s outcome and save the file."""
        status: RepositoryStatus = (
            "skipped" if report.skipped else ("succeeded" if report.succeeded else "failed")
        )
        entry = StateEntry(
            repository_url=mask_credentials(report.repository_url),
            status=status,
            branch=report.branch,
            mode=_mode(options),
            pull_request_url=report.pull_request_url,
            failure=report.failure,
            updated_at=datetime.datetime.now(datetime.UTC).replace(microsecond=0),
        )
        with self._lock:
            kept = [
                e for e in self.document.repositories if e.repository_url != entry.repository_url
            ]
            self.document.repositories = [*kept, entry]
            self._save()

    def opened_pull_request(self, when: float) -> None:
        """Remember when the last pull request was opened (for the rate limit of a resume)."""
        with self._lock:
            self.document.last_pull_request_at = max(self.document.last_pull_request_at, when)
            self._save()

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = self.document.model_dump_json(indent=2, by_alias=True) + "\n"
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _read_state(path: Path) -> str:
    """The text of a state file: a regular file (opened without blocking, so a FIFO or a
    device named by mistake or by someone else is refused, not waited on or read forever)
    of this user's, of at most :data:`MAX_STATE_BYTES`."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_uid != os.geteuid():
            # another user's file could skip repositories and show forged pull requests
            raise OSError(f"{path} is owned by another user; a campaign trusts only its own")
        data = stream.read(MAX_STATE_BYTES + 1)
    if len(data) > MAX_STATE_BYTES:
        raise OSError(f"{path} is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB")
    return data.decode("utf-8")


@dataclass(frozen=True, slots=True)
class CampaignControls:
    """How a campaign runs: ``canary`` repositories first (0 = no canary), at most
    ``max_prs_per_hour`` pull requests an hour (``None`` = no limit; ``hour_seconds`` shrinks
    the hour for tests and benchmarks), outcomes kept in ``state`` (``None`` = not kept)."""

    canary: int = 0
    max_prs_per_hour: int | None = None
    hour_seconds: float = 3600.0
    state: CampaignState | None = None


class _Recorder:
    """Passes progress on and writes each finished repository into the state file."""

    def __init__(
        self, inner: Observer, state: CampaignState | None, options: AdoptionOptions
    ) -> None:
        self._inner = inner
        self._state = state
        self._options = options

    def step_started(self, repository: int, url: str, step: str, index: int, count: int) -> None:
        self._inner.step_started(repository, url, step, index, count)

    def repository_finished(self, repository: int, report: RepositoryReport) -> None:
        if self._state is not None:
            self._state.record(report, self._options)
        self._inner.repository_finished(repository, report)

    def cancelled(self) -> bool:
        return self._inner.cancelled()


def run_campaign(
    urls: Sequence[str],
    workspace: Path,
    options: AdoptionOptions,
    controls: CampaignControls,
    observer: Observer | None = None,
) -> list[RepositoryReport]:
    """Adopt every repository under ``controls``; one report each, in input order.

    Repositories the state file records as done are reported as skipped (with their pull
    request) without being run; of the rest, the first ``canary`` run first and the others
    only when every canary succeeded. One repository's failure never stops the others.
    """
    texts = unique_urls(urls)
    state = controls.state
    recorder = _Recorder(observer or SilentObserver(), state, options)
    gate = None
    if controls.max_prs_per_hour is not None:
        limit = PullRequestRateLimit(
            controls.max_prs_per_hour,
            window_seconds=controls.hour_seconds,
            not_before=(
                state.document.last_pull_request_at
                + controls.hour_seconds / controls.max_prs_per_hour
                if state and state.document.last_pull_request_at
                else 0.0
            ),
            opened=state.opened_pull_request if state else lambda when: None,
        )
        gate = limit.acquire
    reports: dict[str, RepositoryReport] = {}
    pending: list[str] = []
    for text in texts:
        done = state.finished(text, options) if state else None
        if done is None:
            pending.append(text)
            continue
        report = RepositoryReport(repository_url=text, branch=options.branch)
        report.pull_request_url = done.pull_request_url
        report.skipped = f"done in an earlier run of this campaign ({done.updated_at.isoformat()})"
        reports[text] = report
    canaries, rest = pending[: controls.canary], pending[controls.canary :]
    if canaries:
        ran = adopt_repositories(texts, workspace, options, recorder, gate, only=set(canaries))
        for report in ran:
            reports[report.repository_url] = report
    failed = [t for t in canaries if not reports[t].succeeded]
    if failed and rest:
        reason = (
            f"not run: {len(failed)} of the {len(canaries)} canary repositories failed "
            f"({', '.join(mask_credentials(t) for t in failed)}); fix them, then run the "
            "campaign again"
        )
        for text in rest:
            report = RepositoryReport(repository_url=text, branch=options.branch)
            report.skipped = reason
            report.fail(reason)
            reports[text] = report
            if state is not None:
                state.record(report, options)
    elif rest:
        for report in adopt_repositories(texts, workspace, options, recorder, gate, only=set(rest)):
            reports[report.repository_url] = report
    return [reports[text] for text in texts]
