"""A throwaway PostgreSQL server for the tests and benches (Debian's ``postgresql`` package).

:func:`start_server` runs ``initdb`` and ``pg_ctl start`` in a new temporary folder on a
free loopback port and returns a :class:`PgServer` with two URLs: the superuser's (trust
authentication, for set-up only) and that of ``wfr_app``, a role that is neither superuser
nor ``BYPASSRLS`` and owns the database ``wfr``, as the store's connections should be (a
superuser passes every row-level security policy). PostgreSQL refuses to run as root, so
as root the server runs as the unprivileged ``nobody`` through ``runuser``.
``python -m workflow.pg_server`` starts one, prints the app URL and stops it on SIGTERM,
SIGINT or SIGHUP.

>>> find_bin_dir(["/nonexistent"], path="")
Traceback (most recent call last):
...
workflow.pg_server.PostgresMissingError: PostgreSQL's initdb and pg_ctl were not found \
(looked in /nonexistent and on PATH); install Debian's postgresql package: \
apt-get install -y postgresql
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "install Debian's postgresql package: apt-get install -y postgresql"
BIN_GLOB = "/usr/lib/postgresql/*/bin"
UNPRIVILEGED_USER = "nobody"
APP_ROLE, APP_DATABASE = "wfr_app", "wfr"


class PostgresMissingError(RuntimeError):
    """PostgreSQL's server programs are not installed."""


class PostgresStartError(RuntimeError):
    """The server was found but did not start (the message has its log's tail)."""


@dataclass(frozen=True, slots=True)
class PgServer:
    """A running throwaway server; :meth:`stop` stops it and deletes its folder."""

    folder: Path
    bin_dir: Path
    port: int
    user: str | None  # who runs the server (None: this process's user)

    @property
    def admin_url(self) -> str:
        """The superuser's URL (set-up only: a superuser bypasses row-level security)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def url(self) -> str:
        """The application role's URL (``wfr_app`` on database ``wfr``)."""
        return f"postgresql://{APP_ROLE}@127.0.0.1:{self.port}/{APP_DATABASE}"

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its folder."""
        _run(self, [str(self.bin_dir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast",
                    "-w", "stop"], check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def find_bin_dir(candidates: Sequence[str] | None = None, *, path: str | None = None) -> Path:
    """The newest folder holding ``initdb`` and ``pg_ctl`` (Debian keeps them off PATH)."""
    folders = sorted(glob.glob(BIN_GLOB), key=_version, reverse=True) if candidates is None \
        else list(candidates)
    for folder in folders:
        if all(os.access(Path(folder) / tool, os.X_OK) for tool in ("initdb", "pg_ctl")):
            return Path(folder)
    initdb = shutil.which("initdb", path=path)
    if initdb is not None and shutil.which("pg_ctl", path=path) is not None:
        return Path(initdb).parent
    raise PostgresMissingError(f"PostgreSQL's initdb and pg_ctl were not found (looked in "
                               f"{', '.join(folders) or BIN_GLOB} and on PATH); {INSTALL_HINT}")


def _version(folder: str) -> tuple[int, ...]:
    name = Path(folder).parent.name
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(*, durable: bool = False, settings: Sequence[str] = (),
                 attempts: int = 3) -> PgServer:
    """Start a new server; ``durable`` keeps fsync on (benches), tests turn it off."""
    bin_dir = find_bin_dir()
    user = UNPRIVILEGED_USER if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="wfr-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    folder.chmod(0o700)
    server = PgServer(folder, bin_dir, 0, user)
    try:
        _run(server, [str(bin_dir / "initdb"), "-D", str(folder / "data"), "-U", "postgres",
                      "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
        options = ["-c listen_addresses=127.0.0.1", f"-c unix_socket_directories={folder}",
                   "-c max_connections=200", "-c shared_buffers=128MB",
                   *([] if durable else ["-c fsync=off", "-c synchronous_commit=off",
                                         "-c full_page_writes=off"]),
                   *(f"-c {setting}" for setting in settings)]
        for attempt in range(attempts):
            server = PgServer(folder, bin_dir, free_port(), user)
            started = _run(server, [str(bin_dir / "pg_ctl"), "-D", str(folder / "data"),
                                    "-l", str(folder / "server.log"), "-w", "-t", "30",
                                    "-o", " ".join([f"-p {server.port}", *options]), "start"],
                           check=False)
            if started.returncode == 0:
                break
            if attempt == attempts - 1:
                raise PostgresStartError(f"pg_ctl start failed: {_tail(folder / 'server.log')}"
                                         f"{started.stderr.strip()}")
        _create_app_role(server)
    except BaseException:
        server.stop()
        raise
    return server


def _create_app_role(server: PgServer) -> None:
    import psycopg

    with psycopg.connect(server.admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS")
        admin.execute(f"CREATE DATABASE {APP_DATABASE} OWNER {APP_ROLE}")


def _run(server: PgServer, command: list[str], *, check: bool = True
         ) -> subprocess.CompletedProcess[str]:
    prefix = [] if server.user is None else ["runuser", "-u", server.user, "--"]
    result = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120,
                            cwd=server.folder)
    if check and result.returncode != 0:
        raise PostgresStartError(f"{Path(command[0]).name} failed: "
                                 f"{(result.stderr or result.stdout).strip()[-800:]}")
    return result


def _tail(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")[-800:] + "\n"
    except OSError:
        return ""


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The signals on which ``python -m workflow.pg_server`` stops its server and exits."""


class Stopped(Exception):
    """A stop signal arrived (raised by the handler in the main thread)."""


def _stop_on_signal(signum: int, frame: object) -> None:
    raise Stopped(signal.Signals(signum).name)


def main() -> int:
    """Start a server, print its app URL, and stop it on SIGTERM, SIGINT (Ctrl-C) or SIGHUP.

    The handlers are in place before the server starts, so a signal during ``initdb`` or
    ``pg_ctl start`` stops (and removes) the half-started server too; while it is being
    stopped further signals are ignored, so a second SIGTERM cannot leave it running.
    """
    for number in STOP_SIGNALS:
        signal.signal(number, _stop_on_signal)
    server = None
    try:
        server = start_server(durable=True)
        print(server.url, flush=True)
        while True:
            time.sleep(3600)
    except Stopped:
        pass
    finally:
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
