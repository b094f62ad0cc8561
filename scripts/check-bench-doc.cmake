# ctest bench-doc-up-to-date-<bench>: reruns a bench with --markdown and
# compares the table it writes with the committed copy under docs/generated/.
# Usage: cmake -DBENCH=<exe> -DOUT=<tmp.md> -DDOC=<docs/generated/x.md> -P this
execute_process(COMMAND ${BENCH} --markdown ${OUT}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BENCH} --markdown ${OUT} failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${DOC}
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "${DOC} is not what ${BENCH} prints now; run "
                      "scripts/update-bench-docs.sh (diff ${OUT} ${DOC})")
endif()
