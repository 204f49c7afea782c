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
