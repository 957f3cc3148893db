"""An Open Knowledge Format bundle under ``okf/`` (``okfBundleFormat``)."""

from __future__ import annotations

import re
from datetime import date

from agent_config_check.family import (
    OKF_DIR,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_dir,
)
from agent_config_check.front_matter import FrontMatter, FrontMatterError, read_front_matter
from agent_config_check.markdown import MarkdownDocument
from agent_config_check.tree import ProjectTree, join

_OKF_STATUSES = ("draft", "stable", "deprecated")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_GENERATED_BY = re.compile(r"\bby\s*:\s*\S")
_LOG_HEADING = re.compile(r"##\s+(.*)")


def _is_date(value: str) -> bool:
    if not _ISO_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def okf_bundle_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``okfBundleFormat``: concept documents declare a ``type`` (and valid status, dates,
    generator); ``index.md`` carries no front matter but the root's ``okf_version``;
    ``log.md`` headings are ISO dates; optionally every concept directory has an index."""
    bundle = options["bundleDir"]
    documents = tree.walk(bundle, ".md")
    found: list[Found] = []
    for path in documents:
        name = path[len(bundle) + 1 :]
        read = tree.read(path)
        if read.text is None:
            found.append(Found(path, 0, f"{name} could not be read as UTF-8 text ({read.problem})"))
            continue
        try:
            front = read_front_matter(read.text)
        except FrontMatterError as error:
            found.append(
                Found(path, error.line, f"{name} has malformed YAML frontmatter ({error})")
            )
            continue
        base = name.rpartition("/")[2]
        if base == "index.md":
            if front is None:
                continue
            if name != "index.md":
                found.append(
                    Found(
                        path,
                        1,
                        f"{name} carries frontmatter; only a bundle-root "
                        "index.md may declare 'okf_version'",
                    )
                )
                continue
            found += [
                Found(
                    path,
                    front.line_of(key),
                    f"{name} declares '{key}'; a bundle-root "
                    "index.md may declare only 'okf_version'",
                )
                for key in dict.fromkeys(front.keys())
                if key != "okf_version"
            ]
        elif base == "log.md":
            document = MarkdownDocument.read(read.text)
            for index in document.headings():
                match = _LOG_HEADING.fullmatch(document.lines[index].heading or "")
                if match and not _is_date(match.group(1).strip()):
                    found.append(
                        Found(
                            path,
                            index + 1,
                            f"{name} groups entries under "
                            f"'{match.group(1).strip()}', which is not an ISO 8601 date",
                        )
                    )
        else:
            found += _okf_concept(path, name, front, options)
    found += _okf_version(tree, bundle, documents, options)
    if options["requireIndex"]:
        indexed = {p.rpartition("/")[0] for p in documents if p.endswith("/index.md")}
        concept_dirs = dict.fromkeys(
            p.rpartition("/")[0]
            for p in documents
            if p.rpartition("/")[2] not in ("index.md", "log.md")
        )
        for directory in concept_dirs:
            if directory not in indexed:
                label = directory[len(bundle) + 1 :] or "The bundle root"
                found.append(Found(directory, 0, f"{label} holds concepts but no index.md"))
    return found


def _okf_concept(path: str, name: str, front: FrontMatter | None, options: Options) -> list[Found]:
    if front is None:
        return [Found(path, 1, f"{name} has no parseable YAML frontmatter block")]
    found = []
    if not (front.value("type") or "").strip():
        found.append(
            Found(path, 1, f"{name} declares no non-empty 'type', the one mandatory OKF field")
        )
    found += [
        Found(path, front.line_of(key), f"{name} declares '{key}' more than once")
        for key in front.duplicate_keys()
    ]
    found += [
        Found(path, 1, f"{name} declares no non-empty '{key}'")
        for key in options["requiredKeys"]
        if not (front.value(key) or "").strip()
    ]
    status = front.value("status")
    if status is not None and status.lower() not in _OKF_STATUSES:
        found.append(
            Found(
                path,
                front.line_of("status"),
                f"{name} declares an unknown 'status': "
                f"{status} (expected draft, stable or deprecated)",
            )
        )
    stale = front.value("stale_after")
    if stale is not None and not _is_date(stale):
        found.append(
            Found(
                path,
                front.line_of("stale_after"),
                f"{name} declares a 'stale_after' that is not an ISO 8601 date: {stale}",
            )
        )
    generated = front.value("generated")
    if generated is not None and not _GENERATED_BY.search(generated):
        found.append(
            Found(
                path,
                front.line_of("generated"),
                f"{name} declares a 'generated' without the actor that produced it: {generated}",
            )
        )
    return found


def _okf_version(
    tree: ProjectTree, bundle: str, documents: list[str], options: Options
) -> list[Found]:
    expected = (options["okfVersion"] or "").strip()
    if not expected:
        return []
    root = join(bundle, "index.md")
    if root not in documents:
        return [
            Found(
                bundle,
                0,
                "The bundle declares no index.md at its root, so it cannot "
                f"declare 'okf_version: {expected}'",
            )
        ]
    try:
        front = read_front_matter(tree.read(root).text or "")
    except FrontMatterError:
        front = None
    declared = (front.value("okf_version") if front else None) or ""
    if declared == expected:
        return []
    return [
        Found(
            root, 1, f"index.md declares 'okf_version: {declared}' but the build expects {expected}"
        )
    ]


OKF_RULES = RuleFamily(
    "okf",
    (
        Rule(
            "okfBundleFormat",
            "the okf/ knowledge bundle follows the OKF format",
            okf_bundle_format,
            {"bundleDir": OKF_DIR, "okfVersion": "", "requiredKeys": [], "requireIndex": False},
            has_dir("bundleDir"),
        ),
    ),
)
"""An Open Knowledge Format bundle under ``okf/``."""
