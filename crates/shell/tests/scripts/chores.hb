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
