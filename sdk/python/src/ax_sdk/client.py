"""A small client for the AX REST API: define tasks, trigger them, follow their runs.

::

    from ax_sdk import Client

    ax = Client("http://ax:7070", token)
    run_id = ax.trigger("sync_orders", {"since": "2024-05-01"})           # safe to retry: one call, one run
    run_id = ax.trigger("ship_order", {"order": 7}, idempotency_key="ship-7")  # your key: one run per key
    run = ax.wait(run_id, timeout=600)                                  # the run once it ended
    print(run["state"], run["message"], ax.log(run_id))

Answers are the JSON the server sends, as dicts (docs/api.md). A call that fails raises :class:`AxClientError` with
the HTTP status (0 when the server could not be reached) and the server's message.
"""

from __future__ import annotations

import json
import logging
import re
import time
import urllib.parse
import uuid
from typing import Any, Dict, List, Mapping, Optional, Union

from ._http import Response, Transport, dumps
from ._version import __version__
from .errors import AxClientError, Unanswered

log = logging.getLogger(__name__)

#: How often a trigger is sent at most: once, and three retries, 100, 200 and 400 ms apart.
TRIGGER_ATTEMPTS = 4
#: States a run never leaves.
TERMINAL_STATES = frozenset({"SUCCESS", "FAILED", "TERMINATED", "CANCELED", "SKIPPED"})
REQUEST_TIMEOUT = 30.0
_KEY = re.compile(r"[\x20-\x7e]{1,200}")


class Client:
    """The AX REST API with a bearer token.

    :param server: the AX server, e.g. ``http://ax:7070`` (a path prefix behind a proxy is kept), or the URLs of
        several nodes
    :param token: a token whose role allows the calls made: viewer to read, operator to trigger, admin to apply
    :param ca: for an ``https://`` server, a PEM file of the CA certificate(s) to trust instead of the system's
    """

    def __init__(
        self,
        server: Union[str, List[str]],
        token: str,
        *,
        ca: Optional[str] = None,
        ssl_context: Any = None,
        timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        servers = [server] if isinstance(server, str) else list(server)
        self._transport = Transport(servers, token, ca=ca, ssl_context=ssl_context,
                                    user_agent=f"ax-sdk-python/{__version__}")
        self._timeout = timeout

    # ------------------------------------------------------------------------------------------- tasks

    def apply(self, task: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """Creates the task from its definition (JSON text or a dict), or updates it (a new version) when one of
        that name exists. Returns the stored task."""
        definition = json.loads(task) if isinstance(task, str) else dict(task)
        try:
            return self._json("POST", "/api/tasks", definition)
        except AxClientError as e:
            name = definition.get("taskName")
            if e.status != 409 or not isinstance(name, str):
                raise
            return self._json("PUT", "/api/tasks/" + _segment(name), definition)

    def task(self, name: str) -> Dict[str, Any]:
        return self._json("GET", "/api/tasks/" + _segment(name))

    def pause(self, name: str) -> Dict[str, Any]:
        return self._json("POST", "/api/tasks/" + _segment(name) + "/pause")

    def resume(self, name: str) -> Dict[str, Any]:
        return self._json("POST", "/api/tasks/" + _segment(name) + "/resume")

    # ------------------------------------------------------------------------------------------- triggers

    def trigger(
        self, task: str, params: Optional[Mapping[str, Any]] = None, *, idempotency_key: Optional[str] = None
    ) -> int:
        """Runs the task now (``POST /api/tasks/{name}/trigger``) with these parameters; returns the run's id.

        The request carries an ``Idempotency-Key``: ``idempotency_key``, or a new UUID. When its answer may have
        been lost — no connection, a reset, no answer in time, or 502/503/504 — it is sent again with the same key,
        up to 4 times (100, 200, 400 ms apart): the server makes at most one run per key and task (within its
        window, 24 h by default) and answers every attempt with it. Pass a key that names the request (an order id)
        to make your own retries safe too; the same key with other parameters is refused (status 422).
        """
        body = {"params": dict(params or {})}
        return self._trigger("/api/tasks/" + _segment(task) + "/trigger", task, body, idempotency_key)

    def trigger_event(
        self,
        task: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        idempotency_key: Optional[str] = None,
        force: bool = False,
    ) -> int:
        """Fires an event-triggered task (``POST /api/trigger``); returns the run's id. Retried like
        :meth:`trigger`. ``force`` runs it even when its ``policy.idempotencyKey`` is done already."""
        body = {"taskName": task, "params": dict(params or {}), "force": force}
        return self._trigger("/api/trigger", task, body, idempotency_key)

    def _trigger(self, path: str, task: str, body: Dict[str, Any], key: Optional[str]) -> int:
        key = key if key is not None else str(uuid.uuid4())
        if not _KEY.fullmatch(key):
            raise ValueError("idempotency_key must be 1 to 200 printable ASCII characters")
        pause = 0.1
        for attempt in range(1, TRIGGER_ATTEMPTS + 1):
            try:
                return int(self._json("POST", path, body, headers={"Idempotency-Key": key})["instanceId"])
            except AxClientError as e:
                if not _unanswered(e):
                    raise
                if attempt == TRIGGER_ATTEMPTS:
                    raise AxClientError(
                        e.status,
                        f"no answer after {attempt} attempts with Idempotency-Key {key} (whether the run was created "
                        f"is not known; the same key is safe to send again); the last: {e}",
                        e.body,
                    ) from e
                log.warning(
                    "triggering %s: attempt %d of %d went unanswered (%s); sending it again with the same "
                    "Idempotency-Key %s", task, attempt, TRIGGER_ATTEMPTS, e, key,
                )
            time.sleep(pause)
            pause *= 2
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------------------------------- runs

    def run(self, run_id: int) -> Dict[str, Any]:
        """One run: ``state``, ``attempt``, ``executorId``, ``failureKind``, ``message``, ``requestId``, …"""
        return self._json("GET", f"/api/runs/{int(run_id)}")

    def runs(self, task: str, state: Optional[str] = None) -> List[Dict[str, Any]]:
        """A task's runs, newest first (the first page)."""
        query = {"task": task}
        if state:
            query["state"] = state
        return list(self._json("GET", "/api/runs?" + urllib.parse.urlencode(query)).get("items", []))

    def events(self, run_id: int) -> List[Dict[str, Any]]:
        """A run's events, oldest first (the first page)."""
        return list(self._json("GET", f"/api/runs/{int(run_id)}/events").get("items", []))

    def log(self, run_id: int) -> str:
        """A run's log as text."""
        return self._send("GET", f"/api/runs/{int(run_id)}/log?format=text", accept="text/plain").text()

    def wait(self, run_id: int, timeout: Optional[float] = None, interval: float = 0.2) -> Dict[str, Any]:
        """The run once it is in a terminal state (SUCCESS, FAILED, TERMINATED, CANCELED, SKIPPED); retries waiting
        in RETRYING count as running. Raises ``TimeoutError`` after ``timeout`` seconds (None: no limit)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            run = self.run(run_id)
            if run.get("state") in TERMINAL_STATES:
                return run
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"run {run_id} is still {run.get('state')} after {timeout} s")
            time.sleep(interval)

    def terminate(self, run_id: int, reason: Optional[str] = None) -> Dict[str, Any]:
        """Stops a RUNNING run: TERMINATED at once; its worker stops the handler at its next heartbeat."""
        return self._json("POST", f"/api/runs/{int(run_id)}/terminate", {"reason": reason} if reason else None)

    def approve(self, run_id: int, comment: Optional[str] = None) -> Dict[str, Any]:
        """Approves a run waiting for approval (the task's approvers decide who may)."""
        return self._json("POST", f"/api/runs/{int(run_id)}/approve", {"comment": comment} if comment else None)

    def reject(self, run_id: int, comment: Optional[str] = None) -> Dict[str, Any]:
        """Rejects a run waiting for approval; it is canceled."""
        return self._json("POST", f"/api/runs/{int(run_id)}/reject", {"comment": comment} if comment else None)

    # ------------------------------------------------------------------------------------------- plumbing

    def _json(
        self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None
    ) -> Any:
        response = self._send(method, path, body, headers=headers)
        try:
            value = response.json()
        except ValueError as e:
            raise AxClientError(response.status, f"unreadable answer to {method} {path}: {e}", response.text()) from e
        return {} if value is None else value

    def _send(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: Optional[Dict[str, str]] = None,
        accept: str = "application/json",
    ) -> Response:
        try:
            response = self._transport.request(
                method,
                path,
                None if body is None else dumps(body),
                timeout=self._timeout,
                headers=headers,
                accept=accept,
            )
        except Unanswered as e:
            raise AxClientError(e.status, str(e)) from e
        if not 200 <= response.status < 300:
            raise AxClientError(response.status, f"{method} {path}: {response.error_message()}", response.text())
        return response


def _unanswered(error: AxClientError) -> bool:
    """A call that may have gone unanswered rather than refused: no answer at all, or a gateway's 502/503/504."""
    return error.status in (0, 502, 503, 504)


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")
