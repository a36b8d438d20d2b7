"""One real AX server for the whole session, started from the built jar, and helpers around it.

The jar is ``$AX_JAR`` (Maven sets it) or ax-cli/target/ax.jar of this checkout; Java is ``$JAVA_HOME``'s, else the
first Java 21+ on the PATH or under /usr/lib/jvm. The server runs on a free port with a fresh data directory, no
in-process executor (only the workers under test serve runs) and a 2 s lease, so that lost workers are noticed fast.
Every test uses executor groups and task names of its own, so tests share the server without seeing each other.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, TypeVar

import pytest

from ax_sdk import Client, Worker

HERE = Path(__file__).resolve().parent
SDK = HERE.parent
REPO = SDK.parent.parent
LEASE = "PT2S"
START_TIMEOUT = 90.0
#: How long a test waits for a condition that should come within a lease or two.
WAIT = 20.0

T = TypeVar("T")
_counter = itertools.count(1)


def eventually(check: Callable[[], T], timeout: float = WAIT, interval: float = 0.05, what: str = "") -> T:
    """``check()`` once it returns something truthy; fails the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"not within {timeout} s: {what or check}")
        time.sleep(interval)


def _java_major(java: str) -> int:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return 0
    match = re.search(r'version "(\d+)', out)
    return int(match.group(1)) if match else 0


def find_java() -> Optional[str]:
    candidates: List[str] = []
    for var in ("AX_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", "java"))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(on_path)
    candidates += sorted(glob.glob("/usr/lib/jvm/*/bin/java"), reverse=True)
    for java in candidates:
        if os.access(java, os.X_OK) and _java_major(java) >= 21:
            return java
    return None


class Ax:
    """The session's server: its URL, an admin and an executor token, and an admin :class:`Client`."""

    def __init__(self, url: str, admin_token: str, process: subprocess.Popen, log_path: Path) -> None:
        self.url = url
        self.admin_token = admin_token
        self.process = process
        self.log_path = log_path
        self.client = Client(url, admin_token)
        created = self.client._json("POST", "/api/tokens", {"name": "py-sdk-tests", "role": "executor"})
        self.executor_token: str = created["token"]

    def sdk_task(self, name: str, handler: str, group: str, policy: Optional[Dict[str, Any]] = None,
                 **extra: Any) -> None:
        """An event-triggered task whose action is ``handler`` in ``group``."""
        task = {
            "taskName": name,
            "trigger": {"type": "event"},
            "action": {"type": "sdk", "handler": handler, "group": group},
            "policy": policy or {},
        }
        task.update(extra)
        self.client.apply(task)

    def state(self, run_id: int) -> str:
        return str(self.client.run(run_id)["state"])

    def await_state(self, run_id: int, *states: str, timeout: float = WAIT) -> Dict[str, Any]:
        def reached() -> Optional[Dict[str, Any]]:
            run = self.client.run(run_id)
            return run if run["state"] in states else None

        return eventually(reached, timeout, what=f"run {run_id} in {states} (it is {self.state(run_id)})")

    def event_types(self, run_id: int) -> List[str]:
        return [e["type"] for e in self.client.events(run_id)]

    def server_log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="session")
def ax(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ax]:
    jar = os.environ.get("AX_JAR") or str(REPO / "ax-cli" / "target" / "ax.jar")
    if not os.path.isfile(jar):
        message = f"no AX jar at {jar}: build it with ./mvnw -B -o install -DskipTests -pl ax-cli -am"
        if os.environ.get("AX_JAR"):
            pytest.fail(message)
        pytest.skip(message)
    java = find_java()
    if java is None:
        pytest.fail("no Java 21 or newer (JAVA_HOME, the PATH, /usr/lib/jvm) to start the AX server with")
    home = tmp_path_factory.mktemp("ax-server")
    log_path = home / "server.log"
    command = [
        java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar, "server",
        "--port", "0", "--data-dir", str(home / "data"), "--no-executor", "--lease", LEASE, "--drain-timeout", "PT1S",
    ]
    with open(log_path, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=home)
    try:
        url = _await_url(process, log_path)
        token = (home / "data" / "admin.token").read_text().strip()
        yield Ax(url, token, process, log_path)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _await_url(process: subprocess.Popen, log_path: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    pattern = re.compile(r"(?:ready at|listening on) (https?://[0-9A-Za-z.:\[\]-]+)")
    while time.monotonic() < deadline:
        text = log_path.read_text(errors="replace")
        match = pattern.search(text)
        if match:
            return match.group(1)
        if process.poll() is not None:
            pytest.fail(f"the AX server exited with {process.returncode}:\n{text[-4000:]}")
        time.sleep(0.1)
    process.kill()
    pytest.fail(f"the AX server did not start within {START_TIMEOUT} s:\n{log_path.read_text()[-4000:]}")


@pytest.fixture
def name(request: pytest.FixtureRequest) -> str:
    """A name of this test's own, for its group, tasks and workers."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:40]
    return f"t{next(_counter)}-{slug}"


@pytest.fixture
def make_worker(ax: Ax, name: str) -> Iterator[Callable[..., Worker]]:
    """Starts in-process workers on the session's server; closes them after the test and checks they counted no
    unexpected error."""
    workers: List[Worker] = []

    def make(group: str, handlers: Dict[str, Callable[..., Any]], **options: Any) -> Worker:
        token = options.pop("token", ax.executor_token)
        settings: Dict[str, Any] = {
            "executor_id": f"{name}-w{len(workers) + 1}",
            "poll_wait": 1.0,
            "shutdown_grace": 2.0,
        }
        settings.update(options)
        worker = Worker(ax.url, token, group, **settings)
        for handler_name, fn in handlers.items():
            worker.handler(handler_name, fn)
        workers.append(worker.start())
        return worker

    yield make
    for worker in workers:
        worker.close()
    for worker in workers:
        assert worker.error_count == 0, f"unexpected errors in worker {worker.executor_id}'s loops"


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen]]:
    """Starts Python processes (workers) with the SDK on their path; kills what is left after the test."""
    processes: List[subprocess.Popen] = []

    def start(*args: str, log_name: str = "process.log") -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(SDK / "src")] + [p for p in [env.get("PYTHONPATH")] if p])
        env["PYTHONUNBUFFERED"] = "1"
        log_file = open(tmp_path / log_name, "wb")
        process = subprocess.Popen([sys.executable, *args], stdout=log_file, stderr=subprocess.STDOUT, env=env)
        process.log_path = tmp_path / log_name  # type: ignore[attr-defined]
        log_file.close()
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()
