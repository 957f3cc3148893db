"""A real local Spark Connect server from the ``pyspark`` package, for tests and benchmarks.

``pyspark`` (the full distribution, in the ``spark-tests`` dependency group) ships the Spark
jars, the Spark Connect server among them, and ``bin/spark-submit``; Java 17 runs it. The
server listens on a free loopback port, keeps its warehouse and metastore in a temporary
directory and is stopped (its whole process group) when the context ends.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
SHORT_LIVED = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
"""JVM options for a server that answers many small queries and then stops (the tests): the
quick JIT tier only, one garbage-collector thread. The full JIT spent more CPU compiling than
it saved: the Spark tests took 265 s of CPU with it, 174 s without (57 passed both times, one
run each under the same load). Benchmarks keep the JVM's defaults."""
START_SECONDS = 240.0
_PR_SET_PDEATHSIG = 1


def missing_reason() -> str | None:
    """Why a local Spark Connect server cannot start here, or None when it can."""
    if shutil.which("java") is None:
        return "Java is not installed (Spark needs a JRE 17; .ci/run installs one)"
    try:
        import pyspark
    except ImportError:
        return "pyspark is not installed (run: nox -s spark, or uv run --group spark-tests)"
    home = Path(pyspark.__file__).parent
    if not (home / "bin" / "spark-submit").exists():
        return "the installed pyspark has no bin/spark-submit (the light client, not full pyspark)"
    return None


def _die_with_parent() -> None:
    """In the child before exec: Linux sends it SIGTERM when the process that started it dies,
    so a killed test or benchmark run leaves no Spark JVM behind (spark-submit execs the JVM
    in the same process, which keeps this setting)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@dataclass(frozen=True)
class LocalSpark:
    """A running local Spark Connect server."""

    url: str  # sc://localhost:PORT/;token=TOKEN
    port: int
    token: str
    warehouse: Path
    log: Path


@contextmanager
def local_spark(
    cores: int = 2, memory: str = "1g", java_options: Sequence[str] = ()
) -> Iterator[LocalSpark]:
    """Start ``local[cores]`` Spark Connect on a free loopback port; stop it on exit.

    Clients must present a bearer token (``;token=`` in the URL), as against a real cluster.
    ``java_options`` go to the JVM (e.g. :data:`SHORT_LIVED`).
    """
    import pyspark

    home = Path(pyspark.__file__).parent
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="spark-connect-") as folder:
        root = Path(folder)
        warehouse = root / "warehouse"
        log = root / "server.log"
        command = [
            str(home / "bin" / "spark-submit"),
            "--class",
            SERVER_CLASS,
            "--master",
            f"local[{cores}]",
            "--driver-memory",
            memory,
            "--conf",
            f"spark.connect.grpc.binding.port={port}",
            "--conf",
            "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            f"spark.sql.warehouse.dir={warehouse}",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.sql.shuffle.partitions=4",
            "--driver-java-options",
            " ".join([f"-Dderby.system.home={root}", *java_options]),
            "spark-internal",
        ]
        token = secrets.token_hex(16)
        environment = {
            **os.environ,
            "SPARK_HOME": str(home),
            "SPARK_LOCAL_IP": "127.0.0.1",
            # from the environment, not the command line, so no process listing shows it
            "SPARK_CONNECT_AUTHENTICATE_TOKEN": token,
        }
        with log.open("wb") as sink:
            process = subprocess.Popen(
                command,
                cwd=root,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        try:
            deadline = time.monotonic() + START_SECONDS
            while not _listening(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = log.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"Spark Connect did not start:\n{tail}")
                time.sleep(0.5)
            # the client sends a token over plain TCP only to "localhost" (local credentials)
            url = f"sc://localhost:{port}/;token={token}"
            yield LocalSpark(url, port, token, warehouse, log)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
