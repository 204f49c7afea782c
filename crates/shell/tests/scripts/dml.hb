create 't', {NAME => 'cf', VERSIONS => 3}, 'g'
put 't', 'r1', 'cf:a', 'value1', 1714558272345
put 't', 'r1', 'cf:b', 'value2', 1714558272000
put 't', 'r2', 'cf:a', "\x00\x01\xff", 1714558260000
put 't', "r\x003", 'cf:', 'empty qualifier', 1714558272345
put 't', 'r4', 'g:x', 42, 1714558272345
put 't', 'r5', 'cf:a', 'old', 1000
put 't', 'r5', 'cf:a', 'new', 2000
scan 't'
scan 't', {COLUMNS => ['cf:a'], LIMIT => 2}
scan 't', {COLUMNS => 'g'}
scan 't', {STARTROW => 'r2', STOPROW => 'r5'}
scan 't', {ROWPREFIXFILTER => 'r1'}
scan 't', {REVERSED => true, LIMIT => 2}
scan 't', {VERSIONS => 3, STARTROW => 'r5'}
scan 't', {TIMERANGE => [1000, 1500]}
scan 't', {TIMESTAMP => 2000}
scan 't', {FILTER => "ValueFilter(=, 'substring:value')"}
scan 't', {FILTER => "PrefixFilter('r1') AND QualifierFilter(>=, 'binary:b')"}
scan 't', {MAXLENGTH => 30, LIMIT => 1}
scan 't', {CACHE => 1, BATCH => 1, STARTROW => 'r1', STOPROW => 'r2'}
get 't', 'r1'
get 't', 'r1', 'cf:a'
get 't', 'r1', ['cf:a', 'cf:b']
get 't', 'r1', 'cf:a', 'cf:b'
get 't', 'r1', {COLUMN => 'cf:a', TIMESTAMP => 1714558272345}
get 't', 'r5', {COLUMN => 'cf:a', VERSIONS => 3}
get 't', 'r1', {FILTER => "ValueFilter(=, 'binary:value2')"}
get 't', 'nope'
get 't', "r\x003", 'cf:'
delete 't', 'r5', 'cf:a'
get 't', 'r5', {COLUMN => 'cf:a', VERSIONS => 3}
put 't', 'r5', 'cf:a', 'third', 3000
delete 't', 'r5', 'cf:a', 3000
get 't', 'r5', {COLUMN => 'cf:a', VERSIONS => 3}
scan 't', {RAW => true, VERSIONS => 5, STARTROW => 'r5'}
deleteall 't', 'r1', 'cf:b'
get 't', 'r1'
deleteall 't', 'r1'
get 't', 'r1'
put 't', 'p1', 'cf:a', 'x', 1714558272345
put 't', 'p2', 'cf:a', 'y', 1714558272345
put 't', 'q1', 'cf:a', 'z', 1714558272345
deleteall 't', {ROWPREFIXFILTER => 'p'}
scan 't', {STARTROW => 'p', STOPROW => 'r'}
incr 't', 'counters', 'cf:hits'
incr 't', 'counters', 'cf:hits', 10
incr 't', 'counters', 'cf:hits', -3
get_counter 't', 'counters', 'cf:hits'
get_counter 't', 'counters', 'cf:none'
get 't', 'counters', {COLUMN => 'cf:hits:toLong'}
append 't', 'app', 'cf:log', 'one'
append 't', 'app', 'cf:log', "\x00two"
count 't'
count 't', INTERVAL => 2
count 't', {FILTER => "PrefixFilter('r')"}
truncate 't'
count 't'
create 'kept', 'f', SPLITS => ['m']
put 'kept', 'a', 'f:q', '1'
truncate_preserve 'kept'
get_splits 'kept'
count 'kept'
