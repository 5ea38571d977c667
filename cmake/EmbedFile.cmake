# wsc_embed_file(<out.cpp> <input file> <C++ symbol>)
# Turns a text file into a C++ source defining `const char* <symbol>`, so the default scenario is
# compiled into the binary and `wsc run` works without any file next to it.
function(wsc_embed_file out in symbol)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${in} -DOUT=${out} -DSYM=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFileScript.cmake
    DEPENDS ${in} ${PROJECT_SOURCE_DIR}/cmake/EmbedFileScript.cmake
    COMMENT "Embedding ${in}")
endfunction()
