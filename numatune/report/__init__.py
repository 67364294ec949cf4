"""``numatune check``: a compliance report of the plan, in the format a
consumer wants. One module per format, each with ``render(report) -> str``;
``compliance`` turns a plan into the report, ``check`` runs the command.

Only the standard library is used here, so ``check`` stays light.
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


def render_error(message, fmt, now=None):
    """What a format says when the check itself could not run (status 3)."""
    module = importlib.import_module("." + FORMATS[fmt], __name__)
    return module.render_error(message, now)
