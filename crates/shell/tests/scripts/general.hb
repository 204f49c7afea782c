status
status 'summary'
whoami
version
help 'get'
help 'namespace'
table_help
status 'simple'
