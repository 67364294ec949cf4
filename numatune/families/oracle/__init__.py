"""Oracle Database: where an instance's parameters live and how to change them.

Offline (any root): /etc/oratab, the parameter file Oracle itself would read
(spfile before pfile), pfiles edited in place, spfiles read only, the alert
log as the instance's own evidence. Live (the real / with a connection):
python-oracledb, imported only when a policy asks for a connection.
The diff is ``knob``; ALTER SYSTEM writes are ``sql_write``.
"""
from numatune.family import Family, Snapshot, WriteKinds
from numatune.families.oracle import knob, oratab

# Below each ORACLE_HOME in /etc/oratab: the parameter files Oracle reads at
# startup and orabasetab (where ORACLE_BASE, and so the alert log, is).
# The release (numatune.families.oracle.version): the inventory's comps.xml
# and saved `opatch lsinventory` output.
HOME_PATTERNS = (("dbs", r"^(init|spfile).*\.ora$"), ("install", r"^orabasetab$"),
                 ("inventory/ContentsXML", r"^comps\.xml$"), ("cfgtoollogs/opatch/lsinv", r"^lsinventory.*\.txt$"))


def home_patterns(root):
    homes = sorted({t["home"] for t in oratab.parse(root.read_text(oratab.ORATAB))})
    return [("%s/%s" % (home, sub), pattern, False) for home in homes for sub, pattern in HOME_PATTERNS]


# The same in sh: the second field of /etc/oratab lines, as oratab.parse reads them.
SH_HOMES = "\n".join(
    ["    [ -f \"$SRC/etc/oratab\" ] && sed -e 's/#.*//' \"$SRC/etc/oratab\" | awk -F: 'NF >= 2 && $1 ~ /^[A-Za-z+]/ "
     "&& $2 ~ /^\\// { sub(/\\/+$/, \"\", $2); print $2 }' | sort -u | while IFS= read -r home; do"]
    + ["        capture \"$home/%s\" '%s' 0" % (sub, pattern) for sub, pattern in HOME_PATTERNS]
    + ["    done"])


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.oracle import facts_text
    return facts_text.facts_lines(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.oracle import recommend
    return recommend.recommend(facts)


FAMILY = Family(
    name=knob.NAME, areas=("oracle", "memory"), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    check_policy=knob.check_policy, editors=knob.EDITORS,
    write_kinds=WriteKinds({"sql": "numatune.families.oracle.sql_write"}),
    after_apply=knob.after_apply, resolve_after=("hugepages",), facts_lines=_facts_lines,
    snapshot=Snapshot(patterns=(
        ("/etc", r"^oratab$", False),
        ("/etc/security", r"^limits\.conf$", False),
        ("/etc/security/limits.d", r"\.conf$", False),
    ), expand=home_patterns, sh_expand=SH_HOMES),
    recommend=_recommend,
)
