#!/bin/sh
# Start each listener bound to its NUMA node (numatune)
# numactl --membind too ([oracle.listeners] membind = true): dedicated servers fail to allocate
# when their node's memory is full instead of falling back to another node.
export ORACLE_HOME=/u01/app/oracle/product/12.1.0/dbhome_1
numactl --cpunodebind=0 --membind=0 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N0
numactl --cpunodebind=1 --membind=1 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N1
