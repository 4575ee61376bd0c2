"""Every key binding of the app, by id, in one table.

Screens build their ``BINDINGS`` from this table, so that each binding has an id
(``<screen>.<action>``) that the config file can remap, the help modal can describe,
and docs/app.md can list. Keys follow Anki's conventions where Anki has one.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class KeySpec:
    id: str
    keys: str  # Textual key names, comma-separated
    action: str
    label: str  # short, for the footer
    help: str  # what the help modal says
    show: bool = True  # in the footer
    priority: bool = False


def _k(id: str, keys: str, action: str, label: str, help: str = "", *, show: bool = True,
       priority: bool = False) -> KeySpec:
    return KeySpec(id, keys, action, label, help or label, show, priority)


SPECS: tuple[KeySpec, ...] = (
    # The whole app.
    _k("app.help", "question_mark", "app.help", "Keys", "List the keys of this screen"),
    _k("app.quit", "ctrl+q", "app.quit", "Quit", "Quit from anywhere", show=False, priority=True),
    # Ctrl+C leaves from anywhere; every answer is already saved when it is given.
    _k("app.interrupt", "ctrl+c", "app.interrupt", "Quit",
       "Quit from anywhere, exit status 130, saying how many answers were saved", show=False, priority=True),
    # Home: the deck list (Anki: s study, b browse, t stats).
    _k("home.study", "s", "study", "Study", "Review the highlighted deck (Enter too)"),
    _k("home.study-all", "a", "study_all", "All", "Review all decks"),
    _k("home.quiz", "p", "quiz", "Quiz", "Practice quiz on the highlighted deck (schedule untouched)"),
    _k("home.cram", "c", "cram", "Cram", "Cram the highlighted deck: any item, schedule untouched"),
    _k("home.browse", "b", "browse", "Browse", "Browse and search the cards"),
    _k("home.stats", "t", "stats", "Stats", "Statistics: forecast, reviews, retention, leeches"),
    _k("home.settings", "o", "settings", "Settings", "Settings: retention, daily limits, rollover hour, theme"),
    _k("home.quit", "q", "app.quit", "Quit", "Quit"),
    # Review: Anki's keys.
    _k("review.reveal", "space,enter", "reveal", "Show / Good",
       "Show the answer; after that, Good (or the grade a checked answer proposed)"),
    _k("review.grade-again", "1", "grade(1)", "Again", "Again (before the answer: option 1, or True)", show=False),
    _k("review.grade-hard", "2", "grade(2)", "Hard", "Hard (before the answer: option 2, or False)", show=False),
    _k("review.grade-good", "3", "grade(3)", "Good", "Good (before the answer: option 3)", show=False),
    _k("review.grade-easy", "4", "grade(4)", "Easy", "Easy (before the answer: option 4)", show=False),
    _k("review.choose-5", "5", "choose(5)", "Option 5", "Option 5 of a choice card", show=False),
    _k("review.choose-6", "6", "choose(6)", "Option 6", "Option 6 of a choice card", show=False),
    # After an option is picked the number keys are spent: a reflex second press of the picked
    # number must not grade. The bar then shows these keys, the bottom row left to right.
    _k("review.pick-again", "z", "bar_grade(1)", "Again", "Again, after picking an option", show=False),
    _k("review.pick-hard", "x", "bar_grade(2)", "Hard", "Hard, after picking an option", show=False),
    _k("review.pick-good", "c", "bar_grade(3)", "Good", "Good, after picking an option", show=False),
    _k("review.pick-easy", "v", "bar_grade(4)", "Easy", "Easy, after picking an option", show=False),
    _k("review.type-answer", "i", "type_answer", "Type", "Type the answer; it is checked and proposes a grade"),
    _k("review.undo", "u", "undo", "Undo", "Undo the last answer, bury, suspend or flag (several levels)"),
    # Bury and suspend stay out of the footer (as in Anki): there is room for what is used on every card.
    _k("review.bury", "minus", "bury", "Bury", "Bury the card until tomorrow", show=False),
    _k("review.suspend", "exclamation_mark", "suspend", "Suspend", "Suspend the card", show=False),
    _k("review.flag", "f", "flag", "Flag", "Flag the card with a note"),
    _k("review.source", "s", "source", "Source", "Open the source document at the quoted passage"),
    _k("review.explain", "e", "explain", "Explain", "Show the explanation"),
    _k("review.leave", "q,escape", "leave", "End", "End the session (shows the summary)"),
    # Anki's custom study, offered when a daily limit stops the session (the limits stay as set).
    _k("review.more-new", "n", "more_new", "More new", "Custom study: study more new cards today", show=False),
    _k("review.ahead", "a", "review_ahead", "Ahead", "Custom study: review cards due in the next days", show=False),
    _k("review.forgotten", "g", "review_forgotten", "Forgotten",
       "Custom study: go over the cards answered Again lately (schedule untouched)", show=False),
    _k("review.close-typing", "escape", "close_typing", "Close box", "Close the answer box (the card stays)"),
    # Quiz.
    _k("quiz.choose-1", "1", "choose(1)", "1", "Choose option 1", show=False),
    _k("quiz.choose-2", "2", "choose(2)", "2", "Choose option 2", show=False),
    _k("quiz.choose-3", "3", "choose(3)", "3", "Choose option 3", show=False),
    _k("quiz.choose-4", "4", "choose(4)", "4", "Choose option 4", show=False),
    _k("quiz.choose-5", "5", "choose(5)", "5", "Choose option 5", show=False),
    _k("quiz.choose-6", "6", "choose(6)", "6", "Choose option 6", show=False),
    # True/false takes 1 and 2 as in review, where f flags.
    _k("quiz.true", "1", "truefalse(True)", "True", "Answer True"),
    _k("quiz.false", "2", "truefalse(False)", "False", "Answer False"),
    _k("quiz.next", "space,enter", "next", "Next", "Next question"),
    _k("quiz.override", "r", "override", "I was right", "I was right: count a typed answer the check refused"),
    _k("quiz.leave", "escape", "leave", "Leave", "Leave the quiz (shows the score so far)"),
    # Session summary and quiz score.
    _k("summary.home", "enter,escape,h", "home", "Decks", "Back to the decks"),
    _k("summary.quit", "q", "app.quit", "Quit", "Quit"),
    _k("score.home", "enter,escape,h", "home", "Decks", "Back to the decks"),
    _k("score.quit", "q", "app.quit", "Quit", "Quit"),
    # Browse.
    _k("browse.search", "slash", "search", "Search", "Search: words, tag:NAME, deck:ID, is:new|learning|review|due|suspended|leech|flagged"),
    _k("browse.suspend", "exclamation_mark", "toggle_suspend", "Suspend", "Suspend or unsuspend the highlighted card"),
    _k("browse.source", "s", "source", "Source", "Open the source passage of the highlighted card"),
    _k("browse.coverage", "v", "coverage", "Coverage",
       "What of the highlighted card's source document the deck's cards quote, statement by statement"),
    _k("browse.flag", "f", "toggle_flag", "Flag/Unflag", "Flag the highlighted card with a note, or unflag it"),
    _k("browse.leave", "escape", "leave", "Back", "Back (from the search box: to the list)"),
    # Stats.
    _k("stats.leave", "escape,q", "leave", "Back", "Back to the decks"),
    _k("stats.workload", "w", "workload", "Workload",
       "Simulate the next year at desired retentions 0.70-0.97 with your parameters; marks the minimum recommended"),
    # Settings.
    _k("settings.save", "ctrl+s", "save", "Save",
       "Save every valid value and stay (Enter in a field too); an invalid one is named, not saved"),
    _k("settings.leave", "escape", "leave", "Back",
       "Back to the decks, saving every valid value; an invalid one is dropped, with a message"),
    _k("settings.presets", "p", "presets", "Presets",
       "Deck option presets: each deck's limits, steps, burying and new-card order"),
    _k("settings.optimize", "z", "optimize", "Optimize",
       "Fit FSRS parameters to your reviews (Anki's Optimize); adopted only if they predict them better"),
    # Deck option presets.
    _k("presets.save", "ctrl+s", "save", "Save", "Save the preset (an invalid option is named, nothing saved)"),
    _k("presets.new", "ctrl+n", "new_preset", "New", "A new preset, a copy of this one, for the chosen deck"),
    _k("presets.leave", "escape", "leave", "Back", "Back to Settings, saving the preset if it is valid"),
    # Modals.
    _k("help.close", "escape,q,question_mark", "close", "Close", "Close the key list"),
    _k("confirm.yes", "y", "answer(True)", "Yes", "Yes"),
    _k("confirm.no", "n,escape", "answer(False)", "No", "No"),
    _k("flag.cancel", "escape", "cancel", "Cancel", "Cancel without flagging"),
    _k("source.close", "escape,q,s", "close", "Close", "Close the source"),
    _k("source.next", "n", "next_quote", "Next quote", "Jump to the next quoted passage"),
    _k("coverage.close", "escape,q,v", "close", "Close", "Close the coverage view"),
    _k("coverage.only-unquoted", "u", "toggle_unquoted", "Unquoted only",
       "Show only the statements no card quotes, or every statement again"),
    _k("problem.close", "escape,q,enter,space", "close", "Quit", "Close and quit"),
)

BY_ID: dict[str, KeySpec] = {spec.id: spec for spec in SPECS}


def bindings(prefix: str) -> list[Binding]:
    """The bindings whose ids start with ``prefix.``, ready for a ``BINDINGS`` class variable."""
    return [
        Binding(spec.keys, spec.action, spec.label, show=spec.show, priority=spec.priority, id=spec.id,
                tooltip=spec.help)
        for spec in SPECS
        if spec.id.startswith(prefix + ".")
    ]
