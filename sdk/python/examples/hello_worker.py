#!/usr/bin/env python3
"""An AX worker with one handler, ``hello``, which prints ``hello <params.name>`` to the run's log.

    python3 hello_worker.py --server http://127.0.0.1:7070 --token "$AX_TOKEN" --group py

A task that runs it::

    {"taskName": "hello", "trigger": {"type": "event"},
     "action": {"type": "sdk", "handler": "hello", "group": "py"}}

    ax trigger hello -p name=world --wait   # SUCCESS; `ax run log ID` shows "hello world"

It serves until SIGTERM or Ctrl-C, then lets running handlers finish (a second signal stops them at once).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import List, Optional

try:
    import ax_sdk
except ImportError:  # run from a checkout without installing: the package is next door
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    import ax_sdk


def hello(ctx: ax_sdk.Context) -> str:
    name = ctx.param("name", "world")
    print(f"hello {name}")
    return f"said hello to {name}"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="An AX worker serving the handler 'hello'.")
    parser.add_argument("--server", required=True, action="append", help="the AX server's URL (repeat for nodes)")
    parser.add_argument("--token", default=os.environ.get("AX_TOKEN"), help="an executor token (default $AX_TOKEN)")
    parser.add_argument("--group", required=True, action="append", help="an executor group to serve (repeatable)")
    parser.add_argument("--id", dest="executor_id", help="the worker's name in AX (default <host>-<pid>)")
    parser.add_argument("--concurrency", type=int, default=4, help="handlers at the same time (default 4)")
    parser.add_argument("--ca", help="PEM file of the CA to trust for an https:// server")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("--token is required (or set AX_TOKEN)")

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker = ax_sdk.Worker(
        args.server,
        token=args.token,
        groups=args.group,
        executor_id=args.executor_id,
        concurrency=args.concurrency,
        ca=args.ca,
    )
    worker.handler("hello", hello)
    try:
        worker.run()
    except ax_sdk.ChannelError as e:
        print(f"hello_worker: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
