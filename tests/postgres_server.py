"""A throwaway PostgreSQL server for the tests: its own data folder, a Unix socket, no TCP.

PostgreSQL refuses to run as root, so when the tests run as root the server runs as the
unprivileged ``nobody`` (through ``runuser``). The binaries are PostgreSQL's own ``initdb`` and
``pg_ctl`` (``/usr/lib/postgresql/<version>/bin`` on Debian, or on the PATH). When none can be
found or started, :func:`start` says why in one sentence, and the PostgreSQL half of the tests
is skipped with that reason (printed at the end of the run too).
"""

from __future__ import annotations

import asyncio
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

SUPERUSER = "brandubh"
"""The server's superuser (trust authentication on its private socket only)."""

_names = itertools.count(1)


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (newest version first), or None."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda folder: (
            int(Path(folder).parent.name) if Path(folder).parent.name.isdigit() else 0
        ),
        reverse=True,
    )
    for folder in candidates:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb = shutil.which("initdb")
    if initdb is not None and shutil.which("pg_ctl") is not None:
        return Path(initdb).parent
    return None


@dataclass
class PostgresServer:
    """A running server; :meth:`url` names a database on it."""

    root: Path
    socket_dir: Path
    bindir: Path
    as_user: str | None
    created: list[str] = field(default_factory=list)
    """The databases :func:`create_database` made that are not dropped yet."""

    def url(self, database: str = "postgres") -> str:
        """The libpq URL of ``database`` over the server's Unix socket."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}"

    def new_database_name(self) -> str:
        """A database name not used before in this run."""
        return f"brandubh_{os.getpid()}_{next(_names)}"

    def stop(self) -> None:
        """Stop the server at once and remove its files."""
        _run(
            self, ["pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "stop"], check=False
        )
        shutil.rmtree(self.root, ignore_errors=True)


def _command(bindir: Path, as_user: str | None, argv: list[str]) -> list[str]:
    program = [str(bindir / argv[0]), *argv[1:]]
    return ["runuser", "-u", as_user, "--", *program] if as_user else program


def _run(server: PostgresServer, argv: list[str], *, check: bool = True) -> None:
    subprocess.run(
        _command(server.bindir, server.as_user, argv),
        check=check,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=60,
    )


def start(*, durable: bool = False) -> PostgresServer | str:
    """Start a new server; or, when that is impossible, the one-sentence reason why.

    ``durable`` keeps PostgreSQL's default crash safety (fsync, full page writes) for
    benchmarks; the tests turn it off, as nothing here must survive a power cut.
    """
    bindir = find_bindir()
    if bindir is None:
        return "PostgreSQL's server programs (initdb, pg_ctl) are not installed"
    as_user = None
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing, so PostgreSQL cannot be started"
        as_user = "nobody"
    root = Path(tempfile.mkdtemp(prefix="brandubh-pg-"))
    socket_dir = root / "socket"
    socket_dir.mkdir()
    server = PostgresServer(root, socket_dir, bindir, as_user)
    if as_user is not None:
        shutil.chown(root, user=as_user)
        shutil.chown(socket_dir, user=as_user)
    options = [
        "-k",
        str(socket_dir),
        "-c",
        "listen_addresses=",
        "-c",
        "max_connections=200",
        "-c",
        "shared_buffers=64MB",
    ]
    if not durable:
        options += ["-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off"]
    try:
        _run(
            server,
            [
                "initdb",
                "-D",
                str(root / "data"),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
        )
        _run(
            server,
            [
                "pg_ctl",
                "-D",
                str(root / "data"),
                "-l",
                str(root / "server.log"),
                "-o",
                " ".join(f"'{option}'" if option.endswith("=") else option for option in options),
                "-w",
                "start",
            ],
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
        detail = getattr(error, "stderr", b"") or b""
        text = detail.decode(errors="replace").strip().splitlines()
        shutil.rmtree(root, ignore_errors=True)
        why = text[-1] if text else str(error)
        return f"PostgreSQL could not be started ({why})"
    return server


async def create_database(server: PostgresServer) -> str:
    """A new, empty database on ``server``; its URL."""
    name = server.new_database_name()
    connection = await asyncpg.connect(server.url())
    try:
        await connection.execute(f"CREATE DATABASE {name}")
    finally:
        await connection.close()
    server.created.append(name)
    return server.url(name)


async def _drop(server: PostgresServer, names: list[str]) -> None:
    connection = await asyncpg.connect(server.url())
    try:
        for name in names:
            # FORCE ends the sessions a test left open (a killed bot's, a worker's).
            await connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await connection.close()


def drop_created(server: PostgresServer) -> None:
    """Drop every database :func:`create_database` made on ``server`` so far.

    Called after each test, so a run's databases (some 10 MB each) do not pile up into
    gigabytes that the end of the run must then remove. It runs its own event loop in a
    thread of its own, as a test's loop may be closed or not yet running.
    """
    names, server.created[:] = list(server.created), []
    if names:
        with ThreadPoolExecutor(max_workers=1) as thread:
            thread.submit(asyncio.run, _drop(server, names)).result()
