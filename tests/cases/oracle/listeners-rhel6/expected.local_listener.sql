-- Register the instance with every per-node listener (numatune)
ALTER SYSTEM SET local_listener='(ADDRESS_LIST=(ADDRESS=(PROTOCOL=TCP)(HOST=10.0.0.10)(PORT=1522))(ADDRESS=(PROTOCOL=TCP)(HOST=10.0.1.10)(PORT=1522)))' SCOPE=BOTH;
