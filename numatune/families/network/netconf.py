"""The files that keep a NIC's MTU and ethtool settings across reboots, as
pure editors and readers (text in, text out):

* NetworkManager keyfiles (``[ethernet] mtu``, ``[ethtool] coalesce-rx-usecs``),
* ``ifcfg-*`` (``MTU=``, ``ETHTOOL_OPTS="-C eth0 rx-usecs 0; -G eth0 rx 4096"``),
* otherwise a systemd ``.link`` file numatune owns.

Each ``*_wanted`` turns the desired settings into the format's own keys and
returns what cannot be expressed there, so the plan can say so.
"""
import re

# ethtool name -> NetworkManager [ethtool] key (NM >= 1.46 for channels).
NM_GROUP_PREFIX = {"coalesce": "coalesce-", "ring": "ring-", "channels": "channels-"}
NM_COALESCE_EXTRA = {"adaptive-rx": "coalesce-adaptive-rx", "adaptive-tx": "coalesce-adaptive-tx"}

# ethtool -X flag per group, as ETHTOOL_OPTS writes it.
ETHTOOL_FLAG = {"coalesce": "-C", "ring": "-G", "channels": "-L", "rx_flow_hash": "-N"}

# systemd.link(5) keys; anything else cannot be said in a .link file.
LINK_KEYS = {
    ("mtu", "mtu"): ("MTUBytes", str),
    ("channels", "rx"): ("RxChannels", str), ("channels", "tx"): ("TxChannels", str),
    ("channels", "other"): ("OtherChannels", str), ("channels", "combined"): ("CombinedChannels", str),
    ("ring", "rx"): ("RxBufferSize", str), ("ring", "tx"): ("TxBufferSize", str),
    ("ring", "rx-mini"): ("RxMiniBufferSize", str), ("ring", "rx-jumbo"): ("RxJumboBufferSize", str),
    ("coalesce", "rx-usecs"): ("RxCoalesceSec", lambda v: "%dus" % v),
    ("coalesce", "tx-usecs"): ("TxCoalesceSec", lambda v: "%dus" % v),
    ("coalesce", "rx-frames"): ("RxMaxCoalescedFrames", str),
    ("coalesce", "tx-frames"): ("TxMaxCoalescedFrames", str),
    ("coalesce", "adaptive-rx"): ("UseAdaptiveRxCoalesce", lambda v: "yes" if v else "no"),
    ("coalesce", "adaptive-tx"): ("UseAdaptiveTxCoalesce", lambda v: "yes" if v else "no"),
}
# Only the first matching .link file applies, so ours must keep what
# 99-default.link would have given the NIC (its name, its MAC).
LINK_DEFAULTS = [("NamePolicy", "keep kernel database onboard slot path"),
                 ("AlternativeNamesPolicy", "database onboard slot path"),
                 ("MACAddressPolicy", "persistent")]
LINK_HEADER = ("# Managed by numatune: `numatune revert` restores what was here.\n"
               "# Keeps %s's MTU and ethtool settings at boot (systemd.link(5)).\n")


# -- NetworkManager keyfile ---------------------------------------------------

def ini_get(text):
    out, section = {}, None
    for line in (text or "").splitlines():
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        m = re.match(r"^\[(.+)\]$", s)
        if m:
            section = m.group(1).strip()
            out.setdefault(section, {})
        elif "=" in s and section is not None:
            key, _, value = s.partition("=")
            out[section][key.strip()] = value.strip()
    return out


def ini_set(text, settings):
    """Set {section: {key: value}}, keeping every other line as it was."""
    lines = (text or "").splitlines()
    todo = {sec: dict(keys) for sec, keys in settings.items()}
    out, section = [], None

    def flush(sec):
        for key, value in todo.pop(sec, {}).items():
            out.append("%s=%s" % (key, value))

    for line in lines:
        s = line.strip()
        m = re.match(r"^\[(.+)\]$", s)
        if m:
            if section is not None:
                flush(section)
            section = m.group(1).strip()
        elif section in todo and "=" in s and s[0] not in "#;":
            key = s.partition("=")[0].strip()
            if key in todo[section]:
                out.append("%s=%s" % (key, todo[section].pop(key)))
                continue
        out.append(line)
    if section is not None:
        flush(section)
    for sec in list(todo):
        if out and out[-1].strip():
            out.append("")
        out.append("[%s]" % sec)
        flush(sec)
    return "\n".join(out) + "\n"


def nm_wanted(want, link_type=1):
    """(settings for ini_set, [(group, key) NM cannot keep])."""
    settings, missing = {}, []
    for group, values in want.items():
        for key, value in values.items():
            if group == "mtu":
                settings.setdefault("infiniband" if link_type == 32 else "ethernet", {})["mtu"] = str(value)
            elif group in NM_GROUP_PREFIX:
                name = NM_COALESCE_EXTRA.get(key) or NM_GROUP_PREFIX[group] + key
                settings.setdefault("ethtool", {})[name] = str(int(value))
            else:
                missing.append((group, key))
    return settings, missing


# -- ifcfg --------------------------------------------------------------------

_IFCFG_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# What makes shlex.split do more than split on its blanks (space, tab, CR, LF):
# quotes, escapes and comments. A value without them splits the same in C.
_SHELL_SPECIAL = re.compile(r"[\"'\\#]")
_SHELL_BLANKS = re.compile(r"[ \t\r\n]+")
# A value quoted whole, with nothing shlex reads inside the quotes (no
# backslash in double quotes, as ETHTOOL_OPTS="-C eth0 rx-usecs 0" is
# written): shlex.split gives the text between the quotes as one word.
_QUOTED_WHOLE = re.compile(r"\"([^\"\\]*)\"[ \t]*|'([^']*)'[ \t]*")


def ifcfg_get(text):
    out = {}
    for line in (text or "").splitlines():
        m = _IFCFG_LINE.match(line)
        if m:
            value = m.group(2)
            if not _SHELL_SPECIAL.search(value):
                # shlex costs ~30 us a line: 256 NICs' files, read three times each per plan. A value
                # with no blank at all (a line holds no line end) is its one word as it is.
                out[m.group(1)] = value if " " not in value and "\t" not in value else \
                    " ".join(p for p in _SHELL_BLANKS.split(value) if p)
                continue
            quoted = _QUOTED_WHOLE.fullmatch(value)
            if quoted:
                out[m.group(1)] = quoted.group(1) if quoted.group(2) is None else quoted.group(2)
                continue
            import shlex    # here: only a value with quotes, escapes or a comment needs it
            try:
                parts = shlex.split(value, comments=True)
            except ValueError:
                parts = [value]
            out[m.group(1)] = " ".join(parts)
    return out


def ifcfg_set(text, variables):
    import shlex    # here: a plan whose ifcfg files lack a variable never edits one
    lines = (text or "").splitlines()
    todo = dict(variables)
    out = []
    for line in lines:
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=", line)
        if m and m.group(1) in todo:
            value = todo.pop(m.group(1))
            if value is not None:
                out.append("%s=%s" % (m.group(1), shlex.quote(value)))
            continue
        out.append(line)
    out += ["%s=%s" % (k, shlex.quote(v)) for k, v in todo.items() if v is not None]
    return "\n".join(out) + "\n"


def parse_ethtool_opts(text):
    """ETHTOOL_OPTS -> [(flag, dev, [args])], one per ';'-separated command."""
    out = []
    for part in (text or "").split(";"):
        words = part.split()
        if len(words) >= 2:
            out.append((words[0], words[1], words[2:]))
    return out


def _opts_args(group, values):
    if group == "rx_flow_hash":
        args = []
        for flow, letters in sorted(values.items()):
            args += ["rx-flow-hash", flow, letters]
        return args
    args = []
    for key, value in sorted(values.items()):
        if key.startswith("adaptive-"):
            value = "on" if value else "off"
        args += [key, str(value)]
    return args


def ifcfg_wanted(want, ifname, current_opts):
    """Variables for ifcfg_set: MTU and ETHTOOL_OPTS merged with what is there."""
    variables = {}
    if "mtu" in want:
        variables["MTU"] = str(want["mtu"]["mtu"])
    commands = parse_ethtool_opts(current_opts)
    for group, values in want.items():
        if group == "mtu":
            continue
        flag = ETHTOOL_FLAG[group]
        merged = {}
        for f, _dev, args in commands:
            if f == flag and group != "rx_flow_hash":
                merged.update(dict(zip(args[::2], args[1::2])))
        merged.update({k: v for k, v in values.items()})
        if group == "rx_flow_hash":
            # -N takes one flow per command: keep other flows' commands.
            commands = [c for c in commands if not (c[0] == flag and len(c[2]) > 1 and c[2][1] in values)]
            commands += [(flag, ifname, _opts_args(group, {flow: v})) for flow, v in sorted(values.items())]
        else:
            commands = [c for c in commands if c[0] != flag] + [(flag, ifname, _opts_args(group, merged))]
    if len(want) > ("mtu" in want):
        variables["ETHTOOL_OPTS"] = "; ".join(" ".join([f, d] + a) for f, d, a in commands)
    return variables


def ifcfg_has(text, want, ifname):
    """Whether an ifcfg file already keeps every wanted setting: editing it
    would change no variable's value."""
    now = ifcfg_get(text)   # parsed once: ifcfg_edit would parse it again (256 NICs' files)
    variables = ifcfg_wanted(want, ifname, now.get("ETHTOOL_OPTS"))
    # A variable the file lacks, the edit adds (a line of its own, read back as that variable): the file
    # does not keep the settings, known without editing it and parsing it again (256 NICs' files
    # without ETHTOOL_OPTS).
    if any(v is not None and k not in now and _IDENT.fullmatch(k) for k, v in variables.items()):
        return False
    return ifcfg_get(ifcfg_set(text, variables)) == now


def nm_has(text, settings):
    return ini_get(ini_set(text, settings)) == ini_get(text)


# -- systemd .link ------------------------------------------------------------

def link_wanted(want):
    keys, missing = {}, []
    for group, values in want.items():
        for key, value in values.items():
            spec = LINK_KEYS.get((group, key))
            if spec is None:
                missing.append((group, key))
            else:
                keys[spec[0]] = spec[1](value)
    return keys, missing


def link_file(text, ifname, mac, keys):
    """The whole managed .link file (its previous text does not matter)."""
    match = "MACAddress=%s" % mac if mac else "OriginalName=%s" % ifname
    lines = [LINK_HEADER % ifname, "[Match]", match, "", "[Link]"]
    lines += ["%s=%s" % kv for kv in LINK_DEFAULTS]
    lines += ["%s=%s" % (k, keys[k]) for k in sorted(keys)]
    return "\n".join(lines) + "\n"


def bonding_opts(text):
    """ifcfg BONDING_OPTS ("mode=4 miimon=100") -> {key: value}."""
    return dict(w.split("=", 1) for w in (ifcfg_get(text).get("BONDING_OPTS") or "").split() if "=" in w)


def bonding_opts_edit(text, options):
    merged = bonding_opts(text)
    merged.update(options)
    return ifcfg_set(text, {"BONDING_OPTS": " ".join("%s=%s" % kv for kv in merged.items())})


def bonding_opts_has(text, options):
    return all(bonding_opts(text).get(k) == v for k, v in options.items())


def ifcfg_edit(text, ifname, want):
    return ifcfg_set(text, ifcfg_wanted(want, ifname, ifcfg_get(text).get("ETHTOOL_OPTS")))


def nm_edit(text, settings):
    return ini_set(text, settings)


EDITORS = {"net_nm": nm_edit, "net_networkd": nm_edit, "net_ifcfg": ifcfg_edit, "net_link": link_file, "net_ifcfg_bond": bonding_opts_edit}
