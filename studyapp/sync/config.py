"""Which server a learner syncs with: ``--server``, then ``STUDYAPP_SERVER``, then config.toml's
``[sync] server``. studyapp never writes a password anywhere; libpq finds it (PGPASSWORD,
~/.pgpass, a service file)."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.problems import StudyappError


def server_url(flag: str | None, home: Path, environ: dict | None = None) -> str | None:
    environ = os.environ if environ is None else environ
    if flag:
        return flag
    if environ.get("STUDYAPP_SERVER"):
        return environ["STUDYAPP_SERVER"]
    config = home / "config.toml"
    if not config.is_file():
        return None
    import tomllib

    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise StudyappError(f"{config}: cannot read it ({error}); fix it or name the server with --server URL")
    server = data.get("sync", {}).get("server") if isinstance(data.get("sync"), dict) else None
    if server is not None and not isinstance(server, str):
        raise StudyappError(f"{config}: [sync] server must be a string such as \"postgresql://host/db\"")
    return server or None


def required_server_url(flag: str | None, home: Path, what: str) -> str:
    """The server, or a usage error saying where to name it; ``what`` says what needs it."""
    url = server_url(flag, home)
    if url is None:
        raise StudyappError(f"{what} needs a team server: pass --server postgresql://HOST/DB, set STUDYAPP_SERVER, "
                            f"or put server = \"postgresql://HOST/DB\" under [sync] in {home / 'config.toml'}",
                            code="usage")
    return url
