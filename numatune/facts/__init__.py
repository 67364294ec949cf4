"""Reading the host under a root: what every family shares (the kernel,
the NUMA topology, cpulists, cgroup mounts). Each reader opens files only;
the parsing is pure and lives beside it. Each family reads its own facts;
``numatune.engine.gather`` puts them together."""
