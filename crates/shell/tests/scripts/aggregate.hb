create 'agg', 'f', SPLITS => ['g', 'p']
incr 'agg', 'a', 'f:v', 10
incr 'agg', 'h', 'f:v', -4
incr 'agg', 'q', 'f:v', 30
incr 'agg', 'z', 'f:v', 7
incr 'agg', 'a', 'f:w', 1
incr 'agg', 'h', 'f:w', 1
incr 'agg', 'q', 'f:w', 5
incr 'agg', 'z', 'f:w', 1
put 'agg', 'm', 'f:v', 'text'
aggregate 'agg', 'f:v', 'SUM'
aggregate 'agg', 'f:v', 'MAX'
aggregate 'agg', 'f:v', 'MIN'
aggregate 'agg', 'f:v', 'ROWNUM'
aggregate 'agg', 'f:v', 'AVG'
aggregate 'agg', 'f:v', 'STD'
aggregate 'agg', 'f:v', 'MEDIAN'
aggregate 'agg', 'f:v', 'MEDIAN', {WEIGHT => 'f:w'}
aggregate 'agg', 'f:v', 'sum', {STARTROW => 'b', STOPROW => 'r'}
aggregate 'agg', 'f:v', 'MAX', {FILTER => "PrefixFilter('z')"}
aggregate 'agg', 'f:v', 'SUM', {STARTROW => 'x', STOPROW => 'y'}
aggregate 'agg', 'f', 'ROWNUM'
aggregate 'agg', 'f:v', 'MODE'
aggregate 'agg', 'f:v', 'SUM', {INTERPRETER => 'BigDecimal'}
aggregate 'agg', 'f:v', 'SUM', {COLUMNS => ['f:w']}
aggregate 'nope', 'f:v', 'SUM'
