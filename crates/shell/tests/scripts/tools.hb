create 't', 'f'
put 't', 'a', 'f:q', '1', 1714558272345
put 't', 'm', 'f:q', '2', 1714558272345
put 't', 'z', 'f:q', '3', 1714558272345
flush 't'
compact 't'
compact 't', 'f'
major_compact 't'
split 't', 'm'
get_splits 't'
list_regions 't'
scan 't'
flush 'nope'
compact 't', 'nope'
