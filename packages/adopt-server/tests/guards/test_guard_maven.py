"""The Maven guard: the enforcer block spliced into real-world-shaped POMs, other bytes kept."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from adopt_server.conformance import rules_for
from adopt_server.guards import install_guard, is_guard_installed
from adopt_server.guards.builds.maven import DEFAULT_RULE_VERSION, JAVA_SECTIONS, is_below
from adopt_server.guards.check_config import CONFIG
from adopt_server.guards.checker_script import SCRIPT
from agent_config_check.rule_sets import RuleSet

PROJECT = rules_for("project", "maven")
MINIMAL = rules_for("minimal", "maven", ["## Build & run"])

NO_BUILD = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>sample</artifactId>
  <version>1.0.0</version>
</project>
"""

TABS_WITH_PLUGINS = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    "<project>\n"
    "\t<modelVersion>4.0.0</modelVersion>\n"
    "\t<!-- a <build> mentioned in a comment -->\n"
    "\t<build>\n"
    "\t\t<plugins>\n"
    "\t\t\t<plugin>\n"
    "\t\t\t\t<artifactId>maven-compiler-plugin</artifactId>\n"
    '\t\t\t\t<configuration combine.self="override" note="a > b">\n'
    "\t\t\t\t\t<release>21</release>\n"
    "\t\t\t\t</configuration>\n"
    "\t\t\t</plugin>\n"
    "\t\t</plugins>\n"
    "\t</build>\n"
    "</project>\n"
)

CRLF_FOUR_SPACES_MANAGED_ONLY = (
    "<project>\r\n"
    "    <modelVersion>4.0.0</modelVersion>\r\n"
    "    <build>\r\n"
    "        <pluginManagement>\r\n"
    "            <plugins>\r\n"
    "                <plugin>\r\n"
    "                    <artifactId>maven-enforcer-plugin</artifactId>\r\n"
    "                    <version>3.6.2</version>\r\n"
    "                    <configuration><rules><claudeMdFormat/></rules></configuration>\r\n"
    "                </plugin>\r\n"
    "            </plugins>\r\n"
    "        </pluginManagement>\r\n"
    "    </build>\r\n"
    "    <profiles>\r\n"
    "        <profile><build><plugins><plugin><configuration><rules>\r\n"
    "            <claudeCodeProject/>\r\n"
    "        </rules></configuration></plugin></plugins></build></profile>\r\n"
    "    </profiles>\r\n"
    "</project>\r\n"
)

EXISTING_ENFORCER = """<project>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-enforcer-plugin</artifactId>
        <version>3.4.1</version>
        <executions>
          <execution>
            <id>enforce</id>
            <goals><goal>enforce</goal></goals>
            <configuration>
              <rules>
                <banDuplicatePomDependencyVersions />
              </rules>
            </configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>"""

ENFORCER_WITH_RULE_DEPENDENCY = """<project>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-enforcer-plugin</artifactId>
        <version>${enforcer.version}</version>
        <dependencies>
          <dependency>
            <groupId>io.github.adamw7</groupId>
            <artifactId>tools.claude-code-enforcer</artifactId>
            <version>9.9.9</version>
          </dependency>
        </dependencies>
        <configuration><rules><noSecrets/></rules></configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""


def write_pom(root: Path, text: str) -> Path:
    pom = root / "pom.xml"
    pom.write_bytes(text.encode("utf-8"))
    return pom


def read(pom: Path) -> str:
    return pom.read_bytes().decode("utf-8")


def assert_only_insertions(before: str, after: str) -> None:
    """``before`` survives in ``after`` as a subsequence: nothing was changed or removed."""
    position = 0
    for char in after:
        if position < len(before) and char == before[position]:
            position += 1
    assert position == len(before), "a byte of the original POM was changed or removed"


def parse_xml(text: str) -> ET.Element:
    # Only POMs this module wrote, plus the guard's splice: no untrusted input.
    return ET.fromstring(text)  # noqa: S314


def guard_execution(pom_text: str) -> ET.Element:
    root = parse_xml(pom_text)
    executions = [
        execution
        for plugin in root.findall("{*}build/{*}plugins/{*}plugin")
        for execution in plugin.findall("{*}executions/{*}execution")
        if execution.findtext("{*}id") == "enforce-claude-md"
    ]
    assert len(executions) == 1
    return executions[0]


def install_twice(
    tmp_path: Path, text: str, rules: RuleSet = PROJECT, version: str | None = None
) -> str:
    pom = write_pom(tmp_path, text)
    assert install_guard(tmp_path, "maven", rules, version) == ["pom.xml", SCRIPT, CONFIG]
    edited = read(pom)
    assert install_guard(tmp_path, "maven", rules, version) == []
    assert read(pom) == edited
    assert is_guard_installed(tmp_path, "maven")
    return edited


def test_pom_without_build_gets_build_plugins_and_the_plugin(tmp_path: Path) -> None:
    edited = install_twice(tmp_path, NO_BUILD)
    assert_only_insertions(NO_BUILD, edited)
    assert "</version>\n  <build>\n    <plugins>\n      <plugin>\n" in edited
    assert edited.endswith("    </plugins>\n  </build>\n</project>\n")
    execution = guard_execution(edited)
    assert execution.findtext("{*}phase") == "validate"
    assert execution.findtext("{*}inherited") == "false"
    rule = execution.find("{*}configuration/{*}rules/{*}claudeCodeProject")
    assert rule is not None
    assert rule.findtext("{*}projectDir") == "${project.basedir}"
    sections = [s.text for s in rule.findall("{*}claudeMdSections/{*}claudeMdSection")]
    assert sections == list(JAVA_SECTIONS)
    plugin = parse_xml(edited).find("{*}build/{*}plugins/{*}plugin")
    assert plugin is not None
    assert plugin.findtext("{*}dependencies/{*}dependency/{*}version") == DEFAULT_RULE_VERSION
    assert edited.count("xmlns=") == 1


def checker_execution(pom_text: str) -> ET.Element:
    root = parse_xml(pom_text)
    executions = [
        (plugin, execution)
        for plugin in root.findall("{*}build/{*}plugins/{*}plugin")
        for execution in plugin.findall("{*}executions/{*}execution")
        if execution.findtext("{*}id") == "agent-config-check"
    ]
    assert len(executions) == 1
    plugin, execution = executions[0]
    assert plugin.findtext("{*}artifactId") == "exec-maven-plugin"
    return execution


@pytest.mark.parametrize("rules", [PROJECT, MINIMAL], ids=["project", "minimal"])
def test_the_build_runs_the_checker_every_guard_runs(tmp_path: Path, rules: RuleSet) -> None:
    """The Java rules have no placeholder check and no line budget: so the Maven guard runs
    the committed checker script too, with the same arguments as every other guard, in the
    validate phase after the enforcer."""
    edited = install_twice(tmp_path, NO_BUILD, rules)
    execution = checker_execution(edited)
    assert execution.findtext("{*}phase") == "validate"
    assert execution.findtext("{*}inherited") == "false"
    assert [g.text for g in execution.findall("{*}goals/{*}goal")] == ["exec"]
    configuration = execution.find("{*}configuration")
    assert configuration is not None
    assert configuration.findtext("{*}executable") == "python3"
    assert configuration.findtext("{*}workingDirectory") == "${project.basedir}"
    arguments = [a.text for a in configuration.findall("{*}arguments/{*}argument")]
    sections = [arg for s in rules.sections for arg in ("--section", s)]
    assert arguments == [SCRIPT, "--rules", rules.name, *sections]
    plugins = [
        p.findtext("{*}artifactId")
        for p in parse_xml(edited).findall("{*}build/{*}plugins/{*}plugin")
    ]
    assert plugins == ["maven-enforcer-plugin", "exec-maven-plugin"]
    assert (tmp_path / SCRIPT).is_file()
    rule = guard_execution(edited).find("{*}configuration/{*}rules")
    assert rule is not None
    assert "forbiddenToken" not in edited, "placeholders are the checker's, as in every guard"


def test_a_project_exec_plugin_gains_the_execution_and_a_skipped_one_is_refused(
    tmp_path: Path,
) -> None:
    text = (
        "<project><build><plugins><plugin><groupId>org.codehaus.mojo</groupId>"
        "<artifactId>exec-maven-plugin</artifactId><version>3.1.0</version>"
        "<executions><execution><id>gen</id><goals><goal>java</goal></goals></execution>"
        "</executions></plugin></plugins></build></project>"
    )
    edited = install_twice(tmp_path, text)
    assert_only_insertions(text, edited)
    exec_plugins = [
        p
        for p in parse_xml(edited).findall("{*}build/{*}plugins/{*}plugin")
        if p.findtext("{*}artifactId") == "exec-maven-plugin"
    ]
    assert len(exec_plugins) == 1
    assert [e.findtext("{*}id") for e in exec_plugins[0].findall("{*}executions/{*}execution")] == [
        "gen",
        "agent-config-check",
    ]
    skipped = text.replace(
        "</plugin>", "<configuration><skip>${skip.it}</skip></configuration></plugin>"
    )
    skipped = skipped.replace(
        "<project>", "<project><properties><skip.it>true</skip.it></properties>"
    )
    pom = write_pom(tmp_path, skipped)
    with pytest.raises(ValueError, match=r"exec-maven-plugin in build/plugins is switched off"):
        install_guard(tmp_path, "maven", PROJECT, None)
    assert read(pom) == skipped


def test_tabs_and_existing_plugins_are_followed(tmp_path: Path) -> None:
    edited = install_twice(tmp_path, TABS_WITH_PLUGINS, version="1.4.0")
    assert_only_insertions(TABS_WITH_PLUGINS, edited)
    assert all(line == line.lstrip(" ") for line in edited.split("\n")), "space indentation"
    assert "xmlns" not in edited, "a namespace-less POM must stay namespace-less"
    assert "\n\t\t\t<plugin>\n\t\t\t\t<groupId>org.apache.maven.plugins</groupId>" in edited
    assert edited.endswith("\t\t\t</plugin>\n\t\t</plugins>\n\t</build>\n</project>\n")
    plugin = parse_xml(edited).findall("{*}build/{*}plugins/{*}plugin")[1]
    assert plugin.findtext("{*}dependencies/{*}dependency/{*}version") == "1.4.0"


def test_crlf_and_four_spaces_kept_and_managed_or_profile_rules_do_not_count(
    tmp_path: Path,
) -> None:
    pom = write_pom(tmp_path, CRLF_FOUR_SPACES_MANAGED_ONLY)
    assert not is_guard_installed(tmp_path, "maven")
    edited = install_twice(tmp_path, CRLF_FOUR_SPACES_MANAGED_ONLY)
    assert read(pom) == edited
    assert_only_insertions(CRLF_FOUR_SPACES_MANAGED_ONLY, edited)
    assert "\n" not in edited.replace("\r\n", "")
    assert "</pluginManagement>\r\n        <plugins>\r\n            <plugin>\r\n" in edited
    assert "            </plugin>\r\n        </plugins>\r\n    </build>\r\n" in edited
    guard_execution(edited)


def test_existing_enforcer_is_augmented_in_place(tmp_path: Path) -> None:
    edited = install_twice(tmp_path, EXISTING_ENFORCER, MINIMAL, "2.0.0")
    assert_only_insertions(EXISTING_ENFORCER, edited)
    assert not edited.endswith("\n"), "a missing trailing newline must stay missing"
    root = parse_xml(edited)
    plugins = root.findall("{*}build/{*}plugins/{*}plugin")
    assert [p.findtext("{*}artifactId") for p in plugins] == [
        "maven-enforcer-plugin",
        "exec-maven-plugin",
    ]
    executions = plugins[0].findall("{*}executions/{*}execution")
    assert [e.findtext("{*}id") for e in executions] == ["enforce", "enforce-claude-md"]
    assert "<banDuplicatePomDependencyVersions />" in edited
    rule = guard_execution(edited).find("{*}configuration/{*}rules/{*}claudeMdFormat")
    assert rule is not None
    assert rule.findtext("{*}claudeMdFile") == "${project.basedir}/CLAUDE.md"
    assert [s.text for s in rule.findall("{*}requiredSections/{*}requiredSection")] == [
        "## Build & run"
    ]
    assert "## Build &amp; run" in edited
    assert plugins[0].findtext("{*}dependencies/{*}dependency/{*}version") == "2.0.0"


def test_existing_rule_dependency_keeps_its_version(tmp_path: Path) -> None:
    edited = install_twice(tmp_path, ENFORCER_WITH_RULE_DEPENDENCY)
    assert_only_insertions(ENFORCER_WITH_RULE_DEPENDENCY, edited)
    plugin = parse_xml(edited).find("{*}build/{*}plugins/{*}plugin")
    assert plugin is not None
    dependencies = plugin.findall("{*}dependencies/{*}dependency")
    assert [d.findtext("{*}version") for d in dependencies] == ["9.9.9"]
    guard_execution(edited)


def test_self_closing_plugins_is_reopened(tmp_path: Path) -> None:
    text = "<project>\n  <build>\n    <plugins />\n  </build>\n</project>\n"
    edited = install_twice(tmp_path, text)
    assert edited.startswith("<project>\n  <build>\n    <plugins>\n      <plugin>\n")
    assert edited.endswith("      </plugin>\n    </plugins>\n  </build>\n</project>\n")
    guard_execution(edited)


def test_empty_build_content_is_replaced_by_the_fragment(tmp_path: Path) -> None:
    text = "<project>\n  <build>   </build>\n</project>\n"
    edited = install_twice(tmp_path, text)
    assert edited.startswith("<project>\n  <build>\n    <plugins>\n")
    assert edited.endswith("    </plugins>\n  </build>\n</project>\n")


def test_single_line_pom_gets_two_space_indentation(tmp_path: Path) -> None:
    text = '<?xml version="1.0"?><project><modelVersion>4.0.0</modelVersion></project>'
    edited = install_twice(tmp_path, text)
    assert_only_insertions(text, edited)
    assert edited.startswith(
        '<?xml version="1.0"?><project><modelVersion>4.0.0</modelVersion>\n  <build>\n'
    )
    assert edited.endswith("  </build>\n</project>")


def test_an_enforced_pom_gains_only_the_checker_then_is_untouched_under_either_rule_set(
    tmp_path: Path,
) -> None:
    text = (
        "<project><build><plugins><plugin><artifactId>maven-enforcer-plugin</artifactId>"
        "<configuration><rules><claudeMdFormat/></rules></configuration>"
        "</plugin></plugins></build></project>"
    )
    pom = write_pom(tmp_path, text)
    assert not is_guard_installed(tmp_path, "maven"), "the Java rule alone lets placeholders in"
    assert install_guard(tmp_path, "maven", PROJECT, None) == ["pom.xml", SCRIPT, CONFIG]
    edited = read(pom)
    assert_only_insertions(text, edited)
    assert edited.count("<claudeMdFormat/>") == 1
    assert "claudeCodeProject" not in edited
    checker_execution(edited)
    assert is_guard_installed(tmp_path, "maven")
    assert install_guard(tmp_path, "maven", PROJECT, None) == []
    assert install_guard(tmp_path, "maven", MINIMAL, None) == []
    assert read(pom) == edited


@pytest.mark.parametrize(
    ("version", "where"),
    [("3.0.0-M3", "build/plugins"), ("3.0", "build/plugins"), ("2.4.1", "build/plugins")],
)
def test_old_declared_enforcer_is_refused_and_the_pom_untouched(
    tmp_path: Path, version: str, where: str
) -> None:
    text = EXISTING_ENFORCER.replace("3.4.1", version)
    pom = write_pom(tmp_path, text)
    with pytest.raises(ValueError, match=rf"{where} is version {version}.*3\.1\.0 or later"):
        install_guard(tmp_path, "maven", PROJECT, None)
    assert read(pom) == text


def test_old_managed_enforcer_is_refused_naming_plugin_management(tmp_path: Path) -> None:
    text = (
        "<project><build><pluginManagement><plugins><plugin>"
        "<artifactId>maven-enforcer-plugin</artifactId><version>3.0.0</version>"
        "</plugin></plugins></pluginManagement><plugins><plugin>"
        "<artifactId>maven-enforcer-plugin</artifactId></plugin></plugins></build></project>"
    )
    write_pom(tmp_path, text)
    with pytest.raises(ValueError, match=r"build/pluginManagement is version 3\.0\.0"):
        install_guard(tmp_path, "maven", PROJECT, None)


def test_version_comparison() -> None:
    minimum = (3, 1, 0)
    assert is_below("3.0.0-M3", minimum)
    assert not is_below("3.1.0-M1", minimum)
    assert not is_below("3.1", minimum)
    assert not is_below("${enforcer.version}", minimum)
    assert not is_below("10.0", minimum)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<project>\n  <build>\n</project>\n", "closes <project> that is not open"),
        ("<project>\n  <build>\n", "never closes <build>"),
        ("<?xml version='1.0'?>\n<!-- nothing -->\n", "has no root element"),
        ("<project><!-- open\n</project>", "never closes <!--"),
    ],
)
def test_unreadable_pom_is_refused(tmp_path: Path, text: str, message: str) -> None:
    pom = write_pom(tmp_path, text)
    with pytest.raises(ValueError, match=f"Could not read POM: pom.xml {message}"):
        install_guard(tmp_path, "maven", PROJECT, None)
    assert read(pom) == text


@pytest.mark.parametrize("version", ["", "  ", "1.3.0-SNAPSHOT", "1.0 --evil"])
def test_unusable_rule_version_is_refused_before_the_pom_is_read(
    tmp_path: Path, version: str
) -> None:
    with pytest.raises(ValueError, match="ruleVersion"):
        install_guard(tmp_path, "maven", PROJECT, version)


def test_missing_pom_is_a_failure(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"pom\.xml is not a file"):
        install_guard(tmp_path, "maven", PROJECT, None)
    assert not is_guard_installed(tmp_path, "maven")


def test_pom_that_is_not_utf8_is_refused_untouched(tmp_path: Path) -> None:
    data = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<project><name>Caf\xe9</name></project>\n'
    pom = tmp_path / "pom.xml"
    pom.write_bytes(data.encode("latin-1"))
    with pytest.raises(ValueError, match=r"Could not read POM: pom\.xml is not UTF-8"):
        install_guard(tmp_path, "maven", PROJECT, None)
    assert pom.read_bytes() == data.encode("latin-1")


def test_bom_is_kept(tmp_path: Path) -> None:
    pom = write_pom(tmp_path, "\ufeff" + NO_BUILD)
    install_guard(tmp_path, "maven", PROJECT, None)
    assert pom.read_bytes().startswith(b"\xef\xbb\xbf<?xml")
