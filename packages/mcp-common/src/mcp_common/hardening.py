"""Keeping a server's own environment and memory from the untrusted programs it starts.

A child we do not trust gets an allow-listed environment
(:func:`~mcp_common.child_environment.child_environment`), but on Linux it runs as the
server's user, and any process of that user may read another's ``/proc/<pid>/environ``
(the environment the process started with: every token), its ``mem``, ``fd`` and ``io``,
or ptrace-attach to it. A build wrapper reading ``/proc/$PPID/environ`` undid the allow-list.
The kernel refuses all of that to processes of the same user, though not to one holding
``CAP_SYS_PTRACE`` (root), once a process is not *dumpable*: :func:`harden_process`.

Standard library only, and cheap: one system call at start-up.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys

_PR_SET_DUMPABLE = 4  # <linux/prctl.h>

_log = logging.getLogger("mcp_common.hardening")


def harden_process() -> bool:
    """Make this process non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``); whether it took.

    Other processes of the same user can then no longer read its ``/proc/<pid>/environ``,
    ``mem``, ``fd``, ``io`` or ``auxv``, nor attach a debugger (``gdb -p``, ``py-spy``); root
    still can. It writes no core dump. The process keeps reading its own ``/proc/self``
    except for its ``environ``, ``io`` and ``auxv``, which become root's files. A forked
    child stays non-dumpable until it runs a program: ``exec`` makes that program
    dumpable again, which is harmless, since the secrets protected are this process's.

    Linux only: elsewhere nothing changes (said in the debug log) and ``False`` is returned.
    """
    if not sys.platform.startswith("linux"):
        _log.debug("not hiding this process from its user's other processes: not Linux")
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:  # pragma: no cover - Linux >= 2.4
        error = ctypes.get_errno()
        _log.warning(
            "could not make this process non-dumpable (%s): the programs it starts can read "
            "its environment in /proc",
            os.strerror(error),
        )
        return False
    return True
