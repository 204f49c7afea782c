create 'events', 'f', SALT => {BUCKETS => 4}
describe 'events'
put 'events', 'row-1', 'f:q', 'one'
put 'events', 'row-2', 'f:q', 'two'
put 'events', 'row-3', 'f:q', 'three'
put 'events', 'row-4', 'f:q', 'four'
get 'events', 'row-2'
scan 'events'
scan 'events', {STARTROW => 'row-2', STOPROW => 'row-4'}
scan 'events', {REVERSED => true, LIMIT => 2}
count 'events'
list_regions 'events'
create 'bad', 'f', SALT => {BUCKETS => 0}
create 'users', 'f', HASH_PREFIX => {ALGORITHM => 'MD5', BYTES => 2}
put 'users', 'alice', 'f:q', 'a'
get 'users', 'alice'
alter 'events', METADATA => {'KEY_LAYOUT' => 'SALT BUCKETS=8'}
p key_long(7)
p key_split(key_long(7), [4, 0])
p key_to_long(key_long(-3))
p key_from_reverse_ts(key_reverse_ts(1700000000000))
p key_concat(key_md5('alice'), key_fixed('us', 4))
create 'logs', 'f', TIME_BUCKETS => {BUCKETS => 4}
put 'logs', key_concat(key_long(1700000000001), 'host2'), 'f:msg', 'down'
put 'logs', key_concat(key_long(1700000000000), 'host1'), 'f:msg', 'up'
scan 'logs'
put 'logs', 'short', 'f:msg', 'x'
p key_fixed('toolong', 2)
p nope(1)
create 'seq', 'f', SPLITS => ['b', 'c']
put 'seq', 'c1', 'f:q', 'v'
put 'seq', 'c2', 'f:q', 'v'
put 'seq', 'c3', 'f:q', 'v'
hotspots 'seq'
hotspots 'events'
