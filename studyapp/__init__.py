"""studyapp: spaced-repetition study of curated question banks, in the terminal."""

__version__ = "0.1.0"
