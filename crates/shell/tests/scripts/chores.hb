create 'ch', 'f', SPLITS => ['m']
compaction_state 'ch'
compaction_state 'nope'
alter_async 'ch', {NAME => 'f', VERSIONS => 3}
alter_status 'ch'
alter 'ch', {NAME => 'f', VERSIONS => 4}
flush_master_store
clear_compaction_queues '%SERVER%'
clear_compaction_queues '%SERVER%', 'medium'
catalogjanitor_enabled
catalogjanitor_switch false
catalogjanitor_enabled
catalogjanitor_switch true
catalogjanitor_run
normalizer_enabled
normalizer_switch false
normalize
normalizer_switch true
normalize {TABLE_NAME => 'ch'}
normalize {REGEX => 'zz.*'}
normalize {COLOR => 'red'}
hbck_chore_run
update_config '%SERVER%'
balancer
get_balancer_rejections {LIMIT => 1}
get_balancer_decisions
get_balancer_decisions {COLOR => 1}
create 'all1', 'f'
create 'all2', 'f'
disable_all 'all.*'
n
is_disabled 'all1'
disable_all 'all.*'
y
is_disabled 'all2'
enable_all 'all1'
yes
drop_all 'all.*'
y
disable_all 'all1'
y
drop_all 'all.*'
Y
list 'all.*'
enable_all 'nomatch.*'
snapshot 'ch', 'chs1'
snapshot 'ch', 'chs2'
snapshot 'ch', 'other'
delete_all_snapshot 'chs.*'
y
list_snapshots
delete_table_snapshots 'ch', 'oth.*'
n
delete_table_snapshots 'c.*'
y
list_snapshots
cleaner_chore_enabled
cleaner_chore_switch false
cleaner_chore_enabled
cleaner_chore_run
cleaner_chore_switch true
snapshot_cleanup_enabled
snapshot_cleanup_switch false
snapshot_cleanup_enabled
snapshot_cleanup_switch true
snapshot 'ch', 'ttl1', {TTL => 86400}
snapshot 'ch', 'ttl2', {TTL => -5}
snapshot 'ch', 'ttl3', {COLOR => 1}
