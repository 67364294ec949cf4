"""numatune.model.records makes what @dataclass made of the same declarations (issue #38: a
check no longer imports dataclasses): each record is held to its dataclass twin, built
by dataclasses from the record's own fields, for __init__'s signature and defaults,
repr, eq, hash, frozenness, asdict and replace."""
import dataclasses
import inspect

import pytest

from numatune.model import records as record
from numatune.families.boot.bootloader import BootConfig, BootEntry, GrubMenuEntry
from numatune.families.boot.default_grub import ShellAssignment
from numatune.families.boot.grub_legacy import LegacyEntry
from numatune.family import Family, Snapshot
from numatune.model import Change, Compliant, Finding, Plan, Write
from numatune.report.compliance import Report, Result
from numatune.report.thresholds import Thresholds

RECORDS = [Write, Change, Finding, Compliant, Plan, Snapshot, Family, Result, Report, Thresholds, BootEntry,
           BootConfig, GrubMenuEntry, ShellAssignment, LegacyEntry]
FROZEN = {Snapshot, Family, Thresholds}
_TWINS = {}


def twin(cls):
    """The dataclass @dataclass would have made of ``cls``'s declarations."""
    if cls not in _TWINS:
        specs = []
        for f in record.fields(cls):
            kw = dict(repr=f.repr, compare=f.compare)
            if f.default_factory is not record._MISSING:
                kw["default_factory"] = f.default_factory
            elif f.default is not record._MISSING:
                kw["default"] = f.default
            specs.append((f.name, object, dataclasses.field(**kw)))
        made = dataclasses.make_dataclass(cls.__name__, specs, frozen=cls in FROZEN)
        made.__qualname__ = cls.__qualname__
        _TWINS[cls] = made
    return _TWINS[cls]


def twin_of(obj):
    """``obj`` with every record in it (lists and dicts too) turned into its twin."""
    if record.is_record(obj):
        return twin(type(obj))(**{f.name: twin_of(getattr(obj, f.name)) for f in record.fields(obj)})
    if isinstance(obj, list):
        return [twin_of(v) for v in obj]
    if isinstance(obj, dict):
        return {k: twin_of(v) for k, v in obj.items()}
    return obj


def sample(cls, **over):
    """An instance with every field given: required ones a text of their own."""
    args = {f.name: "v-%s" % f.name for f in record.fields(cls)
            if f.default is record._MISSING and f.default_factory is record._MISSING}
    args.update(over)
    return cls(**args)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_init_takes_what_the_dataclass_took(cls):
    mine, theirs = inspect.signature(cls).parameters, inspect.signature(twin(cls)).parameters
    assert list(mine) == list(theirs)
    for name, p in mine.items():
        q = theirs[name]
        assert p.kind == q.kind
        if q.default is getattr(dataclasses, "_HAS_DEFAULT_FACTORY"):
            assert p.default is record._FACTORY
        else:
            assert p.default is q.default or p.default == q.default
    # Class attributes as dataclasses leaves them: a default's value, nothing for a factory's field.
    for f in dataclasses.fields(twin(cls)):
        assert hasattr(cls, f.name) == hasattr(twin(cls), f.name)
        if hasattr(cls, f.name):
            assert getattr(cls, f.name) == getattr(twin(cls), f.name)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_defaults_repr_eq_and_hash_are_the_dataclass_s(cls):
    obj = sample(cls)
    other = twin_of(obj)
    assert repr(obj) == repr(other)
    assert record.asdict(obj) == dataclasses.asdict(other)
    factory_made = [f.name for f in record.fields(cls) if f.default_factory is not record._MISSING]
    assert all(getattr(obj, n) is not getattr(sample(cls), n) for n in factory_made), "a new one per instance"
    assert obj == sample(cls) and not (obj != sample(cls))
    assert obj != other and (obj == other) is False    # another class: never equal, as a dataclass
    for f in record.fields(cls):
        changed = sample(cls, **{f.name: object()})
        assert (changed == obj) == (twin_of(changed) == twin_of(obj)) == (not f.compare), f.name
    if cls in FROZEN:
        if all(isinstance(getattr(obj, f.name), (str, tuple, type(None), int)) for f in record.fields(cls)):
            assert hash(obj) == hash(other)
        name = record.fields(cls)[0].name
        for act in (lambda o: setattr(o, name, 1), lambda o: delattr(o, name), lambda o: setattr(o, "new", 1)):
            with pytest.raises(record.FrozenInstanceError) as got:
                act(obj)
            with pytest.raises(dataclasses.FrozenInstanceError) as want:
                act(other)
            assert isinstance(got.value, AttributeError) and str(got.value) == str(want.value)
    else:
        with pytest.raises(TypeError):
            hash(obj)


def test_nested_records_asdict_and_replace_as_dataclasses():
    change = Change(id="c", area="kernel", target="t", current=None, desired="1", scope="live", action="set",
                    writes=[Write(kind="value", path="/p", value="1", args={"a": [1, (2, 3)]})])
    plan = Plan(host={"h": 1}, changes=[change], findings=[Finding(id="f", severity="info", message="m")],
                compliant=[Compliant("r", "ok")], unselected=["x"])
    assert record.asdict(plan) == dataclasses.asdict(twin_of(plan))
    got = record.asdict(change)
    assert got["writes"][0]["args"] is not change.writes[0].args, "containers are copied, as asdict copies"
    assert repr(plan) == repr(twin_of(plan)) and "unselected" not in repr(plan)
    assert plan == Plan(host={"h": 1}, changes=[change], findings=list(plan.findings),
                        compliant=[Compliant("r", "ok")])       # unselected is not compared
    moved = record.replace(change, desired="2")
    assert moved.desired == "2" and moved.writes is change.writes and change.desired == "1"
    assert repr(moved) == repr(dataclasses.replace(twin_of(change), desired="2"))
    with pytest.raises(TypeError):
        record.asdict(Change)


def test_a_field_without_default_after_one_with_is_refused():
    with pytest.raises(TypeError, match="follows one with a default"):
        @record.record
        class Bad:
            a: int = 1
            b: int


def test_frozen_subclass_and_positional_arguments():
    t = Thresholds(1, 2)
    assert (t.warning, t.critical) == (1, 2) and t == Thresholds(warning=1, critical=2)
    assert Thresholds.__match_args__ == ("warning", "critical")
    with pytest.raises(TypeError):
        Change("only", "three", "args")
