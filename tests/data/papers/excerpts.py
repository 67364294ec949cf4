import glob, sys
papers = sys.argv[1]
needles = {
 "001_211b0b645b2f1cc8": ["indicate the TPS improves by 30%", "Base power floor (all Processors) while idle",
   "net.core.rmem_max\t", "net.core.wmem_max\t", "net.ipv4.tcp_rmem\t", "net.ipv4.tcp_wmem\t",
   "resulted in a 21% improvement", "resulted in an 86% improvement", "by as much as 20%",
   "Frame MTU size\t", "Bonded NICs\t", "Bond xmit_hash_policy\t", "ixgbe rx_usecs", "ixgbe UDP HW RSS mode\t",
   "/sys/block/*/queue/scheduler\t", "/sys/block/*/queue/nr_requests\t", "/sys/block/*/queue/rotational\t",
   "/sys/block/*/queue/nomerges\t", "/sys/block/*/device/queue_depth\t", "rr_min_io_rq (/etc/multipath.conf)\t",
   "sysctl kernel.numa_balancing [1]\t", "Allowed C-states\t", "cpupower frequency-set -g\t",
   "resulted in an 8% improvement in throughput", "If the `nomerges` tunable is set to 1",
   "The default value is 32.", "require configuration of the attached network switch",
   "an average of 27%", "an average of 13%", "decreased from 5.5GB to 175MB",
   "an average of 25%", "NUMA\tON\tOFF\tOFF", "HugePages\tON\tON\tOFF", "Multi-Listener\tON\tON\tON",
   "observed an 80% increase", "the `irqbalance` daemon provides", "we recommend 16MB",
   "single Oracle listener process being bound", "Two different configurations were used for FIO testing",
   "connected to a 3PAR 7450 array"],
 "000_bee41b021388c063": ["by about 10% during LIO pressure", "This is about 2.15 times less", "2.15 times less logical reads per second",
   "cpu binding only and LIO pressure:", "caging (LIO pressure due to the caging): 5 100 000",
   "Instance caging only and LIO pressure:", "39302-23557 large pages have been allocated from node 7",
   'alter system set "db_cache_size"=20g', 'alter system set "shared_pool_size"=10g',
   'alter system set "sga_target"=0'],
 "003_141311754ed1bdcf": ["12 to 15 percent better with NUMA"],
 "004_bf754af76eb0e5fd": ["always do instance caging even if you have only one instance"],
}
for paper, ns in needles.items():
    text = open(glob.glob("%s/%s.txt" % (papers, paper))[0]).read().splitlines()
    out = []
    for n in ns:
        hits = [l for l in text if n in l]
        assert hits, (paper, n)
        for h in hits:
            if h not in out: out.append(h)
    open("tests/data/papers/%s.excerpts.txt" % paper, "w").write("\n".join(out) + "\n")
    print(paper, len(out))
