"""The terminal app (Textual). The only package of studyapp that imports Textual or Rich.

Entry points are in ``launch`` (``run_home``, ``run_study``, ``run_quiz``); ``app.StudyApp``
is a thin shell over ``services.Services`` (the door to the domain) and the screens.
"""
