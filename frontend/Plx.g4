// Plx.g4 - grammar of the .plx spec language (docs/language.md).
//
// The grammar is deliberately generic: a file is imports followed by
// declarations `kind name { field = value; ... }`. Which kinds, fields, units
// and values are allowed is decided by the semantic pass (frontend/Sema),
// which can then say precisely what is wrong and where.
grammar Plx;

file        : importDecl* declaration* EOF ;

importDecl  : 'import' STRING ';' ;

declaration : kind=IDENT name=IDENT body=block ;

block       : '{' field* '}' ;

field       : key=IDENT '=' value ';'
            | key=IDENT block ';'?
            ;

value       : quantity                                  # QuantityValue
            | STRING                                    # StringValue
            | IDENT block?                              # NamedValue
            | IDENT '(' (argument (',' argument)*)? ')' # CallValue
            | '[' (value (',' value)*)? ']'             # ListValue
            ;

argument    : (key=IDENT '=')? value ;

// A number with an optional unit: 40 GB, 400 Gb/s, 1.8TB/s, 384Ki, 10 ms.
quantity    : sign='-'? NUMBER unit? ;
unit        : IDENT ('/' IDENT)? ;

IDENT       : [A-Za-z_] [A-Za-z0-9_]* ;
NUMBER      : DIGITS ('.' DIGITS)? ([eE] [+-]? DIGITS)? ;
fragment DIGITS : [0-9] ('_'? [0-9])* ;
STRING      : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS            : [ \t\r\n]+ -> skip ;

// Anything else is one bad character; the parser reports it in place.
ERROR_CHAR  : . ;
