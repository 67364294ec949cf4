"""The begin record's changes found alike a quicker way (issue #38): a change
like one before it is keyed on its fields' values and types and its value
writes, without its fields copied or its writes turned to JSON. The record
is the one compact made each change's own way: the same groups, the same
bytes."""
import itertools
import json

from numatune.apply import begin_changes
from numatune.apply.begin_changes import compact
from numatune.model import Change, Write


def _each_its_own_way(changes):
    shared, whys, groups, why_at = [], [], {}, {}
    return [begin_changes._own(c, shared, whys, groups, why_at) for c in changes], shared, whys


class _Other(Change):
    pass


def _changes():
    out = []
    for i, (flag, value, form, why) in enumerate(itertools.product(
            (True, 1, False, 0), ("1024", 1024, 1024.0, None), ("plain", "words"), ("a reason", "another"))):
        out.append(Change(id="c%d" % i, area="storage", target="t%d" % i, current=str(i), desired="1024",
                          scope="live", action="write", why=why, reboot_required=flag,
                          writes=[Write(kind="value", path="/sys/block/sd%d/queue/nr_requests" % i, value=value,
                                        format=form)]))
    two = dict(id="two", area="x", target="t", current=None, desired="1", scope="live", action="w")
    out.append(Change(writes=[Write(kind="value", path="/a", value="1"), Write(kind="value", path="/b", value="1")],
                      **two))
    out.append(Change(writes=[Write(kind="value", path="/a", value="1")], **two))
    out.append(Change(writes=[], **two))
    out.append(Change(writes=[Write(kind="file", path="/f", editor="e", args={"k": [1, True]})], **two))
    out.append(Change(writes=[Write(kind="file", path="/f", editor="e", args={"k": [1, 1]})], **two))
    out.append(Change(writes=[Write(kind="value", path=None, value="1")], **two))
    out.append(Change(writes=[Write(kind="blockattr", path="/s", value="bfq", args={"coupled": ["/n"]})], **two))
    out.append(_Other(writes=[Write(kind="value", path="/a", value="1")], **two))
    extra = Change(writes=[Write(kind="value", path="/a", value="1")], **two)
    extra.note = "an attribute beyond its fields"
    out.append(extra)
    odd = Change(writes=[Write(kind="value", path="/a", value=["1"])], **two)      # not hashable
    out.append(odd)
    return out


def test_the_quick_way_makes_the_record_each_changes_own_way_makes():
    changes = _changes()
    # Alike changes come again, in another order: the groups are found, not made anew.
    every = changes + changes[::-1]
    got, want = compact(every), _each_its_own_way(every)
    assert json.dumps(got) == json.dumps(want)
    assert got == want
    assert len(got[1]) < len(changes)
