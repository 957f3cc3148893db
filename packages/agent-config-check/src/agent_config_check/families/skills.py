"""What is inside a skill: links that resolve, argument placeholders Claude Code would
replace, and the size budget (``skillReferences``, ``skillArguments``, ``skillSize``).

Grounded in Claude Code's skills documentation (a skill's supporting files are reached
through links from SKILL.md; ``$ARGUMENTS``, ``$ARGUMENTS[N]`` and ``$N`` are substituted in
the skill's content when it is invoked) and in the Agent Skills best practices (keep the
SKILL.md body under 500 lines).
"""

from __future__ import annotations

import re

from agent_config_check.collection import collect
from agent_config_check.families.documents import link_findings
from agent_config_check.family import Found, Options, Rule, RuleFamily
from agent_config_check.markdown import LineKind, MarkdownDocument
from agent_config_check.tree import ProjectTree

SKILL_MAX_LINES = 500
"""The Agent Skills best practices' budget for a SKILL.md body."""
# $ARGUMENTS, $ARGUMENTS[N] and $N, as Claude Code substitutes them in a skill's content.
_PLACEHOLDER_ARGUMENT = re.compile(r"\$(?:ARGUMENTS(?:\[\d+\])?|\d)(?![A-Za-z0-9_])")


def _any_skill(tree: ProjectTree, options: Options) -> bool:
    return bool(collect(tree).skills)


def skill_references(tree: ProjectTree, options: Options) -> list[Found]:
    """``skillReferences``: every relative link of every SKILL.md resolves to a file inside
    the project (a skill reaches its reference files and scripts through them), links
    starting with ``${CLAUDE_SKILL_DIR}`` from the skill's folder and, in a plugin, with
    ``${CLAUDE_PLUGIN_ROOT}`` from the plugin's."""
    found: list[Found] = []
    collection = collect(tree)
    for skill in collection.skills:
        text = tree.read(skill.path).text
        if text is None:
            continue
        folder = skill.path.rpartition("/")[0]
        # The variables Claude Code expands in a skill's content (skills; plugins reference).
        folders = {"CLAUDE_SKILL_DIR": folder}
        plugin = max(
            (root for root in collection.plugins if not root or folder.startswith(f"{root}/")),
            key=len,
            default=None,
        )
        if plugin is not None:
            folders["CLAUDE_PLUGIN_ROOT"] = plugin
        found += link_findings(tree, skill.path, text, skill.path, folders)
    return found


def skill_arguments(tree: ProjectTree, options: Options) -> list[Found]:
    """``skillArguments``: ``$1``, ``$ARGUMENTS`` and the like inside a code block of a
    SKILL.md, which Claude Code replaces with the invocation's arguments before the model
    reads the skill (an ``awk '{print $1}'`` sample arrives broken). One finding per skill,
    at the first such line: a skill teaching shell scripts can hold dozens."""
    found: list[Found] = []
    for skill in collect(tree).skills:
        text = tree.read(skill.path).text
        if text is None or not _PLACEHOLDER_ARGUMENT.search(text):
            continue
        document = MarkdownDocument.read(text)
        placeholders: dict[str, None] = {}
        lines: list[int] = []
        for number, line in enumerate(document.lines, start=1):
            named = _PLACEHOLDER_ARGUMENT.findall(line.text) if line.kind is LineKind.CODE else []
            if named:
                placeholders.update(dict.fromkeys(named))
                lines.append(number)
        if not lines:
            continue
        shown = ", ".join(placeholders)
        where, them = (
            ("a code block", "it")
            if len(lines) == 1
            else (f"code blocks on {len(lines)} lines (the first here)", "them")
        )
        found.append(
            Found(
                skill.path,
                lines[0],
                f"{skill.path} has {shown} in {where}; Claude Code replaces {them} with the "
                f"skill's arguments when the skill runs (write {them} another way if the code "
                f"needs {them} literally)",
            )
        )
    return found


def _front_matter_lines(lines: list[str]) -> int:
    """How many lines the front matter block at the top takes (0 when there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    return 0 if closing is None else closing + 1


def skill_size(tree: ProjectTree, options: Options) -> list[Found]:
    """``skillSize``: the body of a SKILL.md (what follows its front matter) stays within
    ``maxLines`` lines (500: the Agent Skills best practices; move detail into files the
    skill links to)."""
    found: list[Found] = []
    limit = options["maxLines"]
    for skill in collect(tree).skills:
        text = tree.read(skill.path).text
        lines = text.splitlines() if text is not None else []
        head = _front_matter_lines(lines)
        body = len(lines) - head
        if limit > 0 and body > limit:
            found.append(
                Found(
                    skill.path,
                    head + limit + 1,
                    f"{skill.path} has a body of {body} lines, over the {limit}-line budget of "
                    "a SKILL.md; move detail into files it links to",
                )
            )
    return found


SKILL_RULES = RuleFamily(
    "skills",
    (
        Rule(
            "skillReferences",
            "the relative links of every SKILL.md resolve inside the project",
            skill_references,
            {},
            _any_skill,
        ),
        Rule(
            "skillArguments",
            "no $1 or $ARGUMENTS in a SKILL.md code block (Claude Code substitutes them)",
            skill_arguments,
            {},
            _any_skill,
            severity="warn",
        ),
        Rule(
            "skillSize",
            "every SKILL.md within its line budget",
            skill_size,
            {"maxLines": SKILL_MAX_LINES},
            _any_skill,
            severity="warn",
        ),
    ),
)
"""What is inside a skill."""
