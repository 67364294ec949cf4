"""Which grub.cfg / grub.conf the next boot reads, when a host has more
than one.

A host installed for BIOS keeps /boot/grub2/grub.cfg; one installed for
UEFI keeps /boot/efi/EFI/<vendor>/grub.cfg (RHEL 7, 8), or there a stub
that only says ``configfile`` and points at /boot/grub2 (RHEL 9). A host
converted or reinstalled may hold both full files, one stale. The firmware
decides: /sys/firmware/efi exists when the kernel was booted by UEFI. When
it cannot be told (a capture without /sys/firmware), both are edited and the
plan says so.
"""
EFI_DIR = "/boot/efi/EFI"
BIOS_CFG = "/boot/grub2/grub.cfg"
# Debian and Ubuntu's grub-mkconfig (update-grub) writes GRUB 2's grub.cfg to /boot/grub: not GRUB legacy's
# grub.conf/menu.lst, which live beside it on RHEL/OL 6.
BIOS_CFGS = (BIOS_CFG, "/boot/grub/grub.cfg")
LEGACY_PATHS = ("/boot/grub/grub.conf", "/boot/grub/menu.lst", "/etc/grub.conf")


def boot_mode(root):
    """"uefi", "bios" or "unknown" (a capture that kept nothing of /sys/firmware)."""
    if root.exists("/sys/firmware/efi"):
        return "uefi"
    if root.is_live or root.exists("/sys/firmware"):
        return "bios"
    return "unknown"


def is_stub(text):
    """An EFI grub.cfg that only hands over to another file (RHEL 9's)."""
    words = [line.split()[0] for line in (text or "").splitlines() if line.split()]
    return "configfile" in words and not {"menuentry", "blscfg"} & set(words)


def _existing(root, paths):
    out = []
    for path in paths:
        real = root.realpath(path)
        if root.exists(real) and not root.isdir(real) and real not in out:
            out.append(real)
    return out


def grub_cfgs(root):
    """(the grub.cfg to read, [others edited too], a sentence saying which and why, or "")."""
    efis = [p for p in _existing(root, [d + "/grub.cfg" for d in root.glob(EFI_DIR, "*")])
            if not is_stub(root.read_text(p))]
    bios = _existing(root, BIOS_CFGS)[:1]
    if not efis or not bios or efis[0] in bios:
        found = bios + [p for p in efis if p not in bios]
        return (found[0] if found else ""), [], ""
    efi, mode = efis[0], boot_mode(root)
    if mode == "uefi":
        return efi, [], ("%s is the grub.cfg UEFI firmware boots here (/sys/firmware/efi): numatune edits it; "
                         "%s is not booted and stays as it is" % (efi, bios[0]))
    if mode == "bios":
        return bios[0], [], ("%s is the grub.cfg BIOS boot reads here (no /sys/firmware/efi): numatune edits it; "
                             "%s is not booted and stays as it is" % (bios[0], efi))
    return bios[0], [efi], ("both %s and %s hold boot entries and this capture does not tell BIOS from UEFI "
                            "boot (no /sys/firmware): numatune edits both" % (bios[0], efi))


def grub_conf(root):
    """GRUB legacy's grub.conf (links resolved), or ""."""
    found = _existing(root, list(LEGACY_PATHS) + [d + "/grub.conf" for d in root.glob(EFI_DIR, "*")])
    return found[0] if found else ""
