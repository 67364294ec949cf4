#!/usr/bin/env python3
"""Generate a synthetic root for a giant Oracle host, to plan with `numatune --root`.

    python bench/make_host.py DIR [--sockets 16] [--nodes 8] [--cpus 480]
                                  [--luns 1024] [--paths 4] [--nics 64] [--queues 64] [--instances 4]
                                  [--procs 1000]

The default is a 16-socket / 8-node / 480-CPU host with 4,096 SCSI paths
(1,024 3PAR LUNs x 4 FC paths) under 1,024 dm-multipath devices, 64 i40e
ports with 64 queues each, 4 Oracle instances and 1,000 processes (their
background processes and dedicated servers): every file laid out as
the kernel and the packages lay it out (sysfs symlinks included), so the
facts readers walk it exactly as they walk a real host.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from host_network import write_network  # noqa: E402
from host_oracle import write_oracle  # noqa: E402
from host_procs import write_procs  # noqa: E402
from host_storage import write_storage  # noqa: E402
from host_system import (Layout, write_boot, write_cgroup, write_cpus, write_memory, write_nodes,  # noqa: E402
                         write_os, write_sysctl, write_tuned)
from hosttree import Tree  # noqa: E402

DEFAULTS = {"sockets": 16, "nodes": 8, "cpus": 480, "luns": 1024, "paths": 4, "nics": 64, "queues": 64,
            "instances": 4, "procs": 1000}


def make_host(path, sockets=16, nodes=8, cpus=480, luns=1024, paths=4, nics=64, queues=64, instances=4,
              procs=1000, hostname="sdx-db01.example.com"):
    """Write the host under ``path`` (which must not exist or be empty); return what it holds."""
    if os.path.isdir(path) and os.listdir(path):
        raise SystemExit("make_host: %s is not empty; give a new directory" % path)
    tree = Tree(path)
    layout = Layout(sockets, nodes, cpus)
    write_os(tree, hostname)
    write_sysctl(tree)
    write_memory(tree, layout)
    write_nodes(tree, layout)
    write_cpus(tree, layout)
    write_cgroup(tree, layout)
    write_boot(tree)
    write_tuned(tree)
    sd = write_storage(tree, luns, paths, nodes)
    irqs = write_network(tree, nics, queues, layout)
    sids = write_oracle(tree, instances, nodes, cpus)
    nprocs = write_procs(tree, sids, procs, nodes)
    return {"root": tree.path, "sockets": sockets, "nodes": nodes, "cpus": cpus, "scsi_paths": sd,
            "multipath_luns": luns, "dm_devices": luns + 2, "nics": nics, "queues_per_nic": queues,
            "nic_irqs": irqs, "oracle_sids": sids, "processes": nprocs, "entries": tree.files}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", help="where to create the root (new or empty directory)")
    for name, value in DEFAULTS.items():
        parser.add_argument("--" + name, type=int, default=value, metavar="N", help="default %d" % value)
    parser.add_argument("--hostname", default="sdx-db01.example.com")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    sizes = {k: getattr(args, k) for k in DEFAULTS}
    if any(v < 0 for v in sizes.values()) or not (sizes["sockets"] and sizes["nodes"] and sizes["cpus"]):
        parser.error("sizes must be >= 0, and sockets, nodes and cpus >= 1")
    info = make_host(args.dir, hostname=args.hostname, **sizes)
    info["seconds"] = round(time.perf_counter() - start, 2)
    json.dump(info, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
