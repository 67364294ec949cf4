"""report.changejson: a change's JSON text made straight from the object is
the text of its to_json() dict, whatever its fields hold (issue #38)."""
import json

from hypothesis import given
from hypothesis import strategies as st

from numatune.model import Change, Finding, Plan, Write
from numatune.report import changejson, jsonout

# Values of every type a family could put in a field by mistake, besides the usual strings.
odd = st.none() | st.booleans() | st.integers() | st.floats() | st.lists(st.text(max_size=3), max_size=2)
text = st.text(max_size=12)
texts = text | st.sampled_from(["", "storage", "low", "\u00e9t\u00e9", "a\nb\x1b[2J\"\\", "\ud800"])
flag = st.booleans() | st.sampled_from([0, 1, "", None])



def _writes(odd):
    return st.builds(
        Write,
        kind=st.sampled_from(["value", "file", "command", "blockattr", "netdev"]) | text,
        path=texts | odd, value=st.none() | texts | odd, format=st.sampled_from(["plain", "words", "bracket"]) | odd,
        editor=st.none() | texts, args=st.dictionaries(text, texts | odd, max_size=2),
        argv=st.lists(texts, max_size=2), files=st.lists(texts, max_size=2))


def _changes(odd):
    """Changes whose fields hold strings (and ``odd``, a strategy of other values)."""
    return st.builds(
        Change,
        id=texts | odd, area=texts, target=texts, current=st.none() | texts | odd, desired=texts | odd, scope=texts,
        action=texts, why=texts | odd, reboot_required=flag, restart_required=flag, risk=texts | odd, rule=texts,
        writes=st.lists(_writes(odd), max_size=3) | st.tuples(_writes(odd)), needs_confirm=flag, family=texts,
        partial_ok=flag, running_ok=flag, drift_severity=texts, boot_key=texts | odd)


# The usual shape (strings, and flags that are bools or not) and the odd one (any value anywhere).
changes = _changes(st.nothing()) | _changes(odd)


@given(changes)
def test_change_text_is_the_text_of_its_dict(change):
    assert changejson.change_text(change) == jsonout.encode(change.to_json())


@given(changes, st.sampled_from(["id", "writes", "boot_key"]))
def test_a_field_set_again_or_on_the_side_keeps_the_dict_paths_text(change, name):
    expected = jsonout.encode(change.to_json())
    change.extra = "set on the side"
    assert changejson.change_text(change) == expected
    del change.extra
    value = getattr(change, name)
    delattr(change, name)
    setattr(change, name, value)     # the instance's dict now holds it last: to_json follows that order
    assert changejson.change_text(change) == jsonout.encode(change.to_json())


def test_the_usual_change_takes_the_short_path():
    """The field list changejson unpacks is the model's: a field added to Change and not named there
    would send every change down the dict path again, unseen."""
    assert changejson._FAST


def test_a_plan_document_is_the_same_text_either_way():
    plan = Plan(host={"hostname": "h"}, policy={"name": "p"},
                changes=[Change(id="c%d" % i, area="storage", target="sd%s queue/nr_requests" % chr(97 + i),
                                current=None if i == 2 else str(i), desired="512", scope="live",
                                action="write /sys/block/x", why="w \u00e9", rule="block[0].nr_requests",
                                writes=[Write(kind="value", path="/sys/block/x", value="512")])
                         for i in range(4)],
                findings=[Finding(id="f", severity="info", message="m")])
    fast = jsonout.dumps(plan.to_json(changejson.encoded_changes))
    assert fast == jsonout.dumps(plan.to_json())
    assert json.loads(fast) == plan.to_json()
    empty = Plan(host={})
    assert jsonout.dumps(empty.to_json(changejson.encoded_changes)) == jsonout.dumps(empty.to_json())


def _usual(**fields):
    write = fields.pop("write", None) or Write(kind="value", path="/sys/block/sda/queue/nr_requests", value="512")
    return Change(**dict(dict(id="block.live:sda:nr_requests", area="storage", target="sda queue/nr_requests",
                              current="256", desired="512", scope="live", action="write x", why="w",
                              rule="block[0].nr_requests", writes=[write]), **fields))


def test_a_flag_that_is_not_a_bool_is_written_as_json_writes_it():
    for name in ("reboot_required", "restart_required", "needs_confirm", "partial_ok", "running_ok"):
        for value in (1, 0, "", None, "yes", True):
            change = _usual(**{name: value})
            assert changejson.change_text(change) == jsonout.encode(change.to_json()), (name, value)


def test_a_write_with_an_attribute_set_on_the_side_or_again_keeps_the_dict_paths_text():
    write = Write(kind="value", path="/p", value="1")
    write.extra = "set on the side"
    change = _usual(write=write)
    assert changejson.change_text(change) == jsonout.encode(change.to_json())
    del write.extra
    path = write.path
    del write.path
    write.path = path
    assert changejson.change_text(change) == jsonout.encode(change.to_json())
