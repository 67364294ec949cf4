"""``numatune check``: a compliance report of the plan, in the format a
consumer wants. One module per format, each with ``render(report) -> str``;
``compliance`` turns a plan into the report, ``check`` runs the command.

Only the standard library is used here, so ``check`` stays light; the
prometheus format imports prometheus_client when it is asked for.
"""
import importlib

FORMATS = {
    "text": "text",            # for people
    "json": "jsondoc",         # the report and the plan, for scripts
    "junit": "junit",          # one testcase per rule, for CI dashboards
    "prometheus": "prometheus",  # node_exporter textfile collector
    "nagios": "nagios",        # one status line with perfdata, Nagios/Icinga exit codes
}


def render(report, fmt, to_file=False):
    module = importlib.import_module("." + FORMATS[fmt], __name__)
    if fmt == "text" and to_file:
        return module.render(report, plain=True)  # no terminal colours in a file
    return module.render(report)


def render_error(message, fmt, now=None, out=None):
    """What a format says when the check itself could not run (status 3).
    ``out``: the report file it replaces (the prometheus format keeps its last check's time)."""
    module = importlib.import_module("." + FORMATS[fmt], __name__)
    if fmt == "prometheus":
        return module.render_error(message, now, previous=out)
    return module.render_error(message, now)


def writer(fmt):
    """The format's own file writer (``write_file(path, text)``), or None for the generic atomic one."""
    return getattr(importlib.import_module("." + FORMATS[fmt], __name__), "write_file", None)
