"""Reaching a Ray cluster without hanging, and a local cluster that ends with the command.

Two things Ray does not do by itself:

- **A bad or unreachable address fails in bounded time.** ``ray.init(address=...)`` retries
  for many minutes, and while it waits inside Ray's C++ code neither Ctrl-C nor SIGTERM is
  acted on. So before it is called: the address must read ``HOST:PORT`` or
  ``ray://HOST:PORT``; a TCP connection to it must open (refused, unknown host, no route: at
  once; no answer: at the deadline); then a *probe*, a child process that connects as Ray
  does, must succeed before the deadline (it is killed at the deadline: a port that answers
  but is not a Ray cluster's, such as the dashboard's). Only then does this process call
  ``ray.init``, and it connects at once. The deadline is ``--connect-timeout`` (default
  :data:`CONNECT_TIMEOUT` seconds); this process only ever waits in short slices, so Ctrl-C
  and SIGTERM stop it at any point.
- **A local cluster does not outlive its command.** It is started by a *keeper*: a child
  process in a session of its own (terminal signals do not reach it) that starts the cluster,
  writes its address to a file, and then reads its stdin, a pipe whose only writer is this
  process. That pipe closes when this process closes the cluster, and also when it dies
  however it dies (SIGKILL included): the kernel closes it. The keeper then shuts Ray down,
  kills every process left in its session (Ray's agents outlive a raylet killed from under
  them) and removes the cluster's folder (``/tmp/factdesk-ray-*``).

Run as ``python -m app.engines.ray_cluster keep|probe ...`` for the two child processes.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from models.errors import EngineError

#: Seconds to wait for a local cluster to start or a cluster at ``--address`` to answer.
CONNECT_TIMEOUT = 60.0
#: What a child process writes before its one-line reason when it fails.
_REASON = "factdesk-ray: "
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the app and models packages
_POLL = 0.1  # seconds: how often a wait looks again (and lets Ctrl-C and SIGTERM in)
_QUIET: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}


def check_timeout(seconds: float) -> float:
    """``seconds`` when it is a usable connect timeout (finite, above 0); else an error."""
    if not (math.isfinite(seconds) and seconds > 0):
        raise EngineError(f"--connect-timeout must be a number of seconds above 0, not {seconds}")
    return seconds


class Cluster:
    """This process's connection to Ray, with the local cluster's keeper when it started one.

    :meth:`close` disconnects and ends the local cluster (waiting for its keeper to finish).
    """

    def __init__(self, keeper: _Keeper | None) -> None:
        self._keeper = keeper

    def close(self) -> None:
        import ray

        ray.shutdown()
        if self._keeper is not None:
            self._keeper.close()
            self._keeper = None


def start_cluster(
    address: str | None = None, *, cpus: int | None = None, timeout: float = CONNECT_TIMEOUT
) -> Cluster:
    """Connect this process to the Ray cluster at ``address``, or to a new local one.

    Args:
        address: ``HOST:PORT`` of a cluster's head (its GCS port, 6379 by default),
            ``ray://HOST:PORT`` of a Ray client server, or ``auto`` (the cluster ``ray start``
            started on this machine); None starts a local cluster with ``cpus`` CPUs (None: one
            per CPU of this machine), quiet and without a dashboard, that ends with
            :meth:`Cluster.close` or with this process.
        timeout: seconds the cluster has to start or answer (see the module's docstring).

    Workers import this checkout's ``app`` and ``models`` (their ``PYTHONPATH``).

    Raises:
        EngineError: a malformed address, a cluster that cannot be reached or did not answer
            (or start) in time, one line each.
    """
    import ray

    check_timeout(timeout)
    deadline = time.monotonic() + timeout
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "runtime_env": {"env_vars": {"PYTHONPATH": _child_env()["PYTHONPATH"]}},
        **_QUIET,
    }
    if address is not None:
        _reachable(address, deadline, timeout)
        _probe(address, deadline, timeout)
        ray.init(address=address, **kwargs)
        return Cluster(None)
    keeper = _Keeper.start(cpus or os.cpu_count() or 1, deadline, timeout)
    try:
        _take_local_token()
        ray.init(address=keeper.address, **kwargs)
    except BaseException:
        keeper.close()
        raise
    return Cluster(keeper)


def _take_local_token() -> None:
    """Use Ray's token (``~/.ray/auth_token``) as ``ray.init`` does for a cluster of this
    machine that it finds by itself (it never does for an address it is given): the keeper's
    ``ray.init`` started its cluster with token authentication, as Ray does by default, and
    made the token when there was none. ``RAY_AUTH_MODE`` set by the user is respected."""
    from ray._private.authentication import authentication_token_setup as auth

    quiet = logging.getLogger(auth.__name__)
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # "token authentication is enabled": said at every start
    try:
        auth.maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    finally:
        quiet.setLevel(level)


# ---------------------------------------------------------------------- an address's checks
def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of ``HOST:PORT`` or ``ray://HOST:PORT``; None for ``auto``.

    Raises:
        EngineError: anything else, with the forms that are understood.
    """
    if address == "auto":
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    host = host.strip("[]")  # [::1]:6379
    if sep and host and port.isdigit() and 0 < int(port) < 65536 and "/" not in host:
        return host, int(port)
    raise EngineError(
        f"--address {address!r} is not a Ray cluster's address: give HOST:PORT (the head's "
        "port, 6379 unless it was started with another) or ray://HOST:10001 (a Ray client "
        "server), or leave --address out to start a cluster on this machine"
    )


def _reachable(address: str, deadline: float, timeout: float) -> None:
    """A TCP connection to the address opens before the deadline, or a one-line error."""
    where = _host_port(address)
    if where is None:
        return
    host, port = where
    why = f"cannot reach the Ray cluster at {address}"
    try:
        # Waits in poll(), so Ctrl-C and SIGTERM are acted on at once.
        with socket.create_connection(where, timeout=max(0.1, deadline - time.monotonic())):
            return
    except socket.gaierror as exc:
        raise EngineError(f"{why}: unknown host {host!r}; check the address") from exc
    except ConnectionRefusedError as exc:
        raise EngineError(
            f"{why}: nothing listens on port {port} there (connection refused); check the "
            "address and that the cluster is running"
        ) from exc
    except TimeoutError as exc:
        raise EngineError(
            f"{why}: no answer within {timeout:g} s; check the address and the network, or "
            "wait longer with --connect-timeout"
        ) from exc
    except OSError as exc:  # no route to the host, network down, ...
        raise EngineError(f"{why}: {exc.strerror or exc}; check the address") from exc


def _probe(address: str, deadline: float, timeout: float) -> None:
    """A child process connects to the cluster as Ray does; killed at the deadline."""
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "app.engines.ray_cluster", "probe", address],
            stdin=subprocess.PIPE,  # closed by this process's death: the probe then exits
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=_child_env(),
        )
        try:
            while child.poll() is None and time.monotonic() < deadline:
                time.sleep(_POLL)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            if child.stdin is not None:
                child.stdin.close()
        if child.returncode == 0:
            return
        if time.monotonic() >= deadline:
            raise EngineError(
                f"no Ray cluster answered at {address} within {timeout:g} s: check that it is "
                "the head's address (its port, 6379 unless it was started with another; "
                "ray://HOST:10001 for a Ray client server), or wait longer with "
                "--connect-timeout"
            )
        err.seek(0)
        reason = _reason(err.read().decode("utf-8", "replace"))
        raise EngineError(f"cannot connect to the Ray cluster at {address}: {reason}")


# ---------------------------------------------------------------------- the local cluster
class _Keeper:
    """This process's side of a local cluster's keeper (see the module's docstring)."""

    def __init__(self, proc: subprocess.Popen[bytes], folder: Path, address: str) -> None:
        self.proc = proc
        self.folder = folder
        self.address = address

    @classmethod
    def start(cls, cpus: int, deadline: float, timeout: float) -> _Keeper:
        # Unix socket paths must stay short: a folder right under the temp dir.
        folder = Path(tempfile.mkdtemp(prefix="factdesk-ray-"))
        with open(folder / "keeper.log", "wb") as log:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.engines.ray_cluster",
                    "keep",
                    "--cpus",
                    str(cpus),
                    "--folder",
                    str(folder),
                ],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_child_env(keep=True),
                start_new_session=True,  # Ctrl-C in a terminal is for this process to handle
            )
        keeper = cls(proc, folder, "")
        try:
            ready = folder / "address"
            while not ready.exists():
                if proc.poll() is not None:
                    log_text = (folder / "keeper.log").read_text("utf-8", "replace")
                    raise EngineError(f"cannot start a local Ray cluster: {_reason(log_text)}")
                if time.monotonic() >= deadline:
                    raise EngineError(
                        f"a local Ray cluster did not start within {timeout:g} s; on a busy "
                        "machine wait longer with --connect-timeout"
                    )
                time.sleep(_POLL)
            keeper.address = ready.read_text("utf-8").strip()
        except BaseException:
            keeper.close()
            raise
        return keeper

    def close(self, wait: float = 60.0) -> None:
        """End the cluster: the keeper shuts Ray down, kills what is left, removes the folder.

        Waits for it up to ``wait`` seconds (it goes on by itself if this process stops
        waiting), then ends its session the hard way.
        """
        proc = self.proc
        if proc.stdin is not None and not proc.stdin.closed:
            try:
                proc.stdin.close()  # the keeper's cue
            except OSError:
                pass
        if proc.poll() is None and not self.address:  # still starting: it reads no stdin yet
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            for pid in _session_members(proc.pid):  # its session: the keeper leads it
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _child_env(*, keep: bool = False) -> dict[str, str]:
    """The environment of a keeper or probe: this checkout's packages importable; a keeper
    ignores RAY_ADDRESS (it starts a cluster of its own, as the README says)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH")) if p)
    if keep:
        env.pop("RAY_ADDRESS", None)
    return env


def _reason(text: str) -> str:
    """The one-line reason a child process gave, else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    mine = [line[len(_REASON) :] for line in lines if line.startswith(_REASON)]
    if mine:
        return mine[-1][:300]
    return lines[-1][:300] if lines else "it stopped without saying why"


# ---------------------------------------------------------------------- the child processes
def _exit_on_eof() -> None:
    """Read stdin until its writer (the process that started this one) closes it or dies."""
    while sys.stdin.buffer.read(4096):
        pass


def _keep(cpus: int, folder: Path) -> int:
    """The keeper: start the cluster, say where it is, hold it until stdin closes."""
    import ray

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        ray.init(num_cpus=cpus, include_dashboard=False, _temp_dir=str(folder), **_QUIET)
        signal.signal(signal.SIGTERM, stop)  # ray.init set its own
        part = folder / "address.part"
        part.write_text(ray.get_runtime_context().gcs_address, "utf-8")
        part.replace(folder / "address")
        _exit_on_eof()
        return 0
    except Exception as exc:  # noqa: BLE001 - told to the driver as one line
        print(f"{_REASON}{_one_line(exc)}", file=sys.stderr, flush=True)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the clean-up below is not cut short
        try:
            ray.shutdown()
        finally:
            _kill_session()
            shutil.rmtree(folder, ignore_errors=True)
            if not Path("/proc").is_dir():  # no way to list the session: its process group
                os.killpg(0, signal.SIGKILL)  # this keeper included, last


def _kill_session() -> None:
    """Every other process of this session (this keeper's, however deep): SIGTERM, then
    SIGKILL for those still there after a few seconds."""
    me, session = os.getpid(), os.getsid(0)
    left = [p for p in _session_members(session) if p != me]
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        for pid in left:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + grace
        while left and time.monotonic() < end:
            time.sleep(_POLL)
            alive = set(_session_members(session))
            left = [p for p in left if p in alive]
        if not left:
            return


def _session_members(session: int) -> list[int]:
    """Pids of the processes in ``session`` (from /proc; on other systems, none)."""
    out: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return out
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        # after the name: state, ppid, pgrp, session, ...; a zombie is already dead
        if fields[0] != "Z" and int(fields[3]) == session:
            out.append(int(entry.name))
    return out


def _exit_when_orphaned() -> None:
    """The probe's watch: it ends at once when the process that started it does."""
    _exit_on_eof()
    os._exit(3)


def _probe_main(address: str) -> int:
    """The probe: connect to the cluster as Ray does, then leave."""
    threading.Thread(target=_exit_when_orphaned, daemon=True).start()
    import ray

    try:
        ray.init(address=address, **_QUIET)
        ray.cluster_resources()
    except Exception as exc:  # noqa: BLE001 - told to the driver as one line
        print(f"{_REASON}{_one_line(exc)}", file=sys.stderr, flush=True)
        return 1
    ray.shutdown()
    return 0


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0][:300] if lines else "no reason given"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.engines.ray_cluster")
    sub = ap.add_subparsers(dest="what", required=True)
    k = sub.add_parser("keep")
    k.add_argument("--cpus", type=int, required=True)
    k.add_argument("--folder", type=Path, required=True)
    p = sub.add_parser("probe")
    p.add_argument("address")
    args = ap.parse_args(argv)
    if args.what == "keep":
        return _keep(args.cpus, args.folder)
    code = _probe_main(args.address)
    sys.stderr.flush()
    os._exit(code)  # not a normal exit: its thread is still reading stdin


if __name__ == "__main__":
    sys.exit(main())
