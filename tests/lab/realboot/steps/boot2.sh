# Boot 2: numa=off is gone (2 nodes). Before anything is applied: what boot 1 set is back, and the shipped
# default policy alone is compliant (check OK, plan --exit-code 0). Then apply the site policy again: node 1
# exists now, so the pool and the cpuset are placed there.
echo "== boot2"
probe
NO_COLOR=1 numatune check --policy oracle-numa; echo "RC check-default=$?"
NO_COLOR=1 numatune plan --exit-code --policy oracle-numa; echo "RC plan-default=$?"
NO_COLOR=1 numatune apply --yes; echo "RC apply=$?"
echo "== applied"
probe
