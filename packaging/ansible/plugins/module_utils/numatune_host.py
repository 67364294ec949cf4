# Copyright: (c) 2026, numatune maintainers
# Apache License 2.0 (see LICENSE in the numatune source or https://www.apache.org/licenses/LICENSE-2.0)
# SPDX-License-Identifier: Apache-2.0
"""What both numatune modules do on the managed host: import numatune, refuse a
numatune whose version differs from the collection's, load the policy, plan
and check."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

# The numatune release this collection is written for (galaxy.yml's version, pyproject.toml's version).
COLLECTION_VERSION = "0.1.0"
ARGS = dict(
    policy=dict(type="list", elements="str", default=[]),
    root=dict(type="path", default="/"),
    only=dict(type="list", elements="str", default=[]),
    skip=dict(type="list", elements="str", default=[]),
)


def import_numatune(module):
    """(engine, NumatuneError, Root), or fail the task in one clear line."""
    try:
        import numatune
    except ImportError as e:
        module.fail_json(msg="numatune is not installed on this host (%s)" % e,
                         hint="install the numatune %s RPM or `pip install numatune==%s`"
                         % (COLLECTION_VERSION, COLLECTION_VERSION))
    host = getattr(numatune, "__version__", "unknown")
    if host != COLLECTION_VERSION:
        # Plan fields and options move between releases: a mismatch would misreport, or apply the wrong thing.
        module.fail_json(msg="numatune %s is installed on this host, but this collection is for numatune %s"
                         % (host, COLLECTION_VERSION), host_version=host, collection_version=COLLECTION_VERSION,
                         hint="install numatune %s on the host, or the numatune.numatune collection %s"
                         % (COLLECTION_VERSION, host))
    from numatune import engine
    from numatune.errors import NumatuneError
    from numatune.root import Root
    return engine, NumatuneError, Root


def open_root(module, Root):
    if not os.path.isdir(module.params["root"]):
        module.fail_json(msg="root %s: no such directory" % module.params["root"])
    return Root(module.params["root"])


def line(scope, target, value):
    return "%-10s %s = %s" % (scope, target, "(unset)" if value is None else value)


def plan_diff(changes):
    """Ansible's diff of a plan: each change's current value against its desired one."""
    before = "".join(line(c.scope, c.target, c.current) + "\n" for c in changes)
    after = "".join(line(c.scope, c.target, c.desired) + "\n" for c in changes)
    return {"before": before, "after": after, "before_header": "host now", "after_header": "numatune policy"}


def checked(engine, root, policy, params):
    """The compliance report; writes nothing."""
    from numatune.report import compliance
    plan, facts = engine.make_plan(root, policy, params["only"], params["skip"])
    report = compliance.build(plan, policy.data, facts, policy_name=policy.name)
    return dict(changed=False, plan=plan.to_json(), status=report.status, status_text=report.status_text,
                counts=report.counts, results=[r.to_json() for r in report.results],
                diff=plan_diff(plan.changes))
