"""The report as JSON: the plan's own fields (``version``, ``host``,
``changes``, ``findings``, ``compliant``, ``policy``) plus the verdict
(``status``, ``status_text``, ``counts``, ``results``, ``checked_at``)."""
import json

from numatune.report import jsonout


def document(report, changes=None):
    """``changes``: as Plan.to_json takes it."""
    doc = report.plan.to_json(changes) if report.plan is not None else {"version": 1, "host": report.host}
    doc.update(
        status=report.status,
        status_text=report.status_text,
        policy_name=report.policy,
        checked_at=report.checked_at.isoformat(),
        counts=report.counts,
        results=[r.to_json() for r in report.results],
    )
    return doc


def render(report):
    from numatune.report.changejson import encoded_changes
    return jsonout.dumps(document(report, encoded_changes)) + "\n"


def render_error(message, now=None):
    return json.dumps({"version": 1, "status": 3, "status_text": "UNKNOWN", "error": message}, indent=2) + "\n"
