create 't1', 'f', 'g'
create_namespace 'ns1'
create 'ns1:t2', 'f'
add_peer '1', CLUSTER_KEY => 'zk1,zk2:2181:/hbase'
add_peer '2', CLUSTER_KEY => 'hbase+rpc://127.0.0.1:1', STATE => 'DISABLED', TABLE_CFS => {'t1' => ['f'], 'ns1:t2' => []}
add_peer '3', CLUSTER_KEY => 'zk:2181:/hbase', NAMESPACES => ['ns1'], SERIAL => true, BANDWIDTH => 1048576, CONFIG => {'k' => 'v'}
list_peers
add_peer '1', CLUSTER_KEY => 'zk:2181:/hbase'
add_peer '4', CLUSTER_KEY => 'zk1:2181'
add_peer '4', CLUSTER_KEY => 'zk1:2181:/hbase', TABLE_CFS => {'nope' => []}
add_peer '4', CLUSTER_KEY => 'zk1:2181:/hbase', TABLE_CFS => {'t1' => ['nope']}
add_peer '4', CLUSTER_KEY => 'zk1:2181:/hbase', NAMESPACES => ['nope']
add_peer '4', CLUSTER_KEY => 'zk1:2181:/hbase', NAMESPACES => ['ns1'], TABLE_CFS => {'ns1:t2' => []}
add_peer '4-x', CLUSTER_KEY => 'zk1:2181:/hbase'
add_peer '4', CLUSTER_KEY => 'zk1:2181:/other'
add_peer '4', 'zk1:2181:/hbase'
show_peer_tableCFs '2'
append_peer_tableCFs '2', {'t1' => ['g']}
show_peer_tableCFs '2'
remove_peer_tableCFs '2', {'ns1:t2' => []}
show_peer_tableCFs '2'
remove_peer_tableCFs '2', {'ns1:t2' => []}
set_peer_tableCFs '2', {'ns1:t2' => []}
show_peer_tableCFs '2'
set_peer_tableCFs '1', {'t1' => []}
set_peer_exclude_tableCFs '1', {'t1' => ['g']}
append_peer_exclude_namespaces '1', ['ns1']
set_peer_namespaces '3', ['default']
append_peer_namespaces '3', ['ns1']
remove_peer_namespaces '3', ['default']
set_peer_bandwidth '3', 2048
set_peer_serial '3', false
set_peer_replicate_all '2', true
set_peer_tableCFs '2', nil
set_peer_replicate_all '2', true
list_peers
enable_peer '2'
disable_peer '1'
update_peer_config '3', CONFIG => {'k2' => 'v2'}
get_peer_config '3'
list_peer_configs
get_peer_config 'nope'
enable_peer 'nope'
remove_peer '2'
remove_peer '2'
list_peers
alter 't1', {NAME => 'f', REPLICATION_SCOPE => 1}
list_replicated_tables
disable_table_replication 't1'
list_replicated_tables
remove_peer '1'
remove_peer '3'
enable_table_replication 't1'
list_replicated_tables 't.*'
list_replicated_tables 'nope'
peer_modification_switch false
peer_modification_enabled
add_peer '9', CLUSTER_KEY => 'zk:2181:/hbase'
peer_modification_switch true
peer_modification_enabled
add_peer '9', CLUSTER_KEY => 'zk:2181:/hbase'
list_peers
