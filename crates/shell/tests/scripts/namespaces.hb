list_namespace
create_namespace 'ns1'
create_namespace 'ns2', {'PROPERTY_NAME' => 'PROPERTY_VALUE'}
describe_namespace 'ns2'
alter_namespace 'ns1', {METHOD => 'set', 'k1' => 'v1', 'k2' => 'v2'}
describe_namespace 'ns1'
alter_namespace 'ns1', {METHOD => 'unset', NAME => 'k1'}
describe_namespace 'ns1'
list_namespace
list_namespace 'ns.*'
create 'ns1:t', 'f'
create 'ns1:u', 'f'
list_namespace_tables 'ns1'
list_namespace_tables 'default'
list
put 'ns1:t', 'r', 'f:q', 'in-ns1', 1714558272345
scan 'ns1:t'
drop_namespace 'ns1'
disable 'ns1:t'
drop 'ns1:t'
disable 'ns1:u'
drop 'ns1:u'
drop_namespace 'ns1'
list_namespace
describe_namespace 'ns1'
create_namespace 'ns2'
