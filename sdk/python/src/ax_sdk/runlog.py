"""Ships one run's log lines to the server.

The handler only appends to a buffer, so a slow or unreachable server never blocks it; a sender thread of the run's
own ships what is there, in order, as soon as it is there. While the server cannot be reached the sender retries
with backoff and the buffer keeps the newest :data:`MAX_BUFFERED_LINES` lines; the next batch then says how many
were dropped. A refused batch (409) means the lease is gone: the log stops and its owner is told.

A batch is at most :data:`BATCH_LINES` lines and :data:`BATCH_BYTES` bytes as the lines travel in JSON; a longer line
goes in pieces. So whatever a handler prints, no request outgrows the server's body size limit.
"""

from __future__ import annotations

import collections
import logging
import re
import threading
from typing import Callable, Deque, Dict, List, Optional, Tuple

from ._http import Backoff
from .errors import ChannelError
from .protocol import ExecutorChannel, RunRef, SecretMask, json_size, pieces

log = logging.getLogger(__name__)

BATCH_LINES = 200
BATCH_BYTES = 64 * 1024
MAX_BUFFERED_LINES = 10_000
STDOUT = "stdout"
STDERR = "stderr"

_END = object()
_NEWLINE = re.compile(r"\r\n|\r|\n")


class RunLog:
    """The log of one attempt: :meth:`append` whole lines, :meth:`write` text as ``print`` writes it."""

    def __init__(
        self,
        channel: ExecutorChannel,
        executor_id: str,
        run: RunRef,
        on_refused: Callable[[str], None],
        mask: Optional[SecretMask] = None,
    ) -> None:
        self._channel = channel
        self._executor_id = executor_id
        self._run = run
        self._on_refused = on_refused
        self._mask = mask or SecretMask()
        self._queue: Deque[object] = collections.deque()
        self._cond = threading.Condition(threading.Lock())
        self._dropped = 0
        self._partial: Dict[str, str] = {}
        self._finishing = False
        self._aborted = threading.Event()
        self._sender: Optional[threading.Thread] = None

    # ----------------------------------------------------------------------------------------- the handler's side

    def append(self, stream: str, text: object) -> None:
        """Appends text, one line per line of it, with the run's secrets masked. Never blocks on the server."""
        if self._aborted.is_set() or self._finishing:
            return  # a thread the handler started may still log after the handler returned
        value = str(text)
        # A lone surrogate (bytes decoded with surrogateescape) would not survive the trip as UTF-8.
        value = value.encode("utf-8", "replace").decode("utf-8")
        lines = _NEWLINE.split(value)
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()  # "a\n" is one line
        with self._cond:
            for line in lines:
                masked = self._mask.apply(line) or ""  # masked whole, then cut: a value is never split first
                for piece in pieces(masked, BATCH_BYTES):
                    self._queue.append((stream, piece))
            while len(self._queue) > MAX_BUFFERED_LINES:
                self._queue.popleft()
                self._dropped += 1
            self._cond.notify()

    def write(self, stream: str, text: str) -> None:
        """Text as a file receives it (``print`` writes a value, then ``"\\n"``): whole lines go to the log,
        the rest waits for the end of its line, or for :meth:`flush_partial`."""
        with self._cond:
            buffered = self._partial.get(stream, "") + text
            cut = buffered.rfind("\n")
            if cut < 0:
                self._partial[stream] = buffered
                return
            self._partial[stream] = buffered[cut + 1 :]
        self.append(stream, buffered[: cut + 1])

    def flush_partial(self) -> None:
        """Lines written without their line break yet become lines (the handler returned)."""
        with self._cond:
            rest = [(stream, text) for stream, text in self._partial.items() if text]
            self._partial.clear()
        for stream, text in rest:
            self.append(stream, text)

    # ------------------------------------------------------------------------------------------ the worker's side

    def start_sending(self) -> None:
        """Starts shipping: only once the server accepted "started", so it sees started, log, completion in order."""
        with self._cond:
            if self._sender is None and not self._aborted.is_set():
                self._sender = threading.Thread(
                    target=self._ship, name=f"ax-log-{self._run.instance_id}-{self._run.attempt}", daemon=True
                )
                self._sender.start()

    def finish(self) -> None:
        """No more lines will come: returns once everything was shipped (retrying through an outage as long as it
        lasts), or the log was aborted or refused."""
        self.flush_partial()
        with self._cond:
            self._finishing = True
            self._queue.append(_END)
            self._cond.notify()
        self.start_sending()
        sender = self._sender
        if sender is not None and sender is not threading.current_thread():
            sender.join()

    def abort(self) -> None:
        """Drops everything and stops (the server refuses this run's lines now, or the worker is closing)."""
        self._aborted.set()
        with self._cond:
            self._queue.clear()
            self._cond.notify()

    @property
    def aborted(self) -> bool:
        return self._aborted.is_set()

    # --------------------------------------------------------------------------------------------- the sender

    def _ship(self) -> None:
        backoff = Backoff()
        batch: List[Tuple[str, str]] = []
        failing = False
        while not self._aborted.is_set():
            if not batch:
                taken = self._next_batch()
                if taken is None:
                    return
                batch = taken
                if not batch:
                    continue
            try:
                for stream, lines in _chunks(batch):
                    answer = self._channel.log(self._executor_id, self._run, stream, lines)
                    if not answer.accepted:
                        log.info("log of %s refused: %s; dropping it", self._run, answer.reason)
                        self.abort()
                        self._on_refused(answer.reason or "refused")
                        return
                    del batch[: len(lines)]  # only now: a chunk that failed is sent again
                backoff.reset()
                failing = False
            except ChannelError as e:
                if self._aborted.is_set():
                    return
                if not e.retryable:
                    log.warning("log of %s: %s; dropping %d lines", self._run, e, len(batch))
                    batch = []
                    continue
                if not failing:
                    log.warning("cannot ship the log of %s: %s; buffering and retrying", self._run, e)
                    failing = True
                self._aborted.wait(backoff.next())

    def _next_batch(self) -> Optional[List[Tuple[str, str]]]:
        """Waits for at least one line and takes up to a batch; None at the end of the log (or when aborted)."""
        with self._cond:
            if not self._queue:
                self._cond.wait(1.0)
            if self._aborted.is_set():
                return None
            if not self._queue:
                return []
            first = self._queue.popleft()
            if first is _END:
                return None
            batch: List[Tuple[str, str]] = []
            if self._dropped:
                batch.append((STDERR, f"[ax] {self._dropped} log lines dropped: server unreachable"))
                self._dropped = 0
            batch.append(first)  # type: ignore[arg-type]
            size = sum(json_size(text) for _, text in batch)
            while len(batch) < BATCH_LINES and self._queue:
                nxt = self._queue[0]
                if nxt is _END or size + json_size(nxt[1]) > BATCH_BYTES:  # type: ignore[index]
                    break
                size += json_size(nxt[1])  # type: ignore[index]
                batch.append(self._queue.popleft())  # type: ignore[arg-type]
            return batch


def _chunks(batch: List[Tuple[str, str]]) -> List[Tuple[str, List[str]]]:
    """Consecutive lines of one stream make one chunk, so the order of lines is kept across streams."""
    chunks: List[Tuple[str, List[str]]] = []
    for stream, text in batch:
        if chunks and chunks[-1][0] == stream:
            chunks[-1][1].append(text)
        else:
            chunks.append((stream, [text]))
    return chunks
