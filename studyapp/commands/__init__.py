"""One module per command, each given the Context that cli.py built.

Modules are imported only when their command runs, so that ``list`` never pays for the UI.
Nothing here, nor below, imports cli.
"""

from __future__ import annotations

import importlib

# command name -> (module, function)
COMMANDS = {
    "home": ("tui", "run_home"),
    "study": ("tui", "run_study"),
    "quiz": ("tui", "run_quiz"),
    "list": ("listing", "run_list"),
    "check": ("check", "run_check"),
    "export": ("export", "run_export"),
    "stats": ("stats", "run_stats"),
    "report": ("report", "run_report"),
    "sync": ("sync", "run_sync"),
    "server": ("sync", "run_server"),
    "new": ("new", "run_new"),
    "import": ("imports", "run_import"),
    "optimize": ("optimize", "run_optimize"),
}


def run(command: str, context, args) -> int:
    module, function = COMMANDS[command]
    return getattr(importlib.import_module(f".{module}", __name__), function)(context, args)
