create 't1', 'f'
put 't1', 'r1', 'f:q', 'v1'
snapshot 't1', 'snap1'
snapshot 't1', 'snap2'
list_snapshots
list_snapshots 'snap1'
list_table_snapshots 't1'
list_table_snapshots 'nope'
snapshot 't1', 'snap1'
snapshot 'nope', 'snap3'
snapshot 't1', '.bad'
delete_snapshot 'snap1'
list_snapshots
delete_snapshot 'snap1'
