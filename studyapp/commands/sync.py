"""``studyapp sync`` and ``studyapp server init URL``."""

from __future__ import annotations

import json


def run_sync(context, args) -> int:
    from ..store import open_store
    from ..sync.client import sync
    from ..sync.config import required_server_url

    url = required_server_url(context.server, context.home, "studyapp sync")
    store = open_store(context.location)
    try:
        # The decks first, so that answers pulled for their items land on rows that are in sight.
        store.sync(context.catalog().decks)
        result = sync(store, url)
    finally:
        store.close()
    if getattr(args, "json", False):
        print(json.dumps(result.__dict__, ensure_ascii=False, indent=2), file=context.stdout)
    else:
        print(result.summary(), file=context.stdout)
    return 0


def run_server(context, args) -> int:
    from ..sync.client import connect
    from ..sync.server import init_server

    conn = connect(args.url)
    try:
        done = init_server(conn, list(args.learner or []), list(args.lead or []))
    finally:
        conn.close()
    created = ", ".join(done["roles_created"]) or "none new"
    print(f"Server ready (studyapp schema {done['schema_version']}): learners {', '.join(done['learners']) or '-'}, "
          f"leads {', '.join(done['leads']) or '-'}; roles created: {created}. Set each role's password with "
          "ALTER ROLE name PASSWORD '...' (or use the server's own authentication); studyapp never stores one.",
          file=context.stdout)
    return 0
