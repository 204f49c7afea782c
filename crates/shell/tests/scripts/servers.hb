create 'sw', 'f', SPLITS => ['m']
splitormerge_enabled 'SPLIT'
splitormerge_switch 'SPLIT', false
splitormerge_enabled 'SPLIT'
split 'sw', 'g'
get_splits 'sw'
splitormerge_switch 'SPLIT', true
split 'sw', 'g'
get_splits 'sw'
splitormerge_switch 'MERGE', false
splitormerge_enabled 'MERGE'
splitormerge_switch 'MERGE', true
splitormerge_switch 'BOTH', true
list_liveservers
list_deadservers
clear_deadservers
clear_deadservers 'nope,1,2'
list_decommissioned_regionservers
stop_master
alter 'sw', {NAME => 'f', VERSIONS => 5}
clone_table_schema 'sw', 'sw2'
describe 'sw2'
get_splits 'sw2'
clone_table_schema 'sw', 'sw3', false
get_splits 'sw3'
clone_table_schema 'nope', 'sw4'
clone_table_schema 'sw', 'sw2'
locate_region 'sw', 'h'
locate_region 'sw', 'a'
locate_region 'nope', 'a'
compaction_switch false
major_compact 'sw'
compaction_switch true
major_compact 'sw'
compaction_switch 'yes'
put 'sw', 'h1', 'f:q', 'v'
flush 'sw'
get 'sw', 'h1'
clear_block_cache 'sw'
clear_block_cache 'sw'
clear_block_cache 'nope'
list_security_capabilities
is_in_maintenance_mode
regioninfo 'nope'
rit
list_unknownservers
processlist
