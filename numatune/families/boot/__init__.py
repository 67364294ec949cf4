"""The kernel command line in every bootloader era (BLS, grubenv, grub.cfg,
/etc/default/grub, /etc/kernel/cmdline) and Transparent HugePages, live
through sysfs and kept across a reboot by its boot argument."""
from numatune.family import Family, Snapshot
from numatune.families.boot import cmdline, nextboot, thp
from numatune.model import Compliant


def diff(data, facts):
    live = list(thp.diff(data, facts))
    boot = list(cmdline.diff(data, facts))
    kept = thp.keepers(data, facts, boot)
    for item in live:
        if isinstance(item, Compliant):
            item.kept_by = "; ".join(kept)
    yield from live
    yield from boot
    yield from nextboot.findings(facts)


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.boot import facts_text
    return facts_text.facts_lines(facts)


def _as_policy(facts):
    # Imported for `facts --format policy` only.
    from numatune.families.boot import as_policy
    return as_policy.as_policy(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.boot import recommend
    return recommend.recommend(facts)


FAMILY = Family(
    name=cmdline.NAME, areas=("kernel", "memory"), policy=cmdline.POLICY, read=cmdline.read, diff=diff,
    check_policy=cmdline.check_policy, editors=cmdline.EDITORS,
    # Whether the next boot still has numa=off: families bound to nodes it hides read it.
    resolve=nextboot.resolve,
    facts_lines=_facts_lines,
    snapshot=Snapshot(patterns=(
        ("/sys/kernel/mm/transparent_hugepage", r"^(enabled|defrag)$", False),
        ("/sys/kernel/mm/redhat_transparent_hugepage", r"^(enabled|defrag)$", False),
        ("/etc/default", r"^grub$", False),
        ("/etc/kernel", r"^cmdline$", False),
        ("/boot/loader/entries", r"\.conf$", False),
        ("/boot/grub2", r"^(grub\.cfg|grubenv)$", False),
        ("/boot/efi/EFI", r".*", True),
        # GRUB legacy (RHEL/OL 6): grub.conf, menu.lst and /etc/grub.conf (links kept as links).
        # Debian's update-grub: GRUB 2's grub.cfg in /boot/grub.
        ("/boot/grub", r"^(grub\.conf|menu\.lst|grub\.cfg)$", False),
        ("/etc", r"^grub\.conf$", False),
        # BIOS or UEFI boot: which of two grub.cfg files the firmware reads.
        ("/sys/firmware/efi", r"^(fw_platform_size|systab)$", False),
        ("/sys/firmware/memmap/0", r"^type$", False),
    ), keep=(r"grub\.cfg", r"grubenv"), keep_all=("/boot/efi/EFI",)),
    recommend=_recommend, as_policy=_as_policy,
)
