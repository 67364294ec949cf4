"""Block devices of a synthetic giant host: ``luns`` 3PAR multipath LUNs
seen through ``paths`` FC HBAs (one SCSI disk per LUN per path), a
dm-multipath device over each LUN's paths, and an NVMe boot disk carrying
LVM. Everything as sysfs shows it: the device directories under
/sys/devices, the /sys/block, /sys/class/block and /sys/dev/block links,
holders/ and slaves/, the SCSI device attributes, plus the udev database
(/run/udev/data) and /etc/multipath.conf that a snapshot would carry.
"""
from hosttree import letters

SD_MAJORS = [8, 65, 66, 67, 68, 69, 70, 71, 128, 129, 130, 131, 132, 133, 134, 135]
DM_MAJOR = 253
LUN_SECTORS = 2 * 1024 * 1024 * 1024  # 1 TiB in 512-byte sectors
SD_QUEUE = {"scheduler": "[mq-deadline] kyber bfq none", "nr_requests": 256, "max_sectors_kb": 1280,
            "max_hw_sectors_kb": 32767, "rotational": 1, "nomerges": 0, "read_ahead_kb": 4096,
            "add_random": 0, "rq_affinity": 1, "logical_block_size": 512, "physical_block_size": 16384,
            "hw_sector_size": 512, "minimum_io_size": 16384, "optimal_io_size": 0, "iostats": 1,
            "write_cache": "write through", "io_poll": 0, "max_segments": 128, "nr_zones": 0}
MQ_DEADLINE = {"fifo_batch": 16, "front_merges": 1, "read_expire": 500, "write_expire": 5000,
               "writes_starved": 2, "async_depth": 192}


def sd_devt(index):
    """(major, minor) of the index-th sd disk, as sd.c numbers them."""
    return SD_MAJORS[(index >> 4) & 0xF], ((index & 0xF) << 4) | ((index & 0xFFF00) << 12)


def _block_links(tree, name, devdir, major, minor):
    tree.link("/sys/block/" + name, devdir)
    tree.link("/sys/class/block/" + name, devdir)
    tree.link("/sys/dev/block/%d:%d" % (major, minor), devdir)


def _disk_attrs(tree, d, name, major, minor, sectors, devtype="disk"):
    tree.attrs(d, {"dev": "%d:%d" % (major, minor), "size": sectors, "ro": 0, "removable": 0, "range": 16,
                   "ext_range": 256, "alignment_offset": 0, "discard_alignment": 0, "capability": 50,
                   "hidden": 0, "inflight": "       0        0",
                   "stat": "  391288        0 18762034   102233  4123400        0 98234712  3499012        0  "
                           "1881236  3601245"})
    tree.write(d + "/uevent", "MAJOR=%d\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=%s\n" % (major, minor, name, devtype))
    tree.mkdir(d + "/holders")
    tree.mkdir(d + "/slaves")


def _queue(tree, d, values, scheduler=True):
    tree.attrs(d + "/queue", values)
    if scheduler:
        tree.attrs(d + "/queue/iosched", MQ_DEADLINE)


def wwid(lun):
    return "60002ac%025x" % (0x1A00000000 + lun)


def write_storage(tree, luns, paths, nodes):
    hbas = []
    for p in range(paths):
        node = p * nodes // max(paths, 1)
        bus = node * 0x20
        pci = "/sys/devices/pci0000:%02x/0000:%02x:03.0/0000:%02x:00.0" % (bus, bus, bus + 1)
        tree.attrs(pci, {"numa_node": node, "vendor": "0x1077", "device": "0x2261", "class": "0x0c0400",
                         "local_cpulist": "", "enable": 1})
        tree.link(pci + "/driver", "/sys/bus/pci/drivers/qla2xxx")
        hbas.append((p + 1, pci))
    tree.mkdir("/sys/bus/pci/drivers/qla2xxx")
    tree.mkdir("/sys/bus/scsi/drivers/sd")
    index = 0
    dm_paths = {lun: [] for lun in range(luns)}
    for host, pci in hbas:
        tree.attrs("%s/host%d/fc_host/host%d" % (pci, host, host),
                   {"port_name": "0x21000024ff%06x" % host, "port_state": "Online", "speed": "32 Gbit"})
        for lun in range(luns):
            name = "sd" + letters(index)
            major, minor = sd_devt(index)
            hctl = "%d:0:0:%d" % (host, lun)
            scsi = "%s/host%d/rport-%d:0-0/target%d:0:0/%s" % (pci, host, host, host, hctl)
            tree.attrs(scsi, {"vendor": "3PARdata", "model": "VV              ", "rev": "3315",
                              "queue_depth": 64, "queue_type": "simple", "timeout": 30, "eh_timeout": 10,
                              "state": "running", "type": 0, "scsi_level": 7, "device_blocked": 0,
                              "wwid": "naa.%s" % wwid(lun), "iocounterbits": 32})
            tree.link(scsi + "/driver", "/sys/bus/scsi/drivers/sd")
            tree.attrs("%s/scsi_disk/%s" % (scsi, hctl), {"cache_type": "write back", "FUA": 1,
                                                          "manage_start_stop": 0, "protection_type": 0})
            tree.link("/sys/class/scsi_disk/" + hctl, "%s/scsi_disk/%s" % (scsi, hctl))
            d = "%s/block/%s" % (scsi, name)
            _disk_attrs(tree, d, name, major, minor, LUN_SECTORS)
            tree.link(d + "/device", scsi)
            _queue(tree, d, SD_QUEUE)
            _block_links(tree, name, d, major, minor)
            tree.link("%s/holders/dm-%d" % (d, lun), "/sys/devices/virtual/block/dm-%d" % lun)
            tree.write("/run/udev/data/b%d:%d" % (major, minor), _udev_sd(name, lun, host, hctl))
            dm_paths[lun].append((name, d))
            index += 1
    for lun in range(luns):
        _write_dm(tree, lun, "mpath" + letters(lun), "mpath-3" + wwid(lun), dm_paths[lun], LUN_SECTORS,
                  request_based=True)
    write_boot_disk(tree, luns)
    tree.write("/etc/multipath.conf", MULTIPATH_CONF)
    return index


def _write_dm(tree, n, name, uuid, slaves, sectors, request_based):
    d = "/sys/devices/virtual/block/dm-%d" % n
    _disk_attrs(tree, d, "dm-%d" % n, DM_MAJOR, n, sectors)
    tree.attrs(d + "/dm", {"name": name, "uuid": uuid, "suspended": 0, "use_blk_mq": int(request_based),
                           "rq_based_seq_io_merge_deadline": 8})
    if request_based:
        _queue(tree, d, dict(SD_QUEUE, read_ahead_kb=4096))
    else:
        _queue(tree, d, dict(SD_QUEUE, scheduler="none", nr_requests=128, read_ahead_kb=8192), scheduler=False)
    for slave, slave_dir in slaves:
        tree.link("%s/slaves/%s" % (d, slave), slave_dir)
    _block_links(tree, "dm-%d" % n, d, DM_MAJOR, n)
    props = {"DM_NAME": name, "DM_UUID": uuid, "DM_SUSPENDED": "0", "DM_UDEV_RULES_VSN": "2",
             "DM_ACTIVATION": "1"}
    if uuid.startswith("mpath-"):
        props.update(ID_SERIAL=uuid[len("mpath-"):], ID_WWN="0x" + uuid[7:23], MPATH_SBIN_PATH="/sbin",
                     DM_MULTIPATH_TIMESTAMP="1716200000")
    links = ["disk/by-id/dm-name-" + name, "disk/by-id/dm-uuid-" + uuid, "mapper/" + name]
    tree.write("/run/udev/data/b%d:%d" % (DM_MAJOR, n),
               "".join("S:%s\n" % s for s in links) + "I:4811231\n"
               + "".join("E:%s=%s\n" % kv for kv in props.items()) + "G:systemd\nQ:systemd\nV:1\n")


def _udev_sd(name, lun, host, hctl):
    serial = "3" + wwid(lun)
    props = {"ID_SCSI": "1", "ID_VENDOR": "3PARdata", "ID_VENDOR_ENC": "3PARdata", "ID_MODEL": "VV",
             "ID_MODEL_ENC": "VV\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20",
             "ID_REVISION": "3315", "ID_TYPE": "disk", "ID_SERIAL": serial, "ID_SERIAL_SHORT": wwid(lun),
             "ID_WWN": "0x" + wwid(lun)[:16], "ID_WWN_VENDOR_EXTENSION": "0x" + wwid(lun)[16:],
             "ID_WWN_WITH_EXTENSION": "0x" + wwid(lun), "ID_SCSI_SERIAL": "1%06d" % lun,
             "ID_BUS": "scsi", "ID_PATH": "pci-0000:%02x:00.0-fc-0x20010002ac01%04x-lun-%d" % (host, lun, lun),
             "DM_MULTIPATH_DEVICE_PATH": "1", "SYSTEMD_READY": "0", "ID_FS_TYPE": "mpath_member"}
    return ("S:disk/by-path/%s\n" % props["ID_PATH"] + "I:4811231\n"
            + "".join("E:%s=%s\n" % kv for kv in props.items()) + "G:systemd\nQ:systemd\nV:1\n")


def write_boot_disk(tree, first_dm):
    """nvme0n1 with /boot/efi, /boot and an LVM PV holding rhel-root and rhel-swap."""
    pci = "/sys/devices/pci0000:00/0000:00:1d.0/0000:3b:00.0"
    tree.attrs(pci, {"numa_node": 0, "vendor": "0x1028", "device": "0x2204", "class": "0x010802", "enable": 1})
    ctrl = pci + "/nvme/nvme0"
    tree.attrs(ctrl, {"model": "Dell Ent NVMe v2 AGN RI U.2 1.92TB", "serial": "S6CRNA0R412345",
                      "firmware_rev": "2.3.0", "transport": "pcie", "state": "live", "numa_node": 0})
    d = ctrl + "/nvme0n1"
    _disk_attrs(tree, d, "nvme0n1", 259, 0, 3750748848)
    tree.link(d + "/device", ctrl)
    _queue(tree, d, dict(SD_QUEUE, scheduler="[none] mq-deadline kyber bfq", nr_requests=1023,
                         max_hw_sectors_kb=128, max_sectors_kb=128, rotational=0, read_ahead_kb=128,
                         write_cache="write back"), scheduler=False)
    _block_links(tree, "nvme0n1", d, 259, 0)
    tree.write("/run/udev/data/b259:0", "S:disk/by-id/nvme-Dell_Ent_NVMe_v2_AGN_RI_U.2_1.92TB_S6CRNA0R412345\n"
               "E:ID_MODEL=Dell Ent NVMe v2 AGN RI U.2 1.92TB\nE:ID_SERIAL=Dell Ent NVMe v2 AGN RI U.2 "
               "1.92TB_S6CRNA0R412345\nE:ID_SERIAL_SHORT=S6CRNA0R412345\nE:ID_WWN=eui.36434e3052412345\n"
               "E:ID_PATH=pci-0000:3b:00.0-nvme-1\nE:ID_PART_TABLE_TYPE=gpt\nG:systemd\nQ:systemd\nV:1\n")
    parts = [(1, 2048, 1228800), (2, 1230848, 2097152), (3, 3328000, 3747420848)]
    for number, start, size in parts:
        name = "nvme0n1p%d" % number
        p = "%s/%s" % (d, name)
        tree.attrs(p, {"dev": "259:%d" % number, "partition": number, "start": start, "size": size, "ro": 0})
        tree.write(p + "/uevent", "MAJOR=259\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=partition\nPARTN=%d\n"
                   % (number, name, number))
        tree.mkdir(p + "/holders")
        tree.link("/sys/class/block/" + name, p)
        tree.link("/sys/dev/block/259:%d" % number, p)
    pv = "%s/nvme0n1p3" % d
    for i, (lv, size) in enumerate((("root", 3680000000), ("swap", 67108864))):
        n = first_dm + i
        tree.link("%s/holders/dm-%d" % (pv, n), "/sys/devices/virtual/block/dm-%d" % n)
        _write_dm(tree, n, "rhel-" + lv, "LVM-Xk3MkZf0Q2bE5w7nYhQv8cV9T1rJ4sLdG2aP6oUe5HbN7mRx8yWq%d" % i,
                  [("nvme0n1p3", pv)], size, request_based=False)


MULTIPATH_CONF = """# device-mapper-multipath configuration for HPE 3PAR / Primera
defaults {
    user_friendly_names yes
    find_multipaths yes
}

blacklist {
    devnode "^nvme"
}

devices {
    device {
        vendor "3PARdata"
        product "VV"
        path_grouping_policy "group_by_prio"
        path_selector "round-robin 0"
        path_checker "tur"
        hardware_handler "1 alua"
        prio "alua"
        failback "immediate"
        rr_weight "uniform"
        no_path_retry 18
        fast_io_fail_tmo 10
        dev_loss_tmo "infinity"
    }
}
"""
