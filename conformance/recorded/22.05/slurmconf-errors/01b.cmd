# unknown-key: append an unknown key 'FooBarBaz=1'
sinfo
