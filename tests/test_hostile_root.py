"""Hostile roots (#14 item 1): every read and write under --root stays inside
it, whatever links the tree holds; a journal line or path with ".." that
leaves the root is refused."""
import json
import os

import pytest

import fakehost
from conftest import STATE, tree_digest, write
from numatune import root as rootmod
from numatune.root import Root

POLICY = ('[sysctl]\n"kernel.numa_balancing" = 0\n"vm.swappiness" = 10\n'
          '[kernel]\ntransparent_hugepage = "never"\n')


@pytest.fixture(params=["openat2", "walk"])
def resolver(request, monkeypatch):
    """Both ways of confining: the kernel's (openat2) and the component walk
    RHEL 8's 4.18 kernel falls back to."""
    if request.param == "walk":
        monkeypatch.setattr(rootmod._Openat2, "works", False)
    else:
        monkeypatch.setattr(rootmod._Openat2, "works", None)
        if rootmod._openat2(os.open("/", os.O_PATH), ".", os.O_PATH) is None:
            pytest.skip("this kernel has no openat2")
    return request.param


def _outside(tmp_path, name, text="outside\n"):
    path = tmp_path / "outside" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("style", ["relative", "absolute"])
@pytest.mark.parametrize("target", ["proc/sys/kernel/numa_balancing", "sys/kernel/mm/transparent_hugepage/enabled"])
def test_a_value_file_linked_out_of_the_root_is_never_written(cli, tmp_path, resolver, style, target):
    root = tmp_path / "root"
    fakehost.build(root)
    victim = _outside(tmp_path, "victim", "1\n")
    link = root / target
    link.unlink()
    link.symlink_to(os.path.relpath(victim, link.parent) if style == "relative" else str(victim))
    before = victim.read_bytes()
    status, out, err = cli("apply", "--root", root, "--policy", write(tmp_path, "p.toml", POLICY), "--yes")
    assert "Traceback" not in err
    assert victim.read_bytes() == before
    # Inside the root the link resolves as on the host it was copied from: a
    # relative one climbs to the root's top, an absolute one starts there.
    assert status in (0, 1, 2, 3), err


def test_links_resolve_inside_the_root_read_and_write(tmp_path, resolver):
    root = tmp_path / "root"
    write(root, "/etc/real", "inside\n")
    victim = _outside(tmp_path, "etc/real")
    (root / "etc/abs").symlink_to("/etc/real")           # absolute: the root's /etc/real
    (root / "etc/rel").symlink_to("../../../../../../etc/real")  # climbs, clamped at the root
    (root / "etc/loop").symlink_to("loop")
    (root / "dir").symlink_to(str(tmp_path / "outside"))  # a directory link out of the root
    r = Root(str(root))
    assert r.read_text("/etc/abs") == "inside\n"
    assert r.read_text("/etc/rel") == "inside\n"
    assert r.read_text("/etc/loop") is None
    assert r.read_text("/dir/victim") is None and not r.exists("/dir/etc/real")
    assert r.join("/etc/abs") == str(root) + "/etc/real"
    fd = r.open("/etc/abs", os.O_WRONLY | os.O_TRUNC)
    os.write(fd, b"written\n")
    os.close(fd)
    assert (root / "etc/real").read_text() == "written\n"
    assert victim.read_text() == "outside\n"
    # A new file through a directory link out of the root: that directory
    # does not exist inside the root, so nothing is created anywhere.
    with pytest.raises(FileNotFoundError):
        r.open("/dir/new", os.O_WRONLY | os.O_CREAT, 0o644)
    assert not (tmp_path / "outside/new").exists()
    assert r.join("/dir/new") == str(root) + str(tmp_path / "outside/new")


def test_read_texts_reads_a_directory_as_read_text_reads_each_file(tmp_path, resolver):
    """Root.read_texts (one directory resolved once, its files by name): links
    among the names and the directory itself resolve inside the root, as
    read_text has them; what is missing or a loop reads as None."""
    root = tmp_path / "root"
    write(root, "/etc/real", "inside\n")
    write(root, "/sys/q/plain", "1\r\n")
    _outside(tmp_path, "etc/real")
    (root / "sys/q/abs").symlink_to("/etc/real")
    (root / "sys/q/rel").symlink_to("../../../../../../etc/real")
    (root / "sys/q/loop").symlink_to("loop")
    (root / "sys/link").symlink_to("/sys/q")               # the directory through a link, inside
    (root / "sys/out").symlink_to(str(tmp_path / "outside/etc"))   # a directory link out of the root
    r = Root(str(root))
    names = ("plain", "abs", "rel", "loop", "missing")
    want = {n: r.read_text("/sys/q/" + n) for n in names}
    assert want == {"plain": "1\n", "abs": "inside\n", "rel": "inside\n", "loop": None, "missing": None}
    assert r.read_texts("/sys/q", names) == want
    assert r.read_texts("/sys/link", names) == want
    assert r.read_texts("/sys/out", ["real"]) == {"real": None}
    assert r.read_texts("/nowhere", ["a"]) == {"a": None}
    with pytest.raises(ValueError):
        r.read_texts("/sys", ["q/plain"])


def test_read_value_alone_reads_as_read_value_inside_the_root(tmp_path, resolver):
    """Root.read_value_alone (a file opened by its whole path, its directory not kept: 2,300
    IRQ affinities, #38) reads what read_value reads, links inside the root, nothing outside."""
    root = tmp_path / "root"
    write(root, "/etc/real", "inside\n")
    write(root, "/proc/irq/5/smp_affinity_list", "0-3\x00\n")
    _outside(tmp_path, "etc/real")
    (root / "proc/irq/6").mkdir()
    (root / "proc/irq/6/smp_affinity_list").symlink_to("/etc/real")
    (root / "proc/irq/7").symlink_to("6")                              # the directory through a link
    (root / "proc/irq/8").symlink_to(str(tmp_path / "outside/etc"))    # a directory link out of the root
    (root / "proc/irq/9").mkdir()
    (root / "proc/irq/9/smp_affinity_list").symlink_to("../../../../../../etc/real")
    paths = ["/proc/irq/%s/smp_affinity_list" % n for n in (5, 6, 7, 9, 10)] + ["/proc/irq/8/real", "/etc/real"]
    r = Root(str(root))
    want = [r.read_value(p) for p in paths]
    assert want == ["0-3", "inside", "inside", "inside", None, None, "inside"]
    assert [Root(str(root)).read_value_alone(p) for p in paths] == want
    assert [r.read_value_alone(p) for p in paths] == want      # directories kept by the reads above, too
    assert r.read_value_alone("/proc/irq/10/smp_affinity_list", "x") == "x"


def test_a_sysctl_d_directory_linked_out_of_the_root_gets_no_file(cli, tmp_path, resolver):
    root = tmp_path / "root"
    fakehost.build(root)
    outside = tmp_path / "outside-sysctl.d"
    outside.mkdir()
    (root / "etc/sysctl.d").rename(root / "etc/sysctl.d.orig")
    (root / "etc/sysctl.d").symlink_to(str(outside))
    status, out, err = cli("apply", "--root", root, "--policy", write(tmp_path, "p.toml", POLICY), "--yes")
    assert status == 0, err
    assert os.listdir(outside) == []
    inside = root / str(outside).lstrip("/")
    assert "vm.swappiness = 10" in (inside / "90-numatune.conf").read_text()


@pytest.mark.parametrize("style", ["relative", "absolute"])
def test_a_journal_directory_moved_by_a_link_is_read_where_it_was_written(cli, tmp_path, resolver, style):
    # The fault campaign (#28): the journal was written at the link's target inside the
    # root, but read by a listing that took the link for "not a directory": `revert --last`
    # said there was nothing to revert and left the host applied.
    root = tmp_path / "root"
    fakehost.build(root)
    before = tree_digest(root)
    outside = tmp_path / "journals"
    outside.mkdir()
    link = root / STATE / "journal"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(outside, link.parent) if style == "relative" else str(outside))
    status, out, err = cli("apply", "--root", root, "--policy", write(tmp_path, "p.toml", POLICY), "--yes")
    assert status == 0, err
    assert os.listdir(outside) == []
    status, out, err = cli("history", "--root", root)
    assert status == 0 and "applied" in out, out + err
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert os.listdir(outside) == []
    after = tree_digest(root)
    made = [k for k in after if k not in before]        # where the link led, inside the root
    assert all(after[k][0] == "dir" or k.endswith(".jsonl") for k in made), made
    assert {k: v for k, v in after.items() if k not in made} == before


def test_paths_with_dotdot_that_leave_the_root_are_refused(tmp_path):
    r = Root(str(tmp_path))
    for bad in ("/../etc/passwd", "/etc/../../x", "/a/b/../../../c"):
        with pytest.raises(PermissionError, match="leaves the root"):
            r.join(bad)
        with pytest.raises(PermissionError, match="leaves the root"):
            Root("/").join(bad)
    assert r.join("/etc/../proc") == str(tmp_path) + "/proc"


def test_a_forged_journal_line_cannot_delete_outside_the_root(cli, tmp_path):
    root = tmp_path / "root"
    fakehost.build(root)
    status, out, err = cli("apply", "--root", root, "--policy", write(tmp_path, "p.toml", POLICY), "--yes")
    assert status == 0, err
    journal = next((root / STATE / "journal").glob("*.jsonl"))
    victim = _outside(tmp_path, "victim")
    climb = "/.." * (len(root.parts) + 2) + str(victim)
    forged = {"t": "intent", "seq": 99, "change": "x", "op": {
        "kind": "file", "path": climb, "editor": "sysctl_d", "created_dirs": [],
        "before": {"exists": False}, "after": {"exists": True, "sha256": "0", "data": ""}}}
    with open(journal, "a") as f:
        f.write(json.dumps(forged) + "\n" + json.dumps({"t": "done", "seq": 99}) + "\n")
    digest = tree_digest(root)
    status, out, err = cli("revert", "--last", "--root", root)
    # The forged line has no checksum: the journal fails its integrity check, nothing is restored (#28).
    assert victim.read_text() == "outside\n"
    assert status == 2 and "integrity check" in err and tree_digest(root) == digest, out + err
    status, out, err = cli("revert", "--last", "--force", "--root", root)
    assert victim.read_text() == "outside\n"
    assert status == 1 and "failed" in out, out + err    # the forged record is not restored: refused
    # The real writes were still undone.
    assert "undid" in out and (root / "proc/sys/kernel/numa_balancing").read_text() == "1\n"
    assert tree_digest(root) != digest
