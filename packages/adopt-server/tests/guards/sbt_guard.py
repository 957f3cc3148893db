"""A guard the registry does not ship, for the tests: the whole of what adding a build system
takes (this module, and one line in ``adopt_server.guards.builds.GUARDS``)."""

from __future__ import annotations

from pathlib import Path

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards import BuildCommand, BuildTool
from adopt_server.guards.checker_script import SCRIPT, install_script, script_is_installed
from agent_config_check.rule_sets import RuleSet

TASK = "claude-md.sbt"


class SbtGuard:
    """A task file beside ``build.sbt`` running the committed checker."""

    name = "sbt"
    description = "sbt (build.sbt)"
    summary = f"the claudeMd task, run by `sbt test`, runs {SCRIPT}"
    paths = (TASK, SCRIPT)
    sections = ("## sbt",)
    tool = BuildTool("sbtx", "sbt", ("claudeMd",), "sbtx could not download sbt.")

    def applies_to(self, files: CheckoutFiles) -> bool:
        return files.is_file("build.sbt")

    def build_command(self, files: CheckoutFiles) -> BuildCommand:
        return BuildCommand("sbt test", ("sbt",))

    def install(self, checkout: Path, rules: RuleSet, rule_version: str | None) -> list[str]:
        files = CheckoutFiles(checkout)
        task = f'lazy val claudeMd = taskKey[Unit]("python3 {SCRIPT} --rules {rules.name}")\n'
        written = [TASK] if files.create_text(TASK, task) else []
        return written + ([SCRIPT] if install_script(checkout) else [])

    def missing(self, checkout: Path) -> list[str]:
        gaps = [] if CheckoutFiles(checkout).is_file(TASK) else [f"there is no {TASK}"]
        return gaps + ([] if script_is_installed(checkout) else [f"{SCRIPT} is missing"])

    def notes(self, checkout: Path) -> list[str]:
        return [f"{TASK} runs only under sbt 1.x"]


GUARD = SbtGuard()
