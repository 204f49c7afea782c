create 't', 'f'
create 't', 'f'
create 'u'
create 'bad name', 'f'
create 'v', {NAME => 'f', VERSIONS => 'many'}
create 'v', {NAME => 'f', BLOOMFILTER => 'SOMETIMES'}
create 'v', 'f', {NUMREGIONS => 1, SPLITALGO => 'HexStringSplit'}
create 'v', 'f', {NUMREGIONS => 4}
create 't', }
put 't', 'r', 'f:q'
put 't', 'r', 'nope:q', 'v'
put 't', '', 'f:q', 'v'
put 't', 'r', 'f:q', 'v', -5
put 'missing', 'r', 'f:q', 'v'
get 'missing', 'r'
scan 'missing'
scan 't', {LIMIT => 'ten'}
scan 't', {BOGUS => 1}
scan 't', {FILTER => "NoSuchFilter('x')"}
scan 't', {FILTER => "PrefixFilter('unclosed"}
scan 't', {TIMERANGE => [5]}
get 't', 'r', {FILTER => "ValueFilter(=, 'binary:x'"}
drop 't'
disable 'missing'
enable 't'
alter 't', NAME => 'nope', METHOD => 'delete'
alter 't', METHOD => 'sideways'
describe 'missing'
incr 't', 'r', 'f:q', 'lots'
put 't', 'text', 'f:q', 'not a counter'
incr 't', 'text', 'f:q'
get_counter 't', 'text', 'f:q'
drop_namespace 'default'
drop_namespace 'nope'
create_namespace 'default'
list_namespace_tables 'nope'
list '['
merge_region 'aaa', 'bbb'
split 'missing'
frobnicate 't'
x.scan
put 't', "\xZZ", 'f:q', 'v'
put 't', @
get('t', 'r'
disable 't'
scan 't'
put 't', 'r', 'f:q', 'v'
enable 't'
