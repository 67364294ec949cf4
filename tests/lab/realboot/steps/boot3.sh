# Boot 3: after the revert, everything as it was before boot 1.
echo "== boot3"
probe
numatune plan; echo "RC plan=$?"
