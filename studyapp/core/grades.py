"""The four answer buttons, numbered as Anki numbers them (its revlog's ease): one definition
for the scheduler, the answer matching, the retention figures and the reports."""

AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
RATINGS = (AGAIN, HARD, GOOD, EASY)
RATING_NAMES = {AGAIN: "again", HARD: "hard", GOOD: "good", EASY: "easy"}
