"""Warnings about a whole deck that keep a bank honest (reported by ``studyapp check``).

Each is a warning, not an error: the deck still loads and studies. They catch what makes
reviews worthless rather than wrong: one card giving away another's answer, a right
choice that can be found by its position, a deck of true/false giveaways.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict

from .models import CLOZE_RE, Card, Deck, Position, phrase_words
from .problems import WARNING, Problem

# True/false cards above this share of a deck's cards make it a deck of coin flips.
MAX_TRUEFALSE_SHARE = 0.25
# The right choice at one position with a probability below this under chance is a pattern to learn.
POSITION_BIAS_P = 0.01
# A shorter answer is a term (a component's name, a number): other prompts name it without giving anything away.
MIN_ANSWER_WORDS = 4

_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK = re.compile(f"[{_CJK_RANGES}]")
_LEADING_ARTICLE = re.compile(r"^\s*(?:the|a|an)\s+", re.IGNORECASE)
# Each CJK character is a token of its own, and a Latin run stops at one: "FDB元信息" is FDB, 元, 信, 息,
# or a Chinese answer written right after a Latin name would not be found in the prompt's index.
_TOKEN = re.compile(f"[{_CJK_RANGES}]|[^\\W_{_CJK_RANGES}]+")


def deck_lints(deck: Deck) -> list[Problem]:
    return [*_truefalse_share(deck), *_choice_position_bias(deck), *_answers_in_other_prompts(deck)]


def _warning(deck: Deck, position: Position, code: str, message: str) -> Problem:
    return Problem(str(deck.path), position.line, position.column, WARNING, code, message)


def _truefalse_share(deck: Deck) -> list[Problem]:
    truefalse = sum(card.type == "truefalse" for card in deck.cards)
    if not deck.cards or truefalse <= MAX_TRUEFALSE_SHARE * len(deck.cards):
        return []
    allowed = int(MAX_TRUEFALSE_SHARE * len(deck.cards))
    return [_warning(deck, deck.position, "truefalse-share",
                     f"{truefalse} of the deck's {len(deck.cards)} cards ({truefalse / len(deck.cards):.0%}) are true/false, "
                     f"above a quarter ({allowed} at most); keep those that target a real misconception and turn the "
                     f"others into questions that ask why or compare")]


def right_choice_positions(deck: Deck) -> list[tuple[int, int]]:
    """(position of the right option from 0, number of options) for each choice card, in file order."""
    out = []
    for card in deck.cards:
        if card.type == "choice" and card.answer in card.choices:
            out.append((card.choices.index(card.answer), len(card.choices)))
    return out


def position_bias(positions: list[tuple[int, int]]) -> tuple[int, int, float] | None:
    """The position most over-represented and the chance of seeing it that often or more by luck.

    Under chance a card with k options has its right one at each position with probability
    1/k, so the count at a position follows a Poisson binomial distribution; the tail is
    computed exactly. Returns (position, count, p) for the smallest p, or None without cards.
    """
    if not positions:
        return None
    best: tuple[int, int, float] | None = None
    for position in range(max(k for _, k in positions)):
        observed = sum(1 for p, _ in positions if p == position)
        if observed == 0:
            continue
        chances = [1 / k for _, k in positions if k > position]
        tail = _upper_tail(chances, observed)
        if best is None or tail < best[2]:
            best = (position, observed, tail)
    return best


# Up to this many cards the tail is exact; beyond, the normal approximation is as good and the exact sum costs O(n²).
EXACT_TAIL_CARDS = 300


def _upper_tail(chances: list[float], observed: int) -> float:
    """P(at least ``observed`` successes) for independent trials with these success chances."""
    if len(chances) > EXACT_TAIL_CARDS:
        mean = sum(chances)
        deviation = math.sqrt(sum(q * (1 - q) for q in chances))
        return 0.5 * math.erfc((observed - 0.5 - mean) / (deviation * math.sqrt(2)))
    # distribution[m] = probability that exactly m of the trials so far succeeded.
    distribution = [1.0]
    for q in chances:
        distribution = [(distribution[m] if m < len(distribution) else 0.0) * (1 - q)
                        + (distribution[m - 1] * q if m >= 1 else 0.0) for m in range(len(distribution) + 1)]
    return sum(distribution[observed:])


def _choice_position_bias(deck: Deck) -> list[Problem]:
    positions = right_choice_positions(deck)
    bias = position_bias(positions)
    if bias is None or bias[2] >= POSITION_BIAS_P:
        return []
    position, observed, p = bias
    expected = sum(1 / k for _, k in positions if k > position)
    return [_warning(deck, deck.position, "choice-position-bias",
                     f"the right choice is option {position + 1} in {observed} of the deck's {len(positions)} choice cards "
                     f"(chance would put about {expected:.1f} there; p = {p:.2g}); a learner can pick by position: "
                     f"move the right options to varied positions")]


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]|_", " ", text).split())


def _answers(card: Card) -> list[tuple[str, str]]:
    """(field, answer) for what a learner must produce: back, the right option, each deletion."""
    if card.type in ("basic", "reverse"):
        return [("back", card.back)]
    if card.type == "choice" and isinstance(card.answer, str):
        return [("answer", card.answer)]
    if card.type == "cloze":
        return [("text", match.group(2)) for match in CLOZE_RE.finditer(card.text)]
    return []


def _prompts(card: Card) -> list[tuple[str, str]]:
    """(field, text) for what a learner is shown before answering, on any of the card's sides."""
    if card.type == "truefalse":
        return [("statement", card.statement)]
    if card.type == "cloze":
        return [("text", CLOZE_RE.sub(lambda m: m.group(2), card.text))]
    if card.type == "reverse":
        return [("front", card.front), ("back", card.back)]
    return [("front", card.front)]


def _occurs(needle: str, haystack: str) -> bool:
    """``needle`` in ``haystack`` (both folded), as whole words where the text has words (not in CJK)."""
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        before_ok = start == 0 or not haystack[start - 1].isalnum() or _CJK.match(needle[0]) or _CJK.match(haystack[start - 1])
        after_ok = end == len(haystack) or not haystack[end].isalnum() or _CJK.match(needle[-1]) or _CJK.match(haystack[end])
        if before_ok and after_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False


def _answers_in_other_prompts(deck: Deck) -> list[Problem]:
    problems: list[Problem] = []
    reported: set[tuple[str, str]] = set()
    for language in deck.languages or ("",):
        cards = [card.in_language(language) for card in deck.cards] if language else list(deck.cards)
        answers: list[tuple[Card, str, str, str, list[str]]] = []
        for card in cards:
            for field_name, answer in _answers(card):
                answer_words = _LEADING_ARTICLE.sub("", answer)
                if phrase_words(answer_words) >= MIN_ANSWER_WORDS:
                    needle = _fold(answer_words)
                    answers.append((card, field_name, answer, needle, _TOKEN.findall(needle)))
        if not answers:
            continue  # no answer long enough to give away: the prompts need not be indexed
        prompts: list[tuple[Card, str, str]] = []
        postings: dict[str, set[int]] = defaultdict(set)
        for card in cards:
            for field_name, text in _prompts(card):
                folded = _fold(text)
                for token in _TOKEN.findall(folded):
                    postings[token].add(len(prompts))
                prompts.append((card, field_name, folded))
        for card, field_name, answer, needle, tokens in answers:
            if not tokens:
                continue
            related = set(card.related)
            # A prompt holding the answer holds each of its tokens: only those with the rarest one need a look.
            candidates = min((postings.get(token, set()) for token in tokens), key=len)
            for index in sorted(candidates):
                other, other_field, haystack = prompts[index]
                if other.id == card.id or other.id in related or (card.id, other.id) in reported:
                    continue
                if _occurs(needle, haystack):
                    reported.add((card.id, other.id))
                    where = f" ({language})" if language else ""
                    problems.append(_warning(
                        deck, card.position_of(field_name), "answer-in-other-prompt",
                        f"card '{card.id}': its answer {answer!r} appears word for word in the {other_field} of card "
                        f"'{other.id}' (line {other.position.line}){where}, which gives it away; reword one of them, "
                        f"or declare them 'related' if they test the same fact"))
    return problems
