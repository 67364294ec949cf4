"""Where the kernel command line of the next boot comes from, read without changing anything.

RHEL/OL 8 and later keep one BLS file per kernel under /boot/loader/entries; RHEL 8
entries usually say ``options $kernelopts $tuned_params`` and GRUB fills the variables
from grubenv, RHEL 9 writes the arguments literally.  RHEL/OL 7 boots the menuentries
of a generated grub.cfg.  /etc/default/grub and /etc/kernel/cmdline decide what kernels
installed later get.  Parsing is pure; only ``read_boot_config`` touches the root, so
the planner can re-run the same assembly on edited bytes to check its own work.
"""
from __future__ import annotations

import re

from numatune.errors import BootConfigError
from numatune.families.boot import grub_d, grub_files, grub_legacy
from numatune.families.boot.default_grub import DEFAULT_GRUB, parse_default_grub
from numatune.families.boot.grubenv import ENCODING, parse_grubenv
from numatune.model.records import field, record

ENTRIES_DIR = "/boot/loader/entries"
GRUB2_DIR = "/boot/grub2"
EFI_DIR = "/boot/efi/EFI"
KERNEL_CMDLINE = "/etc/kernel/cmdline"

LINUX_COMMANDS = ("linux", "linux16", "linuxefi")

_VAR_TOKEN = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")
_GRUB_SET = re.compile(r"^\s*set\s+(kernelopts|tuned_params)=(.*?)\s*$")


@record
class BootEntry:
    path: str
    title: str
    version: str
    args: list
    raw_options: str
    # Rescue kernels are left as the installer made them: the way back in when tuning goes wrong.
    rescue: bool = False


@record
class BootConfig:
    kind: str
    entries: list
    grubenv_path: str
    kernelopts: list
    default_grub_path: str
    default_grub_args: list
    kernel_cmdline_path: str
    kernel_cmdline_args: list
    grub_cfg_path: str
    files: list
    grubenv: dict = field(default_factory=dict)
    # grub.cfg's `set kernelopts=` that GRUB uses when grubenv has none.
    fallback_kernelopts: list = None
    # What $tuned_params expands to: grub.cfg's 00_tuned `set` (it runs after load_env), else
    # grubenv; None if set nowhere.
    tuned_params: list = None
    # Host path -> content as read, so edits are planned against exactly what was seen.
    # Text decoded with surrogateescape (encode() gives the bytes back) to stay JSON-safe.
    contents: dict = field(default_factory=dict, repr=False)
    # GRUB legacy's grub.conf (RHEL/OL 6).
    grub_conf_path: str = ""
    # Other grub.cfg files edited too (BIOS and UEFI both hold entries, boot mode unknown),
    # and the sentence that says which file(s) and why ("" when there was no choice).
    grub_cfg_others: list = field(default_factory=list)
    boot_choice: str = ""
    # /etc/default/grub.d/*.cfg that the next grub-mkconfig sources after /etc/default/grub (grub_d.py).
    grub_d_paths: list = field(default_factory=list)


def split_args(s):
    """Kernel-style split: whitespace separates, double quotes group (and are kept)."""
    return [s[a:b] for a, b in arg_spans(s or "")]


def arg_spans(s):
    """(start, end) of each argument in ``s``, for edits that keep the spacing around them."""
    spans, start, quoted = [], None, False
    for i, ch in enumerate(s):
        if ch == '"':
            quoted = not quoted
        if ch.isspace() and not quoted:
            if start is not None:
                spans.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        spans.append((start, len(s)))
    return spans


def variable_name(token):
    """"$kernelopts" or "${kernelopts}" -> "kernelopts"; anything else -> None."""
    m = _VAR_TOKEN.match(token)
    return (m.group(1) or m.group(2)) if m else None


def is_rescue(title, version, kernel=""):
    return ("rescue" in (title or "").lower() or (version or "").startswith("0-rescue")
            or "-rescue-" in (kernel or ""))


# --- BLS entries -----------------------------------------------------------------------

def parse_bls_entry(text):
    """key -> value.  Repeated ``options``/``initrd`` lines add up, as in the BLS spec."""
    entry = {}
    for line in text.splitlines():
        parts = line.strip().split(None, 1)
        if not parts or parts[0].startswith("#"):
            continue
        key, value = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if key in ("options", "initrd") and key in entry:
            entry[key] = (entry[key] + " " + value).strip()
        else:
            entry[key] = value
    return entry


# --- legacy grub.cfg -------------------------------------------------------------------

@record
class GrubMenuEntry:
    title: str
    lineno: int          # 0-based index of the menuentry's linux line in text.splitlines()
    command: str         # linux, linux16 or linuxefi
    kernel: str
    args_start: int      # offset in that line where the arguments (after the kernel path) begin


def scan_grub_cfg(text):
    """Menuentries with a linux/linux16/linuxefi line; the last top-level `set` of
    kernelopts and tuned_params."""
    entries, sets, stack = [], {}, []
    for n, line in enumerate(text.splitlines()):
        words = line.split()
        if not words:
            continue
        head = words[0]
        if head in ("menuentry", "submenu", "function") and line.rstrip().endswith("{"):
            stack.append((head, _first_quoted(line[line.index(head) + len(head):])))
            continue
        if head == "}" and stack:
            stack.pop()
            continue
        if head in LINUX_COMMANDS and stack and stack[-1][0] == "menuentry" and len(words) > 1:
            m = re.match(r"\s*\S+\s+\S+", line)
            entries.append(GrubMenuEntry(stack[-1][1], n, head, words[1], m.end()))
        m = _GRUB_SET.match(line)
        if m and not stack:
            sets[m.group(1)] = _unquote_grub(m.group(2))
    return entries, sets


def _first_quoted(s):
    m = re.match(r"\s*(?:'([^']*)'|\"([^\"]*)\"|(\S+))", s)
    return next(g for g in m.groups() if g is not None) if m else ""


def _unquote_grub(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def has_blscfg(text):
    return any(line.strip() == "blscfg" for line in (text or "").splitlines())


# --- assembly --------------------------------------------------------------------------

def decode(data):
    return data.decode(*ENCODING) if isinstance(data, bytes) else data


def encode(text):
    return text.encode(*ENCODING) if isinstance(text, str) else text


def read_boot_config(root):
    """Everything that decides the next boot's command line, from the files under ``root``."""
    contents = {}

    def take(path):
        try:
            data = root.read_bytes(path)
        except PermissionError:
            data = None
        except OSError as e:
            # A link loop, an I/O error: the file is there but says nothing numatune can trust.
            raise BootConfigError("cannot read %s: %s" % (path, e.strerror or e),
                                  "fix or remove the file; numatune edits no boot file it cannot read")
        if data is not None:
            contents[path] = data
        elif root.exists(path) and not root.isdir(path):
            # There but unreadable (a non-root run, grub.cfg is 0600 on RHEL):
            # planning as if it were absent would say false things about the next boot.
            raise BootConfigError("cannot read %s (permission denied?)" % path,
                                  "run numatune as root to plan boot arguments")
        return data is not None

    entry_paths = [p for p in (root.realpath(p) for p in root.glob(ENTRIES_DIR, "*.conf"))
                   if not root.isdir(p) and take(p)]
    efi_dirs = root.glob(EFI_DIR, "*")
    grubenv = _first_file(root, [GRUB2_DIR + "/grubenv"] + [d + "/grubenv" for d in efi_dirs])
    grub_cfg, others, choice = grub_files.grub_cfgs(root)
    default_grub = _first_file(root, [DEFAULT_GRUB])
    found = grub_d.paths(root)
    grub_d_paths = [p for p in found if take(p)] if found and grub_d.sourced(root) else []
    kernel_cmdline = _first_file(root, [KERNEL_CMDLINE])
    grub_conf = grub_files.grub_conf(root)
    grubenv, grub_cfg, default_grub, kernel_cmdline, grub_conf = (
        p if p and take(p) else "" for p in (grubenv, grub_cfg, default_grub, kernel_cmdline, grub_conf))
    others = [p for p in others if take(p)]
    return boot_config_from_files(contents, entry_paths, grubenv, default_grub,
                                  kernel_cmdline, grub_cfg, grub_conf, others, choice, grub_d_paths)


def _first_file(root, candidates):
    # Symlinks are resolved so the journal saves and rewrites the file GRUB reads
    # (/boot/grub2/grubenv is a link into the ESP on RHEL 8 UEFI hosts).
    for path in candidates:
        real = root.realpath(path)
        if root.exists(real) and not root.isdir(real):
            return real
    return ""


def boot_config_from_files(contents, entry_paths=(), grubenv_path="", default_grub_path="",
                           kernel_cmdline_path="", grub_cfg_path="", grub_conf_path="", grub_cfg_others=(),
                           boot_choice="", grub_d_paths=()):
    """Pure assembly of a BootConfig from file contents (host path -> bytes or str)."""
    contents = {path: decode(data) for path, data in contents.items()}
    env = parse_grubenv(encode(contents[grubenv_path]), grubenv_path) if grubenv_path else {}
    default = (parse_default_grub(decode(contents[default_grub_path]), default_grub_path)
               if default_grub_path else {})
    cfg_text = decode(contents[grub_cfg_path]) if grub_cfg_path else ""
    menu, sets = scan_grub_cfg(cfg_text)
    variables = {name: split_args(value) for name, value in env.items()}
    fallback = split_args(sets["kernelopts"]) if "kernelopts" in sets else None
    if not variables.get("kernelopts"):
        # grub.cfg's `if [ -z "${kernelopts}" ]` also catches an empty one.
        variables["kernelopts"] = fallback or []
    tuned = variables.get("tuned_params")
    if "tuned_params" in sets:
        # 00_tuned runs after load_env, so its `set` is what blscfg expands.
        tuned = split_args(sets["tuned_params"])
    variables["tuned_params"] = tuned or []

    if entry_paths and (has_blscfg(cfg_text) or not menu):
        kind = "bls"
        entries = [_bls_entry(path, decode(contents[path]), variables) for path in entry_paths]
    elif menu:
        kind, entries = "grub2-legacy", []
        for path in [grub_cfg_path] + list(grub_cfg_others):
            text = cfg_text if path == grub_cfg_path else decode(contents[path])
            lines = text.splitlines()
            entries += [_menu_entry(path, n, e, lines[e.lineno], variables)
                        for n, e in enumerate(scan_grub_cfg(text)[0])]
    elif grub_conf_path and grub_legacy.scan(decode(contents[grub_conf_path]))[0]:
        kind, text = "grub-legacy", decode(contents[grub_conf_path])
        lines = text.splitlines()
        entries = [_menu_entry(grub_conf_path, n, e, lines[e.lineno], variables)
                   for n, e in enumerate(grub_legacy.scan(text)[0])]
    else:
        kind, entries = "none", []

    files = []
    if kind == "bls":
        files += [e.path for e in entries if not e.rescue]
    if kind == "grub2-legacy":
        files += list(grub_cfg_others)
    if kind != "none":
        files += [p for p in (grubenv_path, grub_cfg_path if kind == "grub2-legacy" else "",
                              grub_conf_path if kind == "grub-legacy" else "",
                              default_grub_path, kernel_cmdline_path) if p]
    return BootConfig(
        kind=kind, entries=entries, grubenv_path=grubenv_path,
        kernelopts=split_args(env["kernelopts"]) if "kernelopts" in env else None,
        default_grub_path=default_grub_path,
        default_grub_args=(split_args(default["GRUB_CMDLINE_LINUX"])
                           if "GRUB_CMDLINE_LINUX" in default else None),
        kernel_cmdline_path=kernel_cmdline_path,
        kernel_cmdline_args=(split_args(decode(contents[kernel_cmdline_path]))
                             if kernel_cmdline_path else []),
        grub_cfg_path=grub_cfg_path, files=files, grubenv=env,
        fallback_kernelopts=fallback, tuned_params=tuned, contents=dict(contents),
        grub_conf_path=grub_conf_path if kind == "grub-legacy" else "",
        grub_cfg_others=list(grub_cfg_others) if kind == "grub2-legacy" else [], boot_choice=boot_choice,
        grub_d_paths=list(grub_d_paths))


def expand(tokens, variables):
    """What GRUB passes to the kernel: whole-token variables replaced by their value."""
    out = []
    for token in tokens:
        name = variable_name(token)
        if name:
            out.extend(variables.get(name, []))
        else:
            out.append(token)
    return out


def _bls_entry(path, text, variables):
    entry = parse_bls_entry(text)
    kernel = entry.get("linux", "")
    version = entry.get("version") or _kernel_version(kernel)
    title = entry.get("title") or path.rsplit("/", 1)[-1]
    options = entry.get("options", "")
    return BootEntry(path, title, version, expand(split_args(options), variables), options,
                     is_rescue(title, version, kernel))


def _menu_entry(cfg_path, n, entry, line, variables):
    options = line[entry.args_start:].strip()
    version = _kernel_version(entry.kernel)
    return BootEntry("%s#%d" % (cfg_path, n), entry.title, version,
                     expand(split_args(options), variables), options,
                     is_rescue(entry.title, version, entry.kernel))


def _kernel_version(kernel):
    name = kernel.rsplit("/", 1)[-1]
    return name[len("vmlinuz-"):] if name.startswith("vmlinuz-") else ""
