"""``studyapp report --team``: every learner's report, read from the team server.

The same reports ``studyapp report --format json`` writes on each learner's machine, built
from the server's copy of their log and of their items' states (which each device uploads
after it replays), so that ``report --merge``'s team table comes out of one query per table.
A lead's role reads everyone; a learner's role reads only their own rows (row-level security).
"""

from __future__ import annotations

import json
from collections import defaultdict


def team_reports(conn, decks, curriculum, now_ms: int, day_of, date_of) -> list[dict]:
    from ..onboarding.report import Answer, ExamResult, ItemFacts, build_report

    items: dict[str, list] = defaultdict(list)
    for learner, key, state, stability in conn.execute(
            "SELECT learner, item_key, state, stability FROM studyapp.item_states"):
        deck_id, card_id, _ = key.split("/", 2)
        items[learner].append(ItemFacts(key, deck_id, card_id, state, stability))
    answers: dict[str, list] = defaultdict(list)
    for learner, key, kind, rating, time_ms, duration_ms, last_interval in conn.execute(
            "SELECT learner, item_key, kind, rating, time_ms, duration_ms, last_interval FROM studyapp.reviews r "
            "WHERE kind IN ('review', 'cram') AND NOT EXISTS (SELECT 1 FROM studyapp.undone u WHERE u.uid = r.uid) "
            "ORDER BY time_ms"):
        deck_id, card_id, _ = key.split("/", 2)
        answers[learner].append(Answer(key, deck_id, card_id, kind, rating, time_ms, duration_ms, last_interval))
    exams: dict[str, list] = defaultdict(list)
    for learner, time_ms, result in conn.execute(
            "SELECT learner, time_ms, result FROM studyapp.exams ORDER BY time_ms"):
        result = result if isinstance(result, dict) else json.loads(result)
        exams[learner].append(ExamResult(time_ms=time_ms, deck_ids=tuple(result["deck_ids"]), seed=result["seed"],
                                         mode=result["mode"], questions=result["questions"],
                                         correct=result["correct"], pass_mark=result["pass_mark"]))
    learners = sorted(set(items) | set(answers) | set(exams))
    return [build_report(profile=learner, decks=decks, items=items[learner], answers=answers[learner],
                         exams=exams[learner], curriculum=curriculum, now_ms=now_ms, day_of=day_of, date_of=date_of)
            for learner in learners]
