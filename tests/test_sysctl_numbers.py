"""A value the kernel would refuse for a sysctl that holds integers is a critical finding, not a change
that fails at apply: vm.swappiness = "abc" planned "60 -> abc" and said nothing."""
import json

import pytest

from conftest import write
from numatune.families.sysctl.numbers import refusal_text, refused


@pytest.mark.parametrize("key,live,desired,word", [
    ("vm.swappiness", "60", "abc", "abc"),
    ("vm.swappiness", "60", "10", None),
    ("vm.swappiness", "60", "0x10", None),          # the kernel parses 0x-hex too
    ("vm.swappiness", "60", "-1", None),
    ("vm.swappiness", "60", "1e3", "1e3"),
    ("vm.swappiness", "60", "", ""),
    ("kernel.printk", "4\t4\t1\t7", "3 4 1 seven", "seven"),
    ("kernel.printk", "4\t4\t1\t7", "3 4 1 7", None),
    ("net.ipv4.tcp_congestion_control", "cubic", "bbr", None),   # a string key: anything goes
    ("kernel.hostname", "1001", "db01", None),                  # digits, but a name
    ("vm.swappiness", None, "abc", None),                       # not on this host: another finding says so
])
def test_refused(key, live, desired, word):
    assert refused(key, live, desired) == word


@pytest.mark.parametrize("word,desired,text", [
    ("abc", "abc", "'abc'"),                        # the whole value: said once, not "'abc' in 'abc'"
    ("seven", "3 4 1 seven", "'seven' in '3 4 1 seven'"),
    ("", "", "an empty value"),
])
def test_refusal_text(word, desired, text):
    assert refusal_text(word, desired) == text


def test_a_word_the_kernel_refuses_is_critical_and_nothing_is_written(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/vm/swappiness", "60\n")
    write(root, "/proc/sys/vm/dirty_ratio", "20\n")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"vm.swappiness" = "abc"\n"vm.dirty_ratio" = 10\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert "sysctl.live:vm.dirty_ratio" in [c["id"] for c in plan["changes"]]
    assert not [c for c in plan["changes"] if c["target"] == "vm.swappiness"]
    finding = next(f for f in plan["findings"] if f["id"] == "sysctl.not-integer:vm.swappiness")
    assert finding["severity"] == "critical"
    assert finding["message"] == "vm.swappiness holds integers (now 60): the kernel would refuse 'abc': not set"
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status != 0 and "Traceback" not in err
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"
    assert "swappiness" not in (root / "etc/sysctl.d/90-numatune.conf").read_text()
