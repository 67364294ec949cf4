"""numatune: declarative NUMA, memory and I/O tuning for Oracle Database hosts."""
__version__ = "0.1.0"

# The areas changes and findings carry, in plan order (numatune.model); `--only`/`--skip` also take a
# family's name (numatune.families.registry.selectors()). Here, not in numatune.model, so that the
# parser names them in `--only`'s help without importing dataclasses.
AREAS = ("kernel", "memory", "storage", "network", "cpu", "oracle")

# The command line numatune.cli.main was given, for the journal's audit record (numatune.apply.audit); None for a
# caller that did not come through it (the Ansible module, a test calling the engine). Here, not in a module of its
# own, so that `--version` and a small check import nothing more for it.
ARGV = None
