#!/bin/sh
# Start each listener bound to its NUMA node (numatune)
export ORACLE_HOME=/u01/app/oracle/product/19.0.0/dbhome_1
numactl --cpunodebind=0 --membind=0 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N0
numactl --cpunodebind=1 --membind=1 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N1
