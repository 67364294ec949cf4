"""Bounds on what a policy may ask (#28): more kernel command-line
arguments or sysctl keys than any host uses is refused in one line naming the
file and the key, exit 2, nothing changed."""
import fakehost
import pytest

from conftest import tree_digest, write
from numatune.families.boot.cmdline import MAX_ARGS
from numatune.families.sysctl.knob import MAX_KEYS


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
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", text)
    before = tree_digest(root)
    for command in ("plan", "apply"):
        extra = ("--yes",) if command == "apply" else ()
        status, out, err = cli(command, "--root", root, "--policy", policy, *extra)
        assert status == 2, out + err
        [line] = err.splitlines()
        assert str(policy) in line and key in line and "more than" in line, line
    assert tree_digest(root) == before


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
