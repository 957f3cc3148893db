"""Print the public top-level type names of ``java.lang`` from an installed JDK, one a line.

Run once per JDK upgrade and paste the output into ``context_server/core/languages/implicit.py``:
``uv run python packages/context-server/scripts/java_lang_names.py /usr/lib/jvm/<jdk>``.
It lists the classes of the ``java.base`` module image with ``jimage`` and keeps those that
``javap`` reports as public.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

_CLASS = re.compile(r"^\s+java/lang/([A-Za-z0-9_]+)\.class$")
_HEADER = re.compile(r"^public .*?(?:class|interface|enum|record|@interface) java\.lang\.(\w+)")


def main(jdk: Path) -> None:
    """List the public ``java.lang`` names of the JDK at ``jdk``."""
    image = subprocess.run(
        [str(jdk / "bin" / "jimage"), "list", str(jdk / "lib" / "modules")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = ""
    names: list[str] = []
    for line in image.splitlines():
        if line.startswith("Module: "):
            module = line.split()[1]
        elif module == "java.base" and (match := _CLASS.match(line)):
            names.append(match.group(1))
    shown = subprocess.run(
        [str(jdk / "bin" / "javap"), *(f"java.lang.{name}" for name in names)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    public = sorted({m.group(1) for line in shown.splitlines() if (m := _HEADER.match(line))})
    sys.stdout.write("\n".join(public) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
