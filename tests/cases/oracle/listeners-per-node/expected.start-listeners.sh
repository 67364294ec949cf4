#!/bin/sh
# Start each listener bound to its NUMA node (numatune)
# numactl --cpunodebind only, as the Superdome X paper starts them: memory stays local by the kernel's
# default policy and falls back to other nodes when the node fills.
export ORACLE_HOME=/u01/app/oracle/product/19.0.0/dbhome_1
numactl --cpunodebind=0 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N0
numactl --cpunodebind=1 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N1
