"""A throw-away Virtuoso (Debian's virtuoso-opensource) on loopback, for integration tests.

The database lives in a temporary directory, the ports are free ones picked at start, and the
server is shut down (then killed if it lingers) when the test session ends.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

PACKAGED_INI = Path("/etc/virtuoso-opensource-7/virtuoso.ini")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def virtuoso_available() -> bool:
    return bool(shutil.which("virtuoso-t") and shutil.which("isql-vt") and PACKAGED_INI.is_file())


@dataclass
class Virtuoso:
    workdir: Path
    isql_port: int
    http_port: int
    process: subprocess.Popen[bytes]

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/sparql"

    def isql(self, statement: str, timeout: float = 120) -> str:
        done = subprocess.run(
            ["isql-vt", str(self.isql_port), "dba", "dba", f"exec={statement}"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0 or "*** Error" in done.stdout + done.stderr:
            raise RuntimeError(f"isql failed: {done.stdout}\n{done.stderr}")
        return done.stdout

    def load_ntriples(self, data: bytes, graph: str, name: str = "kb.nt") -> None:
        (self.workdir / name).write_bytes(data)
        self.isql(f"ld_dir('{self.workdir}', '{name}', '{graph}'); rdf_loader_run(); checkpoint;")

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.isql("shutdown;", timeout=30)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_virtuoso(
    ready_timeout: float = 90,
    *,
    workdir: Path | None = None,
    dirs_allowed: Sequence[Path] = (),
    settings: Mapping[str, str] | None = None,
    detach: bool = False,
) -> Virtuoso:
    """Start a server; with no keyword the tests' throw-away one. `workdir`: where the database
    goes (created; default a new temporary directory), `dirs_allowed`: more directories
    `ld_dir` may read, `settings`: packaged ini lines to change (`{"NumberOfBuffers": "340000"}`,
    each must be in the packaged ini), `detach`: a session of its own, so the server outlives
    the process that started it."""
    if workdir is None:
        workdir = Path(tempfile.mkdtemp(prefix="readi-virtuoso-"))
    else:
        workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "db").mkdir()
    isql_port, http_port = _free_port(), _free_port()
    ini = PACKAGED_INI.read_text()
    ini = ini.replace("/var/lib/virtuoso-opensource-7/db", str(workdir / "db"))
    ini = re.sub(r"(?m)^ServerPort(\s*)=\s*1111", rf"ServerPort\g<1>= {isql_port}", ini)
    ini = re.sub(r"(?m)^ServerPort(\s*)=\s*8890", rf"ServerPort\g<1>= 127.0.0.1:{http_port}", ini)
    allowed = ", ".join(str(d) for d in [workdir, *dirs_allowed])
    ini = re.sub(r"(?m)^DirsAllowed(\s*)=.*$", rf"DirsAllowed\g<1>= ., {allowed}", ini)
    for key, value in (settings or {}).items():
        ini, n = re.subn(
            rf"(?m)^{re.escape(key)}(\s*)=[^;\n]*", rf"{key}\g<1>= {value}\t", ini, count=1
        )
        if n != 1:
            raise ValueError(f"{key} is not set in {PACKAGED_INI}")
    (workdir / "virtuoso.ini").write_text(ini)
    log = (workdir / "virtuoso.out").open("wb")
    process = subprocess.Popen(
        ["virtuoso-t", "-c", "virtuoso.ini", "+foreground"],
        cwd=workdir,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=detach,
    )
    server = Virtuoso(workdir, isql_port, http_port, process)
    deadline = time.monotonic() + ready_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            r = httpx.post(server.endpoint, data={"query": "ASK {}"}, timeout=2)
            if r.status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    output = (workdir / "virtuoso.out").read_text(errors="replace")[-2000:]
    server.stop()
    raise RuntimeError(f"Virtuoso did not start within {ready_timeout}s:\n{output}")
