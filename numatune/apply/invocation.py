"""The command line this run was given, for the journal's audit record
(numatune.apply.audit): set by numatune.cli.main, None for a caller that
did not come through it (the Ansible module, a test calling the engine)."""
ARGV = None
