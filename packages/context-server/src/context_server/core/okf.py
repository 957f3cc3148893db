"""Open Knowledge Format (OKF v0.2) bundles: one Markdown concept per file, an index per
directory. Bundles are returned as data; this module never writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints

from context_server.core.languages import SourceLanguage, language_of
from context_server.core.tree import TreeNode

OKF_VERSION = "0.2"
RESERVED_DOCUMENTS = frozenset({"index.md", "log.md"})
_ROOT_FRONT_MATTER = f'---\nokf_version: "{OKF_VERSION}"\n---\n\n'
_NO_DEPENDENCIES = "This file depends on no other file in the project.\n"


@dataclass(frozen=True, slots=True)
class OkfDocument:
    """One document of a bundle: a bundle-relative path and its Markdown."""

    path: str
    content: str


def concept_name(file_name: str) -> str:
    """The concept document name for a file: ``<name>.md``, with ``.concept`` inserted when
    that would claim a reserved name (``index`` -> ``index.concept.md``), one-to-one."""
    stripped = file_name
    while stripped.endswith(".concept"):
        stripped = stripped[: -len(".concept")]
    if stripped + ".md" in RESERVED_DOCUMENTS:
        return file_name + ".concept.md"
    return file_name + ".md"


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many.format(count)


class _Bundler:
    def __init__(
        self, languages: tuple[SourceLanguage, ...], producer: str, generated_at: datetime
    ) -> None:
        self.languages = languages
        self.producer = producer
        at = generated_at.astimezone(UTC).replace(microsecond=0)
        self.generated_at = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        self.documents: list[OkfDocument] = []
        self.links: dict[str, str] = {}

    def collect_links(self, node: TreeNode, prefix: str) -> None:
        for child in node.children:
            if child.is_directory:
                self.collect_links(child, f"{prefix}{child.name}/")
            else:
                self.links[child.relative] = f"/{prefix}{concept_name(child.name)}"

    def directory(self, node: TreeNode, prefix: str, is_root: bool) -> None:
        head = _ROOT_FRONT_MATTER if is_root else ""
        self.documents.append(OkfDocument(f"{prefix}index.md", head + self.index(node)))
        for child in node.children:
            if child.is_directory:
                self.directory(child, f"{prefix}{child.name}/", False)
            else:
                self.documents.append(
                    OkfDocument(f"{prefix}{concept_name(child.name)}", self.concept(child))
                )

    def index(self, node: TreeNode) -> str:
        directories = [c for c in node.children if c.is_directory]
        files = [c for c in node.children if not c.is_directory]
        if not directories and not files:
            return "# Contents\n\nThis directory holds no concepts.\n"
        out: list[str] = []
        if directories:
            out.append("# Directories\n\n")
            out.extend(
                f"* [{d.name}]({d.name}/) - {self.directory_description(d)}\n" for d in directories
            )
            out.append("\n")
        if files:
            out.append("# Files\n\n")
            out.extend(
                f"* [{f.name}]({concept_name(f.name)}) - {self.description(f)}\n" for f in files
            )
            out.append("\n")
        return "".join(out)

    @staticmethod
    def directory_description(node: TreeNode) -> str:
        count = len(node.children)
        if count == 0:
            return "Directory holding no concepts."
        return _plural(count, "Directory holding 1 concept.", "Directory holding {} concepts.")

    def description(self, node: TreeNode) -> str:
        language = language_of(node.name, self.languages)
        if language is None:
            return f"Project file {node.name}."
        count = len(node.dependencies)
        if count == 0:
            return f"{language.display} source file with no project dependencies."
        return _plural(
            count,
            f"{language.display} source file with 1 project dependency.",
            f"{language.display} source file with {{}} project dependencies.",
        )

    def concept(self, node: TreeNode) -> str:
        language = language_of(node.name, self.languages)
        fields: dict[str, object] = {
            "type": f"{language.display} Source File" if language else "Project File",
            "title": node.name,
            "description": self.description(node),
            "resource": node.relative,
            "tags": ["source", language.name] if language else ["file"],
            "generated": {"by": self.producer, "at": self.generated_at},
        }
        header = yaml.safe_dump(
            fields,
            default_flow_style=False,
            sort_keys=False,
            allow_unicode=True,
            width=float("inf"),
        )
        if not node.dependencies:
            return f"---\n{header}---\n\n{_NO_DEPENDENCIES}"
        lines = "".join(f"* [`{d}`]({self.links[d]})\n" for d in node.dependencies)
        return f"---\n{header}---\n\n# Dependencies\n\n{lines}"


def build_bundle(
    root: TreeNode,
    languages: tuple[SourceLanguage, ...],
    producer: str,
    generated_at: datetime | None = None,
) -> list[OkfDocument]:
    """The OKF bundle of a project tree: ``index.md`` first, then a pre-order walk."""
    bundler = _Bundler(languages, producer, generated_at or datetime.now(UTC))
    bundler.collect_links(root, "")
    bundler.directory(root, "", True)
    return bundler.documents
