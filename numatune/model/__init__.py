"""What a plan is made of: changes (writes) and findings (observations)."""
from __future__ import annotations

from numatune import AREAS  # noqa: F401 (callers import it from here)
from numatune.model.records import field, fields, record

SCOPES = ("live", "persistent", "boot")
SEVERITIES = ("info", "warning", "critical")
RISKS = ("low", "medium", "high")


def names_of(cls, _cache={}):
    """A record's field names, looked up once: fields() builds them anew per
    call, and a giant host's plan turns 30,000 changes into JSON."""
    names = _cache.get(cls)
    if names is None:
        names = _cache[cls] = tuple(f.name for f in fields(cls))
    return names


def _fields_dict(obj):
    """A record's fields as a new dict, in field order: its __dict__ copied
    when it holds just the fields (__init__ sets them in that order), a third
    of the work of a getattr per field on 30,000 changes."""
    d = obj.__dict__
    names = names_of(type(obj))
    if len(d) == len(names):
        return d.copy()
    return {name: getattr(obj, name) for name in names}


@record
class Write:
    """One journaled write a change makes.

    kind "value": write ``value`` to the sysfs/procfs file ``path``; ``format``
    says how to read it back ("plain", "words" for whitespace-normalised, or
    "bracket" for files like THP's "always madvise [never]").
    kind "file": rewrite the managed or foreign file ``path`` with the pure
    editor ``editor`` called with ``args`` on its current content.
    kind "command": run a host tool on the live root only; ``files`` are the
    files it may change, journaled byte for byte before it runs.
    """
    kind: str
    path: str
    value: Optional[str] = None
    format: str = "plain"
    editor: Optional[str] = None
    args: dict = field(default_factory=dict)
    argv: List[str] = field(default_factory=list)
    files: List[str] = field(default_factory=list)

    def to_json(self):
        out = {"kind": self.kind, "path": self.path}
        if self.kind == "value":
            out.update(value=self.value, format=self.format)
        elif self.kind == "file":
            out.update(editor=self.editor, args=self.args)
        elif self.kind == "command":
            out.update(argv=self.argv, files=self.files)
        else:
            # Other kinds (blockattr, ...) may use any field: keep them all.
            out.update(value=self.value, format=self.format, editor=self.editor, args=self.args,
                       argv=self.argv, files=self.files)
        return out

    @classmethod
    def from_json(cls, data):
        return cls(**data)


@record
class Change:
    id: str
    area: str
    target: str
    current: Optional[str]
    desired: str
    scope: str
    action: str
    why: str = ""
    reboot_required: bool = False
    restart_required: bool = False
    risk: str = "low"
    rule: str = ""
    writes: List[Write] = field(default_factory=list)
    # Touches what carries the admin's own session (default route, SSH):
    # apply arms a confirm-or-revert window unless told otherwise.
    needs_confirm: bool = False
    # The family that planned it (set by the plan; the core looks families up by it).
    family: str = ""
    # The kernel may take less than asked (a HugePages pool on a fragmented
    # node): verify leaves it to the family's after_apply to judge.
    partial_ok: bool = False
    # A boot-time change whose effect the running kernel already has: drift
    # only for the next boot.
    running_ok: bool = False
    # How bad the drift is while the change is not made ("" : the report's
    # default for its scope). A queue setting off target costs speed only: "warning".
    drift_severity: str = ""
    # A live change that no file keeps and whose targets are found anew each
    # boot (IRQ numbers, cpufreq policies): apply keeps the policy and this
    # key for the boot unit, and `numatune boot` re-plans on that boot's facts
    # and applies the live changes carrying the same key. The key names what
    # stays the same across boots (a device, a knob), never an IRQ number.
    boot_key: str = ""

    def to_json(self):
        # Field by field: asdict() deep-copies every Write only for it to be
        # replaced here, and a giant host's plan holds 30,000 changes.
        data = _fields_dict(self)
        data["writes"] = [w.to_json() for w in self.writes]
        return data

    @classmethod
    def from_json(cls, data):
        data = dict(data)
        data["writes"] = [Write.from_json(w) for w in data.get("writes", [])]
        return cls(**data)

    def key(self):
        """What must be identical between a saved plan and the host now."""
        return (self.id, self.current, self.desired)


@record
class Finding:
    id: str
    severity: str
    message: str
    target: str = ""
    area: str = ""
    rule: str = ""
    why: str = ""
    family: str = ""
    # Waits for a reboot or a restart that will clear it: a warning in check.
    pending: bool = False
    # The status apply exits with while this finding stands after the run
    # (1: the kernel took less than asked).
    exit_status: int = 0
    # Ids of changes in the same plan that this finding says must not be
    # written (an instance would not start): apply refuses the whole run
    # while any of them is selected, and writes nothing.
    refuses: List[str] = field(default_factory=list)
    # Id of the change this finding is advice for ("after apply, run ..."): it holds only once that
    # change is made, so an apply that leaves the change out does not repeat it (after_apply).
    follows: str = ""
    # The value of ``rule`` (several: comma-separated) is set live and nothing keeps it at boot: apply's
    # table says "live only: lost at reboot" for it, not that the plan names no mechanism.
    live_only: bool = False

    def to_json(self):
        return _fields_dict(self)

    @classmethod
    def from_json(cls, data):
        return cls(**data)


def after_apply(findings, changes):
    """The findings to show after applying ``changes``: advice that follows a change left out is not."""
    made = {c.id for c in changes}
    return [f for f in findings if not f.follows or f.follows in made]


def refusals(findings, changes):
    """[(finding, [change ids])] for findings that refuse a selected change."""
    ids = {c.id for c in changes}
    out = []
    for f in findings:
        hit = [i for i in f.refuses if i in ids]
        if hit:
            out.append((f, hit))
    return out


@record
class Compliant:
    """A rule that needs no change, said as clearly as a change would be."""
    rule: str
    message: str
    area: str = ""
    family: str = ""
    # For a rule about the next boot: what restores the value at boot, named
    # by the family that knows it ("sysctl.d file /etc/sysctl.d/90-numatune.conf:3",
    # "udev rule ...", "numatune-boot.service (/etc/numatune/boot.conf)").
    # `check` says "persisted" only with one.
    kept_by: str = ""

    def to_json(self):
        return _fields_dict(self)


@record
class Plan:
    host: dict
    changes: List[Change] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    compliant: List[Compliant] = field(default_factory=list)
    policy: dict = field(default_factory=dict)
    # `--only` names that selected no rule of the policy (not in the JSON: the
    # plan is refused before anyone reads it).
    unselected: List[str] = field(default_factory=list, repr=False, compare=False)

    def to_json(self, changes=None):
        """``changes``: a function of the list of changes to put in their place
        (report.changejson.encoded_changes, their JSON text for report.jsonout)."""
        return {
            "version": 1,
            "host": self.host,
            "changes": [c.to_json() for c in self.changes] if changes is None else changes(self.changes),
            "findings": [f.to_json() for f in self.findings],
            "compliant": [c.to_json() for c in self.compliant],
            "policy": self.policy,
        }

    @classmethod
    def from_json(cls, data):
        if data.get("version") != 1:
            raise ValueError("unsupported plan version %r" % data.get("version"))
        return cls(
            host=data.get("host", {}),
            changes=[Change.from_json(c) for c in data.get("changes", [])],
            findings=[Finding.from_json(f) for f in data.get("findings", [])],
            compliant=[Compliant(**c) for c in data.get("compliant", [])],
            policy=data.get("policy", {}),
        )
