# Boot 4: after the reverts, everything as it was before boot 1.
echo "== boot4"
probe
NO_COLOR=1 numatune history; echo "RC history=$?"
