list_quotas
create 'qt', 'f'
create_namespace 'qns'
set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10req/sec'
set_quota TYPE => THROTTLE, THROTTLE_TYPE => WRITE, USER => 'u1', LIMIT => '10M/sec'
set_quota TYPE => THROTTLE, USER => 'u1', TABLE => 'qt', LIMIT => '5K/min'
set_quota TYPE => THROTTLE, NAMESPACE => 'qns', LIMIT => '100CU/hour'
set_quota TYPE => THROTTLE, TABLE => 'qt', THROTTLE_TYPE => READ, LIMIT => '1000/day'
set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => '30000req/sec'
set_quota USER => 'u2', GLOBAL_BYPASS => true
list_quotas
set_quota TYPE => THROTTLE, USER => 'u1', THROTTLE_TYPE => WRITE, LIMIT => NONE
set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => NONE
list_quotas
set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10req/week'
set_quota TYPE => THROTTLE, TABLE => 'nope', LIMIT => '10req/sec'
set_quota TYPE => THROTTLE, NAMESPACE => 'nope', LIMIT => '10req/sec'
set_quota TYPE => THROTTLE, TABLE => 'qt', NAMESPACE => 'qns', LIMIT => '1req/sec'
set_quota TYPE => THROTTLE, USER => 'u1'
set_quota TABLE => 'qt', GLOBAL_BYPASS => true
list_quota_snapshots
set_quota TYPE => SPACE, TABLE => 'qt', LIMIT => '1G', POLICY => NO_INSERTS
set_quota TYPE => SPACE, NAMESPACE => 'qns', LIMIT => '10T', POLICY => NO_WRITES
list_quotas
set_quota TYPE => SPACE, TABLE => 'qt', LIMIT => NONE
set_quota TYPE => SPACE, TABLE => 'qt', LIMIT => '1X', POLICY => NO_INSERTS
set_quota TYPE => SPACE, TABLE => 'qt', LIMIT => '1G', POLICY => NO_READS
set_quota TYPE => SPACE, TABLE => 'qt', LIMIT => '1G'
set_quota TYPE => SPACE, USER => 'u1', LIMIT => '1G', POLICY => NO_INSERTS
list_quotas
rpc_throttle_enabled
disable_rpc_throttle
rpc_throttle_enabled
enable_rpc_throttle
enable_exceed_throttle_quota
set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => '30000req/sec'
enable_exceed_throttle_quota
disable_exceed_throttle_quota
list_quota_table_sizes
list_quota_violations
create_namespace 'lim', {'hbase.namespace.quota.maxtables' => '1'}
create 'lim:a', 'f'
create 'lim:b', 'f'
create_namespace 'odd', {'hbase.namespace.quota.maxregions' => 'x'}
