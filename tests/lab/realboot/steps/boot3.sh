# Boot 3: after the revert, everything as it was before boot 1.
echo "== boot3"
probe
lap probe
NO_COLOR=1 numatune history; echo "RC history=$?"
lap history
