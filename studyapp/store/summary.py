"""Per-deck figures for ``studyapp list`` and ``studyapp stats``, read without changing anything."""

from __future__ import annotations

from typing import Sequence

from ..core.clock import Clock, SystemClock
from ..core.models import Deck
from ..core.settings import Location
from .repository import open_store


def deck_figures(decks: Sequence[Deck], location: Location, clock: Clock | None = None) -> dict[str, dict]:
    """Per deck id: items; new, learning and due as Anki counts them (new within today's limits,
    due = reviews due today within the limits); unseen (never studied) and review (items in the
    review state); reviews answered; True Retention over the last 30 study days, young and mature,
    and (``true_retention``) over each span of core.retention.SPANS.

    Read without changing anything. Items the database does not know yet count as unseen
    (and as new, up to today's limit); so does everything when there is no database.
    """
    from ..core.presets import NO_PRESETS
    from ..core.retention import SPANS, TrueRetention
    from ..core.scheduler import Settings
    from ..core.session import ReviewSession

    clock = clock or SystemClock()
    default_new = NO_PRESETS.default.scheduling(Settings()).new_per_day
    from ..core.queue import group_keys

    # One item of each sibling group can come today (the Default preset buries new siblings).
    groups = {deck.id: len({g for (d, _), g in group_keys([deck]).items() if d == deck.id}) for deck in decks}
    figures = {deck.id: {"items": len(deck.items()), "new": min(groups[deck.id], default_new), "learning": 0,
                         "review": 0, "due": 0, "reviews": 0, "retention": None, "unseen": len(deck.items()),
                         "retention_young": None, "retention_mature": None, "retention_passed": 0,
                         "retention_answers": 0, "true_retention": {name: TrueRetention() for name in SPANS}}
               for deck in decks}
    store = open_store(location, clock=clock, readonly=True)
    if store is None:
        return figures
    with store:
        overview = ReviewSession(store, decks, clock=clock)
        for progress, deck in zip(overview.deck_progress(), decks):
            row = figures[deck.id]
            stored = store.stored_keys(deck.id)
            # Items of the bank not stored yet (the deck changed since it was last studied) are new.
            # One a sibling group, as above.
            keys = group_keys([deck])
            missing = len({keys[(deck.id, item.card.id)] for item in deck.items() if item.key not in stored})
            month = progress.true_retention["month"]
            new_limit = overview.new_left_today(deck.id)
            row.update(new=progress.new + min(missing, max(0, new_limit - progress.new)), learning=progress.learning,
                       review=progress.review, due=progress.due, reviews=progress.reviews, retention=month.rate,
                       unseen=progress.unseen, retention_young=month.young, retention_mature=month.mature,
                       retention_passed=month.passed, retention_answers=month.total,
                       true_retention=dict(progress.true_retention))
    return figures


def deck_counts(decks: Sequence[Deck], location: Location) -> dict[str, tuple[int, int, int]]:
    """(new, learning, due) per deck id, for ``studyapp list``: as Anki counts them."""
    return {deck_id: (row["new"], row["learning"], row["due"]) for deck_id, row in deck_figures(decks, location).items()}


def state_counts(store) -> dict[str, dict[str, int]]:
    """Per deck id, the present items stored in each state (learning and relearning together as
    learning), as ``Store.deck_counts`` counts them, in one pass over the items and without the log."""
    out: dict[str, dict[str, int]] = {}
    with store.guarded():
        for deck_id, state, count in store.conn.execute(
                "SELECT deck_id, state, count(*) FROM items WHERE present = 1 GROUP BY deck_id, state"):
            state = "learning" if state == "relearning" else state
            per_deck = out.setdefault(deck_id, {})
            per_deck[state] = per_deck.get(state, 0) + count
    return out


def reviewed_decks(store, deck_ids: Sequence[str]) -> set[str]:
    """The ids of ``deck_ids`` with at least one review answered (what ``Store.deck_counts`` counts as
    reviews), each found by its first such answer rather than by counting a million of them."""
    out = set()
    with store.guarded():
        for deck_id in deck_ids:
            if store.conn.execute("SELECT 1 FROM review_log r JOIN items i ON i.id = r.item_id "
                                  "WHERE i.deck_id = ? AND r.kind = 'review' LIMIT 1", (deck_id,)).fetchone():
                out.add(deck_id)
    return out


def first_answer_ms(store) -> int | None:
    """When the learner first answered anything (a review or cram), through the log's time index."""
    with store.guarded():
        # ORDER BY ... LIMIT 1 walks the time index and stops at the first answer.
        row = store.conn.execute("SELECT time_ms FROM review_log WHERE kind IN ('review', 'cram') "
                                 "ORDER BY time_ms LIMIT 1").fetchone()
    return row[0] if row else None



def report_log(store, deck_ids: Sequence[str], since_ms: int | None = None):
    """The SQL aggregates ``onboarding.report.summary_from_aggregates`` reads, over the answers
    (reviews and cram) to items of ``deck_ids``: (card rows, bucket rows, answers_in). The log stays
    in SQLite; only sums come out, so a million answers cost a scan, not a million Python objects.
    Bucket rows (study days) start at ``since_ms`` when given; card rows cover the whole log."""
    return start_report_log(store, deck_ids, since_ms)()


def start_report_log(store, deck_ids: Sequence[str], since_ms: int | None = None):
    """``report_log``, started: its two scans run at once on connections of their own while the
    caller goes on (SQLite lets go of Python's lock while it steps; the store's own connection stays
    free for the caller). Returns what waits for them and gives ``report_log``'s result.

    Each scan sums the four True Retention counts packed in one integer
    (``core.retention.sql_packed_counts``), one CASE a row instead of four; a group too big to
    pack is summed the plain way."""
    import threading

    from ..core.retention import BUCKET_MS, PACKED_MAX, sql_counts, sql_packed_counts, sql_unpack, unpack

    if not deck_ids:
        return lambda: ([], [], lambda buckets: [])
    marks = ",".join("?" * len(deck_ids))
    answers = "r.kind IN ('review', 'cram')"
    with store.guarded():
        # The join only picks out the decks asked for: skipped when no stored item is of another deck.
        others = store.conn.execute(f"SELECT 1 FROM items WHERE deck_id NOT IN ({marks}) LIMIT 1", deck_ids).fetchone()
    join, where, args = "", answers, []
    if others is not None:
        join, where, args = "CROSS JOIN items i ON i.id = r.item_id", f"{answers} AND i.deck_id IN ({marks})", deck_ids
    if since_ms is not None:
        from .schema import has_wide_log_indexes

        with store.guarded():
            wide = has_wide_log_indexes(store.conn)
        # The time index covers the scan when it is the wide one (store.schema.LOG_INDEXES); through an
        # older, narrow one SQLite would fetch each row apart, and the `+` keeps it scanning the table.
        where, args = f"{where} AND {'' if wide else '+'}r.time_ms >= ?", [*args, since_ms]

    def card_rows(conn, packed: bool) -> list[tuple]:
        counts = sql_packed_counts("r.kind", "r.rating", "r.last_interval") + " AS p" if packed else \
            sql_counts("r.kind", "r.rating", "r.last_interval", names=("yp", "yf", "mp", "mf"))
        # Unpacked per item before the per-card sums, where the packed fields could carry.
        sums = ", ".join(f"sum({count})" for count in sql_unpack("p")) if packed else \
            "sum(yp), sum(yf), sum(mp), sum(mf)"
        # Per item in one pass over the log without a join (in item order through the item index, which
        # covers it: store.schema.LOG_INDEXES), then per card over the items (a tenth the rows).
        return conn.execute(
            f"SELECT i.deck_id, i.card_id, sum(reviews), sum(again), sum(duration), min(first), max(last), {sums}, "
            # The packed fields count reviews only: an item's review count bounds each of them.
            f"max(reviews) "
            f"FROM (SELECT r.item_id, sum(r.kind = 'review') AS reviews, "
            f"sum(r.kind = 'review' AND r.rating = 1) AS again, sum(r.duration_ms) AS duration, "
            f"min(r.time_ms) AS first, max(r.time_ms) AS last, {counts} FROM review_log r "
            f"WHERE {answers} GROUP BY r.item_id) a CROSS JOIN items i ON i.id = a.item_id "
            f"WHERE i.deck_id IN ({marks}) GROUP BY i.deck_id, i.card_id", deck_ids).fetchall()

    def bucket_rows(conn) -> list[tuple]:
        rows = conn.execute(f"SELECT r.time_ms / {BUCKET_MS}, count(*), "
                            f"{sql_packed_counts('r.kind', 'r.rating', 'r.last_interval')} FROM review_log r {join} "
                            f"WHERE {where} GROUP BY 1", args).fetchall()
        if all(n < PACKED_MAX for _, n, _ in rows):
            return [(bucket, *unpack(packed)) for bucket, _, packed in rows]
        return conn.execute(f"SELECT r.time_ms / {BUCKET_MS}, {sql_counts('r.kind', 'r.rating', 'r.last_interval')} "
                            f"FROM review_log r {join} WHERE {where} GROUP BY 1", args).fetchall()

    def answers_in(split: Sequence[int]) -> list[tuple]:
        rows = []
        with store.guarded():
            for bucket in split:
                rows += store.conn.execute(
                    f"SELECT r.time_ms, r.kind, r.rating, r.last_interval FROM review_log r {join} "
                    f"WHERE {where} AND r.time_ms >= ? AND r.time_ms < ?",
                    (*args, bucket * BUCKET_MS, (bucket + 1) * BUCKET_MS)).fetchall()
        return rows

    def cards_of(conn) -> list[tuple]:
        rows = card_rows(conn, packed=True)
        if any(row[-1] >= PACKED_MAX for row in rows):
            rows = card_rows(conn, packed=False)
        return [row[:-1] for row in rows]

    with store.guarded():
        readers = [store.second_reader(), store.second_reader()]
    if readers[0] is None or readers[1] is None:  # a database in memory: one scan after the other
        with store.guarded():
            result = (cards_of(store.conn), bucket_rows(store.conn))
        return lambda: (*result, answers_in)
    results: dict[str, list] = {}
    failed: list[BaseException] = []

    def scan(name: str, run, conn) -> None:
        try:
            with store.guarded():
                try:
                    results[name] = run(conn)
                finally:
                    conn.close()
        except BaseException as error:  # raised again on the caller's thread
            failed.append(error)

    workers = [threading.Thread(target=scan, args=(name, run, conn), name=f"report-{name}", daemon=True)
               for (name, run), conn in zip((("cards", cards_of), ("buckets", bucket_rows)), readers)]
    for worker in workers:
        worker.start()

    def finish():
        for worker in workers:
            worker.join()
        if failed:
            raise failed[0]
        return results["cards"], results["buckets"], answers_in

    return finish

