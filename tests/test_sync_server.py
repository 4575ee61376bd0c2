"""`studyapp server init` and the check every sync makes first, against a real PostgreSQL server:
what init reports, that running it again changes nothing, and the refusals word for word."""

from __future__ import annotations

import pytest

from studyapp.core.problems import StudyappError
from studyapp.sync.server import check_server, init_server

from pg_server import pg  # noqa: F401  (the fixture)


def test_init_creates_each_role_once_and_says_so(pg):
    import psycopg

    ana, lead = pg.role("ana"), pg.role("lead")
    with psycopg.connect(pg.owner_url()) as owner:
        assert init_server(owner, [ana], [lead]) == {"schema_version": 1, "roles_created": [ana, lead],
                                                     "learners": [ana], "leads": [lead]}
        assert init_server(owner, [ana], [lead])["roles_created"] == []
        assert owner.execute("SELECT value FROM studyapp.meta WHERE key = 'schema_version'").fetchone() == ("1",)
        groups = owner.execute("SELECT r.rolname, g.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member "
                               "JOIN pg_roles g ON g.oid = m.roleid WHERE r.rolname IN (%s, %s) ORDER BY 1",
                               (ana, lead)).fetchall()
        assert sorted(groups) == sorted([(ana, "studyapp_learner"), (lead, "studyapp_lead")])
    with psycopg.connect(pg.url(ana)) as conn:
        check_server(conn)  # a learner's connection sees the schema


@pytest.mark.parametrize("name", ["Ana", "1ana", "an-a", "a" * 64, ""])
def test_a_role_name_postgres_would_need_quoted_is_refused_before_connecting(name):
    with pytest.raises(StudyappError) as raised:
        init_server(None, ["ok_name", name], [])  # None: refused before the connection is used
    assert (raised.value.message, raised.value.code) == (
        f"role name {name!r} is not allowed: use lowercase letters, digits and '_', starting with a letter", "usage")


def test_a_server_without_the_schema_or_with_a_newer_one_is_refused(pg):
    import psycopg

    with psycopg.connect(pg.owner_url()) as owner:
        with pytest.raises(StudyappError) as raised:
            check_server(owner)
        assert raised.value.message == ("the server has no studyapp schema; whoever owns the database runs "
                                        "'studyapp server init URL' once")
        init_server(owner, [], [])
        owner.execute("DELETE FROM studyapp.meta")
        with pytest.raises(StudyappError):
            check_server(owner)  # the table without its version row is no schema either
        owner.execute("INSERT INTO studyapp.meta VALUES ('schema_version', '2')")
        newer = ("the server's studyapp schema is version 2, newer than this studyapp knows (1); nothing was "
                 "written. Upgrade studyapp (pip install -U studyapp)")
        with pytest.raises(StudyappError) as raised:
            check_server(owner)
        assert raised.value.message == newer
        with pytest.raises(StudyappError) as raised:
            init_server(owner, [pg.role("ana")], [])
        assert raised.value.message == newer
        owner.execute("UPDATE studyapp.meta SET value = '1'")
        check_server(owner)
