"""The SDK's parts on their own, without an AX server: masks, log batching, output capture, outcomes, the channel's
status handling, several nodes, aborting a long poll."""

from __future__ import annotations

import http.server
import io
import json
import logging
import sys
import threading
import time
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from ax_sdk import AuthError, ChannelError, NonRetryableError, Unanswered, logcapture
from ax_sdk import _run as outcomes
from ax_sdk import runlog as runlog_module
from ax_sdk._http import Abort, Backoff, Response, Transport
from ax_sdk.context import parse_instant
from ax_sdk.protocol import ExecutorChannel, ReportAnswer, RunRef, SecretMask, WorkItem, json_size, pieces
from ax_sdk.runlog import RunLog


# --------------------------------------------------------------------------------------------------- masks, sizes


def test_secrets_are_masked_longest_first_line_by_line_and_short_values_are_left_alone():
    mask = SecretMask(["hunter2hunter2", "hunter2", "abc", None, "-----BEGIN KEY-----\nMIIEpAIBAAKC\n-----END KEY-----"])
    assert mask.apply("pw=hunter2hunter2 and hunter2") == "pw=*** and ***"
    assert mask.apply("abc stays") == "abc stays"
    assert mask.apply("line MIIEpAIBAAKC") == "line ***"
    assert mask.apply(None) is None
    assert not SecretMask([])


def test_long_lines_are_cut_into_pieces_that_fit_a_batch_as_json():
    line = 'x"\n' * 1000 + "é" * 1000 + "😀" * 100
    parts = pieces(line, 500)
    assert "".join(parts) == line
    assert all(json_size(p) <= 500 for p in parts)
    assert pieces("short", 500) == ["short"]


# --------------------------------------------------------------------------------------------------- the run log


class FakeChannel:
    """Records log chunks; can refuse, or be unreachable for a while."""

    def __init__(self) -> None:
        self.chunks: List[Tuple[str, List[str]]] = []
        self.refuse = False
        self.down = threading.Event()

    def log(self, executor_id: str, run: RunRef, stream: str, lines: List[str]) -> ReportAnswer:
        if self.down.is_set():
            raise Unanswered("down (test)")
        if self.refuse:
            return ReportAnswer(False, "attempt 1 of run 1 is not held by executor w")
        self.chunks.append((stream, list(lines)))
        return ReportAnswer(True)

    def lines(self) -> List[Tuple[str, str]]:
        return [(stream, line) for stream, lines in self.chunks for line in lines]


def _run_log(channel: FakeChannel, refusals: List[str], mask: Any = None) -> RunLog:
    return RunLog(channel, "w", RunRef(1, 1), refusals.append, mask)  # type: ignore[arg-type]


def test_the_run_log_ships_lines_in_order_in_batches_that_fit_a_request():
    channel, refusals = FakeChannel(), []
    log = _run_log(channel, refusals, SecretMask(["s3cret"]))
    for i in range(450):
        log.append("stdout", f"line {i}")
    log.append("stderr", "oops s3cret\nsecond")
    log.write("stdout", "partial ")
    log.write("stdout", "line\nand the rest")
    log.start_sending()
    log.finish()

    lines = channel.lines()
    assert lines[:450] == [("stdout", f"line {i}") for i in range(450)]
    assert lines[450:] == [("stderr", "oops ***"), ("stderr", "second"), ("stdout", "partial line"),
                           ("stdout", "and the rest")]
    assert all(len(lines) <= runlog_module.BATCH_LINES for _, lines in channel.chunks)
    assert refusals == []


def test_a_refused_log_stops_and_tells_its_owner():
    channel, refusals = FakeChannel(), []
    channel.refuse = True
    log = _run_log(channel, refusals)
    log.append("stdout", "hello")
    log.start_sending()
    log.finish()
    assert refusals == ["attempt 1 of run 1 is not held by executor w"]
    assert log.aborted
    log.append("stdout", "dropped")  # a thread the handler started: ignored


def test_the_run_log_buffers_while_the_server_is_away_and_says_how_many_lines_it_dropped(monkeypatch):
    monkeypatch.setattr(runlog_module, "MAX_BUFFERED_LINES", 10)
    channel, refusals = FakeChannel(), []
    channel.down.set()
    log = _run_log(channel, refusals)
    log.start_sending()
    for i in range(30):
        log.append("stdout", f"line {i}")
    time.sleep(0.3)
    channel.down.clear()
    log.finish()

    lines = [line for _, line in channel.lines()]
    assert lines[-10:] == [f"line {i}" for i in range(20, 30)]
    assert any(line.startswith("[ax] ") and line.endswith("log lines dropped: server unreachable") for line in lines)


# --------------------------------------------------------------------------------------------------- capture


def test_print_and_logging_on_a_bound_thread_go_to_its_run_log_and_elsewhere_to_the_usual_place(capsys):
    channel, refusals = FakeChannel(), []
    log = _run_log(channel, refusals)
    logcapture.install()
    try:
        other = io.StringIO()
        seen_by_others: List[str] = []

        def handler_thread() -> None:
            logcapture.bind(log)
            try:
                print("to the run")
                print("no newline yet", end="")
                print("oops", file=sys.stderr)
                logging.getLogger("app").error("failed %d times", 2)
                logging.getLogger("ax_sdk.worker").warning("the SDK's own: not the job's output")
            finally:
                logcapture.unbind()

        def bystander() -> None:
            print("not in any run", file=other)
            print("the process's own output")

        t1 = threading.Thread(target=handler_thread)
        t2 = threading.Thread(target=bystander)
        t1.start()
        t2.start()
        t1.join()
        t2.join()
        seen_by_others.append(other.getvalue())
    finally:
        logcapture.uninstall()
    log.start_sending()
    log.finish()

    assert channel.lines() == [
        ("stdout", "to the run"),
        ("stderr", "oops"),
        ("stderr", "ERROR app: failed 2 times"),
        ("stdout", "no newline yet"),
    ]
    out, err = capsys.readouterr()
    assert "the process's own output" in out
    assert seen_by_others == ["not in any run\n"]
    assert not isinstance(sys.stdout, logcapture._Router)


def test_records_no_one_else_handles_still_reach_loggings_last_resort(capsys):
    root = logging.getLogger()
    others = root.handlers[:]
    for handler in others:  # as in a program that configured no logging (pytest's own handler aside)
        root.removeHandler(handler)
    logcapture.install()
    try:
        logging.getLogger("app").warning("seen on stderr, as without the SDK")
        logging.getLogger("app").info("dropped, as without the SDK")
    finally:
        logcapture.uninstall()
        for handler in others:
            root.addHandler(handler)
    err = capsys.readouterr().err
    assert "seen on stderr, as without the SDK" in err
    assert "dropped" not in err


# --------------------------------------------------------------------------------------------------- outcomes


def test_outcomes_say_how_an_attempt_ended():
    try:
        raise KeyError("order 7")
    except KeyError as e:
        error = e
    assert outcomes.failure(error).failure_kind == "EXIT_CODE"
    assert outcomes.failure(error).message == "KeyError: 'order 7'"
    assert outcomes.failure(NonRetryableError("never paid")).failure_kind == "FATAL"
    assert outcomes.failure(NonRetryableError("never paid")).message == "ax_sdk.errors.NonRetryableError: never paid"
    assert outcomes.success(None).message is None
    assert outcomes.success(42).message == "42"
    assert len(outcomes.success("x" * 5000).message) == outcomes.MAX_MESSAGE_CHARS + 1
    assert outcomes.timeout("h", 5, True).message.endswith("; it ignored the stop and still runs")
    assert outcomes.failure(ValueError("two\nlines")).message == "ValueError: two\nlines"


def test_a_long_traceback_keeps_its_first_line_and_its_innermost_lines():
    error = None
    for i in range(40):  # a chain of causes: a traceback of a few hundred lines
        try:
            raise RuntimeError(f"step {i}") from error
        except RuntimeError as e:
            error = e
    lines = outcomes.trace(error)
    assert len(lines) == outcomes.MAX_TRACE_LINES
    assert lines[0] == "Traceback (most recent call last):"
    assert "lines left out" in lines[1]
    assert lines[-1] == "RuntimeError: step 39"


def test_instants_parse_as_aware_utc_datetimes_whatever_their_precision():
    assert parse_instant("2026-12-04T17:30:54.821247123Z").isoformat() == "2026-12-04T17:30:54.821247+00:00"
    assert parse_instant("2026-12-04T17:30:54Z").isoformat() == "2026-12-04T17:30:54+00:00"
    assert parse_instant("2026-12-04T19:30:54.5+02:00").isoformat() == "2026-12-04T17:30:54.500000+00:00"
    assert parse_instant(None) is None


def test_backoff_doubles_up_to_five_seconds_and_resets():
    backoff = Backoff()
    assert [backoff.next() for _ in range(8)] == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    backoff.reset()
    assert backoff.next() == 0.1


# --------------------------------------------------------------------------------------------------- the channel


class FakeTransport:
    def __init__(self, status: int, body: Dict[str, Any]) -> None:
        self.response = Response(status, json.dumps(body).encode())
        self.sent: List[Tuple[str, Any]] = []

    def request(self, method: str, path: str, body: bytes = b"", **kwargs: Any) -> Response:
        self.sent.append((path, json.loads(body)))
        return self.response


def test_the_channel_turns_statuses_into_answers_and_errors():
    ref = RunRef(42, 1)
    refused = ExecutorChannel(FakeTransport(409, {"accepted": False, "reason": "the attempt is over"}))
    assert refused.complete("w", ref, True) == ReportAnswer(False, "the attempt is over")
    with pytest.raises(AuthError) as auth:
        ExecutorChannel(FakeTransport(401, {"error": {"status": 401, "message": "unknown token"}})).poll("w", ["g"], 1, 0)
    assert not auth.value.retryable and "unknown token" in str(auth.value)
    with pytest.raises(ChannelError) as bad:
        ExecutorChannel(FakeTransport(400, {"error": {"status": 400, "message": "session: is required"}})).heartbeat(
            "w", "s", [])
    assert bad.value.status == 400 and not bad.value.retryable
    with pytest.raises(ChannelError) as broken:
        ExecutorChannel(FakeTransport(500, {"error": {"status": 500, "message": "internal error"}})).started(
            "w", ref, 1)
    assert broken.value.retryable


def test_reports_name_the_run_with_its_shard_only_when_sharded():
    transport = FakeTransport(200, {"accepted": True, "reason": None})
    channel = ExecutorChannel(transport)
    channel.started("w", RunRef(42, 1), 7)
    channel.log("w", RunRef(42, 2, 3), "stdout", ["x"])
    assert transport.sent[0] == ("/api/executor/started", {"executorId": "w", "run": {"instanceId": 42, "attempt": 1},
                                                           "pid": 7})
    assert transport.sent[1][1]["run"] == {"instanceId": 42, "attempt": 2, "shard": 3}
    item = WorkItem.from_json({"instanceId": 42, "attempt": 2, "shardIndex": 3, "shardTotal": 4, "params": None})
    assert item.ref == RunRef(42, 2, 3) and item.params == {}


def test_a_log_chunk_too_large_for_one_request_goes_in_several():
    transport = FakeTransport(200, {"accepted": True, "reason": None})
    ExecutorChannel(transport).log("w", RunRef(1, 1), "stdout", ["y" * 100_000] * 4 + ["z" * 600_000])
    bodies = [body for _, body in transport.sent]
    assert len(bodies) > 2
    assert "".join("".join(b["lines"]) for b in bodies) == "y" * 400_000 + "z" * 600_000
    assert all(len(json.dumps(b)) <= 256 * 1024 for b in bodies)


# --------------------------------------------------------------------------------------------------- HTTP


class _Handler(http.server.BaseHTTPRequestHandler):
    status = 200
    delay = 0.0

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(self.delay)
        body = b'{"items":[]}'
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[Any]:
    servers = []

    def start(status: int = 200, delay: float = 0.0) -> str:
        handler = type("H", (_Handler,), {"status": status, "delay": delay})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_requests_go_to_the_next_node_when_one_does_not_answer_and_stay_there(http_server):
    busy, good = http_server(status=503), http_server()
    transport = Transport(["http://127.0.0.1:9", busy, good], "token")
    assert transport.request("POST", "/api/executor/poll", b"{}", timeout=2).status == 200
    assert transport._current == 2
    with pytest.raises(Unanswered) as none:
        Transport(["http://127.0.0.1:9", busy], "token").request("POST", "/x", b"{}", timeout=2)
    assert none.value.status == 503


def test_an_abort_cuts_a_long_poll_short(http_server):
    slow = http_server(delay=5.0)
    channel = ExecutorChannel(Transport([slow], "token"))
    abort = Abort()
    threading.Timer(0.2, abort.abort).start()
    started = time.monotonic()
    with pytest.raises(Unanswered):
        channel.poll("w", ["g"], 1, 5000, abort=abort)
    assert time.monotonic() - started < 2
    with pytest.raises(Unanswered, match="closing"):
        channel.poll("w", ["g"], 1, 5000, abort=abort)
