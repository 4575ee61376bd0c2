"""``studyapp new``: the start of a bank for a document.

The bank names its source with a path and a content hash, takes its title from the document's
first heading, and holds one commented-out example of each card type quoting the document's
first statements, so that the author sees every type's fields with real quotes. As written it
loads clean (its only remark is that it has no cards yet), and so does each example uncommented.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.loader import SLUG_RE, SeedUnreadable, content_hash, read_seed_file, seed_body
from ..core.models import HAN_RE
from ..core.problems import StudyappError
from ..core.sourcetext import HEADING, blocks, is_markdown
from .coverage import document

LATIN_RE = re.compile(r"[A-Za-z]")
# A quote is the shortest passage that proves the answer: an example quotes at most this much.
EXAMPLE_QUOTE_CHARS = 60


@dataclass(frozen=True)
class Scaffold:
    deck_id: str
    title: str
    languages: tuple[str, ...]
    seed: str  # relative to the bank's folder
    seed_hash: str
    quotes: tuple[str, ...]  # the first statements, as the examples quote them


def slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


def source_language(body: str) -> str:
    """zh when Han characters outnumber Latin letters, else en."""
    return "zh" if len(HAN_RE.findall(body)) > len(LATIN_RE.findall(body)) else "en"


def first_heading(body: str, markdown: bool, front_matter: str) -> str | None:
    if markdown:
        for block in blocks(body, True):
            if block.kind == HEADING:
                return block.text.strip()
    match = re.search(r"^title:\s*(.+)$", front_matter, re.MULTILINE)
    if match:
        return match.group(1).strip().strip("\"'") or None
    return None


def plan(source: Path, output: Path, deck_id: str | None = None, languages: tuple[str, ...] | None = None) -> Scaffold:
    source, output = Path(source), Path(output)
    try:
        whole = read_seed_file(source)
    except SeedUnreadable as why:
        raise StudyappError(f"cannot read the source document: {why}", path=source) from None
    body = seed_body(whole)
    markdown = is_markdown(source)
    deck_id = deck_id or slug(source.stem)
    if not deck_id or not SLUG_RE.match(deck_id):
        raise StudyappError(f"{deck_id!r} is not a deck id: give one with --id (lowercase letters, digits and hyphens)",
                            code="usage")
    if languages is not None:
        for code in languages:
            if not re.fullmatch(r"[a-z]{2,3}", code):
                raise StudyappError(f"--lang {','.join(languages)}: {code!r} is not a language code such as zh or en",
                                    code="usage")
        if len(set(languages)) != len(languages):
            raise StudyappError(f"--lang {','.join(languages)} names a language twice", code="usage")
    languages = tuple(languages or (source_language(body),))
    root = output.resolve().parent.parent
    if not source.resolve().is_relative_to(root):
        raise StudyappError(f"the source must lie within {root}, the folder that holds the bank's folder "
                            "(the loader refuses seeds outside it); copy it into a seeds/ folder there", path=source)
    seed = Path(os.path.relpath(source.resolve(), output.resolve().parent)).as_posix()
    title = first_heading(body, markdown, whole[:len(whole) - len(body)]) or source.stem
    _, statements = document(body, markdown)
    quotes = tuple(_example_quote(s.text) for s in statements[:3])
    if not quotes:
        raise StudyappError("the document has no sentence to quote (only headings, or nothing)", path=source)
    return Scaffold(deck_id, title, languages, seed, content_hash(whole), quotes)


def _example_quote(statement: str) -> str:
    return statement if len(statement) <= EXAMPLE_QUOTE_CHARS else statement[:EXAMPLE_QUOTE_CHARS].rstrip()


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def _texts(languages: tuple[str, ...], zh: str, en: str) -> str:
    if len(languages) == 1:
        return _q(zh if languages[0] == "zh" else en)
    return "{" + ", ".join(f"{code}: {_q(zh if code == 'zh' else en)}" for code in languages) + "}"


def _cloze(quote: str) -> str:
    """The quote with a term hidden: its longest Latin word, else its first two Han characters."""
    words = list(re.finditer(r"[A-Za-z][A-Za-z0-9_-]{1,}", quote))
    match = max(words, key=lambda m: len(m.group(0))) if words else re.search(r"[\u4e00-\u9fff]{2}", quote)
    if match is None:
        return "{{c1::" + quote + "}}"
    return quote[:match.start()] + "{{c1::" + match.group(0) + "}}" + quote[match.end():]


def render(plan: Scaffold) -> str:
    title = plan.title
    langs = plan.languages
    q1, q2, q3 = (list(plan.quotes) + [plan.quotes[-1]] * 2)[:3]
    t = lambda zh, en: _texts(langs, zh, en)  # noqa: E731
    schema = 2
    lines = [
        f"# A bank for {plan.seed}, scaffolded by 'studyapp new'. See docs/authoring.md for the card rules:",
        "# every card quotes, in 'source', the shortest passage of the document that proves its answer,",
        "# verbatim; 'studyapp check --coverage' shows the statements no card quotes yet.",
        f"schema: {schema}",
        f"id: {plan.deck_id}",
        f"title: {t(title, title)}" + ("   # translate each" if len(langs) > 1 else ""),
        f"languages: [{', '.join(langs)}]",
        f"seed: {_q(plan.seed)}",
        "# The source's content hash: when the document changes, 'check' lists the cards whose quotes moved",
        "# and 'studyapp check --accept-source " + plan.deck_id + "' records the new hash.",
        f"seed_hash: {plan.seed_hash}",
        "# min_coverage: 80%   # uncomment to make 'check' fail while the cards quote less of the document",
        "cards: []",
        "# One example of each card type, quoting the document's first statements. To use one, delete the",
        "# '[]' above, uncomment the example's lines (remove '# ' from each) and rewrite it for a fact of the",
        "# document; delete the rest.",
        "#",
        "# basic: a question with one short answer; 'accept' lists other answers a typed reply may match.",
        "#  - id: first-statement",
        "#    type: basic",
        f"#    front: {t(f'在《{title}》中，文档开头陈述了什么？', f'In {title}, what does the document state first?')}",
        f"#    back: {t(q1, q1)}",
        f"#    source: {_q(q1)}",
        "#",
        "# reverse: a pair of terms (an abbreviation and its name), studied in both directions.",
        "#  - id: term-and-name",
        "#    type: reverse",
        f"#    front: {t('术语', 'TERM')}",
        f"#    back: {t('它的全称', 'its full name')}",
        f"#    source: {_q(q1)}",
        "#",
        "# cloze: the key term hidden as {{c1::term}} (one to three deletions).",
        "#  - id: key-term-cloze",
        "#    type: cloze",
        f"#    text: {t(_cloze(q2), _cloze(q2))}",
        f"#    source: {_q(q2)}",
        "#",
        "# choice: 3 to 5 options of one kind; 'feedback' says why a tempting option is wrong.",
        "#  - id: which-option",
        "#    type: choice",
        f"#    front: {t(f'在《{title}》中，哪一项是正确的？', f'In {title}, which option is right?')}",
        f"#    choices: [{t('正确的选项', 'the right option')}, {t('诱人的错误选项', 'a tempting wrong option')}, "
        f"{t('另一个错误选项', 'another wrong option')}]",
        f"#    answer: {_q('正确的选项' if langs[0] == 'zh' else 'the right option')}",
        f"#    feedback: {{{_q('诱人的错误选项' if langs[0] == 'zh' else 'a tempting wrong option')}: "
        f"{t('为什么它是错的', 'why it is wrong')}}}",
        f"#    source: {_q(q2)}",
        "#",
        "# truefalse: aimed at a real misconception, never a restatement of the quote.",
        "#  - id: misconception-check",
        "#    type: truefalse",
        f"#    statement: {t(f'在《{title}》中，文档的说法与常见的误解相反。', f'In {title}, the document contradicts a common misconception.')}",
        "#    answer: true",
        f"#    explanation: {t('说明依据。', 'Say why, from the quoted passage.')}",
        f"#    source: {_q(q3)}",
    ]
    return "\n".join(lines) + "\n"


def uncommented(text: str) -> str:
    """The scaffold with every example in use (what an author gets by uncommenting them all)."""
    out = []
    for line in text.split("\n"):
        if line == "cards: []":
            out.append("cards:")
        elif line.startswith("#  ") or line.startswith("#    "):
            out.append(line[1:])
        else:
            out.append(line)
    return "\n".join(out)


def write_new(source: Path, output: Path, deck_id: str | None = None, languages: tuple[str, ...] | None = None) -> Scaffold:
    output = Path(output)
    if output.exists():
        raise StudyappError("the file already exists; choose another with -o, or remove it first", path=output)
    scaffold = plan(source, output, deck_id, languages)
    output.parent.mkdir(parents=True, exist_ok=True)
    from .accept import write_atomically

    write_atomically(output, render(scaffold))
    return scaffold
