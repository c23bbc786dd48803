"""``check_layouts(..., isolate=True)``: every layout's calls in a worker process, so that a
function that crashes the process (a segfault, a GPU fault that leaves the device unusable for the
rest of the process) fails that layout instead of the whole check.

A worker is a fresh Python (a forked CUDA context is unusable, and a fresh interpreter never
re-runs the caller's script, as ``multiprocessing``'s spawn would): it receives the check over a
socket, imports the function by name and serves layouts until one of them raises or ends the
worker; the next layout gets a fresh one.

internal: :mod:`stridelab._sanitizer._run` uses it.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
from multiprocessing.connection import Connection
from typing import Any

from .._validate import shown
from ._compare import Outcome
from ._evidence import Evidence
from ._report import Trial

__all__: list[str] = []


def check_importable(fn: Any) -> None:
    """TypeError unless ``fn`` can be sent to another process, which imports it by name."""
    if os.name != "posix":
        raise OSError("isolate=True starts its worker processes the POSIX way; it needs Linux or macOS")
    if getattr(fn, "__module__", None) == "__main__":
        raise TypeError(
            f"isolate=True calls {shown(fn)} in another process, which imports it by name; a function of the "
            "script being run, a notebook or an interactive session cannot be imported: put it in a module"
        )
    try:
        pickle.dumps(fn)
    except Exception as error:
        raise TypeError(
            f"isolate=True calls {shown(fn)} in another process, which imports it by name; it cannot be sent "
            f"there ({type(error).__name__}: {error}): use a function defined at the top of a module"
        ) from error


def serve(handle: int) -> None:
    """The worker, on the socket ``handle``: the caller's ``sys.path``, then the checker, then the
    answer of the checker's method for each (name, arguments) received ("verdict" or "evidence"),
    until None."""
    connection = Connection(handle)
    sys.path[:] = connection.recv()
    try:
        checker = connection.recv()  # imports the function's module
    except Exception as error:
        connection.send(f"{type(error).__name__}: {error}")
        return
    connection.send(None)
    while (request := connection.recv()) is not None:
        method, arguments = request
        try:
            connection.send(getattr(checker, method)(*arguments))
        except Exception as error:  # a failure of the check itself goes back to the caller
            connection.send(error)
    connection.close()


def _ended(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"ended with exit status {exitcode}"


class IsolatedChecker:
    """A checker whose verdicts are given by a worker process running ``checker``."""

    def __init__(self, checker: Any) -> None:
        self.checker = checker
        self._worker: tuple[Any, Connection] | None = None

    def verdict(self, trial: Trial, strict: bool) -> Outcome:
        answer = self._ask("verdict", trial, strict)
        if isinstance(answer, str):
            return Outcome(("raised",), detail=f"the worker process calling the function {answer}")
        if "raised" in answer.kinds:
            self.close()  # the exception may have left the process (or its GPU context) unusable
        return answer

    def evidence(self, trial: Trial, outcome: Outcome) -> Evidence | None:
        """The picture's evidence of a failure, or None where gathering it ended the worker or
        failed (a GPU fault of the function leaves the worker's device unusable)."""
        try:
            answer = self._ask("evidence", trial, outcome)
        except Exception:  # the picture is drawn without the evidence
            return None
        return None if isinstance(answer, str) else answer

    def _ask(self, method: str, *arguments: Any) -> Any:
        """The worker's answer, or how the worker ended (a str) where it died answering."""
        process, connection = self._worker or self._start()
        try:
            connection.send((method, arguments))
            answer = connection.recv()
        except (EOFError, OSError):
            self._worker = None
            connection.close()
            return _ended(process.wait())
        if isinstance(answer, Exception):
            self.close()
            raise answer
        return answer

    def _start(self) -> tuple[Any, Connection]:
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-c", f"from {__name__} import serve; serve({theirs.fileno()})"]
        process = subprocess.Popen(command, pass_fds=(theirs.fileno(),))
        theirs.close()  # so that a worker that dies is seen as the end of the socket
        connection = Connection(ours.detach())
        connection.send(list(sys.path))
        connection.send(self.checker)
        try:
            problem = connection.recv()
        except EOFError:
            problem = f"the worker {_ended(process.wait())}"
        if problem is not None:
            connection.close()
            process.wait()
            raise ImportError(f"isolate=True: a fresh Python could not load the function to check ({problem})")
        self._worker = (process, connection)
        return self._worker

    def close(self) -> None:
        """Stop the worker, if one runs."""
        if self._worker is None:
            return
        process, connection = self._worker
        self._worker = None
        try:
            connection.send(None)
        except OSError:
            pass
        connection.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
