"""`numatune facts` in text covers every family the JSON covers, folded so
a big host reads in a few screens, every line within 80 columns, big numbers
in digit groups (the JSON keeps raw numbers)."""
import json
import re
import sys

import pytest

from conftest import CAPTURES, REPO, write
from numatune.families.registry import FAMILIES
from numatune.family import Family
from numatune.model.records import fields

sys.path.insert(0, str(REPO / "bench"))
import bench_policy  # noqa: E402
from make_host import make_host  # noqa: E402

# The heading each family's section starts with.
HEADINGS = {"sysctl": "sysctl:", "boot": "boot:", "bootunit": "boot path:", "hugepages": "HugePages:", "cpu": "CPU power:",
            "cpuset": "cpusets:", "tuned": "tuned:", "network": "network:", "storage": "storage:",
            "oracle": "Oracle:", "advice": "advice:"}
CASES = sorted(p for p in (REPO / "tests" / "cases").glob("*/*") if (p / "policy.toml").exists())


def _facts(cli, root, policy):
    status, text, err = cli("facts", "--root", root, "--policy", policy)
    assert status == 0, err
    status, out, err = cli("facts", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return text, json.loads(out)


def _fits(text):
    long = [line for line in text.splitlines() if len(line) > 79]
    assert not long, long


def _sections(text):
    """{heading: [lines]} of the families' sections (blank-line separated)."""
    out = {}
    for block in text.split("\n\n"):
        lines = block.splitlines()
        for name, heading in HEADINGS.items():
            if lines and lines[0].startswith(heading):
                out[name] = lines
    return out


def test_every_family_fills_facts_lines():
    default = next(f.default for f in fields(Family) if f.name == "facts_lines")
    assert [f.name for f in FAMILIES if f.facts_lines is default] == []
    assert set(HEADINGS) == {f.name for f in FAMILIES}


@pytest.fixture
def every_area(tmp_path):
    path = str(tmp_path / "every-area.toml")
    bench_policy.build(path)  # oracle-numa plus storage, network, CPU, cpuset, tuned, Oracle sections
    return path


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_area_the_json_has_is_in_the_text_on_real_captures(name, capture, cli, every_area):
    root = capture(name)
    text, facts = _facts(cli, root, every_area)
    _fits(text)
    sections = _sections(text)
    for family in facts["families"]:
        if facts.get(family):
            assert family in sections, (family, text)
    # Every device is counted in one entry (or in the line that says how many more there are).
    counted = 0
    for line in sections["storage"]:
        m = re.match(r"^  (?:\.\.\. )?([\d,]+) (?:more )?devices?[: ]", line)
        counted += int(m.group(1).replace(",", "")) if m else 0
    assert counted == len(facts["storage"]["devices"]), sections["storage"]


@pytest.mark.parametrize("case", CASES, ids=lambda p: "%s/%s" % (p.parent.name, p.name))
def test_the_case_roots_read_in_text(case, cli):
    text, facts = _facts(cli, case / "root", case / "policy.toml")
    _fits(text)
    family = {"network": "network", "storage": "storage", "cpuset": "cpuset", "oracle": "oracle",
              "sysctl": "sysctl", "boot": "boot", "hugepages": "hugepages", "advice": "advice",
              "tuned": "tuned"}[case.parent.name]
    if facts.get(family):
        assert family in _sections(text), text


@pytest.fixture(scope="module")
def big_host(tmp_path_factory):
    root = tmp_path_factory.mktemp("big") / "host"
    info = make_host(str(root), sockets=8, nodes=8, cpus=64, luns=40, paths=4, nics=8, queues=4, instances=2,
                     procs=150)
    return root, info


def test_a_big_host_is_folded_not_listed(big_host, cli, every_area):
    root, info = big_host
    text, facts = _facts(cli, root, every_area)
    _fits(text)
    sections = _sections(text)
    devices = facts["storage"]["devices"]
    assert len(devices) >= 200
    # 160 paths and 40 maps of one kind read as a few entries, each range named.
    assert len(sections["storage"]) < 30, "\n".join(sections["storage"])
    assert any("sda-" in line for line in sections["storage"])
    assert "%d devices: disk 3PARdata VV" % (info["scsi_paths"] // 8) in "\n".join(sections["storage"]) or \
        any("devices: disk 3PARdata VV" in line for line in sections["storage"])
    cpu = "\n".join(sections["cpu"])
    assert "CPUs 0-63" in cpu  # 64 cpufreq policies with one governor: one line
    assert len(sections["cpu"]) <= 5
    assert len(sections["network"]) < 4 * len(facts["network"]["interfaces"])
    for inst in facts["oracle"]["instances"]:
        assert inst["sid"] + ":" in "\n".join(sections["oracle"])


def test_big_numbers_are_grouped_in_text_only(big_host, cli, every_area):
    root, _ = big_host
    text, facts = _facts(cli, root, every_area)
    node = facts["topology"]["nodes"]["0"]
    mib = node["mem_total_kb"] // 1024
    assert mib >= 1000
    assert "{:,}".format(mib) in text and "%d " % mib not in text
    assert isinstance(node["mem_total_kb"], int)  # the JSON keeps the number


def test_an_unreadable_bootloader_is_said_not_hidden():
    from numatune.families.boot.facts_text import facts_lines
    lines = facts_lines({"boot": {"config": None, "error": "grub.cfg: cannot parse line 3", "grubby": None}})
    assert lines[0] == "boot: the bootloader configuration cannot be read"
    assert "cannot parse line 3" in lines[1]


def test_sixty_four_nodes_wrap_the_distance_table(tmp_path):
    from numatune.report.console import _distance_lines
    ids = [str(i) for i in range(64)]
    nodes = {i: {"distance": {j: (10 if i == j else 255) for j in ids}} for i in ids}
    lines = _distance_lines(ids, nodes)
    assert lines[0].startswith("node distances (row:")
    assert all(len(line) <= 79 for line in lines)
    assert lines[1].startswith("   0: 10 255 255")


def test_digit_groups():
    from numatune.report.numbers import count, size, size_kb
    assert [count(x) for x in (0, 999, 1000, 49152, "126000", "4096 87380", None)] == \
        ["0", "999", "1,000", "49,152", "126,000", "4096 87380", "?"]
    assert size(107374182400) == "100 GiB" and size(1920383410176) == "1.7 TiB" and size_kb(2048) == "2 MiB"
    assert size(1024 ** 5 * 2048) == "2,048 PiB"


def test_the_kernels_unlimited_shm_default_reads_as_no_limit():
    """Kernels since 3.16 default shmmax/shmall to ULONG_MAX - 2**24: "no
    limit", not "16384.0 PiB"; a limit someone set reads as a size."""
    from numatune.families.oracle.facts_text import facts_lines
    default = 18446744073692774399
    text = "\n".join(facts_lines({"oracle": {"shm": {"shmmax": default, "shmall": default, "page_size": 4096}}}))
    assert text.count("no limit (the kernel's default)") == 2 and "PiB" not in text
    text = " ".join(" ".join(facts_lines({"oracle": {"shm": {"shmmax": 64 << 30, "shmall": 16 << 20,
                                                               "page_size": 4096}}})).split())  # wrapped at 80
    assert "shmmax 64 GiB" in text and "shmall 16,777,216 pages (64 GiB)" in text


def test_a_policy_with_few_tables_shows_few_sections(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"kernel.numa_balancing" = 0\n')
    text, facts = _facts(cli, root, policy)
    assert "kernel.numa_balancing = 1" in text
    assert facts["network"] == {} and "network:" not in text  # not read: no section
    assert "storage: not read (the policy has no [[block]] rule)" in text  # read as empty: said so
