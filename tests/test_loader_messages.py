"""Each way a deck can be wrong, with the whole of what the learner is told: code, line, column,
severity and message, and whether the deck still loads (a problem in a card leaves the rest of the deck)."""

import pytest

from studyapp.core.loader import load_deck

SEED = ("The cache avoids repeated graph construction. Buckets merge gradients into one call. "
        "RDMA is remote direct memory access.\n")
H1 = "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\ncards:\n"
H2 = "schema: 2\nid: d\ntitle: D\nlanguages: [zh, en]\nseed: ../seeds/s.md\ncards:\n"
OK = "  - {id: ok, type: basic, front: What does the cache avoid?, back: graph construction, source: The cache avoids}\n"

H3 = "schema: 2\nid: d\ntitle: D\nlanguages: [zh, en, ja]\nseed: ../seeds/s.md\ncards:\n"
# a seed_hash the seed no longer has: its quotes are judged as moved or vanished
STALE = "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n"


def card(body, header=H1):
    return header + OK + f"  - {{id: c, {body}, source: The cache avoids}}\n"


CASES = {
    # the deck as a whole
    "top-level-list": "- a\n- b\n",
    "top-level-scalar": "just words\n",
    "schema-3": "schema: 3\nid: d\ntitle: D\ncards: []\n",
    "schema-text": "schema: one\nid: d\ntitle: D\ncards: []\n",
    "no-title-no-cards": "schema: 1\nid: d\nseed: ../seeds/s.md\n",
    "no-id": "schema: 1\ntitle: D\ncards: []\n",
    "no-schema": "id: d\ntitle: D\nseed: ../seeds/s.md\ncards:\n" + OK,
    "schema-2-no-languages": "schema: 2\nid: d\ntitle: D\ncards: []\n",
    "languages-not-list": "schema: 2\nid: d\ntitle: D\nlanguages: zh\ncards: []\n",
    "languages-empty": "schema: 2\nid: d\ntitle: D\nlanguages: []\ncards: []\n",
    "language-bad": "schema: 2\nid: d\ntitle: D\nlanguages: [zh, English]\ncards: []\n",
    "language-number": "schema: 2\nid: d\ntitle: D\nlanguages: [zh, 12]\ncards: []\n",
    "language-twice": "schema: 2\nid: d\ntitle: D\nlanguages: [zh, en, zh]\ncards: []\n",
    "deck-id-not-slug": "schema: 1\nid: My Deck\ntitle: D\ncards: []\n",
    "deck-id-list": "schema: 1\nid: [d]\ntitle: D\ncards: []\n",
    "deck-id-empty": "schema: 1\nid: ''\ntitle: D\ncards: []\n",
    "deck-id-true": "schema: 1\nid: true\ntitle: D\ncards: []\n",
    "deck-id-number": "schema: 1\nid: 42\ntitle: D\nseed: ../seeds/s.md\ncards:\n" + OK,
    "unknown-deck-key-close": "schema: 1\nid: d\ntitel: D\ntitle: D\nseed: ../seeds/s.md\ncards:\n" + OK,
    "unknown-deck-key-far": "schema: 1\nid: d\ntitle: D\nzzz: 1\nseed: ../seeds/s.md\ncards:\n" + OK,
    "title-list": "schema: 1\nid: d\ntitle: [D]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "title-null": "schema: 1\nid: d\ntitle:\nseed: ../seeds/s.md\ncards:\n" + OK,
    "description-blank": "schema: 1\nid: d\ntitle: D\ndescription: '  '\nseed: ../seeds/s.md\ncards:\n" + OK,
    "tags-space": "schema: 1\nid: d\ntitle: D\ntags: [ok, two words, x y]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "tags-mapping": "schema: 1\nid: d\ntitle: D\ntags: [{a: 1}]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "tags-empty-entry": "schema: 1\nid: d\ntitle: D\ntags: [ok, '']\nseed: ../seeds/s.md\ncards:\n" + OK,
    "tags-one-string": "schema: 1\nid: d\ntitle: D\ntags: a b\nseed: ../seeds/s.md\ncards:\n" + OK,
    # the seed
    "seed-absolute": "schema: 1\nid: d\ntitle: D\nseed: /etc/passwd\ncards:\n" + OK,
    "seed-climbs": "schema: 1\nid: d\ntitle: D\nseed: ../../outside.md\ncards:\n" + OK,
    "seed-missing": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/none.md\ncards:\n" + OK,
    "seed-folder": "schema: 1\nid: d\ntitle: D\nseed: ../seeds\ncards:\n" + OK,
    "seed-latin1": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/latin1.md\ncards:\n" + OK,
    "no-seed": "schema: 1\nid: d\ntitle: D\ncards:\n  - {id: a, type: basic, front: Q?, back: A}\n",
    "seed-null": "schema: 1\nid: d\ntitle: D\nseed:\ncards:\n  - {id: a, type: basic, front: Q?, back: A}\n",
    "seed-hash-bad": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: abc\ncards:\n" + OK,
    "seed-hash-list": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: [abc]\ncards:\n" + OK,
    "seed-hash-stale-verbatim": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n" + OK,
    "seed-hash-stale-one": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n" + OK
        + "  - {id: m, type: basic, front: What merges?, back: Buckets, source: Buckets merge the gradients into one call}\n",
    "seed-hash-stale-two": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n" + OK
        + "  - {id: m, type: basic, front: What merges?, back: Buckets, source: Buckets merge the gradients into one call}\n"
        + "  - {id: v, type: basic, front: What is new?, back: Nothing, source: Quantum entanglement speeds up training}\n",
    "min-coverage-bad": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nmin_coverage: lots\ncards:\n" + OK,
    # the cards list
    "cards-mapping": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\ncards: {a: 1}\n",
    "cards-empty": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\ncards: []\n",
    "card-scalar": H1 + OK + "  - just text\n",
    "card-list": H1 + OK + "  - [a, b]\n",
    "card-no-id": H1 + OK + "  - {type: basic, front: Why?, back: Because, source: The cache avoids}\n",
    "card-id-not-slug": card("type: basic, front: Why?, back: Because").replace("id: c,", "id: Card One,"),
    "card-id-list": card("type: basic, front: Why?, back: Because").replace("id: c,", "id: [c],"),
    "card-no-type": card("front: Why?, back: Because"),
    "card-type-close": card("type: basik, front: Why?, back: Because"),
    "card-type-far": card("type: zzz, front: Why?, back: Because"),
    "card-type-number": card("type: 3, front: Why?, back: Because"),
    "card-key-close": card("type: basic, fornt: Why?, back: Because"),
    "card-key-far": card("type: basic, front: Why?, back: Because, zzz: 1"),
    "card-key-other-type": card("type: basic, front: Why?, back: Because, choices: [a, b]"),
    "card-no-source": H1 + OK + "  - {id: c, type: basic, front: Why?, back: Because}\n",
    "card-front-list": card("type: basic, front: [Why?], back: Because"),
    "card-front-number": card("type: basic, front: 12, back: Because"),
    "card-back-true": card("type: basic, front: Why?, back: yes"),
    "card-source-mapping": H1 + OK + "  - {id: c, type: basic, front: Why?, back: Because, source: {zh: a}}\n",
    "card-source-empty-entry": H1 + OK + "  - {id: c, type: basic, front: Why?, back: Because, source: [The cache avoids, '']}\n",
    "card-source-not-verbatim": H1 + OK + "  - {id: c, type: basic, front: Why?, back: Because, source: The cache avoid repeated graphs}\n",
    "card-source-list-two": H1 + OK + "  - {id: c, type: basic, front: Why?, back: Because, source: [The cache avoids, RDMA is remote memory]}\n",
    "card-revision-zero": card("type: basic, front: Why?, back: Because, revision: 0"),
    "card-revision-true": card("type: basic, front: Why?, back: Because, revision: true"),
    "card-revision-text": card("type: basic, front: Why?, back: Because, revision: two"),
    "card-tags-space": card("type: basic, front: Why?, back: Because, tags: [a b]"),
    "card-accept-mapping": card("type: basic, front: Why?, back: Because, accept: [{a: 1}]"),
    "card-related-self": card("type: basic, front: Why?, back: Because, related: [c]"),
    "card-related-close": card("type: basic, front: Why?, back: Because, related: [okk]"),
    "card-related-far": card("type: basic, front: Why?, back: Because, related: [zzzzz]"),
    "card-related-list-mapping": card("type: basic, front: Why?, back: Because, related: [{a: 1}]"),
    "card-duplicate-id": H1 + OK + "  - {id: ok, type: basic, front: Other?, back: Because, source: The cache avoids}\n",
    "card-duplicate-question": card("type: basic, front: 'what does the CACHE avoid', back: Because"),
    "card-duplicate-statement": H1 + "  - {id: t1, type: truefalse, statement: The cache avoids it, answer: true, source: The cache avoids}\n"
        + "  - {id: t2, type: truefalse, statement: the cache avoids it., answer: false, source: The cache avoids}\n",
    "card-answer-leak": card("type: basic, front: Does the cache avoid graph construction?, back: graph construction"),
    "card-reverse-leak": card("type: reverse, front: RDMA, back: RDMA access"),
    "card-choice-leak": card("type: choice, front: Is it the cache or FX?, choices: [the cache, FX], answer: the cache"),
    "card-reverse-long": card("type: reverse, front: one two three four five six seven, back: RDMA"),
    # type by type
    "truefalse-text": card("type: truefalse, statement: The cache avoids work, answer: 'yes'"),
    "truefalse-no-answer": card("type: truefalse, statement: The cache avoids work"),
    "choice-not-list": card("type: choice, front: Which?, choices: a, answer: a"),
    "choice-one": card("type: choice, front: Which?, choices: [a], answer: a"),
    "choice-seven": card("type: choice, front: Which?, choices: [a, b, c, d, e, f, g], answer: a"),
    "choice-twice": card("type: choice, front: Which?, choices: [a, b, a, b], answer: a"),
    "choice-option-list": card("type: choice, front: Which?, choices: [a, [b]], answer: a"),
    "choice-answer-list": card("type: choice, front: Which?, choices: [a, b], answer: [a]"),
    "choice-answer-elsewhere": card("type: choice, front: Which?, choices: [a, b], answer: c"),
    "choice-answer-number": card("type: choice, front: Which?, choices: [1, 2], answer: 2"),
    "choice-feedback-list": card("type: choice, front: Which?, choices: [a, b], answer: a, feedback: [b]"),
    "choice-feedback-unknown": card("type: choice, front: Which?, choices: [a, b], answer: a, feedback: {c: no}"),
    "choice-feedback-number": card("type: choice, front: Which?, choices: [a, b], answer: a, feedback: {b: 3}"),
    "choice-feedback-blank": card("type: choice, front: Which?, choices: [a, b], answer: a, feedback: {b: ' '}"),
    "choice-no-choices": card("type: choice, front: Which?, answer: a"),
    "cloze-nested": card('type: cloze, text: "A {{c1::b {{c2::c}} d}}"'),
    "cloze-close-first": card('type: cloze, text: "A }} b {{c1::c}}"'),
    "cloze-never-closed": card('type: cloze, text: "A {{c1::b"'),
    "cloze-none": card('type: cloze, text: "A b c"'),
    "cloze-empty": card('type: cloze, text: "A {{c1:: }} b {{c2::}}"'),
    "cloze-zero": card('type: cloze, text: "A {{c0::b}}"'),
    "cloze-stray": card('type: cloze, text: "A {{c1::b}} {{x}}"'),
    "cloze-text-list": card("type: cloze, text: [a]"),
    # schema 2
    "bi-unknown-language": card('type: basic, front: {zh: "为什么", en: Why, fr: Pourquoi}, back: Because', H2),
    "bi-missing-language": card('type: basic, front: {zh: "为什么"}, back: Because', H2),
    "bi-front-list": card("type: basic, front: [Why], back: Because", H2),
    "bi-front-null-text": card('type: basic, front: {zh: "为什么", en: }, back: Because', H2),
    "bi-untranslated-han": card('type: basic, front: "为什么要这样做", back: Because', H2),
    "bi-untranslated-latin": card("type: basic, front: Why does the cache avoid it?, back: Because", H2),
    "bi-term-ok": card("type: basic, front: What is RDMA?, back: Because", H2),
    "bi-answer-other-language": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}], answer: B', H2),
    "bi-answer-elsewhere": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}], answer: C', H2),
    "bi-answer-list": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}], answer: [C]', H2),
    "bi-choice-twice-in-en": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: A}], answer: "甲"', H2),
    "bi-feedback-other-language": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}], answer: "甲", feedback: {B: {zh: "不", en: No}}', H2),
    "bi-feedback-number": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}], answer: "甲", feedback: {"乙": [x]}', H2),
    "bi-cloze-differ": card('type: cloze, text: {zh: "{{c1::甲}}与{{c2::乙}}", en: "{{c1::A}} and B"}', H2),
    "bi-cloze-one-bad": card('type: cloze, text: {zh: "{{c1::甲}}", en: "A and B"}', H2),
    "bi-accept-unknown-language": card('type: basic, front: Why, back: Because, accept: {zh: ["因为"], fr: [car]}', H2),
    "bi-accept-entry-list": card('type: basic, front: Why, back: Because, accept: {zh: [["因为"]], en: [x]}', H2),
    "bi-title-list": "schema: 2\nid: d\ntitle: [D]\nlanguages: [zh, en]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "bi-one-language-long": "schema: 2\nid: d\ntitle: D\nlanguages: [en]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "bi-en-first-han": "schema: 2\nid: d\ntitle: D\nlanguages: [en, zh]\nseed: ../seeds/s.md\ncards:\n"
        + '  - {id: c, type: basic, front: "为什么要这样做", back: Because, source: The cache avoids}\n',
    "bi-ja-zh-han": "schema: 2\nid: d\ntitle: D\nlanguages: [ja, zh]\nseed: ../seeds/s.md\ncards:\n"
        + '  - {id: c, type: basic, front: "为什么要这样做", back: Because, source: The cache avoids}\n',
    "bi-ja-zh-latin": "schema: 2\nid: d\ntitle: D\nlanguages: [ja, zh]\nseed: ../seeds/s.md\ncards:\n"
        + '  - {id: c, type: basic, front: Why does the cache avoid it?, back: Because, source: The cache avoids}\n',
}

# name -> (the deck loads, [(code, line, column, severity, message)]); TMP is the folder holding
# decks/ and seeds/, PARENT the one above it
EXPECTED = {
    'top-level-list': (False, [
        ('not-a-mapping', 1, 1, 'error', 'the top level of a deck must be a mapping (schema:, id:, cards: ...), not a list'),
    ]),
    'top-level-scalar': (False, [
        ('not-a-mapping', 1, 1, 'error', 'the top level of a deck must be a mapping (schema:, id:, cards: ...), not a single value'),
    ]),
    'schema-3': (False, [
        ('schema-version', 1, 9, 'error', "schema 3 is not one this version reads; use 'schema: 1' or, for a deck in several languages, 'schema: 2'"),
    ]),
    'schema-text': (False, [
        ('schema-version', 1, 9, 'error', "schema 'one' is not one this version reads; use 'schema: 1' or, for a deck in several languages, 'schema: 2'"),
    ]),
    'no-title-no-cards': (True, [
        ('missing-field', 1, 1, 'error', "the deck has no 'title'; add it"),
        ('missing-field', 1, 1, 'error', "the deck has no 'cards'; add it"),
    ]),
    'no-id': (False, [
        ('missing-field', 1, 1, 'error', "the deck has no 'id'; add it"),
    ]),
    'no-schema': (True, [
        ('missing-field', 1, 1, 'error', "the deck has no 'schema'; add it"),
    ]),
    'schema-2-no-languages': (False, [
        ('missing-field', 1, 1, 'error', "the deck has no 'languages'; add it such as 'languages: [zh, en]' (the first is the primary)"),
    ]),
    'languages-not-list': (False, [
        ('wrong-type', 4, 12, 'error', "'languages' must be a list of language codes such as [zh, en], the primary first"),
    ]),
    'languages-empty': (False, [
        ('wrong-type', 4, 12, 'error', "'languages' must be a list of language codes such as [zh, en], the primary first"),
    ]),
    'language-bad': (False, [
        ('bad-language', 4, 17, 'error', "'English' is not a language code; use a code such as zh or en"),
    ]),
    'language-number': (False, [
        ('bad-language', 4, 17, 'error', '12 is not a language code; use a code such as zh or en'),
    ]),
    'language-twice': (False, [
        ('duplicate-language', 4, 21, 'error', "language 'zh' is listed twice in 'languages'"),
    ]),
    'deck-id-not-slug': (False, [
        ('bad-slug', 2, 5, 'error', "deck id 'My Deck' is not a slug: use lowercase letters, digits and single hyphens"),
    ]),
    'deck-id-list': (False, [
        ('wrong-type', 2, 5, 'error', "'id' must be text, not a list"),
    ]),
    'deck-id-empty': (False, [
        ('empty', 2, 5, 'error', "'id' is empty; write the text"),
    ]),
    'deck-id-true': (False, [
        ('wrong-type', 2, 5, 'error', "'id' must be text, not a boolean"),
    ]),
    'deck-id-number': (True, []),
    'unknown-deck-key-close': (True, [
        ('unknown-key', 3, 1, 'error', "unknown key 'titel' in deck; did you mean 'title'?"),
    ]),
    'unknown-deck-key-far': (True, [
        ('unknown-key', 4, 1, 'error', "unknown key 'zzz' in deck; allowed: cards, description, id, min_coverage, schema, seed, seed_hash, tags, title"),
    ]),
    'title-list': (True, [
        ('wrong-type', 3, 8, 'error', "'title' must be text, not a list"),
    ]),
    'title-null': (True, [
        ('wrong-type', 3, 7, 'error', "'title' must be text, not nothing (null)"),
    ]),
    'description-blank': (True, [
        ('empty', 4, 14, 'error', "'description' is empty; write the text"),
    ]),
    'tags-space': (True, [
        ('bad-tag', 4, 7, 'error', "tag 'two words' contains a space; use hyphens"),
        ('bad-tag', 4, 7, 'error', "tag 'x y' contains a space; use hyphens"),
    ]),
    'tags-mapping': (True, [
        ('wrong-type', 4, 8, 'error', "'tags' must hold text, not a mapping"),
    ]),
    'tags-empty-entry': (True, [
        ('empty', 4, 12, 'error', "'tags' holds an empty entry; remove it or write the text"),
    ]),
    'tags-one-string': (True, [
        ('bad-tag', 4, 7, 'error', "tag 'a b' contains a space; use hyphens"),
    ]),
    'seed-absolute': (False, [
        ('seed-outside', 4, 7, 'error', "seed path '/etc/passwd' is absolute; give it relative to this deck file; the deck was not loaded"),
    ]),
    'seed-climbs': (False, [
        ('seed-outside', 4, 7, 'error', "seed path '../../outside.md' leads to PARENT/outside.md, outside TMP; seeds must lie within the folder that holds the deck's folder; the deck was not loaded"),
    ]),
    'seed-missing': (True, [
        ('missing-seed', 4, 7, 'error', "seed file '../seeds/none.md' does not exist (looked for TMP/seeds/none.md)"),
    ]),
    'seed-folder': (True, [
        ('missing-seed', 4, 7, 'error', "seed file '../seeds' cannot be read: it is not a regular file (a FIFO, a device or a folder)"),
    ]),
    'seed-latin1': (True, [
        ('missing-seed', 4, 7, 'error', "seed file '../seeds/latin1.md' cannot be read: it is not UTF-8 text"),
    ]),
    'no-seed': (True, [
        ('no-source', 2, 5, 'warning', "the deck names no source document ('seed:'), so there are no quotes to verify; add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked"),
    ]),
    'seed-null': (True, [
        ('wrong-type', 4, 6, 'error', "'seed' must be text, not nothing (null)"),
        ('missing-field', 6, 5, 'error', "the card has no 'source'; quote the passage of the seed it tests"),
    ]),
    'seed-hash-bad': (True, [
        ('bad-seed-hash', 5, 12, 'error', "seed_hash 'abc' is not 'sha256:' and 64 hex digits; run 'studyapp check --accept-source DECK' to record the seed's hash"),
    ]),
    'seed-hash-list': (True, [
        ('wrong-type', 5, 12, 'error', "'seed_hash' must be text, not a list"),
    ]),
    'seed-hash-stale-verbatim': (True, [
        ('source-changed', 5, 12, 'error', "the seed changed since its hash was recorded (sha256:00000000..., now sha256:a7a77d8b...); every card's quotes are still verbatim in it; once you have looked, run 'studyapp check --accept-source d' to record the new hash"),
    ]),
    'seed-hash-stale-one': (True, [
        ('quote-moved', 8, 70, 'error', "card 'm': the seed changed and its quote 'Buckets merge the gradients into one call' is no longer verbatim; the closest new passage is 'on. Buckets merge gradients into one call. RD'; quote that (or reword the card) if it still says the same"),
        ('source-changed', 5, 12, 'error', "the seed changed since its hash was recorded (sha256:00000000..., now sha256:a7a77d8b...); 1 card quotes a passage that moved or vanished (listed); once you have looked, run 'studyapp check --accept-source d' to record the new hash"),
    ]),
    'seed-hash-stale-two': (True, [
        ('quote-moved', 8, 70, 'error', "card 'm': the seed changed and its quote 'Buckets merge the gradients into one call' is no longer verbatim; the closest new passage is 'on. Buckets merge gradients into one call. RD'; quote that (or reword the card) if it still says the same"),
        ('quote-vanished', 9, 70, 'error', "card 'v': the seed changed and its quote 'Quantum entanglement speeds up training' is gone; the closest new passage is 'The cache avoids repeated graph constructio'; if the statement was removed, remove or rewrite the card"),
        ('source-changed', 5, 12, 'error', "the seed changed since its hash was recorded (sha256:00000000..., now sha256:a7a77d8b...); 2 cards quote passages that moved or vanished (listed); once you have looked, run 'studyapp check --accept-source d' to record the new hash"),
    ]),
    'min-coverage-bad': (True, [
        ('bad-share', 5, 15, 'error', "min_coverage 'lots' is not a share: write it as 80% or 0.8 (above 0, at most 100%)"),
    ]),
    'cards-mapping': (True, [
        ('wrong-type', 5, 8, 'error', "'cards' must be a list of cards, not a mapping"),
    ]),
    'cards-empty': (True, [
        ('no-cards', 5, 8, 'warning', 'the deck has no cards yet; add one (or uncomment an example)'),
    ]),
    'card-scalar': (True, [
        ('wrong-type', 7, 5, 'error', 'a card must be a mapping (id:, type:, ...), not text'),
    ]),
    'card-list': (True, [
        ('wrong-type', 7, 5, 'error', 'a card must be a mapping (id:, type:, ...), not a list'),
    ]),
    'card-no-id': (True, [
        ('missing-field', 7, 5, 'error', "the card has no 'id'; add a slug such as 'cache-layers'"),
    ]),
    'card-id-not-slug': (True, [
        ('bad-slug', 7, 10, 'error', "card id 'Card One' is not a slug: use lowercase letters, digits and single hyphens"),
    ]),
    'card-id-list': (True, [
        ('wrong-type', 7, 10, 'error', "'id' must be text, not a list"),
    ]),
    'card-no-type': (True, [
        ('missing-field', 7, 5, 'error', "the card has no 'type'; use one of basic, reverse, cloze, choice, truefalse"),
    ]),
    'card-type-close': (True, [
        ('unknown-type', 7, 19, 'error', "unknown card type 'basik'; did you mean 'basic'? (one of basic, reverse, cloze, choice, truefalse)"),
    ]),
    'card-type-far': (True, [
        ('unknown-type', 7, 19, 'error', "unknown card type 'zzz' (one of basic, reverse, cloze, choice, truefalse)"),
    ]),
    'card-type-number': (True, [
        ('unknown-type', 7, 19, 'error', 'unknown card type 3 (one of basic, reverse, cloze, choice, truefalse)'),
    ]),
    'card-key-close': (True, [
        ('unknown-key', 7, 26, 'error', "unknown key 'fornt' in a basic card; did you mean 'front'?"),
        ('missing-field', 7, 5, 'error', "a basic card needs 'front'; add it"),
    ]),
    'card-key-far': (True, [
        ('unknown-key', 7, 54, 'error', "unknown key 'zzz' in a basic card; allowed: accept, back, explanation, front, id, related, revision, source, tags, type"),
    ]),
    'card-key-other-type': (True, [
        ('field-not-for-type', 7, 54, 'error', "'choices' does not belong on a basic card; remove it"),
    ]),
    'card-no-source': (True, [
        ('missing-field', 7, 5, 'error', "the card has no 'source'; quote the passage of the seed it tests"),
    ]),
    'card-front-list': (True, [
        ('wrong-type', 7, 33, 'error', "'front' must be text, not a list"),
    ]),
    'card-front-number': (True, []),
    'card-back-true': (True, [
        ('wrong-type', 7, 45, 'error', "'back' must be text, not a boolean"),
    ]),
    'card-source-mapping': (True, [
        ('wrong-type', 7, 62, 'error', "'source' must hold text, not a mapping; source quotes stay verbatim in the seed's own language, never a mapping of languages"),
    ]),
    'card-source-empty-entry': (True, [
        ('empty', 7, 81, 'error', "'source' holds an empty entry; remove it or write the text"),
    ]),
    'card-source-not-verbatim': (True, [
        ('source-not-in-seed', 7, 62, 'error', "source quote 'The cache avoid repeated graphs' is not verbatim in the seed; the closest passage is 'The cache avoids repeated graph con'; copy it character for character"),
    ]),
    'card-source-list-two': (True, [
        ('source-not-in-seed', 7, 62, 'error', "source quote 'RDMA is remote memory' is not verbatim in the seed; the closest passage is 'RDMA is remote direct mem'; copy it character for character"),
    ]),
    'card-revision-zero': (True, [
        ('wrong-type', 7, 64, 'error', "'revision' must be a whole number from 1 up, not 0"),
    ]),
    'card-revision-true': (True, [
        ('wrong-type', 7, 64, 'error', "'revision' must be a whole number from 1 up, not True"),
    ]),
    'card-revision-text': (True, [
        ('wrong-type', 7, 64, 'error', "'revision' must be a whole number from 1 up, not 'two'"),
    ]),
    'card-tags-space': (True, [
        ('bad-tag', 7, 60, 'error', "tag 'a b' contains a space; use hyphens"),
    ]),
    'card-accept-mapping': (True, [
        ('wrong-type', 7, 63, 'error', "'accept' must hold text, not a mapping"),
    ]),
    'card-related-self': (True, [
        ('related-self', 7, 63, 'error', "card 'c' names itself in 'related'; remove it"),
    ]),
    'card-related-close': (True, [
        ('related-unknown', 7, 63, 'error', "card 'c' is related to 'okk', which is no card of this deck; did you mean 'ok'?"),
    ]),
    'card-related-far': (True, [
        ('related-unknown', 7, 63, 'error', "card 'c' is related to 'zzzzz', which is no card of this deck"),
    ]),
    'card-related-list-mapping': (True, [
        ('wrong-type', 7, 64, 'error', "'related' must hold text, not a mapping"),
    ]),
    'card-duplicate-id': (True, [
        ('duplicate-card-id', 7, 10, 'error', "card id 'ok' is already used at line 6; card ids must be unique in a deck"),
    ]),
    'card-duplicate-question': (True, [
        ('duplicate-question', 7, 33, 'error', "card 'c' asks the same question as card 'ok' (line 6); reword or remove one"),
    ]),
    'card-duplicate-statement': (True, [
        ('duplicate-question', 7, 42, 'error', "card 't2' asks the same question as card 't1' (line 6); reword or remove one"),
        ('truefalse-share', 2, 5, 'warning', "2 of the deck's 2 cards (100%) are true/false, above a quarter (0 at most); keep those that target a real misconception and turn the others into questions that ask why or compare"),
    ]),
    'card-answer-leak': (True, [
        ('answer-leak', 7, 33, 'warning', "card 'c': the answer 'graph construction' appears in its own question; reword the question"),
    ]),
    'card-reverse-leak': (True, [
        ('answer-leak', 7, 47, 'warning', "card 'c': the answer 'RDMA' appears in its own question; reword the question"),
    ]),
    'card-choice-leak': (True, [
        ('answer-leak', 7, 34, 'warning', "card 'c': the answer 'the cache' appears in its own question; reword the question"),
    ]),
    'card-reverse-long': (True, [
        ('reverse-long-side', 7, 35, 'warning', "card 'c': the reverse card's front 'one two three four five six seven' is 7 words long, more than a short phrase (6 words, two Chinese characters counting as one); a reverse card pairs two terms: make it a basic card"),
    ]),
    'truefalse-text': (True, [
        ('wrong-type', 7, 72, 'error', "a truefalse answer must be true or false (a YAML boolean), not 'yes'"),
    ]),
    'truefalse-no-answer': (True, [
        ('missing-field', 7, 5, 'error', "a truefalse card needs 'answer'; add it"),
    ]),
    'choice-not-list': (True, [
        ('wrong-type', 7, 51, 'error', "'choices' must be a list of options, not text"),
    ]),
    'choice-one': (True, [
        ('choice-count', 7, 51, 'error', 'a choice card needs 2 to 6 options, this one has 1'),
    ]),
    'choice-seven': (True, [
        ('choice-count', 7, 51, 'error', 'a choice card needs 2 to 6 options, this one has 7'),
    ]),
    'choice-twice': (True, [
        ('duplicate-choice', 7, 58, 'error', "option 'a' is listed twice"),
        ('duplicate-choice', 7, 61, 'error', "option 'b' is listed twice"),
    ]),
    'choice-option-list': (True, [
        ('wrong-type', 7, 55, 'error', "'choices' must be text, not a list"),
    ]),
    'choice-answer-list': (True, [
        ('wrong-type', 7, 67, 'error', 'a choice answer must be the text of one option, not a list'),
    ]),
    'choice-answer-elsewhere': (True, [
        ('answer-not-in-choices', 7, 67, 'error', "answer 'c' is not one of the choices; copy the option's text exactly"),
    ]),
    'choice-answer-number': (True, []),
    'choice-feedback-list': (True, [
        ('wrong-type', 7, 80, 'error', "'feedback' must map options to why they are wrong"),
    ]),
    'choice-feedback-unknown': (True, [
        ('feedback-unknown-choice', 7, 81, 'error', "feedback for 'c', which is not one of the choices"),
    ]),
    'choice-feedback-number': (True, [
        ('wrong-type', 7, 84, 'error', "feedback for 'b' must be text"),
    ]),
    'choice-feedback-blank': (True, [
        ('wrong-type', 7, 84, 'error', "feedback for 'b' must be text"),
    ]),
    'choice-no-choices': (True, [
        ('missing-field', 7, 5, 'error', "a choice card needs 'choices'; add it"),
    ]),
    'cloze-nested': (True, [
        ('cloze-nested', 7, 32, 'error', 'a cloze deletion is nested inside another; Anki cannot show nested deletions'),
    ]),
    'cloze-close-first': (True, [
        ('cloze-unbalanced', 7, 32, 'error', "'}}' closes a deletion that was never opened"),
    ]),
    'cloze-never-closed': (True, [
        ('cloze-unbalanced', 7, 32, 'error', "a '{{' is never closed with '}}'"),
    ]),
    'cloze-none': (True, [
        ('cloze-none', 7, 32, 'error', 'the cloze text has no deletion; mark one as {{c1::answer}}'),
    ]),
    'cloze-empty': (True, [
        ('cloze-empty', 7, 32, 'error', 'deletion c1 is empty; put the hidden answer inside it'),
        ('cloze-empty', 7, 32, 'error', 'deletion c2 is empty; put the hidden answer inside it'),
    ]),
    'cloze-zero': (True, [
        ('cloze-number', 7, 32, 'error', 'cloze numbers start at c1'),
    ]),
    'cloze-stray': (True, [
        ('cloze-unbalanced', 7, 32, 'error', 'braces that are not a {{cN::...}} deletion; write deletions as {{c1::answer}}'),
    ]),
    'cloze-text-list': (True, [
        ('wrong-type', 7, 32, 'error', "'text' must be text, not a list"),
    ]),
    'bi-unknown-language': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('unknown-language', 8, 54, 'error', "'front' has a text in 'fr', which the deck does not declare (languages: zh, en); remove it or add it to 'languages'"),
    ]),
    'bi-missing-language': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('missing-language', 8, 33, 'error', '\'front\' has no \'en\' text; add en: "..." to the mapping (or write one plain string if the text is the same in every language)'),
    ]),
    'bi-front-list': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 33, 'error', '\'front\' must be text or a mapping of the deck\'s languages ({zh: "...", en: "..."}), not a list'),
    ]),
    'bi-front-null-text': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 49, 'error', "'front.en' must be text, not nothing (null)"),
    ]),
    'bi-untranslated-han': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('untranslated-text', 8, 33, 'warning', '\'front\' is one plain string in Chinese, shown as is to en learners; write it as {zh: "...", en: "..."}'),
    ]),
    'bi-untranslated-latin': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('untranslated-text', 8, 33, 'warning', '\'front\' is one plain string of 6 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
    ]),
    'bi-term-ok': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
    ]),
    'bi-answer-other-language': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('answer-not-in-choices', 8, 97, 'error', "answer 'B' is the en text of an option; write its zh text, '乙'"),
    ]),
    'bi-answer-elsewhere': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('answer-not-in-choices', 8, 97, 'error', "answer 'C' is not one of the choices; copy the option's text in the primary language (zh) exactly"),
    ]),
    'bi-answer-list': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 97, 'error', 'a choice answer must be the text of one option in the primary language (zh), not a list'),
    ]),
    'bi-choice-twice-in-en': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('duplicate-choice', 8, 70, 'error', "option 'A' is listed twice in en"),
    ]),
    'bi-feedback-other-language': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('feedback-unknown-choice', 8, 113, 'error', "feedback for 'B', which is not one of the choices (key feedback by the option's zh text)"),
    ]),
    'bi-feedback-number': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 118, 'error', '\'feedback\' must be text or a mapping of the deck\'s languages ({zh: "...", en: "..."}), not a list'),
    ]),
    'bi-cloze-differ': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('cloze-languages-differ', 8, 32, 'error', "the languages' texts hide different deletions (zh: c1, c2; en: c1); each language must have the same cloze numbers"),
    ]),
    'bi-cloze-one-bad': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('cloze-none', 8, 32, 'error', 'the cloze text has no deletion; mark one as {{c1::answer}}'),
    ]),
    'bi-accept-unknown-language': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('unknown-language', 8, 74, 'error', "'accept' has a text in 'fr', which the deck does not declare (languages: zh, en); remove it or add it to 'languages'"),
        ('missing-language', 8, 61, 'error', '\'accept\' has no \'en\' text; add en: "..." to the mapping (or write one plain string if the text is the same in every language)'),
    ]),
    'bi-accept-entry-list': (True, [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 67, 'error', "'accept.zh' must hold text, not a list"),
    ]),
    'bi-title-list': (True, [
        ('wrong-type', 3, 8, 'error', '\'title\' must be text or a mapping of the deck\'s languages ({zh: "...", en: "..."}), not a list'),
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
    ]),
    'bi-one-language-long': (True, []),
    'bi-en-first-han': (True, [
        ('untranslated-text', 7, 33, 'warning', '\'front\' is one plain string in Chinese, shown as is to en learners; write it as {en: "...", zh: "..."}'),
    ]),
    'bi-ja-zh-han': (True, []),
    'bi-ja-zh-latin': (True, [
        ('untranslated-text', 7, 33, 'warning', '\'front\' is one plain string of 6 words, shown untranslated to ja/zh learners (a plain string suits a term of up to 4 words); write it as {ja: "...", zh: "..."}'),
    ]),
}


def test_every_case_has_its_expectation():
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_deck_gets_exactly_its_problems(tmp_path, name):
    root = tmp_path / "t"
    (root / "seeds").mkdir(parents=True)
    (root / "decks").mkdir()
    (root / "seeds" / "s.md").write_text(SEED, encoding="utf-8")
    (root / "seeds" / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    path = root / "decks" / "d.yaml"
    path.write_text(CASES[name], encoding="utf-8")
    result = load_deck(path)
    found = [(p.code, p.line, p.column, p.severity, p.message.replace(str(root), "TMP").replace(str(tmp_path), "PARENT"))
             for p in result.problems]
    loads, expected = EXPECTED[name]
    assert found == expected
    assert (result.deck is not None) is loads
    assert all(p.path == str(path) for p in result.problems)


# -- the YAML layer: what cannot be read as a deck at all, and warnings about the text --------------

YAML_CASES = {
    "tab-indent": b"schema: 1\nid: d\ncards:\n\t- a\n",
    "syntax-context": b"schema: 1\nid: d\ntitle: [a, b\ncards: []\n",
    "syntax-colon": b"schema: 1\nid: d: e\n",
    "python-tag-scalar": b"schema: 1\nid: !!python/name:os.system d\n",
    "python-tag-seq": b"schema: 1\nid: d\ntags: !!python/tuple [a]\n",
    "custom-tag-map": b"schema: 1\nid: d\ntitle: !thing {a: 1}\n",
    "set-tag": b"schema: 1\nid: d\ntags: !!set {a}\n",
    "bad-int": b"schema: 1\nid: d\nrevision: !!int x\n",
    "bad-timestamp": b"schema: 1\nid: d\nwhen: !!timestamp 2020-99-99\n",
    "mapping-key": b"schema: 1\nid: d\n? [a, b]\n: c\n",
    "mapping-key-map": b"schema: 1\nid: d\n{a: 1}: c\n",
    "alias": b"schema: 1\nid: &x d\ntitle: *x\n",
    "duplicate-key": b"schema: 1\nid: d\ntitle: A\ndescription: x\ntitle: B\ncards: []\n",
    "control-character": b"schema: 1\nid: d\ntitle: \"a\\x1b]52;c;x\\x07b\"\ncards: []\n",
    "binary": b"schema: 1\nid: d\n\x00\x01\n",
    "binary-first-byte": b"\x00schema: 1\n",
    "binary-second-line": b"\n\x00schema: 1\n",  # the line of the first NUL, counted from the first byte
    "binary-two-nuls": b"schema: 1\n\x00\nid: d\n\x00\n",
    "latin1": b"schema: 1\nid: d\ntitle: caf\xe9\n",
    "latin1-first-line": b"caf\xe9: 1\n",
    "empty": b"",
    "blank": b"  \n\n",
    "document-end-only": b"---\n...\n",
    "comment-only": b"# nothing\n",
    "two-documents": b"schema: 1\n---\nschema: 1\n",
    "depth-32": b"schema: 1\nid: d\nx: " + b"[" * 31 + b"]" * 31 + b"\n",
    "depth-33": b"schema: 1\nid: d\nx: " + b"[" * 32 + b"]" * 32 + b"\n",
    "depth-maps": b"schema: 1\nid: d\nx: " + b"{a: " * 32 + b"1" + b"}" * 32 + b"\n",
    "depth-key": b"schema: 1\nid: d\n" + b"a:\n" + b"".join(b"  " * i + b"b:\n" for i in range(1, 32)) + b"  " * 32 + b"c: 1\n",
    "bom": b"\xef\xbb\xbfschema: 1\nid: d\ntitle: D\ncards: []\n",
    "depth-33-lists": b"schema: 1\nid: d\nx: " + b"[" * 33 + b"]" * 33 + b"\n",
    "depth-2000": b"schema: 1\nid: d\nx: " + b"[" * 2000 + b"]" * 2000 + b"\n",
    "tab-after-key": b"schema: 1\nid: d\ntitle:\n\tD\n",
    "tab-first-byte": b"\tschema: 1\n",
    "deep-key-33": b"schema: 1\n? " + b"[" * 33 + b"]" * 33 + b"\n: v\n",  # a key is as deep as a value
    "deep-key-32": b"schema: 1\n? " + b"[" * 32 + b"]" * 32 + b"\n: v\n",
    "tab-named": b"schema: 1\nid: d\ncards:\n  - x\n\t- y\n",
}

YAML_EXPECTED = {
    'tab-indent': (False, [
        ('yaml-syntax', 4, 1, 'error', 'YAML syntax error: found character that cannot start any token (while scanning for the next token); indent with spaces, not tabs'),
    ]),
    'syntax-context': (False, [
        ('yaml-syntax', 4, 6, 'error', "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)"),
    ]),
    'syntax-colon': (False, [
        ('yaml-syntax', 2, 6, 'error', 'YAML syntax error: mapping values are not allowed in this context'),
    ]),
    'python-tag-scalar': (False, [
        ('unsafe-tag', 2, 5, 'error', 'tag !!python/name:os.system is not allowed in decks; only plain text, numbers and booleans are'),
    ]),
    'python-tag-seq': (False, [
        ('unsafe-tag', 3, 7, 'error', 'tag !!python/tuple is not allowed in decks'),
    ]),
    'custom-tag-map': (False, [
        ('unsafe-tag', 3, 8, 'error', 'tag !thing is not allowed in decks'),
    ]),
    'set-tag': (False, [
        ('unsafe-tag', 3, 7, 'error', 'tag !!set is not allowed in decks'),
    ]),
    'bad-int': (False, [
        ('yaml-syntax', 3, 11, 'error', "cannot read the value 'x': invalid literal for int() with base 10: 'x'"),
    ]),
    'bad-timestamp': (False, [
        ('yaml-syntax', 3, 7, 'error', "cannot read the value '2020-99-99': month must be in 1..12"),
    ]),
    'mapping-key': (False, [
        ('bad-key', 3, 3, 'error', 'a mapping key must be a plain value'),
    ]),
    'mapping-key-map': (False, [
        ('bad-key', 3, 1, 'error', 'a mapping key must be a plain value'),
    ]),
    'alias': (False, [
        ('alias', 2, 5, 'error', 'anchors and aliases (&name, *name) are not allowed in decks; write the value out'),
    ]),
    'duplicate-key': (True, [
        ('duplicate-key', 5, 1, 'error', "key 'title' appears twice in one mapping (first at line 3); YAML would silently keep only the last; remove one"),
        ('no-cards', 6, 8, 'warning', 'the deck has no cards yet; add one (or uncomment an example)'),
        ('no-source', 2, 5, 'warning', "the deck names no source document ('seed:'), so there are no quotes to verify; add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked"),
    ]),
    'control-character': (True, [
        ('control-character', 3, 8, 'warning', 'the text holds control characters (\\x1b, \\x07); a terminal obeys them (an escape sequence can set the clipboard or the window title), so studyapp shows them escaped; remove them from the deck'),
        ('no-cards', 4, 8, 'warning', 'the deck has no cards yet; add one (or uncomment an example)'),
        ('no-source', 2, 5, 'warning', "the deck names no source document ('seed:'), so there are no quotes to verify; add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked"),
    ]),
    'binary': (False, [
        ('binary', 3, 1, 'error', 'this is a binary file, not a YAML deck'),
    ]),
    'binary-first-byte': (False, [
        ('binary', 1, 1, 'error', 'this is a binary file, not a YAML deck'),
    ]),
    'binary-second-line': (False, [
        ('binary', 2, 1, 'error', 'this is a binary file, not a YAML deck'),
    ]),
    'binary-two-nuls': (False, [
        ('binary', 2, 1, 'error', 'this is a binary file, not a YAML deck'),
    ]),
    'latin1': (False, [
        ('encoding', 3, 11, 'error', 'byte 0xe9 is not valid UTF-8; save the file as UTF-8'),
    ]),
    'latin1-first-line': (False, [
        ('encoding', 1, 4, 'error', 'byte 0xe9 is not valid UTF-8; save the file as UTF-8'),
    ]),
    'empty': (False, [
        ('empty-file', 1, 1, 'error', 'the file is empty; a deck needs at least schema, id, title, seed and cards'),
    ]),
    'blank': (False, [
        ('empty-file', 1, 1, 'error', 'the file is empty; a deck needs at least schema, id, title, seed and cards'),
    ]),
    'document-end-only': (False, [
        ('not-a-mapping', 1, 1, 'error', 'the top level of a deck must be a mapping (schema:, id:, cards: ...), not a single value'),
    ]),
    'comment-only': (False, [
        ('empty-file', 1, 1, 'error', 'the file holds no YAML document'),
    ]),
    'two-documents': (False, [
        ('yaml-syntax', 2, 1, 'error', 'YAML syntax error: but found another document (expected a single document in the stream)'),
    ]),
    'depth-32': (True, [
        ('unknown-key', 3, 1, 'error', "unknown key 'x' in deck; allowed: cards, description, id, min_coverage, schema, seed, seed_hash, tags, title"),
        ('missing-field', 1, 1, 'error', "the deck has no 'title'; add it"),
        ('missing-field', 1, 1, 'error', "the deck has no 'cards'; add it"),
        ('no-source', 2, 5, 'warning', "the deck names no source document ('seed:'), so there are no quotes to verify; add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked"),
    ]),
    'depth-33': (True, [
        ('unknown-key', 3, 1, 'error', "unknown key 'x' in deck; allowed: cards, description, id, min_coverage, schema, seed, seed_hash, tags, title"),
        ('missing-field', 1, 1, 'error', "the deck has no 'title'; add it"),
        ('missing-field', 1, 1, 'error', "the deck has no 'cards'; add it"),
        ('no-source', 2, 5, 'warning', "the deck names no source document ('seed:'), so there are no quotes to verify; add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked"),
    ]),
    'depth-maps': (False, [
        ('too-deep', 3, 129, 'error', 'the document is nested more than 32 levels deep'),
    ]),
    'depth-key': (False, [
        ('too-deep', 35, 65, 'error', 'the document is nested more than 32 levels deep'),
    ]),
    'bom': (True, [
        ('no-cards', 4, 8, 'warning', 'the deck has no cards yet; add one (or uncomment an example)'),
        ('no-source', 2, 5, 'warning', "the deck names no source document ('seed:'), so there are no quotes to verify; add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked"),
    ]),
    'depth-33-lists': (False, [
        ('too-deep', 3, 36, 'error', 'the document is nested more than 32 levels deep'),
    ]),
    'depth-2000': (False, [
        ('too-deep', 3, 1003, 'error', 'the document is nested too deeply'),
    ]),
    'tab-after-key': (False, [
        ('yaml-syntax', 4, 1, 'error', 'YAML syntax error: found character that cannot start any token (while scanning for the next token); indent with spaces, not tabs'),
    ]),
    'deep-key-33': (False, [
        ('too-deep', 2, 35, 'error', 'the document is nested more than 32 levels deep'),
    ]),
    'deep-key-32': (False, [
        ('bad-key', 2, 3, 'error', 'a mapping key must be a plain value'),
    ]),
    'tab-first-byte': (False, [
        ('yaml-syntax', 1, 1, 'error', 'YAML syntax error: found character that cannot start any token (while scanning for the next token); indent with spaces, not tabs'),
    ]),
    'tab-named': (False, [
        ('yaml-syntax', 5, 1, 'error', 'YAML syntax error: found a tab character that violates indentation (while scanning a plain scalar); indent with spaces, not tabs'),
    ]),
}


@pytest.mark.parametrize("name", sorted(YAML_CASES))
def test_a_file_gets_exactly_its_yaml_problems(tmp_path, name):
    assert set(YAML_CASES) == set(YAML_EXPECTED)
    (tmp_path / "decks").mkdir()
    path = tmp_path / "decks" / "d.yaml"
    path.write_bytes(YAML_CASES[name])
    result = load_deck(path)
    loads, expected = YAML_EXPECTED[name]
    assert [(p.code, p.line, p.column, p.severity, p.message) for p in result.problems] == expected
    assert (result.deck is not None) is loads
    assert all(p.path == str(path) for p in result.problems)


def test_a_file_that_cannot_be_read_is_one_error_at_its_start(tmp_path):
    missing = load_deck(tmp_path / "none.yaml")
    assert [(p.code, p.line, p.column, p.message, p.path) for p in missing.problems] == [
        ("unreadable", 1, 1, "cannot read the file: No such file or directory", str(tmp_path / "none.yaml"))]
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    assert [(p.code, p.line, p.column, p.message, p.path) for p in load_deck(folder).problems] == [
        ("unreadable", 1, 1, "cannot read the file: Is a directory", str(folder))]


def test_a_file_over_16_mb_is_refused_by_its_size(tmp_path):
    from studyapp.core.yamlsafe import MAX_FILE_BYTES

    path = tmp_path / "big.yaml"
    with open(path, "wb") as handle:  # sparse: no 16 MB written
        handle.truncate(MAX_FILE_BYTES + 1)
    assert [(p.code, p.line, p.column, p.message, p.path) for p in load_deck(path).problems] == [
        ("too-large", 1, 1, "file is 16.0 MB, larger than the 16 MB a deck may be; split it into several decks", str(path))]
    from studyapp.core.problems import DeckLoadError
    from studyapp.core.yamlsafe import read_text

    with pytest.raises(DeckLoadError) as caught:  # the error names the file itself
        read_text(path)
    assert caught.value.format() == (f"{path}:1:1: error: file is 16.0 MB, larger than the 16 MB a deck may be; "
                                     "split it into several decks [too-large]")
    with open(path, "r+b") as handle:  # the size in MB to a tenth: 100 MiB is 100.0, not 99.9
        handle.truncate(100 * 1024 * 1024)
    assert load_deck(path).problems[0].message.startswith("file is 100.0 MB, larger than the 16 MB")
    with open(path, "r+b") as handle:  # exactly at the cap: read (and found binary, being all zero bytes)
        handle.truncate(MAX_FILE_BYTES)
    assert [p.code for p in load_deck(path).problems] == ["binary"]


@pytest.mark.parametrize("name", sorted(name for name, (loads, problems) in YAML_EXPECTED.items()
                                         if not loads and problems[0][0] != "not-a-mapping"))  # the deck's to refuse
def test_the_yaml_layers_error_names_its_file_itself(tmp_path, name):
    # the error a file raises carries its path, line, column and code, so that it can be shown on its own
    from studyapp.core.problems import DeckLoadError
    from studyapp.core.yamlsafe import parse, read_text

    path = tmp_path / "d.yaml"
    path.write_bytes(YAML_CASES[name])
    with pytest.raises(DeckLoadError) as caught:
        parse(read_text(path), path, [])
    [(code, line, column, _, message)] = YAML_EXPECTED[name][1]
    assert caught.value.format() == f"{path}:{line}:{column}: error: {message} [{code}]"


# -- more edges: keys of the other schema, relations both ways, a text checked once for all languages ---------

MORE_CASES = {
    "schema-1-languages": "schema: 1\nid: d\ntitle: D\nlanguages: [zh, en]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "seed-hash-seed-missing": "schema: 1\nid: d\ntitle: D\nseed: ../seeds/none.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n" + OK,
    "card-id-empty": card("type: basic, front: Why?, back: Because").replace("id: c,", "id: '',"),
    "card-key-number": card("type: basic, front: Why?, back: Because, 12: x"),
    "card-front-float": card("type: basic, front: 1.5, back: Because"),
    "card-revision-one": card("type: basic, front: Why?, back: Because, revision: 1"),
    "card-related-both-ways": H1 + "  - {id: a, type: basic, front: Why a?, back: A, related: [b], source: The cache avoids}\n"
        + "  - {id: b, type: basic, front: Why b?, back: B, related: [a, a], source: The cache avoids}\n",
    "card-related-left-out": H1 + "  - {id: a, type: basic, front: Why a?, back: A, related: [b], source: The cache avoids}\n"
        + "  - {id: b, type: basic, front: Why b?, source: The cache avoids}\n",
    "cloze-inner-braces": card('type: cloze, text: "A {{c1::b {{x}} c}}"'),
    "cloze-c-without-number": card('type: cloze, text: "A {{c::b}}"'),
    "choice-feedback-without-choices": card("type: choice, front: Which?, choices: a, answer: a, feedback: {b: no}"),
    "bi-plain-cloze-once": card('type: cloze, text: "A b c"', H2),
    "bi-plain-leak-once": card("type: reverse, front: RDMA, back: RDMA access", H2),
    "bi-long-side-once": card('type: reverse, front: RDMA, back: {zh: "远程直接内存访问远程直接内存访问", en: one two three four five six seven}', H2),
    "bi-feedback-plain": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}], answer: "甲", feedback: {"乙": No way}', H2),
    "bi-one-language": "schema: 2\nid: d\ntitle: D\nlanguages: [en]\nseed: ../seeds/s.md\ncards:\n"
        + "  - {id: c, type: basic, front: Why does the cache avoid it at all?, back: Because, source: The cache avoids}\n",
    "bi-region-language": "schema: 2\nid: d\ntitle: D\nlanguages: [zh-Hant, en-GB]\nseed: ../seeds/s.md\ncards:\n" + OK,
    "bi-language-bad-region": "schema: 2\nid: d\ntitle: D\nlanguages: [zh-x, en]\ncards: []\n",
    "bi-accept-boolean": card('type: basic, front: Why, back: Because, accept: {zh: yes, en: [x]}', H2),
    "cloze-closed-twice": card('type: cloze, text: "A {{c1::b}}}} c"'),
    "cloze-opened-twice": card('type: cloze, text: "A {{{{c1::b}} c"'),
    "tri-cloze-third-differs": H3 + '  - {id: c, type: cloze, text: {zh: "{{c1::甲}}", en: "{{c1::甲}}", ja: "no deletion"}, source: The cache avoids}\n',
    "reverse-both-sides-long": card("type: reverse, front: one two three four five six seven, back: a b c d e f g h"),
    "cloze-empty-braces": card('type: cloze, text: "A {{}} b"'),
    "cloze-open-after-deletion": card('type: cloze, text: "A {{c1::b}}{{ c"'),
    "cloze-single-braces-around": card('type: cloze, text: "A {{{c1::x}}{ b"'),
    "bi-han-plain-to-two": "schema: 2\nid: d\ntitle: D\nlanguages: [zh, en, fr]\nseed: ../seeds/s.md\ncards:\n"
        + '  - {id: c, type: basic, front: "为什么要这样做", back: {zh: "因为", en: Because, fr: Parce que}, source: The cache avoids}\n',
    "bi-choice-twice-in-both": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "甲", en: A}, {zh: "乙", en: B}], answer: "乙"', H2),
    "choice-feedback-each-checked": card("type: choice, front: Which?, choices: [a, b, d], answer: a, feedback: {c: no, b: 3, d: 4}"),
    "bi-feedback-each-checked": card('type: choice, front: Which?, choices: [{zh: "甲", en: A}, {zh: "乙", en: B}, {zh: "丙", en: C}], answer: "甲", feedback: {"乙": [x], "丙": [y]}', H2),
    "card-front-date": card("type: basic, front: 2020-01-31, back: Because"),
    "card-back-float": card("type: basic, front: Why?, back: 0.5"),
    "card-accept-number": card("type: basic, front: Why?, back: Because, accept: [3, 4.5]"),
    "card-two-quotes-not-verbatim": H1 + OK + "  - {id: c, type: basic, front: Why?, back: Because, source: [The cache avoidz, RDMA is remote memory]}\n",
    "stale-two-moved-quotes-one-card": STALE + "  - {id: m, type: basic, front: What merges?, back: Buckets, source: [Buckets merge the gradients into one call, The cache avoid repeated graph construction]}\n",
    "stale-quote-at-the-threshold": STALE + "  - {id: m, type: basic, front: What?, back: This, source: cache avoiids}\n",
    "choice-choices-number": card("type: choice, front: Which?, choices: 5, answer: a"),
    # a field of another type is reported as such, and its value not read (no second error about it)
    "card-field-of-other-type-not-read": card("type: basic, front: Why?, back: Because, statement: [x], accept: {a: 1}"),
    "card-accept-on-choice-not-read": card("type: choice, front: Which?, choices: [a, b], answer: a, accept: [[x]]"),
    "cards-after-a-duplicate-id-load": H1 + OK + "  - {id: ok, type: basic, front: Other?, back: B, source: The cache avoids}\n"
        + "  - {id: c, type: basic, front: Third?, back: C, source: The cache avoids}\n",
    "cards-after-a-bad-card-load": H1 + OK + "  - just text\n" + "  - {id: c, type: basic, front: Third?, back: C, source: The cache avoids}\n",
    # one sentence can hold deletions for several cloze cards: the same text twice is no duplicate question
    "cloze-same-text-twice": H1 + '  - {id: a, type: cloze, text: "{{c1::Buckets}} merge gradients", source: Buckets merge gradients}\n'
        + '  - {id: b, type: cloze, text: "{{c1::Buckets}} merge gradients", source: Buckets merge gradients}\n',
    "bi-front-empty": card("type: basic, front: '', back: Because", H2),
    "card-keys-each-checked": card("type: basic, front: Why?, back: Because, choices: [a, b], fornt: x, zzz: 1"),
    "top-level-list-after-a-comment": "# a deck?\n\n  - a\n  - b\n",
}

MORE_EXPECTED = {
    'schema-1-languages': ([('ok', ())], [
        ('unknown-key', 4, 1, 'error', "unknown key 'languages' in deck; allowed: cards, description, id, min_coverage, schema, seed, seed_hash, tags, title"),
    ]),
    'seed-hash-seed-missing': ([('ok', ())], [
        ('missing-seed', 4, 7, 'error', "seed file '../seeds/none.md' does not exist (looked for TMP/seeds/none.md)"),
    ]),
    'card-id-empty': ([('ok', ())], [
        ('empty', 7, 10, 'error', "'id' is empty; write the text"),
    ]),
    'card-key-number': ([('ok', ())], [
        ('unknown-key', 7, 54, 'error', "unknown key '12' in a basic card; allowed: accept, back, explanation, front, id, related, revision, source, tags, type"),
    ]),
    'card-front-float': ([('ok', ()), ('c', ())], [
    ]),
    'card-revision-one': ([('ok', ()), ('c', ())], [
    ]),
    'card-related-both-ways': ([('a', ('b',)), ('b', ('a',))], [
    ]),
    'card-related-left-out': ([('a', ())], [
        ('missing-field', 7, 5, 'error', "a basic card needs 'back'; add it"),
    ]),
    'cloze-inner-braces': ([('ok', ())], [
        ('cloze-unbalanced', 7, 32, 'error', 'braces that are not a {{cN::...}} deletion; write deletions as {{c1::answer}}'),
    ]),
    'cloze-c-without-number': ([('ok', ())], [
        ('cloze-none', 7, 32, 'error', 'the cloze text has no deletion; mark one as {{c1::answer}}'),
    ]),
    'choice-feedback-without-choices': ([('ok', ())], [
        ('wrong-type', 7, 51, 'error', "'choices' must be a list of options, not text"),
        ('wrong-type', 7, 79, 'error', "feedback for 'b' must be text"),
    ]),
    'bi-plain-cloze-once': ([('ok', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('cloze-none', 8, 32, 'error', 'the cloze text has no deletion; mark one as {{c1::answer}}'),
    ]),
    'bi-plain-leak-once': ([('ok', ()), ('c', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('answer-leak', 8, 47, 'warning', "card 'c': the answer 'RDMA' appears in its own question; reword the question"),
    ]),
    'bi-long-side-once': ([('ok', ()), ('c', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('reverse-long-side', 8, 47, 'warning', "card 'c': the reverse card's back '远程直接内存访问远程直接内存访问' is 8 words long, more than a short phrase (6 words, two Chinese characters counting as one); a reverse card pairs two terms: make it a basic card"),
    ]),
    'bi-feedback-plain': ([('ok', ()), ('c', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
    ]),
    'bi-one-language': ([('c', ())], [
    ]),
    'bi-region-language': ([('ok', ())], [
    ]),
    'bi-language-bad-region': (None, [
        ('bad-language', 4, 13, 'error', "'zh-x' is not a language code; use a code such as zh or en"),
    ]),
    'bi-accept-boolean': ([('ok', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 66, 'error', "'accept.zh' must hold text, not a boolean"),
    ]),
    'cloze-closed-twice': ([('ok', ())], [
        ('cloze-unbalanced', 7, 32, 'error', "'}}' closes a deletion that was never opened"),
    ]),
    'cloze-opened-twice': ([('ok', ())], [
        ('cloze-nested', 7, 32, 'error', 'a cloze deletion is nested inside another; Anki cannot show nested deletions'),
    ]),
    'tri-cloze-third-differs': ([], [
        ('cloze-none', 7, 32, 'error', 'the cloze text has no deletion; mark one as {{c1::answer}}'),
    ]),
    'reverse-both-sides-long': ([('ok', ()), ('c', ())], [
        ('reverse-long-side', 7, 35, 'warning', "card 'c': the reverse card's front 'one two three four five six seven' is 7 words long, more than a short phrase (6 words, two Chinese characters counting as one); a reverse card pairs two terms: make it a basic card"),
        ('reverse-long-side', 7, 76, 'warning', "card 'c': the reverse card's back 'a b c d e f g h' is 8 words long, more than a short phrase (6 words, two Chinese characters counting as one); a reverse card pairs two terms: make it a basic card"),
    ]),
    'cloze-empty-braces': ([('ok', ())], [
        ('cloze-none', 7, 32, 'error', 'the cloze text has no deletion; mark one as {{c1::answer}}'),
    ]),
    'cloze-open-after-deletion': ([('ok', ())], [
        ('cloze-unbalanced', 7, 32, 'error', "a '{{' is never closed with '}}'"),
    ]),
    'cloze-single-braces-around': ([('ok', ())], [
        ('cloze-unbalanced', 7, 32, 'error', 'braces that are not a {{cN::...}} deletion; write deletions as {{c1::answer}}'),
    ]),
    'bi-han-plain-to-two': ([('c', ())], [
        ('untranslated-text', 7, 33, 'warning', '\'front\' is one plain string in Chinese, shown as is to en/fr learners; write it as {zh: "...", en: "...", fr: "..."}'),
    ]),
    'bi-choice-twice-in-both': ([('ok', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('duplicate-choice', 8, 70, 'error', "option '甲' is listed twice in zh"),
    ]),
    'choice-feedback-each-checked': ([('ok', ())], [
        ('feedback-unknown-choice', 7, 84, 'error', "feedback for 'c', which is not one of the choices"),
        ('wrong-type', 7, 94, 'error', "feedback for 'b' must be text"),
        ('wrong-type', 7, 100, 'error', "feedback for 'd' must be text"),
    ]),
    'bi-feedback-each-checked': ([('ok', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('wrong-type', 8, 136, 'error', '\'feedback\' must be text or a mapping of the deck\'s languages ({zh: "...", en: "..."}), not a list'),
        ('wrong-type', 8, 146, 'error', '\'feedback\' must be text or a mapping of the deck\'s languages ({zh: "...", en: "..."}), not a list'),
    ]),
    'card-front-date': ([('ok', ())], [
        ('wrong-type', 7, 33, 'error', "'front' must be text, not date"),
    ]),
    'card-back-float': ([('ok', ()), ('c', ())], [
    ]),
    'card-accept-number': ([('ok', ()), ('c', ())], [
    ]),
    'card-two-quotes-not-verbatim': ([('ok', ())], [
        ('source-not-in-seed', 7, 62, 'error', "source quote 'The cache avoidz' is not verbatim in the seed; the closest passage is 'The cache avoids rep'; copy it character for character"),
        ('source-not-in-seed', 7, 62, 'error', "source quote 'RDMA is remote memory' is not verbatim in the seed; the closest passage is 'RDMA is remote direct mem'; copy it character for character"),
    ]),
    'stale-two-moved-quotes-one-card': ([], [
        ('quote-moved', 7, 70, 'error', "card 'm': the seed changed and its quote 'Buckets merge the gradients into one call' is no longer verbatim; the closest new passage is 'on. Buckets merge gradients into one call. RD'; quote that (or reword the card) if it still says the same"),
        ('quote-moved', 7, 70, 'error', "card 'm': the seed changed and its quote 'The cache avoid repeated graph construction' is no longer verbatim; the closest new passage is 'he cache avoids repeated graph construction. Bu'; quote that (or reword the card) if it still says the same"),
        ('source-changed', 5, 12, 'error', "the seed changed since its hash was recorded (sha256:00000000..., now sha256:a7a77d8b...); 1 card quotes a passage that moved or vanished (listed); once you have looked, run 'studyapp check --accept-source d' to record the new hash"),
    ]),
    'stale-quote-at-the-threshold': ([], [
        ('quote-moved', 7, 60, 'error', "card 'm': the seed changed and its quote 'cache avoiids' is no longer verbatim; the closest new passage is 'cache avoids repe'; quote that (or reword the card) if it still says the same"),
        ('source-changed', 5, 12, 'error', "the seed changed since its hash was recorded (sha256:00000000..., now sha256:a7a77d8b...); 1 card quotes a passage that moved or vanished (listed); once you have looked, run 'studyapp check --accept-source d' to record the new hash"),
    ]),
    'choice-choices-number': ([('ok', ())], [
        ('wrong-type', 7, 51, 'error', "'choices' must be a list of options, not a number"),
    ]),
    'card-field-of-other-type-not-read': ([('ok', ())], [
        ('field-not-for-type', 7, 54, 'error', "'statement' does not belong on a basic card; remove it"),
        ('wrong-type', 7, 78, 'error', "'accept' must hold text, not a mapping"),
    ]),
    'card-accept-on-choice-not-read': ([('ok', ())], [
        ('field-not-for-type', 7, 70, 'error', "'accept' does not belong on a choice card; remove it"),
    ]),
    'cards-after-a-duplicate-id-load': ([('ok', ()), ('c', ())], [
        ('duplicate-card-id', 7, 10, 'error', "card id 'ok' is already used at line 6; card ids must be unique in a deck"),
    ]),
    'cards-after-a-bad-card-load': ([('ok', ()), ('c', ())], [
        ('wrong-type', 7, 5, 'error', 'a card must be a mapping (id:, type:, ...), not text'),
    ]),
    'cloze-same-text-twice': ([('a', ()), ('b', ())], [
    ]),
    'bi-front-empty': ([('ok', ())], [
        ('untranslated-text', 7, 34, 'warning', '\'front\' is one plain string of 5 words, shown untranslated to zh learners (a plain string suits a term of up to 4 words); write it as {zh: "...", en: "..."}'),
        ('empty', 8, 33, 'error', "'front' is empty; write the text"),
    ]),
    'card-keys-each-checked': ([('ok', ())], [
        ('field-not-for-type', 7, 54, 'error', "'choices' does not belong on a basic card; remove it"),
        ('unknown-key', 7, 71, 'error', "unknown key 'fornt' in a basic card; did you mean 'front'?"),
        ('unknown-key', 7, 81, 'error', "unknown key 'zzz' in a basic card; allowed: accept, back, explanation, front, id, related, revision, source, tags, type"),
    ]),
    'top-level-list-after-a-comment': (None, [
        ('not-a-mapping', 3, 3, 'error', 'the top level of a deck must be a mapping (schema:, id:, cards: ...), not a list'),
    ]),
}


@pytest.mark.parametrize("name", sorted(MORE_CASES))
def test_more_decks_get_exactly_their_problems_and_cards(tmp_path, name):
    assert set(MORE_CASES) == set(MORE_EXPECTED)
    root = tmp_path / "t"
    (root / "seeds").mkdir(parents=True)
    (root / "decks").mkdir()
    (root / "seeds" / "s.md").write_text(SEED, encoding="utf-8")
    path = root / "decks" / "d.yaml"
    path.write_text(MORE_CASES[name], encoding="utf-8")
    result = load_deck(path)
    cards, expected = MORE_EXPECTED[name]
    assert [(p.code, p.line, p.column, p.severity, p.message.replace(str(root), "TMP")) for p in result.problems] == expected
    # (id, related) of each card loaded; None: no deck
    assert (None if result.deck is None else [(c.id, c.related) for c in result.deck.cards]) == cards


@pytest.mark.parametrize(("data", "line", "column", "code"), [
    (b"schema: 1\nid: d\x01\n", 2, 6, "0001"),
    # libyaml counts in UTF-8 bytes; the column is in characters
    ("é: 1\nb: xé\x7fy\n".encode(), 2, 6, "007f"),
    (b"\x02", 1, 1, "0002"),
    (b"schema: 1\nid: d\ntitle: a\x01", 3, 9, "0001"),  # the line it is on, and no line after it
    (b"\n\x01", 2, 1, "0001"),  # a line break as the very first byte
])
def test_a_control_character_yaml_refuses_is_located(tmp_path, data, line, column, code):
    # not a syntax error with a mark: the reader refuses the character before any token is read, and
    # says only how far into the text it is (it was reported at 1:1 with that offset)
    path = tmp_path / "d.yaml"
    path.write_bytes(data)
    [problem] = load_deck(path).problems
    assert (problem.code, problem.line, problem.column, problem.severity, problem.message) == (
        "yaml-syntax", line, column, "error", f"invalid YAML: unacceptable character #x{code}: control characters are not allowed")


@pytest.mark.parametrize("data", [b"schema: 1\nid: d\ntitle: D\ncards: []\n", b"schema: 1\nid: [d\n", b"a: !!python/name:x 1\n"])
def test_loading_leaves_the_garbage_collector_as_it_found_it(tmp_path, data):
    # parsing turns the collector off for speed: on for the app again afterwards, whatever the file held
    import gc

    path = tmp_path / "d.yaml"
    path.write_bytes(data)
    assert gc.isenabled()
    load_deck(path)
    assert gc.isenabled()
    gc.disable()
    try:
        load_deck(path)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_quote_no_longer_in_a_changed_seed_names_its_card_by_the_id_as_read(tmp_path):
    # ids 12 and 13 are numbers in YAML and valid ids: they were both named '?' and counted as one card
    root = tmp_path / "t"
    (root / "seeds").mkdir(parents=True)
    (root / "decks").mkdir()
    (root / "seeds" / "s.md").write_text(SEED, encoding="utf-8")
    path = root / "decks" / "d.yaml"
    path.write_text("schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n"
                    "  - {id: 12, type: basic, front: What merges?, back: Buckets, source: Buckets merge the gradients into one call}\n"
                    "  - {id: 13, type: basic, front: What is new?, back: Nothing, source: Quantum entanglement speeds up training}\n"
                    "  - {id: '', type: basic, front: What?, back: This, source: Quantum entanglement speeds up training}\n",
                    encoding="utf-8")
    problems = load_deck(path).problems
    assert [(p.code, p.message.split(":")[0]) for p in problems] == [
        ("quote-moved", "card '12'"), ("quote-vanished", "card '13'"), ("empty", "'id' is empty; write the text"),
        ("quote-vanished", "card '?'"), ("source-changed", "the seed changed since its hash was recorded (sha256")]
    assert "; 3 cards quote passages that moved or vanished (listed);" in problems[-1].message


@pytest.mark.parametrize(("aliases", "refused"), [(95, False), (96, True)])
def test_aliases_count_as_values_toward_the_limit(aliases, refused):
    # the root mapping, two keys, the anchored scalar and the list: five values besides the aliases
    from studyapp.core import yamlsafe
    from studyapp.core.problems import DeckLoadError

    text = "k: &a x\nl: [" + ",".join(["*a"] * aliases) + "]\n"
    if not refused:
        assert yamlsafe._refuse_too_many_nodes(text, "f.yaml", limit=100) is None
        return
    with pytest.raises(DeckLoadError) as caught:
        yamlsafe._refuse_too_many_nodes(text, "f.yaml", limit=100)
    assert (caught.value.code, caught.value.line, caught.value.column) == ("too-many-values", 2, 290)


def test_a_syntax_error_before_the_limit_is_left_to_the_parse_to_report(tmp_path):
    from studyapp.core import yamlsafe

    text = "k: v: w\nl: [" + ",".join(["a"] * 150) + "]\n"
    assert yamlsafe._refuse_too_many_nodes(text, "f.yaml", limit=100) is None
    path = tmp_path / "d.yaml"
    path.write_text(text, encoding="utf-8")
    assert [(p.code, p.line, p.column) for p in load_deck(path).problems] == [("yaml-syntax", 1, 5)]
