#!/usr/bin/python
# Copyright: (c) 2026, numatune maintainers
# Apache License 2.0 (see LICENSE in the numatune source or https://www.apache.org/licenses/LICENSE-2.0)
# SPDX-License-Identifier: Apache-2.0
"""Ansible module: numatune's compliance report of one managed host (read-only)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: numatune_info
short_description: Report whether the host follows a numatune policy (read-only)
description:
  - Plans the host against the policy and reports compliance as C(numatune check --format json) does.
  - Never changes anything, in check mode or not.
  - Fails when the numatune installed on the host is not the version of this collection.
version_added: "0.1.0"
author:
  - numatune maintainers (@numatune)
requirements:
  - numatune (the C(numatune) RPM or C(pip install numatune)) of the same version as this collection, on the
    managed host, importable by its Python.
attributes:
  check_mode:
    description: Reads only; check mode returns the same report.
    support: full
  diff_mode:
    description: With C(--diff) the diff is the plan, current against desired.
    support: full
options:
  policy:
    description:
      - Policy files or shipped policy names, stacked in order like repeated C(--policy).
      - Empty means the host's default, C(/etc/numatune/policy.toml) else the shipped C(oracle-numa).
    type: list
    elements: str
    default: []
  root:
    description: Check a copy or snapshot of a host under this directory instead of C(/).
    type: path
    default: /
  only:
    description: Only these areas (kernel, memory, sysctl, storage, network, cpu, oracle).
    type: list
    elements: str
    default: []
  skip:
    description: Skip these areas.
    type: list
    elements: str
    default: []
seealso:
  - module: numatune.numatune.numatune
  - name: numatune compliance formats
    description: What the status, counts and results mean (docs/COMPLIANCE.md in the numatune source).
    link: https://github.com/numatune/numatune/blob/main/docs/COMPLIANCE.md
"""

EXAMPLES = r"""
- name: Compliance of the host
  numatune.numatune.numatune_info:
  register: compliance

- name: Fail hosts with critical drift
  ansible.builtin.assert:
    that: compliance.status < 2
    fail_msg: "{{ compliance.status_text }}: {{ compliance.counts.critical }} critical rule(s)"
"""

RETURN = r"""
plan:
  description: numatune's plan (the JSON of C(numatune plan --format json)).
  returned: success
  type: dict
status:
  description: Compliance as a Nagios status, 0 OK, 1 WARNING, 2 CRITICAL.
  returned: success
  type: int
  sample: 2
status_text:
  description: OK, WARNING or CRITICAL.
  returned: success
  type: str
  sample: CRITICAL
counts:
  description: Rules per severity and state (critical, warning, compliant, drift, pending, waived, info).
  returned: success
  type: dict
results:
  description: One entry per rule, as in C(numatune check --format json).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.numatune.numatune.plugins.module_utils.numatune_host import (  # noqa: E402
    ARGS, checked, import_numatune, open_root)


def main():
    module = AnsibleModule(argument_spec=dict(ARGS), supports_check_mode=True)
    engine, NumatuneError, Root = import_numatune(module)
    root = open_root(module, Root)
    params = module.params
    try:
        engine.check_areas(params["only"])
        engine.check_areas(params["skip"])
        result = checked(engine, root, engine.load_policy(params["policy"], root), params)
    except NumatuneError as e:
        module.fail_json(msg=str(e))
    if not module._diff:
        result.pop("diff", None)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
