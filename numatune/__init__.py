"""numatune: declarative NUMA, memory and I/O tuning for Oracle Database hosts."""
__version__ = "0.1.0"

# The areas changes and findings carry, in plan order (numatune.model); `--only`/`--skip` also take a
# family's name (numatune.families.registry.selectors()). Here, not in numatune.model, so that the
# parser names them in `--only`'s help without importing dataclasses.
AREAS = ("kernel", "memory", "storage", "network", "cpu", "oracle")
