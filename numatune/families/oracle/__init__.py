"""Oracle Database: where an instance's parameters live and how to change them.

Offline (any root): /etc/oratab, the parameter file Oracle itself would read
(spfile before pfile), pfiles edited in place, spfiles read only, the alert
log as the instance's own evidence. Live (the real / with a connection):
python-oracledb, imported only when a policy asks for a connection.
The knob family that turns this into a plan is ``numatune.families.oracle.knob``.
"""
