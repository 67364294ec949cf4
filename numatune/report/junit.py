"""JUnit XML (the Jenkins/Surefire shape most CI dashboards read): one
testcase per rule. Drift is a ``<failure type="critical|warning">`` whose text
carries the current and desired value; waived rules and info findings are
``<skipped>``; a check that could not run is one ``<error>``.

Every text from the host goes through ``clean``: XML 1.0 has no escape for
most control characters (an ESC in an alert log line made the file unparsable),
so they are written as visible ``\\xNN``, as the text format shows them."""
import xml.etree.ElementTree as ET

from numatune.report.grouped import clean


def _suites(name, timestamp, hostname, cases, properties):
    failures = sum(1 for c in cases if c.find("failure") is not None)
    errors = sum(1 for c in cases if c.find("error") is not None)
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": str(errors), "time": "0"}
    # The common junit-10 schema allows `skipped` on <testsuite> only, not on <testsuites>.
    top = ET.Element("testsuites", dict(name="numatune", **counts))
    suite = ET.SubElement(top, "testsuite", dict(name=clean(name), timestamp=timestamp,
                                                 hostname=clean(hostname or "localhost"),
                                                 skipped=str(skipped), **counts))
    props = ET.SubElement(suite, "properties")
    for key, value in properties:
        ET.SubElement(props, "property", name=key, value=clean(value))
    suite.extend(cases)
    ET.indent(top)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(top, encoding="unicode") + "\n"


def _case(r):
    case = ET.Element("testcase", classname="numatune.%s" % clean(r.area or "policy"), name=clean(r.id),
                      time="0")
    if r.state in ("drift", "pending") and r.severity in ("warning", "critical"):
        body = []
        if r.current is not None or r.desired is not None:
            body += ["current: %s" % _value(r.current), "desired: %s" % _value(r.desired)]
        body += ["target: %s" % r.target] if r.target else []
        body += ["policy key: %s" % r.policy_key] if r.policy_key else []
        body += ["why: %s" % r.why] if r.why else []
        if r.waiver:
            body.append("waiver expired %s: %s" % (r.waiver["expires"], r.waiver["reason"]))
        fail = ET.SubElement(case, "failure", message=clean(r.message), type=r.severity)
        fail.text = "\n".join(clean(line) for line in body) or clean(r.message)
    elif r.state in ("waived", "info"):
        ET.SubElement(case, "skipped", message=clean(r.message))
    else:
        ET.SubElement(case, "system-out").text = clean(r.message)
    return case


def _value(v):
    return "(unset)" if v is None else v


def render(report):
    host = report.host.get("hostname") or ""
    return _suites("numatune check %s" % (host or report.host.get("root") or ""),
                   report.checked_at.replace(microsecond=0).isoformat(), host,
                   [_case(r) for r in report.results],
                   [("policy", report.policy or ""), ("status", report.status_text),
                    ("root", report.host.get("root") or "/")])


def render_error(message, now=None):
    import datetime
    now = now or datetime.datetime.now(datetime.timezone.utc)
    case = ET.Element("testcase", classname="numatune", name="check", time="0")
    ET.SubElement(case, "error", message=clean(message), type="UNKNOWN").text = clean(message)
    return _suites("numatune check", now.replace(microsecond=0).isoformat(), "", [case], [("status", "UNKNOWN")])
