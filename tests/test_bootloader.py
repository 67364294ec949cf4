"""Bootloader facts and edits, checked against real captures in tests/data/grub."""
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from numatune.families.boot.bootloader_edit import (EDITORS, apply_editor, edit_arg_text, edit_args,
                                                    edit_bls_entry, edit_default_grub, edit_grub_cfg,
                                                    edit_grubenv, edit_kernel_cmdline, missing_in_entries,
                                                    plan_boot_edits)
from numatune.errors import BootConfigError
from numatune.families.boot.bootloader import (BootConfig, BootEntry, parse_bls_entry, read_boot_config,
                                               scan_grub_cfg, split_args)
from numatune.families.boot.default_grub import parse_default_grub
from numatune.families.boot.grubenv import GRUBENV_HEADER, parse_grubenv
from numatune.model.records import asdict
from numatune.root import Root

GRUB = Path(__file__).resolve().parent / "data" / "grub"
INSIGHTS = GRUB / "insights-core"
LEAPP = GRUB / "leapp-repository"
GRUBBY = GRUB / "rhboot-grubby"
ENTRIES = INSIGHTS / "boot/loader/entries"

pytestmark = pytest.mark.skipif(not GRUB.is_dir(), reason="tests/data/grub is missing")

RHEL84 = "rhel8.4-4.18.0-305.el8.x86_64.conf"
RHEL80 = "rhel8.0-4.18.0-80.1.2.el8_0.x86_64.conf"
RHEL95 = "3b1bf67095e94696b600ed25416e97a8-5.14.0-503.11.1.el9_5.x86_64.conf"
RESCUE95 = "3b1bf67095e94696b600ed25416e97a8-0-rescue.conf"

GOOD_GRUBENV = [GRUBBY / "grubenv.1", LEAPP / "grubenv.correct"]
GRUB_CFGS = [GRUBBY / "grub2.16.grub.cfg", GRUBBY / "grub2.18.grub.cfg",
             GRUBBY / "grub2.15.grub.cfg", GRUBBY / "grub2.9.grub.cfg",
             INSIGHTS / "boot/grub2/grub.cfg.rhel7"]
DEFAULT_GRUBS = [LEAPP / "etc-default-grub.correct", LEAPP / "etc-default-grub.correct_puppet",
                 INSIGHTS / "etc/default/grub.rhel8-blscfg"]
TEXT_EDITS = ([("bls", p) for p in sorted(ENTRIES.glob("*.conf"))]
              + [("grub_cfg", p) for p in GRUB_CFGS]
              + [("default_grub", p) for p in DEFAULT_GRUBS])


def grubenv_block(text_fixture):
    """A valid 1024-byte block holding the variables of a text-only grubenv capture."""
    lines = [l for l in text_fixture.read_bytes().splitlines()
             if l and not l.startswith(b"#")]
    body = GRUBENV_HEADER + b"".join(l + b"\n" for l in lines)
    return body + b"#" * (1024 - len(body))


def put(root, host_path, data):
    target = root / host_path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, Path):
        shutil.copyfile(data, target)
    else:
        target.write_bytes(data)
    return target


def through_json(cfg):
    """The config as the engine stores facts (asdict -> JSON) and rebuilds it."""
    raw = json.loads(json.dumps(asdict(cfg)))
    raw["entries"] = [BootEntry(**e) for e in raw["entries"]]
    return BootConfig(**raw)


def changed_lines(old, new):
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    assert len(a) == len(b)
    return [n for n, (x, y) in enumerate(zip(a, b)) if x != y]


# --- every fixture parses, the malformed ones fail cleanly -----------------------------

@pytest.mark.parametrize("path", sorted(ENTRIES.glob("*.conf")), ids=lambda p: p.name)
def test_bls_entries_parse(path):
    entry = parse_bls_entry(path.read_text())
    # The rescue file is <machine-id>-0-rescue.conf but its version 0-rescue-<machine-id>.
    assert entry["linux"] == "/vmlinuz-" + entry["version"]
    assert entry["title"]
    assert "options" in entry


def test_bls_entry_keeps_variables():
    entry = parse_bls_entry((ENTRIES / RHEL84).read_text())
    assert entry["options"] == "$kernelopts $tuned_params"
    assert entry["initrd"] == "/initramfs-4.18.0-305.el8.x86_64.img $tuned_initrd"


@pytest.mark.parametrize("path", GOOD_GRUBENV, ids=lambda p: p.name)
def test_grubenv_blocks_parse(path):
    data = path.read_bytes()
    assert len(data) == 1024
    assert set(parse_grubenv(data)) == {"saved_entry"}


@pytest.mark.parametrize("path, why", [
    (LEAPP / "grubenv.wrong2", "no '# GRUB Environment Block' header"),
    # Captured as text, not as blocks (see README): refusing them is the right answer.
    (INSIGHTS / "boot/grub2/grubenv.rhel9.5", "no '# GRUB Environment Block' header"),
    (INSIGHTS / "boot/grub2/grubenv.rhel8.4-tuned_params", "1031 bytes, not 1024"),
], ids=lambda v: getattr(v, "name", ""))
def test_broken_grubenv_is_a_clean_error(path, why):
    with pytest.raises(BootConfigError) as err:
        parse_grubenv(path.read_bytes(), "/boot/grub2/grubenv")
    assert str(err.value.message).startswith("/boot/grub2/grubenv: ")
    assert why in err.value.message and "\n" not in err.value.message and err.value.hint


def test_text_grubenv_captures_parse_once_blocked():
    env = parse_grubenv(grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel8.4-tuned_params"))
    assert env["tuned_params"] == "transparent_hugepages=never"
    assert env["tuned_initrd"] == ""
    assert split_args(env["kernelopts"])[-3:] == ["console=tty0", "console=ttyS0,115200", "noapic"]
    assert parse_grubenv(grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel9.5"))["menu_auto_hide"] == "1"


@pytest.mark.parametrize("path", DEFAULT_GRUBS, ids=lambda p: p.name)
def test_default_grub_parses(path):
    values = parse_default_grub(path.read_text())
    assert values["GRUB_DISTRIBUTOR"] is None  # sed's output: numatune does not run it
    assert split_args(values["GRUB_CMDLINE_LINUX"])


def test_default_grub_values():
    values = parse_default_grub((LEAPP / "etc-default-grub.correct").read_text())
    assert values["GRUB_CMDLINE_LINUX"].split() == [
        "console=tty0", "crashkernel=auto", "console=ttyS0,115200n8", "no_timer_check",
        "net.ifnames=0"]
    assert values["GRUB_TIMEOUT"] == "5" and values["GRUB_TERMINAL_OUTPUT"] == "console"
    puppet = parse_default_grub((LEAPP / "etc-default-grub.correct_puppet").read_text())
    assert puppet["GRUB_CMDLINE_LINUX"] == "elevator=noop"
    assert "GRUB_TERMINAL" not in puppet  # commented out


def test_wrong_default_grub_names_file_and_line():
    with pytest.raises(BootConfigError) as err:
        parse_default_grub((LEAPP / "etc-default-grub.wrong").read_text())
    assert err.value.message.startswith("/etc/default/grub:6: GRUB_CMDLINE_LINUX: ")
    assert "console=ttyS0,115200n8" in err.value.message and "\n" not in err.value.message


@pytest.mark.parametrize("text, line", [
    ('GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="quiet\n', 2),
    ("A=1\n\nGRUB_CMDLINE_LINUX='quiet\nB=2\n", 3),
])
def test_unbalanced_quotes_name_the_opening_line(text, line):
    with pytest.raises(BootConfigError, match=r"^x/grub:%d: GRUB_CMDLINE_LINUX: .* never closed" % line):
        parse_default_grub(text, "x/grub")


@pytest.mark.parametrize("path", GRUB_CFGS, ids=lambda p: p.name)
def test_legacy_grub_cfgs_parse(path):
    entries, _ = scan_grub_cfg(path.read_text())
    assert entries
    assert all(e.command in ("linux", "linux16", "linuxefi") for e in entries)


def test_grub_cfg_tuned_block_and_fallback_kernelopts():
    _, sets = scan_grub_cfg((GRUBBY / "grub2.16.grub.cfg").read_text())
    assert sets == {"tuned_params": "isolcpus=1,3"}
    _, sets = scan_grub_cfg((INSIGHTS / "boot/grub2/grub.cfg.rhel9.5-uefi-host").read_text())
    assert split_args(sets["kernelopts"])[:2] == ["root=/dev/mapper/rhel_vm--212--182-root", "ro"]
    entries, _ = scan_grub_cfg((INSIGHTS / "boot/grub2/grub.cfg.rhel9.5-uefi-host").read_text())
    assert entries == []  # only the fwsetup menuentry: kernels come from blscfg


def test_split_args_honours_double_quotes():
    assert split_args(' a  b="x y"\tc ') == ["a", 'b="x y"', "c"]
    assert split_args("") == []


# --- edits: only the owned line changes, add+remove restores, second run is a no-op ---

ADD = ["numa_balancing=disable", "transparent_hugepage=never"]


@pytest.mark.parametrize("kind, path", TEXT_EDITS, ids=lambda v: getattr(v, "name", v))
def test_text_edits_round_trip(kind, path):
    text = path.read_text()
    new = EDITORS[kind](text, ADD, [])
    if "$kernelopts" in text and kind == "bls":
        assert new == text  # the grubenv edit adds for it
        return
    assert new != text
    for n in changed_lines(text, new):
        line = new.splitlines()[n].strip()
        assert line.split()[0] in ("options", "linux", "linux16", "linuxefi") \
            or line.startswith("GRUB_CMDLINE_LINUX="), line
        assert all(" " + a in line for a in ADD)
    assert EDITORS[kind](new, ADD, []) == new
    assert EDITORS[kind](new, [], ["numa_balancing", "transparent_hugepage"]) == text


@pytest.mark.parametrize("path", GOOD_GRUBENV, ids=lambda p: p.name)
def test_grubenv_without_kernelopts_is_left_alone(path):
    data = path.read_bytes()
    assert edit_grubenv(data, ADD, ["quiet"]) == data


def test_grubenv_edit_keeps_block_size_and_other_lines():
    data = grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel8.4-tuned_params")
    new = edit_grubenv(data, ["numa=off"], ["noapic", "console"])
    assert len(new) == 1024 and new.startswith(GRUBENV_HEADER)
    old_lines, new_lines = data.split(b"\n"), new.split(b"\n")
    assert [n for n, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [2, 7]
    env = parse_grubenv(new)
    assert split_args(env["kernelopts"])[-2:] == ["rd.lvm.lv=root_vg/lv_swap", "numa=off"]
    assert env["tuned_params"] == "transparent_hugepages=never"
    assert edit_grubenv(new, ["numa=off"], ["noapic", "console"]) == new
    back = edit_grubenv(data, ["numa=off"], [])
    assert edit_grubenv(back, [], ["numa=off"]) == data


def test_grubenv_overflow_is_refused():
    data = grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel8.4-tuned_params")
    with pytest.raises(BootConfigError, match="^/boot/grub2/grubenv: kernelopts would need"):
        edit_grubenv(data, ["isolcpus=" + ",".join(map(str, range(200)))], [],
                     "/boot/grub2/grubenv")


def test_bls_entry_with_kernelopts_only_loses_literals():
    text = (ENTRIES / RHEL84).read_text()
    assert edit_bls_entry(text, ["numa=off"], ["quiet"]) == text
    literal = text.replace("$tuned_params", "$tuned_params transparent_hugepage=always")
    assert edit_bls_entry(literal, ["transparent_hugepage=never"], []) == text


def test_bls_entry_without_options_gets_one():
    assert edit_bls_entry("title x\nlinux /vmlinuz-1", ["numa=off"], []) == \
        "title x\nlinux /vmlinuz-1\noptions numa=off\n"


def test_grub_cfg_edit_skips_rescue_and_tuned_block():
    text = (GRUBBY / "grub2.16.grub.cfg").read_text()
    new = edit_grub_cfg(text, ["numa=off"], ["LANG"])
    assert changed_lines(text, new) == [100, 114]
    assert "set tuned_params=\"isolcpus=1,3\"" in new
    assert new.splitlines()[100].endswith("console=ttyS0,115200n81  $tuned_params numa=off")


def test_default_grub_edit_keeps_quotes_and_handles_default_and_absence():
    text = (LEAPP / "etc-default-grub.correct").read_text()
    new = edit_default_grub(text, ["crashkernel=256M"], ["console"])
    assert changed_lines(text, new) == [5]
    assert new.splitlines()[5] == 'GRUB_CMDLINE_LINUX="crashkernel=256M no_timer_check net.ifnames=0"'
    single = "GRUB_CMDLINE_LINUX='quiet'\nGRUB_CMDLINE_LINUX_DEFAULT=\"numa=off rhgb\"\n"
    assert edit_default_grub(single, ["numa=fake"], ["rhgb"]) == \
        "GRUB_CMDLINE_LINUX='quiet numa=fake'\nGRUB_CMDLINE_LINUX_DEFAULT=\"\"\n"
    assert edit_default_grub("GRUB_CMDLINE_LINUX=quiet\n", ["numa=off"], []) == \
        'GRUB_CMDLINE_LINUX="quiet numa=off"\n'
    assert edit_default_grub("GRUB_TIMEOUT=5", ["numa=off"], []) == \
        'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="numa=off"\n'
    with pytest.raises(BootConfigError, match="^/etc/default/grub:1: GRUB_CMDLINE_LINUX is too"):
        edit_default_grub('GRUB_CMDLINE_LINUX="a "\'numa=off\'\n', [], ["numa"])


def test_kernel_cmdline_edit():
    text = (ENTRIES / RHEL95).read_text().split("options ", 1)[1].split("\n", 1)[0] + "\n"
    new = edit_kernel_cmdline(text, ["hugepages=512"], ["resume"])
    assert new.endswith(" rd.lvm.lv=rhel_vm-212-182/swap hugepages=512\n")
    assert "resume=" not in new and edit_kernel_cmdline(new, ["hugepages=512"], ["resume"]) == new
    assert edit_kernel_cmdline("", ["numa=off"], []) == "numa=off\n"


def test_apply_editor_handles_bytes_for_every_editor():
    data = (LEAPP / "etc-default-grub.correct").read_bytes()
    assert apply_editor("default_grub", data, [], []) == data
    assert apply_editor("grubenv", (GRUBBY / "grubenv.1").read_bytes(), ["a=1"], []) == \
        (GRUBBY / "grubenv.1").read_bytes()


# --- edit_args -------------------------------------------------------------------------

def test_edit_args_semantics():
    args = ["ro", "numa=off", "numa", "numa_balancing=0", "transparent_hugepage=always", "quiet"]
    assert edit_args(args, [], ["numa=off"]) == ["ro", "numa", "numa_balancing=0",
                                                 "transparent_hugepage=always", "quiet"]
    assert edit_args(args, [], ["numa"]) == ["ro", "numa_balancing=0",
                                             "transparent_hugepage=always", "quiet"]
    assert edit_args(args, ["transparent_hugepage=never"], [])[4] == "transparent_hugepage=never"
    assert edit_args(["a=1", "b", "a=2"], ["a=2"], []) == ["b", "a=2"]
    assert edit_args(["$kernelopts", "x"], ["y"], ["x"]) == ["$kernelopts", "y"]
    for bad in (["a b"], ['a="b"'], ["$x"], [""]):
        with pytest.raises(ValueError):
            edit_args([], bad, [])
    with pytest.raises(ValueError):
        edit_args([], ["numa=off"], ["numa"])
    with pytest.raises(ValueError):
        edit_args([], ["hugepagesz=1G", "hugepagesz=2M"], [])


def test_hugepage_arguments_go_last_in_the_order_given():
    args = ["ro", "hugepages=512", "quiet"]
    want = ["hugepagesz=1G", "hugepages=16"]
    together = edit_args(args, want, [])
    assert together == ["ro", "quiet", "hugepagesz=1G", "hugepages=16"]
    # The engine edits one argument at a time: same result.
    assert edit_args(edit_args(args, want[:1], []), want[1:], []) == together
    assert edit_args(together, want, []) == together
    cfg = BootConfig("bls", [BootEntry("/e", "t", "1", together, "")], "", None, "", None, "", [],
                     "", [])
    assert missing_in_entries(cfg, want, []) == []
    cfg.entries[0].args = ["hugepages=16", "hugepagesz=1G"]
    assert missing_in_entries(cfg, want, []) == [("/e", "lacks hugepagesz=1G hugepages=16")]
    text = "ro hugepages=16  hugepagesz=1G quiet"
    assert edit_arg_text(text, ["hugepages=16"], []) == text


_names = st.sampled_from(["numa", "quiet", "ro", "isolcpus", "hugepages", "hugepagesz",
                          "rd.lvm.lv", "thp"])
_values = st.sampled_from(["", "=off", "=1", "=never", "=1-3,5", "=a/b"])
_arg = st.builds(lambda n, v: n + v, _names, _values)


@given(st.lists(_arg, max_size=12), st.lists(_arg, max_size=4), st.lists(_arg, max_size=4),
       st.data())
def test_edit_args_property(args, add, remove, data):
    add = list({a.split("=")[0]: a for a in add}.values())  # one value per key
    remove = [r if data.draw(st.booleans()) else r.split("=")[0] for r in remove]
    remove = [r for r in remove if not any(_hits(a, r) for a in add)]
    out = edit_args(args, add, remove)
    assert all(a in out for a in add)
    assert not any(_hits(t, r) for t in out for r in remove)
    keys = {a.split("=")[0] for a in add}
    untouched = [t for t in args if t.split("=")[0] not in keys
                 and not any(_hits(t, r) for r in remove)]
    assert [t for t in out if t in untouched] == untouched
    assert edit_args(out, add, remove) == out


@given(st.lists(st.tuples(st.sampled_from([" ", "  ", "\t", " \t "]), _arg), max_size=10),
       st.sampled_from(["", " ", "\n", "  \n"]), st.lists(_arg, max_size=3),
       st.lists(_arg, max_size=3))
def test_edit_arg_text_matches_edit_args_and_keeps_spacing(pieces, tail, add, remove):
    text = "".join(sep + arg for sep, arg in pieces) + tail
    add = list({a.split("=")[0]: a for a in add}.values())
    remove = [r for r in remove if not any(_hits(a, r) for a in add)]
    new = edit_arg_text(text, add, remove)
    assert split_args(new) == edit_args(split_args(text), add, remove)
    assert new.endswith(tail)
    fresh = [a for a in add if a.split("=")[0] not in {t.split("=")[0] for t in split_args(text)}]
    if fresh:
        assert edit_arg_text(edit_arg_text(text, fresh, []), [], fresh) == text


def _hits(token, pattern):
    return token == pattern or ("=" not in pattern and token.startswith(pattern + "="))


# --- read_boot_config on fake roots built from the captures ----------------------------

@pytest.fixture
def rhel84(tmp_path):
    put(tmp_path, "/boot/loader/entries/" + RHEL84, ENTRIES / RHEL84)
    put(tmp_path, "/boot/loader/entries/" + RHEL80, ENTRIES / RHEL80)
    put(tmp_path, "/boot/grub2/grubenv",
        grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel8.4-tuned_params"))
    put(tmp_path, "/etc/default/grub", INSIGHTS / "etc/default/grub.rhel8-blscfg")
    return tmp_path


def test_rhel84_kernelopts_and_tuned_params(rhel84):
    cfg = read_boot_config(Root(str(rhel84)))
    assert cfg.kind == "bls" and cfg.grub_cfg_path == ""
    entries = {e.path.rsplit("/", 1)[1]: e for e in cfg.entries}
    e84 = entries[RHEL84]
    assert e84.raw_options == "$kernelopts $tuned_params"
    assert e84.args == cfg.kernelopts + ["transparent_hugepages=never"]
    assert e84.version == "4.18.0-305.el8.x86_64" and not e84.rescue
    assert entries[RHEL80].args[-2:] == ["transparent_hugepages=never", "noapic"]
    assert cfg.default_grub_args[-1] == "crashkernel=auto"
    assert cfg.files == ["/boot/loader/entries/" + RHEL80, "/boot/loader/entries/" + RHEL84,
                         "/boot/grub2/grubenv", "/etc/default/grub"]

    plan = plan_boot_edits(cfg, ["numa_balancing=disable"], ["noapic"])
    assert plan_boot_edits(through_json(cfg), ["numa_balancing=disable"], ["noapic"]) == plan
    assert plan == [("/boot/loader/entries/" + RHEL80, "bls"), ("/boot/grub2/grubenv", "grubenv"),
                    ("/etc/default/grub", "default_grub")]
    assert missing_in_entries(cfg, ["numa_balancing=disable"], ["noapic"]) == [
        ("/boot/loader/entries/" + RHEL80, "lacks numa_balancing=disable"),
        ("/boot/loader/entries/" + RHEL80, "carries noapic"),
        ("/boot/loader/entries/" + RHEL84, "lacks numa_balancing=disable"),
        ("/boot/loader/entries/" + RHEL84, "carries noapic")]
    assert plan_boot_edits(cfg, ["noapic"], []) == [("/etc/default/grub", "default_grub")]
    assert plan_boot_edits(cfg, ["crashkernel=auto"], ["numa"]) == []
    # Only tuned can take back what tuned put in: refuse rather than plan a no-op.
    with pytest.raises(BootConfigError, match="transparent_hugepages=never even after") as err:
        plan_boot_edits(cfg, [], ["transparent_hugepages"])
    assert "tuned" in err.value.hint


def test_rhel84_grub_cfg_tuned_set_wins_and_fallback(rhel84):
    put(rhel84, "/boot/grub2/grub.cfg", LEAPP / "rhel8-bls-valid_grub.cfg")
    cfg = read_boot_config(Root(str(rhel84)))
    assert cfg.kind == "bls" and cfg.tuned_params == []
    assert next(e for e in cfg.entries if e.path.endswith(RHEL84)).args == cfg.kernelopts
    # Without kernelopts in grubenv, GRUB falls back to grub.cfg's and numatune will not guess.
    put(rhel84, "/boot/grub2/grubenv", grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel9.5"))
    cfg = read_boot_config(Root(str(rhel84)))
    e84 = next(e for e in cfg.entries if e.path.endswith(RHEL84))
    assert cfg.kernelopts is None and e84.args == cfg.fallback_kernelopts
    assert e84.args[:3] == ["root=/dev/mapper/rootvg-rootlv", "ro", "ro"]
    with pytest.raises(BootConfigError, match="lacks numa=off") as err:
        plan_boot_edits(cfg, ["numa=off"], [])
    assert "$kernelopts" in err.value.hint


def test_symlinked_grubenv_is_journaled_at_its_target(rhel84):
    target = put(rhel84, "/boot/efi/EFI/redhat/grubenv", (rhel84 / "boot/grub2/grubenv").read_bytes())
    (rhel84 / "boot/grub2/grubenv").unlink()
    (rhel84 / "boot/grub2/grubenv").symlink_to("../efi/EFI/redhat/grubenv")
    cfg = read_boot_config(Root(str(rhel84)))
    assert cfg.grubenv_path == "/boot/efi/EFI/redhat/grubenv" and target.exists()
    assert ("/boot/efi/EFI/redhat/grubenv", "grubenv") in plan_boot_edits(cfg, ["numa=off"], [])


def test_rhel95_literal_options(tmp_path):
    for name in (RHEL95, RESCUE95):
        put(tmp_path, "/boot/loader/entries/" + name, ENTRIES / name)
    put(tmp_path, "/boot/grub2/grub.cfg", INSIGHTS / "boot/grub2/grub.cfg.rhel9.5-uefi-host")
    put(tmp_path, "/boot/efi/EFI/redhat/grub.cfg", INSIGHTS / "boot/efi/EFI/redhat/grub.cfg.rhel9.5-stub")
    put(tmp_path, "/boot/grub2/grubenv", grubenv_block(INSIGHTS / "boot/grub2/grubenv.rhel9.5"))
    options = parse_bls_entry((ENTRIES / RHEL95).read_text())["options"]
    put(tmp_path, "/etc/kernel/cmdline", (options + "\n").encode())
    cfg = read_boot_config(Root(str(tmp_path)))
    assert cfg.kind == "bls" and cfg.grub_cfg_path == "/boot/grub2/grub.cfg"
    assert cfg.kernelopts is None and cfg.default_grub_path == "" and cfg.default_grub_args is None
    rescue, main = cfg.entries
    assert rescue.rescue and not main.rescue and main.version == "5.14.0-503.11.1.el9_5.x86_64"
    # grubby --info=ALL on that host shows the same arguments, root= split off.
    info = (INSIGHTS / "grubby--info=ALL.rhel9.5.txt").read_text()
    grubby_args = [l[len('args="'):-1] for l in info.splitlines() if l.startswith("args=")]
    assert grubby_args == [" ".join(a for a in e.args if not a.startswith("root="))
                           for e in (main, rescue)]
    assert cfg.files == ["/boot/loader/entries/" + RHEL95, "/boot/grub2/grubenv",
                         "/etc/kernel/cmdline"]
    plan = plan_boot_edits(cfg, ["hugepagesz=1G", "hugepages=16"], [])
    assert plan == [("/boot/loader/entries/" + RHEL95, "bls"), ("/etc/kernel/cmdline", "kernel_cmdline")]
    assert plan_boot_edits(cfg, ["ro"], ["numa"]) == []
    assert missing_in_entries(cfg, ["ro"], ["numa"]) == []


def test_rhel7_legacy(tmp_path):
    put(tmp_path, "/boot/grub2/grub.cfg", GRUBBY / "grub2.16.grub.cfg")
    put(tmp_path, "/boot/grub2/grubenv", LEAPP / "grubenv.correct")
    put(tmp_path, "/etc/default/grub", LEAPP / "etc-default-grub.correct")
    cfg = read_boot_config(Root(str(tmp_path)))
    assert cfg.kind == "grub2-legacy" and cfg.tuned_params == ["isolcpus=1,3"]
    assert [e.path for e in cfg.entries] == ["/boot/grub2/grub.cfg#%d" % n for n in range(3)]
    first, second, rescue = cfg.entries
    assert first.args[-2:] == ["isolcpus=1,3", "LANG=en_US.UTF-8"]
    assert first.version == "3.10.0-297.el7.x86_64" and rescue.rescue
    assert cfg.grubenv == {"saved_entry": "Red Hat Enterprise Linux Server (3.10.0-1160.80.1.el7.x86_64) 7.9 (Maipo)"}
    assert cfg.files == ["/boot/grub2/grubenv", "/boot/grub2/grub.cfg", "/etc/default/grub"]
    plan = plan_boot_edits(cfg, ["numa=off"], [])
    assert plan == [("/boot/grub2/grub.cfg", "grub_cfg"), ("/etc/default/grub", "default_grub")]
    assert plan_boot_edits(through_json(cfg), ["numa=off"], []) == plan
    assert plan_boot_edits(cfg, [], ["LANG"]) == [("/boot/grub2/grub.cfg", "grub_cfg")]
    with pytest.raises(BootConfigError, match="carries isolcpus=1,3"):
        plan_boot_edits(cfg, [], ["isolcpus"])


def test_fedora_uefi_legacy_grub_cfg_under_efi(tmp_path):
    put(tmp_path, "/boot/efi/EFI/fedora/grub.cfg", GRUBBY / "grub2.15.grub.cfg")
    cfg = read_boot_config(Root(str(tmp_path)))
    assert cfg.kind == "grub2-legacy" and cfg.grub_cfg_path == "/boot/efi/EFI/fedora/grub.cfg"
    assert cfg.entries[0].args == ["root=/dev/mapper/fedora_uefi-root", "ro",
                                   "rd.lvm.lv=fedora_uefi/root", "rd.lvm.lv=fedora_uefi/swap",
                                   "rhgb", "quiet"]


def test_empty_root(tmp_path):
    cfg = read_boot_config(Root(str(tmp_path)))
    assert (cfg.kind, cfg.entries, cfg.files, cfg.grubenv_path, cfg.kernelopts) == \
        ("none", [], [], "", None)
    assert plan_boot_edits(cfg, ["numa=off"], []) == []


@pytest.mark.parametrize("host_path, fixture, match", [
    ("/etc/default/grub", LEAPP / "etc-default-grub.wrong", r"^/etc/default/grub:6: "),
    ("/boot/grub2/grubenv", LEAPP / "grubenv.wrong2", r"^/boot/grub2/grubenv: not a GRUB"),
])
def test_malformed_files_stop_the_read(tmp_path, host_path, fixture, match):
    put(tmp_path, "/boot/grub2/grub.cfg", GRUBBY / "grub2.18.grub.cfg")
    put(tmp_path, host_path, fixture)
    with pytest.raises(BootConfigError, match=match):
        read_boot_config(Root(str(tmp_path)))


def test_non_utf8_bytes_survive_facts_and_edits(tmp_path):
    entry = (ENTRIES / RHEL95).read_bytes().replace(b"(Plow)", b"(Pl\xf6w)")
    put(tmp_path, "/boot/loader/entries/" + RHEL95, entry)
    cfg = through_json(read_boot_config(Root(str(tmp_path))))
    assert plan_boot_edits(cfg, ["numa=off"], []) == [("/boot/loader/entries/" + RHEL95, "bls")]
    new = apply_editor("bls", entry, ["numa=off"], [])
    assert b"(Pl\xf6w)" in new and apply_editor("bls", new, [], ["numa=off"]) == entry


@pytest.mark.parametrize("running, ok", [("ro numa=off quiet", False), ("ro transparent_hugepage=never", True),
                                         (None, False)])
def test_boot_change_says_whether_the_running_kernel_has_it(rhel84, cli, running, ok):
    """check grades a boot change by this flag: warning when only the next
    boot would be wrong, critical when the running kernel is off too."""
    if running is not None:
        put(rhel84, "/proc/cmdline", (running + "\n").encode())
    policy = put(rhel84, "/p.toml", b'[kernel.cmdline]\npresent = ["transparent_hugepage=never"]\n')
    status, out, err = cli("plan", "--root", rhel84, "--policy", policy, "--format", "json")
    assert status == 0, err
    [change] = [c for c in json.loads(out)["changes"] if c["id"] == "cmdline.add:transparent_hugepage=never"]
    assert change["running_ok"] is ok and change["family"] == "boot"
