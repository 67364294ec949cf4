"""sysctl keys a RHEL/Oracle Linux 7-9 kernel knows, for "did you mean" on a
root whose /proc/sys lacks them (a capture records only what it was asked
for). Taken from a 6.x kernel's /proc/sys (per-interface and per-route keys
left out) plus the keys of older kernels that Oracle and NUMA guides name."""

KNOWN = frozenset("""
fs.aio-max-nr fs.aio-nr fs.dentry-negative fs.dentry-state fs.dir-notify-enable fs.fanotify.max_queued_events
fs.fanotify.max_user_groups fs.fanotify.max_user_marks fs.fanotify.watchdog_timeout fs.file-max fs.file-nr
fs.inode-nr fs.inode-state fs.inotify.max_queued_events fs.inotify.max_user_instances
fs.inotify.max_user_watches fs.lease-break-time fs.leases-enable fs.mount-max fs.nr_open fs.overflowgid
fs.overflowuid fs.pipe-max-size fs.pipe-user-pages-hard fs.pipe-user-pages-soft fs.protected_fifos
fs.protected_hardlinks fs.protected_regular fs.protected_symlinks fs.quota.allocated_dquots
fs.quota.cache_hits fs.quota.drops fs.quota.free_dquots fs.quota.lookups fs.quota.reads fs.quota.syncs
fs.quota.writes fs.suid_dumpable fs.xfs.error_level fs.xfs.filestream_centisecs fs.xfs.inherit_noatime
fs.xfs.inherit_nodefrag fs.xfs.inherit_nodump fs.xfs.inherit_nosymlinks fs.xfs.inherit_sync fs.xfs.panic_mask
fs.xfs.rotorstep fs.xfs.speculative_prealloc_lifetime fs.xfs.stats_clear fs.xfs.xfssyncd_centisecs kernel.acct
kernel.arch kernel.auto_msgmni kernel.bootloader_type kernel.bootloader_version kernel.bpf_stats_enabled
kernel.cad_pid kernel.cap_last_cap kernel.core_file_note_size_limit kernel.core_modes kernel.core_pattern
kernel.core_pipe_limit kernel.core_sort_vma kernel.core_uses_pid kernel.ctrl-alt-del kernel.dmesg_restrict
kernel.domainname kernel.firmware_config.force_sysfs_fallback kernel.firmware_config.ignore_sysfs_fallback
kernel.ftrace_dump_on_oops kernel.ftrace_enabled kernel.hardlockup_all_cpu_backtrace kernel.hardlockup_panic
kernel.hostname kernel.hung_task_all_cpu_backtrace kernel.hung_task_check_count
kernel.hung_task_check_interval_secs kernel.hung_task_detect_count kernel.hung_task_panic
kernel.hung_task_timeout_secs kernel.hung_task_warnings kernel.init_private kernel.init_private_helper
kernel.init_private_vsock_local_port kernel.init_private_vsock_port kernel.io_delay_type
kernel.io_uring_disabled kernel.io_uring_group kernel.keys.gc_delay kernel.keys.maxbytes kernel.keys.maxkeys
kernel.keys.persistent_keyring_expiry kernel.keys.root_maxbytes kernel.keys.root_maxkeys kernel.kptr_restrict
kernel.max_lock_depth kernel.max_rcu_stall_to_panic kernel.msg_next_id kernel.msgmax kernel.msgmnb
kernel.msgmni kernel.ngroups_max kernel.nmi_watchdog kernel.ns_last_pid kernel.numa_balancing
kernel.numa_balancing_promote_rate_limit_MBps kernel.numa_balancing_scan_delay_ms
kernel.numa_balancing_scan_period_max_ms kernel.numa_balancing_scan_period_min_ms
kernel.numa_balancing_scan_size_mb kernel.numa_balancing_settle_count kernel.oops_all_cpu_backtrace
kernel.oops_limit kernel.osrelease kernel.ostype kernel.overflowgid kernel.overflowuid kernel.panic
kernel.panic_on_io_nmi kernel.panic_on_oops kernel.panic_on_rcu_stall kernel.panic_on_unrecovered_nmi
kernel.panic_on_warn kernel.panic_print kernel.panic_sys_info kernel.perf_cpu_time_max_percent
kernel.perf_event_max_contexts_per_stack kernel.perf_event_max_sample_rate kernel.perf_event_max_stack
kernel.perf_event_mlock_kb kernel.perf_event_paranoid kernel.pid_max kernel.poweroff_cmd
kernel.print-fatal-signals kernel.printk kernel.printk_delay kernel.printk_devkmsg kernel.printk_ratelimit
kernel.printk_ratelimit_burst kernel.pty.max kernel.pty.nr kernel.pty.reserve kernel.real-root-dev
kernel.sched_autogroup_enabled kernel.sched_cfs_bandwidth_slice_us kernel.sched_deadline_period_max_us
kernel.sched_deadline_period_min_us kernel.sched_latency_ns kernel.sched_migration_cost_ns
kernel.sched_min_granularity_ns kernel.sched_nr_migrate kernel.sched_rr_timeslice_ms kernel.sched_rt_period_us
kernel.sched_rt_runtime_us kernel.sched_tunable_scaling kernel.sched_wakeup_granularity_ns
kernel.seccomp.actions_avail kernel.seccomp.actions_logged kernel.sem kernel.sem_next_id kernel.shm_next_id
kernel.shm_rmid_forced kernel.shmall kernel.shmmax kernel.shmmni kernel.soft_watchdog
kernel.softlockup_all_cpu_backtrace kernel.softlockup_panic kernel.split_lock_mitigate
kernel.sysctl_writes_strict kernel.tainted kernel.task_delayacct kernel.threads-max kernel.timer_migration
kernel.traceoff_on_warning kernel.tracepoint_printk kernel.unknown_nmi_panic kernel.unprivileged_bpf_disabled
kernel.usermodehelper.bset kernel.usermodehelper.inheritable kernel.version kernel.warn_limit kernel.watchdog
kernel.watchdog_cpumask kernel.watchdog_thresh net.core.bpf_jit_enable net.core.bpf_jit_harden
net.core.bpf_jit_kallsyms net.core.bpf_jit_limit net.core.busy_poll net.core.busy_read net.core.default_qdisc
net.core.dev_weight net.core.dev_weight_rx_bias net.core.dev_weight_tx_bias net.core.devconf_inherit_init_net
net.core.fb_tunnels_only_for_init_net net.core.flow_limit_cpu_bitmap net.core.flow_limit_table_len
net.core.gro_normal_batch net.core.high_order_alloc_disable net.core.max_skb_frags net.core.mem_pcpu_rsv
net.core.message_burst net.core.message_cost net.core.netdev_budget net.core.netdev_budget_usecs
net.core.netdev_max_backlog net.core.netdev_rss_key net.core.netdev_tstamp_prequeue
net.core.netdev_unregister_timeout_secs net.core.optmem_max net.core.rmem_default net.core.rmem_max
net.core.rps_default_mask net.core.rps_sock_flow_entries net.core.skb_defer_max net.core.somaxconn
net.core.tstamp_allow_data net.core.txrehash net.core.warnings net.core.wmem_default net.core.wmem_max
net.core.xfrm_acq_expires net.core.xfrm_aevent_etime net.core.xfrm_aevent_rseqth net.core.xfrm_larval_drop
net.ipv4.cipso_cache_bucket_size net.ipv4.cipso_cache_enable net.ipv4.cipso_rbm_optfmt
net.ipv4.cipso_rbm_strictvalid net.ipv4.fib_multipath_hash_fields net.ipv4.fib_multipath_hash_policy
net.ipv4.fib_multipath_hash_seed net.ipv4.fib_multipath_use_neigh net.ipv4.fib_notify_on_flag_change
net.ipv4.fib_sync_mem net.ipv4.fwmark_reflect net.ipv4.icmp_echo_enable_probe net.ipv4.icmp_echo_ignore_all
net.ipv4.icmp_echo_ignore_broadcasts net.ipv4.icmp_errors_use_inbound_ifaddr
net.ipv4.icmp_ignore_bogus_error_responses net.ipv4.icmp_msgs_burst net.ipv4.icmp_msgs_per_sec
net.ipv4.icmp_ratelimit net.ipv4.icmp_ratemask net.ipv4.igmp_link_local_mcast_reports
net.ipv4.igmp_max_memberships net.ipv4.igmp_max_msf net.ipv4.igmp_qrv net.ipv4.inet_peer_maxttl
net.ipv4.inet_peer_minttl net.ipv4.inet_peer_threshold net.ipv4.ip_autobind_reuse net.ipv4.ip_default_ttl
net.ipv4.ip_dynaddr net.ipv4.ip_early_demux net.ipv4.ip_forward net.ipv4.ip_forward_update_priority
net.ipv4.ip_forward_use_pmtu net.ipv4.ip_local_port_range net.ipv4.ip_local_reserved_ports
net.ipv4.ip_no_pmtu_disc net.ipv4.ip_nonlocal_bind net.ipv4.ip_unprivileged_port_start
net.ipv4.ipfrag_high_thresh net.ipv4.ipfrag_low_thresh net.ipv4.ipfrag_max_dist
net.ipv4.ipfrag_secret_interval net.ipv4.ipfrag_time net.ipv4.nexthop_compat_mode net.ipv4.ping_group_range
net.ipv4.raw_l3mdev_accept net.ipv4.tcp_abort_on_overflow net.ipv4.tcp_adv_win_scale
net.ipv4.tcp_allowed_congestion_control net.ipv4.tcp_app_win net.ipv4.tcp_autocorking
net.ipv4.tcp_available_congestion_control net.ipv4.tcp_available_ulp net.ipv4.tcp_backlog_ack_defer
net.ipv4.tcp_base_mss net.ipv4.tcp_challenge_ack_limit net.ipv4.tcp_child_ehash_entries
net.ipv4.tcp_comp_sack_delay_ns net.ipv4.tcp_comp_sack_nr net.ipv4.tcp_comp_sack_slack_ns
net.ipv4.tcp_congestion_control net.ipv4.tcp_dsack net.ipv4.tcp_early_demux net.ipv4.tcp_early_retrans
net.ipv4.tcp_ecn net.ipv4.tcp_ecn_fallback net.ipv4.tcp_ecn_option net.ipv4.tcp_ecn_option_beacon
net.ipv4.tcp_ehash_entries net.ipv4.tcp_fack net.ipv4.tcp_fastopen net.ipv4.tcp_fastopen_blackhole_timeout_sec
net.ipv4.tcp_fastopen_key net.ipv4.tcp_fin_timeout net.ipv4.tcp_frto net.ipv4.tcp_fwmark_accept
net.ipv4.tcp_invalid_ratelimit net.ipv4.tcp_keepalive_intvl net.ipv4.tcp_keepalive_probes
net.ipv4.tcp_keepalive_time net.ipv4.tcp_l3mdev_accept net.ipv4.tcp_limit_output_bytes
net.ipv4.tcp_low_latency net.ipv4.tcp_max_orphans net.ipv4.tcp_max_reordering net.ipv4.tcp_max_syn_backlog
net.ipv4.tcp_max_tw_buckets net.ipv4.tcp_mem net.ipv4.tcp_migrate_req net.ipv4.tcp_min_rtt_wlen
net.ipv4.tcp_min_snd_mss net.ipv4.tcp_min_tso_segs net.ipv4.tcp_moderate_rcvbuf net.ipv4.tcp_mtu_probe_floor
net.ipv4.tcp_mtu_probing net.ipv4.tcp_no_metrics_save net.ipv4.tcp_no_ssthresh_metrics_save
net.ipv4.tcp_notsent_lowat net.ipv4.tcp_orphan_retries net.ipv4.tcp_pacing_ca_ratio
net.ipv4.tcp_pacing_ss_ratio net.ipv4.tcp_pingpong_thresh net.ipv4.tcp_plb_cong_thresh
net.ipv4.tcp_plb_enabled net.ipv4.tcp_plb_idle_rehash_rounds net.ipv4.tcp_plb_rehash_rounds
net.ipv4.tcp_plb_suspend_rto_sec net.ipv4.tcp_probe_interval net.ipv4.tcp_probe_threshold
net.ipv4.tcp_recovery net.ipv4.tcp_reflect_tos net.ipv4.tcp_reordering net.ipv4.tcp_retrans_collapse
net.ipv4.tcp_retries1 net.ipv4.tcp_retries2 net.ipv4.tcp_rfc1337 net.ipv4.tcp_rmem net.ipv4.tcp_rto_max_ms
net.ipv4.tcp_rto_min_us net.ipv4.tcp_sack net.ipv4.tcp_shrink_window net.ipv4.tcp_slow_start_after_idle
net.ipv4.tcp_stdurg net.ipv4.tcp_syn_linear_timeouts net.ipv4.tcp_syn_retries net.ipv4.tcp_synack_retries
net.ipv4.tcp_syncookies net.ipv4.tcp_thin_linear_timeouts net.ipv4.tcp_timestamps net.ipv4.tcp_tso_rtt_log
net.ipv4.tcp_tso_win_divisor net.ipv4.tcp_tw_reuse net.ipv4.tcp_tw_reuse_delay net.ipv4.tcp_window_scaling
net.ipv4.tcp_wmem net.ipv4.tcp_workaround_signed_windows net.ipv4.udp_child_hash_entries
net.ipv4.udp_early_demux net.ipv4.udp_hash_entries net.ipv4.udp_l3mdev_accept net.ipv4.udp_mem
net.ipv4.udp_rmem_min net.ipv4.udp_wmem_min net.ipv4.xfrm4_gc_thresh net.ipv6.anycast_src_echo_reply
net.ipv6.auto_flowlabels net.ipv6.bindv6only net.ipv6.calipso_cache_bucket_size net.ipv6.calipso_cache_enable
net.ipv6.fib_multipath_hash_fields net.ipv6.fib_multipath_hash_policy net.ipv6.fib_notify_on_flag_change
net.ipv6.flowlabel_consistency net.ipv6.flowlabel_reflect net.ipv6.flowlabel_state_ranges
net.ipv6.fwmark_reflect net.ipv6.icmp.echo_ignore_all net.ipv6.icmp.echo_ignore_anycast
net.ipv6.icmp.echo_ignore_multicast net.ipv6.icmp.error_anycast_as_unicast net.ipv6.icmp.ratelimit
net.ipv6.icmp.ratemask net.ipv6.idgen_delay net.ipv6.idgen_retries net.ipv6.ioam6_id net.ipv6.ioam6_id_wide
net.ipv6.ip6frag_high_thresh net.ipv6.ip6frag_low_thresh net.ipv6.ip6frag_secret_interval
net.ipv6.ip6frag_time net.ipv6.ip_nonlocal_bind net.ipv6.max_dst_opts_length net.ipv6.max_dst_opts_number
net.ipv6.max_hbh_length net.ipv6.max_hbh_opts_number net.ipv6.mld_max_msf net.ipv6.mld_qrv
net.ipv6.route.flush net.ipv6.route.gc_elasticity net.ipv6.route.gc_interval net.ipv6.route.gc_min_interval
net.ipv6.route.gc_min_interval_ms net.ipv6.route.gc_thresh net.ipv6.route.gc_timeout net.ipv6.route.max_size
net.ipv6.route.min_adv_mss net.ipv6.route.mtu_expires net.ipv6.route.skip_notify_on_dev_down
net.ipv6.seg6_flowlabel net.ipv6.xfrm6_gc_thresh net.unix.max_dgram_qlen vm.admin_reserve_kbytes
vm.compact_memory vm.compact_unevictable_allowed vm.compaction_proactiveness vm.defrag_mode
vm.dirty_background_bytes vm.dirty_background_ratio vm.dirty_bytes vm.dirty_expire_centisecs vm.dirty_ratio
vm.dirty_writeback_centisecs vm.dirtytime_expire_seconds vm.drop_caches vm.extfrag_threshold
vm.hugetlb_optimize_vmemmap vm.hugetlb_shm_group vm.laptop_mode vm.legacy_va_layout vm.lowmem_reserve_ratio
vm.max_map_count vm.memfd_noexec vm.min_free_kbytes vm.min_slab_ratio vm.min_unmapped_ratio vm.mmap_min_addr
vm.mmap_rnd_bits vm.mmap_rnd_compat_bits vm.nr_hugepages vm.nr_hugepages_mempolicy vm.nr_overcommit_hugepages
vm.nr_pdflush_threads vm.numa_stat vm.numa_zonelist_order vm.oom_dump_tasks vm.oom_kill_allocating_task
vm.overcommit_kbytes vm.overcommit_memory vm.overcommit_ratio vm.page-cluster vm.page_lock_unfairness
vm.panic_on_oom vm.percpu_pagelist_fraction vm.percpu_pagelist_high_fraction vm.shrink_inodes_with_pagecache
vm.stat_interval vm.stat_refresh vm.swappiness vm.unprivileged_userfaultfd vm.user_reserve_kbytes
vm.vfs_cache_pressure vm.vfs_cache_pressure_denom vm.watermark_boost_factor vm.watermark_scale_factor
vm.zone_reclaim_mode
""".split())
