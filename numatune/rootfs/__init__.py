"""The pieces behind ``numatune.root.Root`` (the one name the rest of
numatune imports): ``confine`` (openat2 RESOLVE_IN_ROOT and the lexical
check), ``reads`` (every read by name from its directory's descriptor) and
``readfile`` (one file read whole: non-blocking, regular files only,
bounded). Writes live in ``numatune/apply/root_write.py``."""
