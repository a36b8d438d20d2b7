"""A worker process for the tests that kill or signal one (test_worker_process.py).

    python3 worker_proc.py SERVER TOKEN GROUP EXECUTOR_ID

Handlers: ``block`` prints that it started and then never ends by itself (it ignores stops: only killing the process
ends it); ``slow`` prints ``working``, works for about a second and returns ``finished``.
"""

from __future__ import annotations

import logging
import sys
import time

from ax_sdk import Context, Worker


def block(ctx: Context) -> None:
    print(f"started on {ctx.run_ref} by {sys.argv[4]}", flush=True)
    while True:
        try:
            time.sleep(0.2)
        except BaseException:  # noqa: B902 - the test kills this process; nothing else may end it
            pass


def slow(ctx: Context) -> str:
    print("working")
    time.sleep(1.0)
    print("done")
    return "finished"


def main() -> None:
    server, token, group, executor_id = sys.argv[1:5]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker = Worker(server, token, group, executor_id=executor_id, poll_wait=1.0, shutdown_grace=10.0)
    worker.handler("block", block)
    worker.handler("slow", slow)
    worker.run()
    logging.info("worker process %s exits (errors: %d)", executor_id, worker.error_count)
    sys.exit(0 if worker.error_count == 0 else 3)


if __name__ == "__main__":
    main()
