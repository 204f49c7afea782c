create 'pr', 'f', SPLITS => ['m']
disable 'pr'
drop 'pr'
drop 'pr'
create 'pr2', 'f'
split 'pr2', 'g'
list_procedures
list_locks
