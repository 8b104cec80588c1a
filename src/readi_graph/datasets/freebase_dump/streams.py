"""Reading a compressed dump and writing compressed parts, each beside the filter, not in it.

On 2 cores the filter (numpy, `filter.py`) runs in the main thread while another process
decompresses (`pigz -dc` when installed, else `gzip -dc`; `zstd`, `xz`, `bzip2` alike), and a
reader thread moves its output into whole-line chunks through a short queue: memory holds
`QUEUE_DEPTH` chunks, whatever the size of the dump. The kept lines are compressed by a writer
thread (zlib releases the GIL while it deflates) into parts of at most `part_lines` lines,
`part-00000.nt.gz`, ..., which Virtuoso's bulk loader (`ld_dir`) and `KnowledgeGraph.from_file`
read as they are.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import subprocess
import threading
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO

from readi_graph.core.base import ReadiError

CHUNK_BYTES = 16 << 20
QUEUE_DEPTH = 4
DECOMPRESSORS = {
    ".gz": (["pigz", "-dc"], ["gzip", "-dc"]),
    ".zst": (["zstd", "-dc", "-q"],),
    ".xz": (["xz", "-dc"],),
    ".bz2": (["lbzip2", "-dc"], ["bzip2", "-dc"]),
}
_DONE = object()


class DumpReadError(ReadiError):
    """A dump file is missing, cannot be decompressed here, or its decompressor failed."""


def decompressor(path: Path) -> list[str] | None:
    """The command that decompresses `path` to stdout (None: read it as it is)."""
    choices = DECOMPRESSORS.get(path.suffix.lower())
    if choices is None:
        return None
    for command in choices:
        if shutil.which(command[0]):
            return [*command, str(path)]
    raise DumpReadError(f"{path}: none of {[c[0] for c in choices]} is installed")


class ChunkReader:
    """Whole-line chunks of the files, in order (iterate once). `bytes_read` counts the
    decompressed bytes, `commands` the decompressors used."""

    def __init__(self, paths: Sequence[Path], chunk_bytes: int | None = None) -> None:
        for path in paths:
            if not path.is_file():
                raise DumpReadError(f"{path}: no such file")
        self.paths = list(paths)
        self.chunk_bytes = chunk_bytes or CHUNK_BYTES
        self.bytes_read = 0
        self.commands: list[str] = []
        self._queue: queue.Queue[object] = queue.Queue(QUEUE_DEPTH)
        self._stop = threading.Event()

    def __iter__(self) -> Iterator[bytes]:
        thread = threading.Thread(target=self._read_all, name="dump-reader", daemon=True)
        thread.start()
        try:
            while (item := self._queue.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, bytes)
                yield item
        finally:
            self._stop.set()
            with contextlib.suppress(queue.Empty):
                while True:  # unblock the reader if it waits to put
                    self._queue.get_nowait()
            thread.join()

    def _put(self, item: object) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(queue.Full):
                self._queue.put(item, timeout=0.1)
                return

    def _read_all(self) -> None:
        try:
            for path in self.paths:
                self._read(path)
            self._put(_DONE)
        except BaseException as exc:  # handed to the consumer
            self._put(exc)

    def _read(self, path: Path) -> None:
        command = decompressor(path)
        self.commands.append(command[0] if command else "read")
        process = None
        source: IO[bytes]
        if command:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, bufsize=0)
            assert process.stdout is not None
            _widen_pipe(process.stdout.fileno())
            source = process.stdout
        else:
            source = path.open("rb")
        buffer = bytearray(self.chunk_bytes)
        view = memoryview(buffer)
        filled = 0  # bytes in the buffer: the rest of the last chunk, then new ones
        try:
            while not self._stop.is_set():
                if filled == len(buffer):  # one line longer than a chunk: grow
                    view.release()
                    buffer.extend(bytes(len(buffer)))
                    view = memoryview(buffer)
                got = _read_into(source, view[filled:])
                if not got:
                    break
                self.bytes_read += got
                filled += got
                cut = buffer.rfind(b"\n", 0, filled) + 1
                if cut:
                    self._put(bytes(view[:cut]))
                    tail = bytes(view[cut:filled])  # part of a line: moved to the front
                    buffer[: len(tail)] = tail
                    filled = len(tail)
            if filled and not self._stop.is_set():
                self._put(bytes(view[:filled]) + b"\n")  # a last line without its newline
        finally:
            source.close()
            if process is not None:
                if self._stop.is_set():
                    process.kill()
                code = process.wait()
                if code and not self._stop.is_set():
                    raise DumpReadError(f"{' '.join(command or [])} failed (exit {code})")


def _read_into(source: IO[bytes], view: memoryview) -> int:
    """Fill `view` (fewer bytes only at the end of the stream); the bytes read."""
    got = 0
    while got < len(view):
        n = source.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            break
        got += n
    return got


def _widen_pipe(fd: int) -> None:
    """A 1 MiB pipe (Linux's default cap) lets the decompressor run ahead of the reader."""
    import fcntl

    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setpipe is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, setpipe, 1 << 20)


class PartWriter:
    """Lines into `out/part-NNNNN.nt.gz` (or `.nt` with `level=0`), a new part every
    `part_lines` lines, compressed by a writer thread. `parts` lists (path, lines)."""

    def __init__(
        self, out: Path, *, part_lines: int = 100_000_000, level: int = 1, prefix: str = "part"
    ) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.out, self.part_lines, self.level, self.prefix = out, part_lines, level, prefix
        self.parts: list[tuple[Path, int]] = []
        self._in_part = part_lines  # opens the first part on the first write
        self._queue: queue.Queue[object] = queue.Queue(QUEUE_DEPTH)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, name="dump-writer", daemon=True)
        self._thread.start()

    def write(self, data: bytes, lines: int) -> None:
        if self._error is not None:
            raise self._error
        if not lines:
            return
        if self._in_part + lines > self.part_lines and self._in_part:
            self._queue.put(self._next_path())
        self._queue.put(data)
        self._in_part += lines
        self.parts[-1] = (self.parts[-1][0], self.parts[-1][1] + lines)

    def _next_path(self) -> Path:
        suffix = ".nt.gz" if self.level else ".nt"
        path = self.out / f"{self.prefix}-{len(self.parts):05d}{suffix}"
        self.parts.append((path, 0))
        self._in_part = 0
        return path

    def close(self) -> list[tuple[Path, int]]:
        self._queue.put(_DONE)
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self.parts

    def _drain(self) -> None:
        out: BinaryIO | None = None
        deflate: Any = None  # zlib's compressor object
        try:
            while (item := self._queue.get()) is not _DONE:
                if isinstance(item, Path):
                    _finish(out, deflate)
                    out = item.open("wb")
                    deflate = (
                        zlib.compressobj(self.level, zlib.DEFLATED, 31) if self.level else None
                    )
                elif out is not None:
                    assert isinstance(item, bytes)
                    out.write(deflate.compress(item) if deflate else item)
            _finish(out, deflate)
        except BaseException as exc:  # reported by the next write or by close
            self._error = exc
            while self._queue.get() is not _DONE:
                pass


def _finish(out: BinaryIO | None, deflate: Any) -> None:
    if out is None:
        return
    if deflate is not None:
        out.write(deflate.flush())
    out.close()


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far (the decompressor's own, a few MB, is not
    counted: the kernel reports a child's peak including the parent pages it was forked with)."""
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def remove(paths: Sequence[Path]) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
