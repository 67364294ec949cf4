"""tuned's global configuration, /etc/tuned/tuned-main.conf: whether tuned
re-applies the sysctl.d files after its profile's [sysctl] unit.

tuned 2.7 (2016, rhbz#1302953) added ``reapply_sysctl``, on by default
(tuned's consts.CFG_DEF_REAPPLY_SYSCTL = True; the shipped file says
``reapply_sysctl = 1``): after the profile's sysctls, its sysctl plugin
writes every key of the system's sysctl files again, so a sysctl.d value
wins over the profile's. Since tuned 2.13 those files are /run/sysctl.d and
/etc/sysctl.d (``*.conf``, by file name, /run first for a name in both),
then /etc/sysctl.conf (plugin_sysctl.SYSCTL_CONFIG_DIRS; 2.7 to 2.12 ran
``sysctl --system``, which also read /usr/lib/sysctl.d). tuned 2.27 added
``reapply_sysctl_exclude``: keys matching its patterns (fnmatch, separated
by "," or ";") are not re-applied, so the profile's value stays. Before
2.7 tuned re-applied nothing. Read the same way as tuned reads it
(GlobalConfig: configparser, "=" only, ``#`` comments, the last line wins).

Pure: ``parse`` takes the file's text, ``reapplies`` the parsed result.
"""
import fnmatch
import re

PATH = "/etc/tuned/tuned-main.conf"
SINCE = (2, 7)
TRUE = ("1", "yes", "true", "on")
FALSE = ("0", "no", "false", "off")


def parse(text):
    """{option: (value, line number)}: the last line for an option wins."""
    out = {}
    for number, raw in enumerate((text or "").splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, _, value = line.partition("=")
        # configparser's inline_comment_prefixes=("#",): a "#" after whitespace starts a comment.
        value = re.split(r"\s#", value, maxsplit=1)[0]
        out[key.strip()] = (value.strip(), number)
    return out


def parse_version(text):
    """(major, minor) from tuned/version.py, or None."""
    m = re.search(r"TUNED_VERSION_MAJOR\s*=\s*(\d+)\s*\n\s*TUNED_VERSION_MINOR\s*=\s*(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def read(root):
    """What ``reapplies`` needs from a root: the file's options and the
    installed tuned's version where its package is found."""
    text = root.read_text(PATH)
    version = None
    # tuned's Python package: Debian's dist-packages, RHEL's site-packages (noarch, any Python).
    dirs = ["/usr/lib/python3/dist-packages"] + [d + "/site-packages" for d in root.glob("/usr/lib", "python*")]
    for d in dirs:
        version = version or parse_version(root.read_text(d + "/tuned/version.py"))
    return {"options": parse(text) if text is not None else None, "version": list(version) if version else None}


def reapplies(main, key):
    """(True, False or None for unknown, the reason in words) for ``key``:
    whether tuned writes the sysctl.d value again after its profile's."""
    options = (main or {}).get("options")
    version = tuple((main or {}).get("version") or ()) or None
    if version and version < SINCE:
        return False, "tuned %d.%d re-applies no sysctl.d file (reapply_sysctl came with tuned 2.7)" % version
    setting = (options or {}).get("reapply_sysctl")
    if setting is None:
        where = "%s does not set it" % PATH if options is not None else "no %s" % PATH
        if version:
            return True, "reapply_sysctl is on by default in tuned %d.%d (%s)" % (version + (where,))
        return True, "reapply_sysctl is on by default since tuned 2.7 (%s)" % where
    value, line = setting
    at = "%s:%d" % (PATH, line)
    if value.lower() in FALSE:
        return False, "reapply_sysctl = %s in %s" % (value, at)
    if value.lower() not in TRUE:
        return None, "reapply_sysctl = %s in %s is not a boolean tuned reads" % (value, at)
    exclude = (options or {}).get("reapply_sysctl_exclude")
    if exclude:
        patterns = [p.strip() for p in re.split(r"[,;]", exclude[0]) if p.strip()]
        hit = next((p for p in patterns if fnmatch.fnmatch(key, p)), None)
        if hit:
            return False, "reapply_sysctl = %s, but %s matches reapply_sysctl_exclude %s (%s:%d)" % (
                value, key, hit, PATH, exclude[1])
    return True, "reapply_sysctl = %s in %s" % (value, at)
