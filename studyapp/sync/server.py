"""The team's PostgreSQL server: its schema, its roles and who may read what.

``studyapp server init URL`` runs once, as whoever owns the database. Every learner gets a
login role of their own, member of ``studyapp_learner``; row-level security lets a learner's
connection insert and read only rows stamped with its own role name, and a lead
(``studyapp_lead``) read everyone's. The review log and the exam results are append-only on
the server as they are on the learner's machine: no role may update or delete them.
"""

from __future__ import annotations

import re

from ..core.problems import StudyappError

SERVER_SCHEMA_VERSION = 1
LEARNER_ROLE = "studyapp_learner"
LEAD_ROLE = "studyapp_lead"
ROLE_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

# Statements run in order by `server init`; each is safe to run again.
SCHEMA = [
    "CREATE SCHEMA IF NOT EXISTS studyapp",
    """CREATE TABLE IF NOT EXISTS studyapp.meta (
        key text PRIMARY KEY,
        value text NOT NULL)""",
    # One row per answer, as the learner's review_log has it. `xid` is the transaction that
    # brought it: a pull asks for everything from the oldest transaction still running at the
    # last pull on, so a row whose transaction committed late is never skipped (a sequence
    # number alone would be: numbers are taken at insert, rows appear at commit).
    """CREATE TABLE IF NOT EXISTS studyapp.reviews (
        uid text PRIMARY KEY,
        seq bigserial UNIQUE,
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        learner name NOT NULL DEFAULT current_user,
        item_key text NOT NULL,
        revision integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('review', 'cram', 'reset')),
        rating integer NOT NULL CHECK (rating BETWEEN 0 AND 4),
        time_ms bigint NOT NULL,
        sched_ms bigint NOT NULL,
        duration_ms integer NOT NULL,
        state_before text NOT NULL,
        state_after text NOT NULL,
        interval integer NOT NULL,
        last_interval integer NOT NULL,
        stability double precision,
        difficulty double precision,
        due_ms bigint,
        scheduler_version text NOT NULL,
        scheduler_params text NOT NULL,
        uploaded_at timestamptz NOT NULL DEFAULT now())""",
    "CREATE INDEX IF NOT EXISTS reviews_learner_xid ON studyapp.reviews (learner, xid)",
    "CREATE INDEX IF NOT EXISTS reviews_learner_time ON studyapp.reviews (learner, time_ms)",
    # Answers undone on the device that gave them, after a sync may have carried them here.
    """CREATE TABLE IF NOT EXISTS studyapp.undone (
        uid text PRIMARY KEY,
        seq bigserial UNIQUE,
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        learner name NOT NULL DEFAULT current_user,
        time_ms bigint NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS studyapp.exams (
        uid text PRIMARY KEY,
        learner name NOT NULL DEFAULT current_user,
        time_ms bigint NOT NULL,
        result jsonb NOT NULL)""",
    # Flags, settings and presets: the latest write wins, by the time it was made on the device.
    """CREATE TABLE IF NOT EXISTS studyapp.flags (
        learner name NOT NULL DEFAULT current_user,
        item_key text NOT NULL,
        note text,
        changed_ms bigint NOT NULL,
        PRIMARY KEY (learner, item_key))""",
    # Each item's state as its learner's device last computed it, for the team view without a replay.
    """CREATE TABLE IF NOT EXISTS studyapp.item_states (
        learner name NOT NULL DEFAULT current_user,
        item_key text NOT NULL,
        state text NOT NULL,
        stability double precision,
        reps integer NOT NULL,
        last_review_ms bigint NOT NULL,
        PRIMARY KEY (learner, item_key))""",
    """CREATE TABLE IF NOT EXISTS studyapp.settings (
        learner name NOT NULL DEFAULT current_user,
        name text NOT NULL,
        value jsonb NOT NULL,
        changed_ms bigint NOT NULL,
        PRIMARY KEY (learner, name))""",
]

APPEND_ONLY = ("reviews", "undone", "exams")
LAST_WRITER_WINS = ("flags", "settings", "item_states")


def _policies() -> list[str]:
    statements = [
        f"DO $$ BEGIN CREATE ROLE {LEARNER_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        f"DO $$ BEGIN CREATE ROLE {LEAD_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        f"GRANT USAGE ON SCHEMA studyapp TO {LEARNER_ROLE}, {LEAD_ROLE}",
        f"GRANT SELECT ON studyapp.meta TO {LEARNER_ROLE}, {LEAD_ROLE}",
        f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA studyapp TO {LEARNER_ROLE}",
    ]
    for table in (*APPEND_ONLY, *LAST_WRITER_WINS):
        grants = "SELECT, INSERT" + (", UPDATE" if table in LAST_WRITER_WINS else "")
        statements += [
            f"ALTER TABLE studyapp.{table} ENABLE ROW LEVEL SECURITY",
            f"GRANT {grants} ON studyapp.{table} TO {LEARNER_ROLE}",
            f"GRANT SELECT ON studyapp.{table} TO {LEAD_ROLE}",
            f"DROP POLICY IF EXISTS own_rows ON studyapp.{table}",
            f"CREATE POLICY own_rows ON studyapp.{table} TO {LEARNER_ROLE} "
            "USING (learner = current_user) WITH CHECK (learner = current_user)",
            f"DROP POLICY IF EXISTS lead_reads ON studyapp.{table}",
            f"CREATE POLICY lead_reads ON studyapp.{table} FOR SELECT TO {LEAD_ROLE} USING (true)",
        ]
    return statements


def init_server(conn, learners: list[str], leads: list[str]) -> dict:
    """Create (or bring up to date) the schema, the group roles and one login role per name.

    ``conn`` is a psycopg connection of the database's owner. Returns what was done."""
    for name in [*learners, *leads]:
        if not ROLE_RE.match(name):
            raise StudyappError(f"role name {name!r} is not allowed: use lowercase letters, digits and '_', "
                                "starting with a letter", code="usage")
    with conn.transaction():
        found = _server_version(conn)
        if found is not None and found > SERVER_SCHEMA_VERSION:
            raise newer_server(found)
        for statement in [*SCHEMA, *_policies()]:
            conn.execute(statement)
        conn.execute("INSERT INTO studyapp.meta (key, value) VALUES ('schema_version', %s) "
                     "ON CONFLICT (key) DO NOTHING", (str(SERVER_SCHEMA_VERSION),))
        created = []
        for name, group in [*((n, LEARNER_ROLE) for n in learners), *((n, LEAD_ROLE) for n in leads)]:
            exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
            if not exists:
                # No password here: it comes from where libpq keeps them (~/.pgpass, a service file),
                # set by whoever runs the server (ALTER ROLE ... PASSWORD), never by studyapp.
                conn.execute(f'CREATE ROLE "{name}" LOGIN')
                created.append(name)
            conn.execute(f'GRANT {group} TO "{name}"')
    return {"schema_version": SERVER_SCHEMA_VERSION, "roles_created": created,
            "learners": learners, "leads": leads}


def _server_version(conn) -> int | None:
    exists = conn.execute("SELECT to_regclass('studyapp.meta')").fetchone()[0]
    if exists is None:
        return None
    row = conn.execute("SELECT value FROM studyapp.meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else None


def check_server(conn) -> None:
    """Refuse, before anything is written, a server without studyapp's schema or with a newer one."""
    found = _server_version(conn)
    if found is None:
        raise StudyappError("the server has no studyapp schema; whoever owns the database runs "
                            "'studyapp server init URL' once")
    if found > SERVER_SCHEMA_VERSION:
        raise newer_server(found)


def newer_server(found: int) -> StudyappError:
    return StudyappError(f"the server's studyapp schema is version {found}, newer than this studyapp knows "
                         f"({SERVER_SCHEMA_VERSION}); nothing was written. Upgrade studyapp (pip install -U studyapp)")
