"""Checking a typed answer leniently, the way a fair examiner would.

Case, spacing, punctuation (Western or Chinese) and full-width/half-width forms never
matter (NFKC folds the widths); the card's back in any of its languages and its ``accept``
list are right answers; a small typo in a longer answer is forgiven, but never in a number
or its unit ("36" is not "63", "4096MB" is not "4096GB"). Chinese has no word boundaries:
spaces never matter in it and its typo allowance is counted in characters, but never spent on
a character that flips the meaning ("仅负样本" is not a typo of "仅正样本").
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

from .grades import AGAIN, GOOD
from .lazyre import LazyPattern
from .models import BACKWARD, CLOZE_RE, Card

_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


@dataclass(frozen=True, slots=True)
class MatchResult:
    correct: bool
    expected: str
    # Character-level edit script from the given answer to the expected one:
    # ("equal" | "delete" | "insert", text). "delete" is text the learner should not have typed.
    diff: list[tuple[str, str]] = field(default_factory=list)
    reason: str = ""
    # The answer the diff was computed against: the card's own answer, or the accepted
    # alternative closest to what was typed. Shown as "Expected" so the diff reads against it.
    compared: str = ""

    @property
    def shown_expected(self) -> str:
        return self.compared or self.expected

    @property
    def proposed_rating(self) -> int:
        """In a review session: right proposes Good, wrong proposes Again; the learner may change it."""
        return GOOD if self.correct else AGAIN


def normalise(text: str) -> str:
    """Fold case, width, punctuation and spacing; keep letters, digits and CJK characters."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[^\w\s]|_", " ", text)
    text = " ".join(text.split())
    return _LEADING_ARTICLE.sub("", text)


def expected_answers(card: Card, variant: str = "main") -> list[str]:
    """The answers a typed reply may match, the one to show first: in each of the card's languages, the back
    (the front, for a reverse card's backward side; a cloze variant's deletion), then `accept`."""
    return [text for text, _ in _candidates(card, variant)]


def _candidates(card: Card, variant: str) -> list[tuple[str, bool]]:
    """(answer, whether it is the card's own answer rather than an `accept` entry), without repeats."""
    answers: list[tuple[str, bool]] = []
    accepted: list[tuple[str, bool]] = []
    for wording in card.wordings():
        if card.type == "reverse" and variant == BACKWARD:
            answers.append((wording.front, True))
        elif card.type in ("basic", "reverse"):
            answers.append((wording.back, True))
            accepted.extend((text, False) for text in wording.accept)
        elif card.type == "cloze":
            answers.append((cloze_deletion(wording.text, variant), True))
        elif card.type == "truefalse":
            answers.append(("True" if wording.answer else "False", True))
        else:
            answers.append((str(wording.answer), True))
    seen: set[str] = set()
    out = []
    for text, own in answers + accepted:
        if text and text not in seen:
            seen.add(text)
            out.append((text, own))
    return out


def cloze_deletion(text: str, variant: str) -> str:
    """What a cloze variant hides (its deletions joined, if the number is used twice); every deletion for "main"."""
    number = int(variant[1:]) if variant.startswith("c") and variant[1:].isdigit() else None
    return ", ".join(m.group(2) for m in CLOZE_RE.finditer(text) if number is None or int(m.group(1)) == number)


def allowed_typos(length: int, cjk: bool = False) -> int:
    """Typos forgiven in an answer of ``length`` characters.

    A Chinese character carries about what a short word does, so CJK answers get one typo
    from 4 characters and two from 8; Latin text one from 5 letters and two from 12.
    """
    if cjk:
        return 0 if length < 4 else 1 if length < 8 else 2
    if length < 5:
        return 0
    if length < 12:
        return 1
    return 2


def has_cjk(text: str) -> bool:
    return bool(_CJK_RE.search(text))


def check_typed(given: str, card: Card, variant: str = "main") -> MatchResult:
    candidates = _candidates(card, variant)
    primary = candidates[0][0] if candidates else ""
    given_n = normalise(given)
    if not given_n:
        return MatchResult(False, primary, _diff(given, primary), "no answer given", primary)
    best: tuple[int, str, int] | None = None
    for candidate, own in candidates:
        candidate_n = normalise(candidate)
        if given_n == candidate_n or given_n.replace(" ", "") == candidate_n.replace(" ", ""):
            reason = "exact" if candidate == primary else ("in another language" if own else "accepted answer")
            return MatchResult(True, primary, _diff(given, candidate), reason, candidate)
        # Chinese has no spaces between words: where the answer has CJK, spaces never count as typos.
        cjk = has_cjk(candidate_n)
        a, b = (given_n.replace(" ", ""), candidate_n.replace(" ", "")) if cjk else (given_n, candidate_n)
        distance = _distance(a, b)
        forgivable = _quantities(given_n) == _quantities(candidate_n) and not (cjk and _flips_polarity(a, b))
        allowance = allowed_typos(len(b), cjk) if forgivable else 0
        if best is None or distance - allowance < best[0] - best[2]:
            best = (distance, candidate, allowance)
    distance, closest, allowance = best
    if 0 < distance <= allowance:
        return MatchResult(True, primary, _diff(given, closest), f"accepted with {distance} typo{'s' if distance > 1 else ''}",
                           closest)
    return MatchResult(False, primary, _diff(given, closest), "does not match", closest)


# A number with the unit written right after it: "4096mb" is not a typo of "4096gb".
_QUANTITY = re.compile(r"\d+(?:\s*(?:[kmgtp]i?b|[kmgtpb])(?![a-z]))?")
# Chinese characters that carry polarity: one typed for its opposite (仅正样本 / 仅负样本, 反向传播 /
# 前向传播, 无状态 / 有状态) or a negation added or dropped (非思考能力 / 思考能力) flips the answer,
# so such a difference is never forgiven as a typo. Dropping 高 from 高可扩展性 or 下 from 低下 is.
_POLAR = frozenset("正负前后反预高低增减有无多少主备强弱大小上下同异内外长短快慢全单")
_NEGATION = frozenset("非不未没无")


def _quantities(text: str) -> list[str]:
    return [quantity.replace(" ", "") for quantity in _QUANTITY.findall(text)]


def _flips_polarity(given: str, expected: str) -> bool:
    matcher = difflib.SequenceMatcher(None, given, expected, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        typed, wanted = set(given[a1:a2]), set(expected[b1:b2])
        if (typed | wanted) & _NEGATION:
            return True
        if op == "replace" and typed & _POLAR and wanted & _POLAR:
            return True
    return False


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute), with an early exit for very different lengths."""
    if abs(len(a) - len(b)) > 3:
        return abs(len(a) - len(b))
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


# How a typed answer is shown against the expected one. Matching ignores case and width, so
# the diff does too: "compilation" against "Compilation" is no difference. Words are aligned
# first (each CJK character is a word); a changed stretch that is nearly right is then marked
# letter by letter (a one-letter typo marks one letter), one that is not as a whole (scattered
# common letters between two different words would read as noise).
NEAR_RATIO = 0.5
_CJK = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af"
# Compiled when first used (milliseconds each, for the CJK ranges): the quiz screen imports this module.
_WORD = LazyPattern(f"[{_CJK}]|[^\\W{_CJK}]+|\\s+|[^\\w\\s]")
_CJK_RE = LazyPattern(f"[{_CJK}]")


def _fold(text: str) -> str:
    """Text as matching sees it: case and width folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def _diff(given: str, expected: str) -> list[tuple[str, str]]:
    """An edit script from ``given`` to ``expected``: ("equal" | "delete" | "insert", text).

    "equal" and "delete" text is the learner's and "insert" text the expected answer's, so the
    script rebuilds ``given`` exactly, and ``expected`` up to case and width.
    """
    given_words, expected_words = _WORD.findall(given), _WORD.findall(expected)
    matcher = difflib.SequenceMatcher(None, [_fold(w) for w in given_words], [_fold(w) for w in expected_words],
                                      autojunk=False)
    out: list[tuple[str, str]] = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        typed, wanted = "".join(given_words[a1:a2]), "".join(expected_words[b1:b2])
        if op == "equal":
            out.append(("equal", typed))
        elif typed and wanted and _near(typed, wanted):
            out += _char_diff(typed, wanted)
        else:
            out += [("delete", typed), ("insert", wanted)]
    return _merged(out)


def _near(typed: str, wanted: str) -> bool:
    return difflib.SequenceMatcher(None, _fold(typed), _fold(wanted), autojunk=False).ratio() >= NEAR_RATIO


def _char_diff(given: str, expected: str) -> list[tuple[str, str]]:
    matcher = difflib.SequenceMatcher(None, [_fold(c) for c in given], [_fold(c) for c in expected], autojunk=False)
    out: list[tuple[str, str]] = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out.append(("equal", given[a1:a2]))
        else:
            out += [("delete", given[a1:a2]), ("insert", expected[b1:b2])]
    return out


def _merged(ops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Without empty runs, and with neighbouring runs of one kind joined."""
    out: list[tuple[str, str]] = []
    for op, text in ops:
        if not text:
            continue
        if out and out[-1][0] == op:
            out[-1] = (op, out[-1][1] + text)
        else:
            out.append((op, text))
    return out
