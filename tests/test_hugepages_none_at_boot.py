"""An empty pool that nothing fills at boot is kept by the kernel's default:
count = 0 plans no vm.nr_hugepages line in numatune's sysctl file (issue #37:
a host with no HugePages says so in `facts --format policy`). A sysctl.d
file or a hugepages= boot argument that fills it is still lowered."""
import json


def _plan(cli, root, tmp_path, body):
    policy = tmp_path / "p.toml"
    policy.write_text('[policy]\nname = "t"\n' + body)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def test_an_empty_pool_nothing_fills_at_boot_needs_no_file(cli, capture, tmp_path):
    root = capture("40intel64-2g2n4c+pcilocality")
    plan = _plan(cli, root, tmp_path, '[hugepages]\nsize = "2M"\ncount = 0\n')
    assert plan["changes"] == [], plan["changes"]
    kept = [c for c in plan["compliant"] if c["rule"] == "sysctl.persist:vm.nr_hugepages"]
    assert kept and "kernel's default" in kept[0]["kept_by"], plan["compliant"]


def test_a_file_that_fills_it_at_boot_is_still_lowered(cli, capture, tmp_path):
    root = capture("40intel64-2g2n4c+pcilocality")
    (root / "etc/sysctl.d").mkdir(parents=True)
    (root / "etc/sysctl.d/97-oracle.conf").write_text("vm.nr_hugepages = 1024\n")
    plan = _plan(cli, root, tmp_path, '[hugepages]\nsize = "2M"\ncount = 0\n')
    assert [c["desired"] for c in plan["changes"] if c["id"] == "sysctl.persist:vm.nr_hugepages"] == ["0"]


def test_a_boot_argument_that_fills_it_is_not_the_kernels_default(cli, capture, tmp_path):
    root = capture("40intel64-2g2n4c+pcilocality")
    (root / "proc/cmdline").write_text("ro hugepages=512\n")
    plan = _plan(cli, root, tmp_path, '[hugepages]\nsize = "2M"\ncount = 0\n')
    assert "sysctl.persist:vm.nr_hugepages" in [c["id"] for c in plan["changes"]]
