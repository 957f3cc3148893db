"""The build systems' CLAUDE.md guards, one module each, and their registry.

Each module implements :class:`~adopt_server.guards.guard.BuildGuard` and offers it as
``GUARD``. Adding a guard is one module and one line in :data:`GUARDS`; nothing outside this
package names a guard (the pipeline asks :mod:`adopt_server.guards` for the guard of a
checkout).
"""

from __future__ import annotations

from adopt_server.guards.builds import fallback, gradle, maven, python
from adopt_server.guards.guard import BuildGuard

GUARDS: tuple[BuildGuard, ...] = (
    maven.GUARD,
    gradle.GUARD,
    python.GUARD,
    fallback.GUARD,
)
"""Every guard in detection order: a checkout gets the first that applies to it. Maven comes
before Gradle and Gradle before Python, so a Java project that also carries a ``setup.py``
for tooling still gets the Java guard; the fallback applies to every checkout, so it is
last."""
