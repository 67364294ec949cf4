"""numatune: declarative NUMA, memory and I/O tuning for Oracle Database hosts."""
__version__ = "0.1.0"
