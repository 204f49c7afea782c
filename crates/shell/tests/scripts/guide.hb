create 'follows', 'f'
put 'follows', key_concat(key_md5('alice'), key_md5('bob')), 'f:name', 'bob'
put 'follows', key_concat(key_md5('alice'), key_md5('carol')), 'f:name', 'carol'
put 'follows', key_concat(key_md5('bob'), key_md5('alice')), 'f:name', 'alice'
scan 'follows', {ROWPREFIXFILTER => key_md5('alice'), COLUMNS => ['f:name']}
get 'follows', key_concat(key_md5('alice'), key_md5('carol'))
create 'logs', 'e'
put 'logs', key_concat(key_fixed('web01', 8), key_reverse_ts(1700000000000)), 'e:msg', 'started'
put 'logs', key_concat(key_fixed('web01', 8), key_reverse_ts(1700000060000)), 'e:msg', 'slow request'
put 'logs', key_concat(key_fixed('web01', 8), key_reverse_ts(1700000120000)), 'e:msg', 'stopped'
put 'logs', key_concat(key_fixed('web02', 8), key_reverse_ts(1700000030000)), 'e:msg', 'started'
scan 'logs', {ROWPREFIXFILTER => key_fixed('web01', 8), LIMIT => 2}
p key_split(key_concat(key_fixed('web01', 8), key_reverse_ts(1700000120000)), [8, 8])
p key_from_reverse_ts("\x7F\xFF\xFEt0\x18\xC3?")
create 'metrics', 'm', TIME_BUCKETS => {BUCKETS => 4}
put 'metrics', key_concat(key_long(1700000000000), 'cpu.web01'), 'm:v', '0.50'
put 'metrics', key_concat(key_long(1700000001000), 'cpu.web01'), 'm:v', '0.75'
put 'metrics', key_concat(key_long(1700000002000), 'cpu.web01'), 'm:v', '0.25'
put 'metrics', key_concat(key_long(1700000003000), 'cpu.web01'), 'm:v', '0.10'
scan 'metrics', {STARTROW => key_long(1700000001000), STOPROW => key_long(1700000003000)}
list_regions 'metrics'
create 'orders', 'o', SALT => {BUCKETS => 8}
put 'orders', key_long(1001), 'o:total', '12.50'
put 'orders', key_long(1002), 'o:total', '7.00'
put 'orders', key_long(1003), 'o:total', '99.90'
scan 'orders'
scan 'orders', {REVERSED => true, LIMIT => 1}
create 'profiles', 'p', HASH_PREFIX => {ALGORITHM => 'MD5', BYTES => 4}
put 'profiles', 'alice', 'p:city', 'Lyon'
get 'profiles', 'alice'
