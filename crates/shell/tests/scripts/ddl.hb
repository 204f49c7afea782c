create 't1', 'f1', 'f2', 'f3'
create 't2', {NAME => 'f1', VERSIONS => 5, TTL => 2592000, BLOCKCACHE => true, IN_MEMORY => true}
describe 't2'
create 't3', 'f1', SPLITS => ['10', '20', '30']
get_splits 't3'
create 't4', 'f1', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}
get_splits 't4'
create 't5', 'f1', MAX_FILESIZE => '134217728', DURABILITY => 'ASYNC_WAL', METADATA => {'owner' => 'ops'}
describe 't5'
create 't6', {NAME => 'f', METADATA => {'mk' => 'mv'}, CONFIGURATION => {'hbase.hstore.blockingStoreFiles' => '20'}}
describe 't6'
list
list 't[12]'
exists 't1'
exists 'nope'
is_enabled 't1'
is_disabled 't1'
alter 't1', NAME => 'f1', VERSIONS => 5
alter 't1', 'f4'
alter 't1', NAME => 'f2', METHOD => 'delete'
alter 't1', 'delete' => 'f3'
alter 't1', {NAME => 'f1', TTL => 'FOREVER'}, {NAME => 'f5', BLOOMFILTER => 'ROWCOL'}
describe 't1'
alter 't5', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'
alter 't5', MEMSTORE_FLUSHSIZE => '268435456'
describe 't5'
disable 't1'
is_enabled 't1'
is_disabled 't1'
describe 't1'
enable 't1'
disable 't2'
drop 't2'
exists 't2'
list_regions 't3'
show_filters
t = get_table 't3'
t.put 'r', 'f1:q', 'v', 1714558272345
t.scan
t.get 'r'
t.count
create 'multi', 'a',
  'b',
  {NAME => 'c',
   VERSIONS => 2}
describe 'multi'
