list_rsgroups
create 'rt', 'f'
create_namespace 'rns'
create 'rns:t2', 'f'
add_rsgroup 'batch'
add_rsgroup 'batch'
add_rsgroup 'bad-name'
list_rsgroups
get_rsgroup 'default'
get_table_rsgroup 'rt'
get_namespace_rsgroup 'rns'
move_tables_rsgroup 'batch', ['rt']
move_namespaces_rsgroup 'batch', ['rns']
alter_rsgroup_config 'batch', {METHOD => 'set', 'hbase.rsgroup.fallback.enable' => 'true'}
show_rsgroup_config 'batch'
alter_rsgroup_config 'batch', {METHOD => 'unset', NAME => 'hbase.rsgroup.fallback.enable'}
show_rsgroup_config 'batch'
rename_rsgroup 'batch', 'etl'
rename_rsgroup 'default', 'etl2'
list_rsgroups 'e.*'
balance_rsgroup 'etl'
move_servers_rsgroup 'etl', ['localhost:16020']
move_servers_rsgroup 'etl', ['localhost']
balance_rsgroup 'nope'
remove_rsgroup 'etl'
remove_rsgroup 'nope'
remove_servers_rsgroup ['nowhere:1']
move_servers_rsgroup 'etl', ['nowhere:1']
get_server_rsgroup 'nowhere:1'
