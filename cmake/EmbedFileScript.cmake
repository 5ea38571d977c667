file(READ ${IN} content)
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\nextern const char* const ${SYM};\nconst char* const ${SYM} = R\"wsc_embed(${content})wsc_embed\";\n")
