"""Which team server `studyapp sync` uses and what it says about it, without a server: the order
--server, STUDYAPP_SERVER, config.toml; the messages for a bad or missing setting; passwords
never shown; the one-line summary after a sync."""

from __future__ import annotations

import pytest

from studyapp.core.problems import StudyappError
from studyapp.sync.client import SyncResult, _without_secrets, redacted
from studyapp.sync.config import required_server_url, server_url


def config(tmp_path, text: str):
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    return tmp_path


def test_the_flag_then_the_environment_then_the_config_names_the_server(tmp_path):
    home = config(tmp_path, '[sync]\nserver = "postgresql://config/db"\n')
    env = {"STUDYAPP_SERVER": "postgresql://env/db"}
    assert server_url("postgresql://flag/db", home, env) == "postgresql://flag/db"
    assert server_url(None, home, env) == "postgresql://env/db"
    assert server_url("", home, {"STUDYAPP_SERVER": ""}) == "postgresql://config/db"
    assert server_url(None, tmp_path / "nowhere", {}) is None


@pytest.mark.parametrize("text", ["", "[sync]\n", '[sync]\nserver = ""\n', "sync = 3\n", "[other]\nserver = 'x'\n"])
def test_a_config_without_a_server_names_none(tmp_path, text):
    assert server_url(None, config(tmp_path, text), {}) is None


def test_the_environment_is_read_when_none_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYAPP_SERVER", "postgresql://from-env/db")
    assert server_url(None, tmp_path) == "postgresql://from-env/db"


def test_a_broken_config_says_which_file_and_what_to_do(tmp_path):
    home = config(tmp_path, "[sync\n")
    with pytest.raises(StudyappError) as raised:
        server_url(None, home, {})
    assert raised.value.message == (f"{home / 'config.toml'}: cannot read it (Expected ']' at the end of a table "
                                    "declaration (at line 1, column 6)); fix it or name the server with --server URL")
    (home / "config.toml").write_bytes(b"\xff")
    with pytest.raises(StudyappError) as raised:
        server_url(None, home, {})
    assert raised.value.message.startswith(f"{home / 'config.toml'}: cannot read it ('utf-8' codec can't decode")
    config(tmp_path, "[sync]\nserver = 5432\n")
    with pytest.raises(StudyappError) as raised:
        server_url(None, home, {})
    assert raised.value.message == f'{home / "config.toml"}: [sync] server must be a string such as "postgresql://host/db"'


def test_a_command_that_needs_a_server_says_the_three_ways_to_name_one(tmp_path, monkeypatch):
    monkeypatch.delenv("STUDYAPP_SERVER", raising=False)
    with pytest.raises(StudyappError) as raised:
        required_server_url(None, tmp_path, "report --team")
    assert (raised.value.message, raised.value.code) == (
        "report --team needs a team server: pass --server postgresql://HOST/DB, set STUDYAPP_SERVER, or put "
        f'server = "postgresql://HOST/DB" under [sync] in {tmp_path / "config.toml"}', "usage")
    assert required_server_url("postgresql://h/db", tmp_path, "sync") == "postgresql://h/db"


def test_addresses_are_shown_without_their_password():
    from psycopg.conninfo import conninfo_to_dict

    shown = redacted("postgresql://ana:s3cret@db.example:5433/team")
    assert "s3cret" not in shown
    assert conninfo_to_dict(shown) == {"user": "ana", "host": "db.example", "port": "5433", "dbname": "team"}
    assert conninfo_to_dict(redacted("host=db user=ana password=s3cret")) == {"host": "db", "user": "ana"}
    assert redacted("postgresql://[broken") == "(the configured server)"
    assert _without_secrets('password "s3cret" refused', "postgresql://ana:s3cret@db/team") == 'password "***" refused'
    assert _without_secrets("s3cret: no such role", "postgresql://ana:s3cret@db/team") == "***: no such role"
    assert _without_secrets("refused", "postgresql://ana@db/team") == "refused"
    assert _without_secrets("refused", "postgresql://[broken") == "refused"
    # an address that cannot be read may be quoted in its own error: no quoted part is shown
    assert _without_secrets('invalid percent-encoded token: "s3%zzcret"', "postgresql://ana:s3%zzcret@db/team") == (
        'invalid percent-encoded token: "***"')


def test_the_sync_summary_counts_both_directions():
    assert SyncResult("ana", uploaded=1, pulled=2, undone=1, exams_uploaded=3, exams_pulled=4, replayed_items=5).summary() == (
        "Synced ana: 1 answer up, 2 down, 1 undone; 3 exams up, 4 down; 5 items brought up to date")
    assert SyncResult("bob", uploaded=2).summary() == (
        "Synced bob: 2 answers up, 0 down; 0 exams up, 0 down; 0 items brought up to date")


def test_an_unreachable_server_is_named_without_its_password(monkeypatch):
    from psycopg.conninfo import conninfo_to_dict

    from studyapp.sync.client import connect

    with pytest.raises(StudyappError) as raised:
        connect("postgresql://ana:s3cret@127.0.0.1:1/nowhere")
    message = raised.value.message
    assert message.startswith("cannot reach the team server ") and "s3cret" not in message
    shown, detail = message.removeprefix("cannot reach the team server ").split(": ", 1)
    assert conninfo_to_dict(shown) == {"user": "ana", "host": "127.0.0.1", "port": "1", "dbname": "nowhere"}
    assert "Connection refused" in detail and "\n" not in detail
    assert '"127.0.0.1"' in detail  # libpq's own quoting is kept where the address has no password to hide


def test_an_error_without_words_is_named_by_its_kind(monkeypatch):
    import psycopg

    from studyapp.sync import client

    def refuse(*args, **kwargs):
        raise psycopg.OperationalError("")

    monkeypatch.setattr(psycopg, "connect", refuse)
    with pytest.raises(StudyappError) as raised:
        client.connect("postgresql://ana@db/team")
    assert raised.value.message == "cannot reach the team server user=ana dbname=team host=db: OperationalError"


def test_a_password_in_an_address_that_cannot_be_read_is_not_shown():
    from studyapp.sync.client import connect

    with pytest.raises(StudyappError) as raised:
        connect("postgresql://ana:s3%zzcret@127.0.0.1:1/nowhere")  # a bad %-escape in the password
    assert raised.value.message == 'cannot reach the team server (the configured server): invalid percent-encoded token: "***"'


def test_without_psycopg_sync_says_what_to_install(monkeypatch):
    import sys

    from studyapp.sync.client import connect

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StudyappError) as raised:
        connect("postgresql://127.0.0.1/test")
    assert raised.value.message == "syncing needs psycopg: pip install 'studyapp[team]'"
