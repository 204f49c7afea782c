# The seed documents' examples.
create 'mytable', {NAME => 'cf1', BLOCKSIZE => '65536'}
describe 'mytable'
create 'cachetest', {NAME => 'cf', BLOCKCACHE => 'FALSE', COMPRESSION => 'SNAPPY'}
desc 'cachetest'
put 'cachetest', 'r1', 'cf:q', 'snappy-compressed', 1714558272345
flush 'cachetest'
get 'cachetest', 'r1'
# Bigtable's webtable: contents keep three versions, anchors name the linking sites.
create 'webtable', {NAME => 'contents', VERSIONS => 3}, {NAME => 'anchor'}
put 'webtable', 'com.cnn.www', 'contents:html', '<html>v1', 1714558272001
put 'webtable', 'com.cnn.www', 'contents:html', '<html>v2', 1714558272002
put 'webtable', 'com.cnn.www', 'contents:html', '<html>v3', 1714558272003
put 'webtable', 'com.cnn.www', 'contents:html', '<html>v4', 1714558272004
put 'webtable', 'com.cnn.www', 'anchor:cnnsi.com', 'CNN', 1714558272005
put 'webtable', 'com.cnn.www', 'anchor:my.look.ca', 'CNN.com', 1714558272006
get 'webtable', 'com.cnn.www', {COLUMN => 'contents:html', VERSIONS => 5}
get 'webtable', 'com.cnn.www', {COLUMN => 'contents:html', TIMERANGE => [1714558272001, 1714558272003], VERSIONS => 3}
get 'webtable', 'com.cnn.www', 'anchor'
scan 'webtable', {COLUMNS => ['anchor:cnnsi.com']}
# The follower tables of HBase's schema-design examples: who follows whom, both ways.
create 'followers', 'f'
create 'following', 'f'
put 'following', 'alice', 'f:bob', '1', 1714558272100
put 'followers', 'bob', 'f:alice', '1', 1714558272100
put 'following', 'alice', 'f:carol', '1', 1714558272200
put 'followers', 'carol', 'f:alice', '1', 1714558272200
put 'following', 'bob', 'f:carol', '1', 1714558272300
put 'followers', 'carol', 'f:bob', '1', 1714558272300
scan 'following'
get 'followers', 'carol'
count 'followers'
scan 'followers', {FILTER => "QualifierFilter(=, 'binary:alice')"}
list
