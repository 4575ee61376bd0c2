"""Team onboarding: progress reports per learner, team merges, exams. No Textual, no Rich."""
