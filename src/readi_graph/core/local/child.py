"""The local model server's launcher: llama.cpp's server, bound to the life of its parent.

`python -m readi_graph.core.local.child PARENT_PID <llama_cpp.server arguments>` runs the server
in this process and a watchdog thread that exits as soon as the parent process is gone. An
`atexit` handler in the parent is not enough: SIGTERM (e.g. stopping `langgraph dev`) or
SIGKILL skip it, and the server (~700 MB) was left running.
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import time


def watch(parent: int, every: float = 0.5) -> None:
    while True:
        if os.getppid() != parent:  # re-parented: the parent died
            os._exit(0)
        time.sleep(every)


def main() -> None:
    parent = int(sys.argv[1])
    threading.Thread(target=watch, args=(parent,), daemon=True, name="parent-watchdog").start()
    sys.argv = ["llama_cpp.server", *sys.argv[2:]]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
