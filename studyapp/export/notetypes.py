"""The five Anki note types, one per card type.

Frozen forever: each note type's model id and its field list. Anki identifies a note
type by id, and when an imported note type's fields differ from the one in a collection
Anki forks it into a copy and stops updating the learner's notes. Templates and CSS may
change freely: the ledger gives a changed note type a newer modification time, and Anki
then replaces them on import. To change fields, make a new note type with a new id and
a new version in its name, and keep the old one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

# Never reorder, rename or extend: see the module docstring.
FIELDS: tuple[str, ...] = ("Question", "Answer", "Explanation", "Source", "Document", "Id", "Spare")

PARENT_DECK_NAME = "studyapp"
PARENT_DECK_ID = 1608416413


@dataclass(frozen=True)
class Template:
    name: str
    front: str
    back: str


@dataclass(frozen=True)
class NoteType:
    card_type: str
    model_id: int
    name: str
    templates: tuple[Template, ...]
    cloze: bool = False
    css: str = ""

    def content_hash(self) -> str:
        """Everything Anki stores for the note type; a change means a newer modification time."""
        document = {
            "name": self.name,
            "fields": FIELDS,
            "cloze": self.cloze,
            "templates": [[t.name, t.front, t.back] for t in self.templates],
            "css": self.css,
        }
        return _digest(document)


def _digest(document) -> str:
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


# Colours come in pairs: Anki marks night mode with .nightMode on the card (desktop,
# 2.1.50+) or .night_mode on the body (AnkiDroid, older desktops).
CSS = """\
.card {
  --sa-fg: #1f2328; --sa-bg: #ffffff; --sa-muted: #59636e; --sa-rule: #d1d9e0;
  --sa-accent: #0550ae; --sa-good: #116329; --sa-bad: #a40e26; --sa-panel: #f6f8fa;
  font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC",
    "PingFang SC", "Microsoft YaHei", sans-serif;
  font-size: 20px; line-height: 1.5; text-align: left;
  color: var(--sa-fg); background-color: var(--sa-bg);
  max-width: 40em; margin: 0 auto; padding: 0.5em 1em;
}
.card.nightMode, .nightMode .card, .night_mode .card {
  --sa-fg: #e6edf3; --sa-bg: #1e2228; --sa-muted: #9198a1; --sa-rule: #3d444d;
  --sa-accent: #79c0ff; --sa-good: #56d364; --sa-bad: #ff7b72; --sa-panel: #262c36;
}
.prompt { color: var(--sa-muted); font-size: 0.8em; text-transform: uppercase; letter-spacing: 0.05em; }
.question { font-weight: 600; }
.cloze-text { font-weight: normal; }
.cloze { font-weight: 700; color: var(--sa-accent); }
.cloze-inactive { color: inherit; }
hr#answer { border: none; border-top: 1px solid var(--sa-rule); margin: 1em 0; }
.answer { margin-bottom: 0.75em; }
ol.choices { margin: 0.5em 0; padding-left: 2em; font-weight: normal; }
ol.choices li { margin: 0.2em 0; }
ol.truefalse { list-style: none; padding-left: 0; }
ol.truefalse li { display: inline-block; margin-right: 1.5em; }
.correct { color: var(--sa-good); font-weight: 700; }
ul.feedback { margin: 0.5em 0; padding-left: 1.2em; font-size: 0.9em; }
ul.feedback .option { color: var(--sa-bad); font-weight: 600; }
.explanation { background: var(--sa-panel); border-radius: 6px; padding: 0.5em 0.75em; margin: 0.75em 0; }
.source { font-size: 0.8em; color: var(--sa-muted); border-left: 3px solid var(--sa-rule); padding-left: 0.75em; margin-top: 1em; }
.source .document { font-style: italic; margin-top: 0.25em; }
.card-id { font-size: 0.65em; color: var(--sa-muted); margin-top: 1em; font-family: ui-monospace, monospace; }
.second { color: var(--sa-muted); font-weight: normal; font-size: 0.9em; }
"""


# The back of every card: the answer's context, then where it comes from.
_DETAILS = """
{{#Explanation}}<div class="explanation">{{Explanation}}</div>{{/Explanation}}
<div class="source">
<div class="quote">{{Source}}</div>
<div class="document">{{Document}}</div>
</div>
<div class="card-id">{{Id}}</div>"""

_QUESTION = '<div class="question">{{Question}}</div>'
_ANSWER_SIDE = '{{FrontSide}}\n<hr id="answer">\n<div class="answer">{{Answer}}</div>' + _DETAILS

NOTE_TYPES: dict[str, NoteType] = {
    "basic": NoteType("basic", 1879201082, "studyapp basic v1", (
        Template("Card", _QUESTION, _ANSWER_SIDE),
    ), css=CSS),
    "reverse": NoteType("reverse", 2124258038, "studyapp reverse v1", (
        Template("Forward", _QUESTION, _ANSWER_SIDE),
        Template(
            "Backward",
            '<div class="question">{{Answer}}</div>',
            '{{FrontSide}}\n<hr id="answer">\n<div class="answer">{{Question}}</div>' + _DETAILS,
        ),
    ), css=CSS),
    "cloze": NoteType("cloze", 1955785567, "studyapp cloze v1", (
        Template(
            "Cloze",
            '<div class="question cloze-text">{{cloze:Question}}</div>',
            '<div class="question cloze-text">{{cloze:Question}}</div>' + _DETAILS,
        ),
    ), cloze=True, css=CSS),
    # The Question field holds the question and its lettered options; the Answer field
    # the correct option and the feedback on the others (see fields.py).
    "choice": NoteType("choice", 1145502550, "studyapp choice v1", (
        Template("Choice", '<div class="prompt">Choose one</div>\n' + _QUESTION, _ANSWER_SIDE),
    ), css=CSS),
    "truefalse": NoteType("truefalse", 1500972829, "studyapp truefalse v1", (
        Template(
            "True or false",
            '<div class="prompt">True or false?</div>\n' + _QUESTION
            + '\n<ol class="choices truefalse"><li>True</li><li>False</li></ol>',
            _ANSWER_SIDE,
        ),
    ), css=CSS),
}
