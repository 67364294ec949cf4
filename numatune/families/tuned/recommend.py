"""What `numatune recommend` says about tuned's profile: 001's high-performance
sets (Tables 2 and 5) and Table 13 run latency-performance, which also costs
idle power, so it is asked, with the paper's figures for both sides."""
from numatune.recommend.entry import SUPERDOME, Entry

# Both limit C-states to C1 and keep the clock at its maximum (001's tuned-adm section).
LOW_LATENCY = ("latency-performance", "network-latency")


def recommend(facts):
    mine = facts.get("tuned") or {}
    if not mine.get("installed"):
        return
    base = mine.get("parent") or mine.get("active") or []
    if any(name in LOW_LATENCY for name in base):
        return
    yield Entry(table="tuned", key="profile", value="latency-performance", source=(SUPERDOME,), note=(
        "tuned's profile now: %s." % (" ".join(base) or "none active"),
        "%s Table 13 (and the high-performance sets of Tables 2 and 5, balanced in the low ones) runs tuned's "
        "latency-performance profile; its text names network-latency for RHEL 7: both keep C-states to C1 and the "
        "clock at its maximum. In Table 3 that set gave 30%% more TPS, and idle power rose from 182 W to 578 W."
        % SUPERDOME,),
        question="Should tuned's profile be latency-performance (full clock and C1 at all times: more power, "
                 "idle too), or network-latency on RHEL 7?")
