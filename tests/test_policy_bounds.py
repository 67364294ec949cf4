"""Bounds on what a policy may ask (#28): more kernel command-line
arguments or sysctl keys than any host uses is refused in one line naming the
file and the key, exit 2, nothing changed."""
import fakehost
import pytest

from conftest import tree_digest, write
from numatune.families.boot.cmdline import MAX_ARGS
from numatune.families.sysctl.knob import MAX_KEYS
from numatune.policy import bounds


def _cmdline(n, side="present"):
    return "[kernel.cmdline]\n%s = [%s]\n" % (side, ", ".join('"nt%d=1"' % i for i in range(n)))


def _sysctl(n):
    return "[sysctl]\n" + "".join('"kernel.nt%d" = 1\n' % i for i in range(n))


@pytest.mark.parametrize("text,key", [
    (_cmdline(MAX_ARGS + 1), "kernel.cmdline.present"),
    (_cmdline(5000, "absent"), "kernel.cmdline.absent"),
    (_sysctl(MAX_KEYS + 1), "[sysctl]"),
])
def test_too_much_is_one_line_naming_file_and_key(cli, tmp_path, text, key):
    lines, policy = _refused(cli, tmp_path, text)
    for line in lines:
        assert str(policy) in line and key in line and "more than" in line, line


def test_the_bound_holds_across_an_extends_chain(cli, tmp_path):
    # Two files each under the bound, together over it: the merged policy is what is bounded.
    root = fakehost.build(tmp_path / "root")
    half = MAX_KEYS // 2 + 1
    write(tmp_path, "base.toml", _sysctl(half))
    policy = write(tmp_path, "policy.toml", '[policy]\nextends = ["base.toml"]\n[sysctl]\n'
                   + "".join('"kernel.nu%d" = 1\n' % i for i in range(half)))
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 2 and "more than %d" % MAX_KEYS in err and "Traceback" not in err, out + err


def test_at_the_bound_is_accepted(cli, tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", _cmdline(MAX_ARGS))
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert "more than" not in err, err


# The bounds every table has (numatune.policy.bounds), whatever family reads it.

def _blocks(n, start=0):
    return "".join('[[block]]\nmatch = { name = "sd%d" }\nread_ahead_kb = 4096\n' % i for i in range(start, start + n))


@pytest.mark.parametrize("text,key,line", [
    # A string: the why of a rule, on line 2.
    ('[sysctl]\n"vm.swappiness" = { value = 10, why = "%s" }\n' % ("x" * (bounds.MAX_TEXT + 1)),
     "sysctl.vm.swappiness.why is %d characters long" % (bounds.MAX_TEXT + 1), 2),
    # An array: device names of one rule.
    ('[[block]]\nmatch = { name = [%s] }\n' % ", ".join('"sd%d"' % i for i in range(bounds.MAX_ITEMS + 1)),
     "block[0].match.name lists %d items" % (bounds.MAX_ITEMS + 1), 2),
    # A table: a rule's udev properties.
    ('[[block]]\nread_ahead_kb = 8\n[block.match.udev]\n'
     + "".join('ID_P%d = "x"\n' % i for i in range(bounds.MAX_KEYS + 1)),
     "[block[0].match.udev] holds %d keys" % (bounds.MAX_KEYS + 1), 3),
    # An array of tables.
    (_blocks(bounds.MAX_TABLES + 1), "[[block]] has %d entries" % (bounds.MAX_TABLES + 1), 1),
])
def test_every_table_is_bounded_in_one_line_naming_file_line_and_key(cli, tmp_path, text, key, line):
    lines, policy = _refused(cli, tmp_path, text)
    for one in lines:
        assert "%s:%d: %s" % (policy, line, key) in one and "more than" in one and "(" in one, one


def test_arrays_of_tables_are_bounded_across_files(cli, tmp_path):
    # Each file under the bound, [[block]] entries add up across extends: the merged policy is refused.
    root = fakehost.build(tmp_path / "root")
    half = bounds.MAX_TABLES // 2 + 1
    write(tmp_path, "base.toml", _blocks(half))
    policy = write(tmp_path, "policy.toml", '[policy]\nextends = ["base.toml"]\n' + _blocks(half, half))
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 2 and len(err.splitlines()) == 1, out + err
    assert "[[block]] has %d entries, more than %d" % (2 * half, bounds.MAX_TABLES) in err
    assert str(policy) + ":" in err  # the last file that adds to it


def test_a_saved_plan_holding_too_much_is_refused(tmp_path):
    from numatune.errors import PolicyError
    from numatune.policy.stack import from_data
    with pytest.raises(PolicyError, match="more than %d" % bounds.MAX_TABLES):
        from_data({"block": [{"read_ahead_kb": 8}] * (bounds.MAX_TABLES + 1)}, "plan.json")


def test_a_large_legal_policy_plans(cli, tmp_path):
    # At every bound at once: MAX_KEYS sysctl keys this kernel lacks, MAX_ARGS boot arguments,
    # MAX_TABLES block rules; planned, every key named.
    root = fakehost.build(tmp_path / "root")
    text = (_sysctl(MAX_KEYS) + _cmdline(MAX_ARGS) + _blocks(bounds.MAX_TABLES - 1)
            + '[[block]]\nmatch = { name = [%s] }\nread_ahead_kb = 8\n'
            % ", ".join('"x%d"' % i for i in range(bounds.MAX_ITEMS)))
    policy = write(tmp_path, "policy.toml", text)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status in (0, 1, 2) and "more than" not in err and "Traceback" not in err, err
    assert out.count('"sysctl.unknown:kernel.nt') == MAX_KEYS


def test_only_the_first_unknown_keys_get_a_spelling_guess(cli, tmp_path):
    # Each guess compares the key with every name it may be a misspelling of:
    # past MAX_SUGGESTED a policy is written for another kernel, not misspelt.
    from numatune.families.sysctl.spelling import MAX_SUGGESTED
    root = fakehost.build(tmp_path / "root")
    n = MAX_SUGGESTED + 5
    policy = write(tmp_path, "policy.toml", "[sysctl]\n" + "".join(
        '"vm.swapines%02d" = 1\n' % i for i in range(n)))    # two edits or more: not refused as a typo
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert out.count("is not a sysctl key") == n, out
    assert out.count("did you mean vm.swappiness?") == MAX_SUGGESTED, out


def _refused(cli, tmp_path, text):
    """(the one error line of plan and of apply for policy ``text``: exit 2, root unchanged; the policy path)."""
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", text)
    before = tree_digest(root)
    lines = []
    for command in ("plan", "apply"):
        extra = ("--yes",) if command == "apply" else ()
        status, out, err = cli(command, "--root", root, "--policy", policy, *extra)
        assert status == 2, out + err
        [one] = err.splitlines()
        assert "Traceback" not in out + err
        lines.append(one)
    assert tree_digest(root) == before
    return lines, policy
